//! `min` and `max`. For integers, an operand that bounds or an exact difference of linear
//! forms proves to be the smaller (larger) one is the result: `min(x + 3, x + 10)` is `x + 3`.
//! Float min/max are `a < b ? a : b` and `a > b ? a : b`, which are neither commutative nor
//! associative with NaN around, so floats get only `min(x, x)`.

use std::sync::OnceLock;

use super::linear::LinearForm;
use super::rules::RuleSet;
use super::Simplifier;
use crate::ir::{BinaryOp, Expr, ExprKind};

pub(super) fn rules() -> &'static RuleSet {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    RULES.get_or_init(|| {
        rules! {
            Any {
                "min(x, x)" => "x";
                "max(x, x)" => "x";
                "min(select(x, y, z), select(x, w, u))" => "select(x, min(y, w), min(z, u))";
                "max(select(x, y, z), select(x, w, u))" => "select(x, max(y, w), max(z, u))";
            }
            Int {
                "min(min(x, y), x)" => "min(x, y)";
                "max(max(x, y), x)" => "max(x, y)";
                "min(max(x, y), x)" => "x";
                "max(min(x, y), x)" => "x";
                "min(min(x, c0), c1)" => "min(x, fold(min(c0, c1)))";
                "max(max(x, c0), c1)" => "max(x, fold(max(c0, c1)))";
                "min(max(x, c0), c1)" => "max(min(x, c1), c0)" if "c0 <= c1";
                "min(min(x, y), min(x, z))" => "min(min(y, z), x)";
                "max(max(x, y), max(x, z))" => "max(max(y, z), x)";
                "min(max(x, y), max(x, z))" => "max(min(y, z), x)";
                "max(min(x, y), min(x, z))" => "min(max(y, z), x)";
                "min(x / c0, y / c0)" => "min(x, y) / c0" if "c0 > 0";
                "max(x / c0, y / c0)" => "max(x, y) / c0" if "c0 > 0";
            }
            Exact {
                "min(x + c0, y + c0)" => "min(x, y) + c0";
                "max(x + c0, y + c0)" => "max(x, y) + c0";
                "min(x + y, x + z)" => "x + min(y, z)";
                "max(x + y, x + z)" => "x + max(y, z)";
                "min(x - y, x - z)" => "x - max(y, z)";
                "max(x - y, x - z)" => "x - min(y, z)";
                // Constant offsets of one value merge along a chain.
                "min(x + c0, min(x + c1, y))" => "min(x + fold(min(c0, c1)), y)";
                "max(x + c0, max(x + c1, y))" => "max(x + fold(max(c0, c1)), y)";
                "min(x + c0, min(x, y))" => "min(x + fold(min(c0, 0)), y)";
                "max(x + c0, max(x, y))" => "max(x + fold(max(c0, 0)), y)";
                "min(x, min(x + c0, y))" => "min(x + fold(min(c0, 0)), y)";
                "max(x, max(x + c0, y))" => "max(x + fold(max(c0, 0)), y)";
                // Stair steps: x rounded down to a multiple of c1, ((x + c0) / c1) * c1, lies
                // in [x + c0 - (c1 - 1), x + c0].
                "min(((x + c0) / c1) * c1, x + c2)" => "((x + c0) / c1) * c1" if "c1 > 0 && c0 <= c2";
                "min(((x + c0) / c1) * c1, x + c2)" => "x + c2" if "c1 > 0 && c2 <= c0 - c1 + 1";
                "max(((x + c0) / c1) * c1, x + c2)" => "x + c2" if "c1 > 0 && c0 <= c2";
                "max(((x + c0) / c1) * c1, x + c2)" => "((x + c0) / c1) * c1" if "c1 > 0 && c2 <= c0 - c1 + 1";
                "min(((x + c0) / c1) * c1, x)" => "((x + c0) / c1) * c1" if "c1 > 0 && c0 <= 0";
                "min(((x + c0) / c1) * c1, x)" => "x" if "c1 > 0 && c1 <= c0 + 1";
                "max(((x + c0) / c1) * c1, x)" => "x" if "c1 > 0 && c0 <= 0";
                "max(((x + c0) / c1) * c1, x)" => "((x + c0) / c1) * c1" if "c1 > 0 && c1 <= c0 + 1";
                "min((x / c1) * c1, x + c2)" => "(x / c1) * c1" if "c1 > 0 && 0 <= c2";
                "min((x / c1) * c1, x + c2)" => "x + c2" if "c1 > 0 && c2 <= 1 - c1";
                "max((x / c1) * c1, x + c2)" => "x + c2" if "c1 > 0 && 0 <= c2";
                "max((x / c1) * c1, x + c2)" => "(x / c1) * c1" if "c1 > 0 && c2 <= 1 - c1";
                "min((x / c1) * c1, x)" => "(x / c1) * c1" if "c1 > 0";
                "max((x / c1) * c1, x)" => "x" if "c1 > 0";
                "min(x * c0, y * c0)" => "min(x, y) * c0" if "c0 > 0";
                "min(x * c0, y * c0)" => "max(x, y) * c0" if "c0 < 0";
                "max(x * c0, y * c0)" => "max(x, y) * c0" if "c0 > 0";
                "max(x * c0, y * c0)" => "min(x, y) * c0" if "c0 < 0";
            }
        }
    })
}

pub(super) fn simplify(s: &mut Simplifier, e: &Expr) -> Option<Expr> {
    decide(s, e).or_else(|| rules().apply(s, e))
}

/// The operand that is known to be the result, from bounds or an exact linear difference.
fn decide(s: &mut Simplifier, e: &Expr) -> Option<Expr> {
    let ExprKind::Binary(op, a, b) = e.kind() else {
        return None;
    };
    if !a.ty().is_int_or_uint() {
        return None;
    }
    let (ia, ib) = (s.info(a), s.info(b));
    let (mut a_le_b, mut b_le_a) = (ia.hi <= ib.lo, ib.hi <= ia.lo);
    if !a_le_b && !b_le_a {
        let d = LinearForm::exact(s, a).minus(&LinearForm::exact(s, b))?;
        let (lo, hi) = d.bounds(s);
        (a_le_b, b_le_a) = (hi <= 0, lo >= 0);
    }
    let pick_a = match op {
        BinaryOp::Min => a_le_b,
        _ => b_le_a,
    };
    let pick_b = match op {
        BinaryOp::Min => b_le_a,
        _ => a_le_b,
    };
    if pick_a {
        Some(a.clone())
    } else if pick_b {
        Some(b.clone())
    } else {
        None
    }
}
