//! Subtraction and negation (`-x` is simplified as a difference). Integer differences go through canonical linear forms
//! (`linear.rs`), which is what turns `(x + 10) - (x + 3)` into `7` and `x - x` into `0`; the
//! rules cover floats (only the exact identities) and what linear forms cannot see.

use std::sync::OnceLock;

use super::rules::RuleSet;
use super::{linear, Simplifier};
use crate::ir::Expr;

pub(super) fn rules() -> &'static RuleSet {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    RULES.get_or_init(|| {
        rules! {
            Any {
                "select(x, y, z) - select(x, w, u)" => "select(x, y - w, z - u)";
            }
            Float {
                // x - 0.0 is x even for -0.0 and NaN; 0.0 - x is not -x (0.0 - 0.0 is +0.0).
                "x - 0" => "x";
                "-(-x)" => "x";
            }
            Int {
                "ramp(x, y) - broadcast(z)" => "ramp(x - z, y)";
                "broadcast(z) - ramp(x, y)" => "ramp(z - x, 0 - y)";
                "ramp(x, y) - ramp(z, w)" => "ramp(x - z, y - w)";
                "-ramp(x, y)" => "ramp(-x, -y)";
            }
            Exact {
                // A window [x / c1, (x + c0) / c1] (a region of a downsampled Func) has an
                // extent that does not depend on x beyond its remainder.
                "(x + c0) / c1 - x / c1" => "((x % c1) + c0) / c1" if "c1 > 0";
            }
        }
    })
}

pub(super) fn simplify(s: &mut Simplifier, e: &Expr) -> Option<Expr> {
    rules().apply(s, e).or_else(|| linear::canonicalize(s, e))
}
