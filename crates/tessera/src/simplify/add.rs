//! Addition. Integer sums are put in canonical linear form (`linear.rs`), which folds
//! constants, cancels terms and orders operands; the rules below handle what linear forms
//! cannot see: selects, min/max pairs and vector ramps.

use std::sync::OnceLock;

use super::rules::RuleSet;
use super::{linear, Simplifier};
use crate::ir::Expr;

pub(super) fn rules() -> &'static RuleSet {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    RULES.get_or_init(|| {
        rules! {
            Any {
                "select(x, y, z) + select(x, w, u)" => "select(x, y + w, z + u)";
            }
            Int {
                "min(x, y) + max(x, y)" => "x + y";
                "ramp(x, y) + broadcast(z)" => "ramp(x + z, y)";
                "ramp(x, y) + ramp(z, w)" => "ramp(x + z, y + w)";
            }
        }
    })
}

pub(super) fn simplify(s: &mut Simplifier, e: &Expr) -> Option<Expr> {
    rules().apply(s, e).or_else(|| linear::canonicalize(s, e))
}
