//! `select(c, t, f)`: constant conditions, equal arms, nested selects on the same condition,
//! bool-valued selects as logic, selects that are min/max, and common operands pulled out of
//! the arms (lane-wise identities, exact for every type they are listed for).

use std::sync::OnceLock;

use super::rules::RuleSet;
use super::Simplifier;
use crate::ir::Expr;

pub(super) fn rules() -> &'static RuleSet {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    RULES.get_or_init(|| {
        rules! {
            Any {
                "select(true, x, y)" => "x";
                "select(false, x, y)" => "y";
                "select(x, y, y)" => "y";
                "select(!x, y, z)" => "select(x, z, y)";
                "select(x, select(x, y, z), w)" => "select(x, y, w)";
                "select(x, y, select(x, z, w))" => "select(x, y, w)";
                // Float min/max are defined as exactly these selects.
                "select(x < y, x, y)" => "min(x, y)";
                "select(x < y, y, x)" => "max(y, x)";
            }
            Bool {
                "select(x, true, false)" => "x";
                "select(x, false, true)" => "!x";
                "select(x, y, false)" => "x && y";
                "select(x, true, y)" => "x || y";
                "select(x, false, y)" => "!x && y";
                "select(x, y, true)" => "!x || y";
            }
            Int {
                "select(x <= y, x, y)" => "min(x, y)";
                "select(x <= y, y, x)" => "max(x, y)";
                "select(x, y + z, y + w)" => "y + select(x, z, w)";
                "select(x, y - z, y - w)" => "y - select(x, z, w)";
                "select(x, z - y, w - y)" => "select(x, z, w) - y";
                "select(x, y * z, y * w)" => "y * select(x, z, w)";
                "select(x, min(y, z), min(y, w))" => "min(y, select(x, z, w))";
                "select(x, max(y, z), max(y, w))" => "max(y, select(x, z, w))";
            }
        }
    })
}

pub(super) fn simplify(s: &mut Simplifier, e: &Expr) -> Option<Expr> {
    rules().apply(s, e)
}
