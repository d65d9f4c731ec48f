//! The per-run context generated code passes back to the runtime (`RunContext`: the first
//! error of the run and the pipeline's scratch pool), `tessera_error`, and the encoding of
//! assertion messages.
//!
//! An assertion's message is compiled into a constant template: literal text, with each value
//! written as `\x01TYPE\x02` (`TYPE` as `Type`'s display, e.g. `i32` or `f32x8`). On failure
//! generated code passes the template and an array of the values' raw bits (one u64 per lane,
//! zero-extended) to `tessera_error`, which formats them exactly as the interpreter does.

use std::ffi::{c_char, CStr};
use std::sync::Mutex;

use super::memory::ScratchPool;
use crate::eval::value::Value;
use crate::ir::Type;

/// The error code generated code returns after `tessera_error`.
pub const ERROR_CODE: i32 = -1;

const VALUE_START: char = '\x01';
const VALUE_END: char = '\x02';

/// One piece of a message template.
pub enum TemplatePart<'a> {
    Text(&'a str),
    Value(Type),
}

/// The template string of a message (see the module doc).
pub fn encode_template(parts: &[TemplatePart<'_>]) -> String {
    let mut out = String::new();
    for part in parts {
        match part {
            TemplatePart::Text(t) => out.extend(t.chars().filter(|&c| c != VALUE_START)),
            TemplatePart::Value(ty) => {
                out.push(VALUE_START);
                out.push_str(&ty.to_string());
                out.push(VALUE_END);
            }
        }
    }
    out
}

/// The message a template and its values' bits stand for.
pub fn decode_message(template: &str, values: &[u64]) -> String {
    let mut out = String::new();
    let mut values = values.iter().copied();
    let mut rest = template;
    while let Some(start) = rest.find(VALUE_START) {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let end = after.find(VALUE_END).unwrap_or(after.len());
        let ty = parse_type(&after[..end]);
        let lanes: Vec<String> = (0..ty.lanes)
            .map(|_| Value::from_bits(values.next().unwrap_or(0), ty.element()).to_string())
            .collect();
        if lanes.len() == 1 {
            out.push_str(&lanes[0]);
        } else {
            out.push_str(&format!("[{}]", lanes.join(", ")));
        }
        rest = after.get(end + 1..).unwrap_or("");
    }
    out.push_str(rest);
    out
}

/// The inverse of `Type`'s display (`u8`, `f32x16`, `bool`).
fn parse_type(s: &str) -> Type {
    let (scalar, lanes) = match s.split_once('x') {
        Some((scalar, lanes)) => (scalar, lanes.parse().unwrap_or(1)),
        None => (s, 1),
    };
    let scalar = Type::ALL_SCALARS
        .into_iter()
        .find(|t| t.to_string() == scalar)
        .unwrap_or_else(|| panic!("internal error: bad type {s:?} in a message template"));
    scalar.with_lanes(lanes)
}

/// What one run of a compiled pipeline shares with the code it runs.
pub struct RunContext<'a> {
    first_error: Mutex<Option<String>>,
    pub(super) scratch: &'a ScratchPool,
}

impl<'a> RunContext<'a> {
    pub fn new(scratch: &'a ScratchPool) -> RunContext<'a> {
        RunContext {
            first_error: Mutex::new(None),
            scratch,
        }
    }

    /// Keeps `message` unless an earlier error was recorded.
    pub fn record_error(&self, message: String) {
        let mut slot = self.first_error.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert(message);
    }

    /// The first error recorded, if any.
    pub fn take_error(&self) -> Option<String> {
        self.first_error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }
}

/// Records a failed assertion: `template` and `values` as described in the module doc.
/// Returns the code generated code then returns.
///
/// # Safety
/// `ctx` must point to a live `RunContext`, `template` to a NUL-terminated template and
/// `values` to at least as many u64 as the template's values have lanes.
pub unsafe extern "C" fn tessera_error(
    ctx: *const RunContext<'_>,
    template: *const c_char,
    values: *const u64,
) -> i32 {
    let template = CStr::from_ptr(template).to_string_lossy();
    let lanes: usize = template
        .split(VALUE_START)
        .skip(1)
        .map(|v| parse_type(v.split(VALUE_END).next().unwrap_or("")).lanes as usize)
        .sum();
    let values = if lanes == 0 {
        &[][..]
    } else {
        std::slice::from_raw_parts(values, lanes)
    };
    (*ctx).record_error(decode_message(&template, values));
    ERROR_CODE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_round_trip_values_of_every_kind() {
        let template = encode_template(&[
            TemplatePart::Text("x is "),
            TemplatePart::Value(Type::i32()),
            TemplatePart::Text(", v = "),
            TemplatePart::Value(Type::f32().with_lanes(2)),
            TemplatePart::Text("!"),
        ]);
        let bits = [
            (-5i64) as u64,
            1.5f32.to_bits() as u64,
            2.0f32.to_bits() as u64,
        ];
        assert_eq!(decode_message(&template, &bits), "x is -5, v = [1.5, 2]!");
    }
}
