//! What `print` writes (`lang::print`), the same in every runner: each value formatted as
//! Halide's runtime formats it, the line handed to the run's `PrintHandler` (stderr unless
//! one is installed, as Halide's `set_custom_print`).
//!
//! Halide's formats: integers in decimal, bools as `true`/`false`, 16- and 32-bit floats as C's
//! `%f` and 64-bit floats as C's `%e` (`1.500000e+00`); infinities `inf` and `-inf`. One
//! difference: a NaN prints `nan` whatever its sign bit (Halide prints `-nan` for a negative
//! one), since that bit differs between the evaluator's arithmetic and the CPU's.

use std::fmt;
use std::io::Write;
use std::sync::Arc;

use super::value::Value;

/// Where printed lines go: called once per line (without its newline), from whichever
/// thread evaluates the print — at the same time from several under `parallel` loops.
#[derive(Clone)]
pub struct PrintHandler(Arc<dyn Fn(&str) + Send + Sync>);

impl PrintHandler {
    /// A handler calling `f` with each line.
    pub fn new(f: impl Fn(&str) + Send + Sync + 'static) -> PrintHandler {
        PrintHandler(Arc::new(f))
    }

    /// Hands `line` to the handler.
    pub fn print(&self, line: &str) {
        (self.0)(line)
    }
}

/// Each line written whole to stderr.
impl Default for PrintHandler {
    fn default() -> PrintHandler {
        PrintHandler::new(|line| {
            // One locked write per line, so lines printed by parallel loops do not mix.
            let _ = writeln!(std::io::stderr().lock(), "{line}");
        })
    }
}

impl fmt::Debug for PrintHandler {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("PrintHandler")
    }
}

/// The line a print writes: the text `pieces` with `values` between them, formatted.
pub fn printed_line(pieces: &[&str], values: &[Value]) -> String {
    let mut line = String::new();
    for (i, piece) in pieces.iter().enumerate() {
        if i > 0 {
            if let Some(&v) = values.get(i - 1) {
                line.push_str(&format_printed(v));
            }
        }
        line.push_str(piece);
    }
    line
}

/// `v` as Halide's `print` shows it (see the module doc).
pub fn format_printed(v: Value) -> String {
    match v {
        // Halide prints a float16 as the float it widens to.
        Value::F16(x) => format_float(x.to_f64(), false),
        Value::F32(x) => format_float(f64::from(x), false),
        Value::F64(x) => format_float(x, true),
        other => other.to_string(),
    }
}

/// C's `%f` (`scientific` false) or `%e` of `x`, with `nan` and `inf` as Halide spells them.
fn format_float(x: f64, scientific: bool) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    if !scientific {
        return format!("{x:.6}");
    }
    // Rust writes the exponent bare (`1.5e0`); C signs it and gives it two digits at least.
    let text = format!("{x:.6e}");
    let (mantissa, exponent) = text.split_once('e').expect("`{:e}` writes an exponent");
    let exponent: i32 = exponent.parse().expect("`{:e}` writes an integer exponent");
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_print_as_halide_prints_them() {
        let cases = [
            (Value::Int(-42), "-42"),
            (Value::UInt(u64::MAX), "18446744073709551615"),
            (Value::Bool(true), "true"),
            (Value::F32(42.0), "42.000000"),
            (Value::F32(-0.0), "-0.000000"),
            // A tie at the sixth decimal rounds to even, as glibc's `%f`.
            (Value::F32(1.0 / 128.0), "0.007812"),
            (
                Value::F32(f32::MAX),
                "340282346638528859811704183484516925440.000000",
            ),
            (Value::F32(f32::NEG_INFINITY), "-inf"),
            (Value::F32(-f32::NAN), "nan"),
            (Value::F64(1234.5), "1.234500e+03"),
            (Value::F64(0.0), "0.000000e+00"),
            (Value::F64(-2.5e-300), "-2.500000e-300"),
            (Value::F64(f64::INFINITY), "inf"),
        ];
        for (value, printed) in cases {
            assert_eq!(format_printed(value), printed, "{value:?}");
        }
    }
}
