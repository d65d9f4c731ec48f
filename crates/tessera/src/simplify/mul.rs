//! Multiplication. Products by a constant are linear and canonicalized with sums
//! (`linear.rs`: `(x + 1) * 3` becomes `x*3 + 3`, `x * 0` becomes `0`); products of two
//! non-constants are atoms of linear forms, with their operands in canonical order.

use std::sync::OnceLock;

use super::rules::RuleSet;
use super::{linear, Simplifier};
use crate::ir::Expr;

pub(super) fn rules() -> &'static RuleSet {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    RULES.get_or_init(|| {
        rules! {
            Any {
                "select(x, y, z) * select(x, w, u)" => "select(x, y * w, z * u)";
            }
            Float {
                // Exact: NaN and -0.0 pass through unchanged. (x * 0 is not 0: NaN, -0.0.)
                "x * 1" => "x";
            }
            Int {
                "min(x, y) * max(x, y)" => "x * y";
                "ramp(x, y) * broadcast(z)" => "ramp(x * z, y * z)";
            }
        }
    })
}

pub(super) fn simplify(s: &mut Simplifier, e: &Expr) -> Option<Expr> {
    rules().apply(s, e).or_else(|| linear::canonicalize(s, e))
}
