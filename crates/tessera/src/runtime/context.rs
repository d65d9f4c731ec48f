//! The per-run context generated code passes back to the runtime (`RunContext`: the first
//! error of the run, the pipeline's scratch pool and the print handler), `tessera_error`,
//! `tessera_print`, and the encoding of their messages.
//!
//! An assertion's message is compiled into a constant template: literal text, with each value
//! written as `\x01TYPE\x02` (`TYPE` as `Type`'s display, e.g. `i32` or `f32x8`). On failure
//! generated code passes the template and an array of the values' raw bits (one u64 per lane,
//! zero-extended) to `tessera_error`, which formats them exactly as the interpreter does.

use std::ffi::{c_char, CStr};
use std::sync::Mutex;

use super::memo_cache::MemoCache;
use super::memory::ScratchPool;
use crate::eval::print::{printed_line, PrintHandler};
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

/// The text pieces of a template and the types of the values between them (one piece more
/// than values).
fn split_template(template: &str) -> (Vec<&str>, Vec<Type>) {
    let mut pieces = Vec::new();
    let mut types = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find(VALUE_START) {
        pieces.push(&rest[..start]);
        let after = &rest[start + 1..];
        let end = after.find(VALUE_END).unwrap_or(after.len());
        types.push(parse_type(&after[..end]));
        rest = after.get(end + 1..).unwrap_or("");
    }
    pieces.push(rest);
    (pieces, types)
}

/// The message a template and its values' bits stand for.
pub fn decode_message(template: &str, values: &[u64]) -> String {
    let (pieces, types) = split_template(template);
    let mut values = values.iter().copied();
    let mut out = pieces[0].to_string();
    for (ty, piece) in types.iter().zip(&pieces[1..]) {
        let lanes: Vec<String> = (0..ty.lanes)
            .map(|_| Value::from_bits(values.next().unwrap_or(0), ty.element()).to_string())
            .collect();
        if lanes.len() == 1 {
            out.push_str(&lanes[0]);
        } else {
            out.push_str(&format!("[{}]", lanes.join(", ")));
        }
        out.push_str(piece);
    }
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
    /// Where `print` writes.
    print: PrintHandler,
    /// The compiled pipeline's memoization cache.
    pub(super) memo: Option<&'a MemoCache>,
}

impl<'a> RunContext<'a> {
    pub fn new(scratch: &'a ScratchPool, print: PrintHandler) -> RunContext<'a> {
        RunContext {
            first_error: Mutex::new(None),
            scratch,
            print,
            memo: None,
        }
    }

    /// The context, `Func::memoize`'s lookups and stores going to `cache`.
    pub fn with_memo_cache(self, cache: &'a MemoCache) -> RunContext<'a> {
        RunContext {
            memo: Some(cache),
            ..self
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

/// Prints the lines of one evaluation of a `print`: `template` is its message, whose first
/// value is the print's value, of L lanes (1 for a scalar); `values` holds the L lanes of
/// its condition (0 or 1) and then each value's lanes, as `tessera_error`'s. Each lane
/// whose condition holds prints a line, lane after lane, its values lane-wise (a scalar
/// value the same in every lane). Returns 0.
///
/// # Safety
/// As `tessera_error`'s, with `values` holding the condition's lanes too.
pub unsafe extern "C" fn tessera_print(
    ctx: *const RunContext<'_>,
    template: *const c_char,
    values: *const u64,
) -> i32 {
    let template = CStr::from_ptr(template).to_string_lossy();
    let (pieces, types) = split_template(&template);
    let lanes = types.first().map_or(1, |t| t.lanes as usize);
    let total = lanes + types.iter().map(|t| t.lanes as usize).sum::<usize>();
    let values = std::slice::from_raw_parts(values, total);
    let (condition, values) = values.split_at(lanes);
    for (lane, &holds) in condition.iter().enumerate() {
        if holds & 1 == 0 {
            continue;
        }
        let mut offset = 0;
        let lane_values: Vec<Value> = types
            .iter()
            .map(|ty| {
                let bits = values[offset + if ty.is_vector() { lane } else { 0 }];
                offset += ty.lanes as usize;
                Value::from_bits(bits, ty.element())
            })
            .collect();
        (*ctx).print.print(&printed_line(&pieces, &lane_values));
    }
    0
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
