//! `&&`, `||` and `!` on bools. Dropping an operand is fine even though `&&` and `||`
//! short-circuit: expressions have no side effects, so only the value matters.

use std::sync::OnceLock;

use super::rules::RuleSet;
use super::Simplifier;
use crate::ir::Expr;

pub(super) fn rules() -> &'static RuleSet {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    RULES.get_or_init(|| {
        rules! {
            Bool {
                "x && true" => "x";
                "x && false" => "false";
                "x || false" => "x";
                "x || true" => "true";
                "x && x" => "x";
                "x || x" => "x";
                "x && !x" => "false";
                "x || !x" => "true";
                "x && (x || y)" => "x";
                "x || (x && y)" => "x";
                "(x && y) && x" => "x && y";
                "(x || y) || x" => "x || y";
                "!!x" => "x";
                // NaN makes both sides false, so these hold for floats too.
                "!(x == y)" => "x != y";
                "!(x != y)" => "x == y";
                "!(x < y)" => "y <= x" if "is_int(x)";
                "!(x <= y)" => "y < x" if "is_int(x)";
                "x < c0 && x < c1" => "x < fold(min(c0, c1))" if "is_int(x)";
                "c0 < x && c1 < x" => "fold(max(c0, c1)) < x" if "is_int(x)";
                "x < c0 || x < c1" => "x < fold(max(c0, c1))" if "is_int(x)";
                "c0 < x || c1 < x" => "fold(min(c0, c1)) < x" if "is_int(x)";
                // One value against two bounds is one comparison with their min or max; not
                // for a constant shared by two conditions, which loop trimming solves one by
                // one (`a <= 73 && b <= 73` bounds two loops).
                "x <= y && x <= z" => "x <= min(y, z)" if "is_int(x) && !is_const(x)";
                "x <= y || x <= z" => "x <= max(y, z)" if "is_int(x) && !is_const(x)";
                "y <= x && z <= x" => "max(y, z) <= x" if "is_int(x) && !is_const(x)";
                "y <= x || z <= x" => "min(y, z) <= x" if "is_int(x) && !is_const(x)";
                "x < y && x < z" => "x < min(y, z)" if "is_int(x) && !is_const(x)";
                "x < y || x < z" => "x < max(y, z)" if "is_int(x) && !is_const(x)";
                "y < x && z < x" => "max(y, z) < x" if "is_int(x) && !is_const(x)";
                "y < x || z < x" => "min(y, z) < x" if "is_int(x) && !is_const(x)";
                "x < y && y <= x" => "false";
                "x < y || y <= x" => "true" if "is_int(x)";
                "x <= y && y < x" => "false";
                "x <= y || y < x" => "true" if "is_int(x)";
                "x == c0 && x == c1" => "false" if "is_int(x) && c0 != c1";
                "x != c0 || x != c1" => "true" if "is_int(x) && c0 != c1";
                "select(x, y, z) && select(x, w, u)" => "select(x, y && w, z && u)";
                "select(x, y, z) || select(x, w, u)" => "select(x, y || w, z || u)";
            }
        }
    })
}

pub(super) fn simplify(s: &mut Simplifier, e: &Expr) -> Option<Expr> {
    rules().apply(s, e)
}
