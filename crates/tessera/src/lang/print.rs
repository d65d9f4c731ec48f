//! `print(value, message)` and `print_when(condition, value, message)` (Halide's `print`
//! and `print_when`): the value, printing a line each time it is evaluated (where the
//! condition holds) — the value and the message's parts, separated by spaces, values
//! formatted as Halide's runtime formats them (`eval::print`). In every runner: the
//! evaluator, the interpreter and native code, where a vectorized print prints each lane.
//! The lines go to the run's print handler (`Inputs::custom_print`,
//! `Evaluator::with_custom_print`), stderr by default. Native code evaluates both arms of a
//! `select`, so a print inside one prints for either arm; `print_when` prints only where
//! its condition holds.

use super::require::MessageCall;
use crate::ir::{Expr, Intrinsic, MessagePart};

const PRINT: MessageCall = MessageCall {
    what: "print_when",
    value_leads_message: true,
};

/// `value`, printing `value` and then each of `message`'s parts, space-separated, one line
/// each time it is evaluated.
pub fn print(value: impl Into<Expr>, message: &[MessagePart]) -> Expr {
    print_when(true, value, message)
}

/// `value`, printing as `print` does where the scalar bool `condition` holds (Halide's
/// `print_when`).
pub fn print_when(
    condition: impl Into<Expr>,
    value: impl Into<Expr>,
    message: &[MessagePart],
) -> Expr {
    PRINT.call(condition.into(), value.into(), message, |message| {
        Intrinsic::Print { message }
    })
}
