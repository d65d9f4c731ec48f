//! Promises about a value's range that bounds inference takes as its bounds (Halide's
//! `promise_clamped` and `unsafe_promise_clamped`).
//!
//! `promise_clamped` clamps as well, so it is always safe: in Tessera it is `clamp`, whose
//! bounds interval analysis already takes from its limits. `unsafe_promise_clamped` does not
//! clamp: a lookup table indexed by 10-bit data held in u16 needs only 1024 entries instead
//! of 65,536. A broken promise is caught by the evaluator, the interpreter and checked
//! native code (`Target::with_bounds_checks`), each failing the run naming the value; other
//! native code trusts it and may then read outside a buffer — hence `unsafe`.

use super::math::{cast, clamp};
use super::operators::IntoOperand;
use crate::ir::{Expr, Intrinsic};

/// `value` clamped to `[min, max]`, the bounds it is known to lie in (`clamp`).
pub fn promise_clamped(
    value: impl Into<Expr>,
    min: impl IntoOperand,
    max: impl IntoOperand,
) -> Expr {
    clamp(value, min, max)
}

/// `value`, promised to lie in `[min, max]` (converted to its type; a missing end is the
/// type's limit), which bounds inference takes as its bounds.
///
/// # Safety
///
/// Every value must lie inside the bounds. Native code compiled without bounds checks
/// trusts the promise: a value outside it may read or write outside a buffer sized from
/// it. The evaluator, the interpreter and checked native code report a broken promise
/// (`Intrinsic::PromiseClamped` is checked against `[min, max]` in each: see
/// `tests/checked_mode.rs`, `a_broken_unsafe_promise_is_reported_not_read_out_of_bounds`).
/// Building the expression itself touches no memory; the danger is only in what unchecked
/// native code later reads, which is why the function, not its body, is `unsafe`.
pub unsafe fn unsafe_promise_clamped(
    value: impl Into<Expr>,
    min: Option<Expr>,
    max: Option<Expr>,
) -> Expr {
    let value = value.into();
    let ty = value.ty();
    let end = |bound: Option<Expr>, upper: bool| match bound {
        Some(b) => cast(ty, b),
        None if ty.is_float() => Expr::make_float(
            ty,
            if upper {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            },
        ),
        None => Expr::make_const(ty, if upper { ty.int_max() } else { ty.int_min() } as i64),
    };
    let (lo, hi) = (end(min, false), end(max, true));
    Expr::intrinsic(ty, Intrinsic::PromiseClamped, vec![value, lo, hi])
}
