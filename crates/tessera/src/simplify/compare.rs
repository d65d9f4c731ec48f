//! Comparisons. `>` and `>=` become `<` and `<=` with swapped operands (exact for every type,
//! NaN included). Integer comparisons are decided by bounds (`info.rs` folds those), or by the
//! exact difference of the operands' linear forms, and otherwise normalized when that
//! difference has one term: `x + 3 < 10` becomes `x < 7`, `x*2 == 7` becomes `false`.
//! Nothing here assumes `x == x` for floats (NaN) or `x + 1 > x` for wrapping types.

use std::sync::OnceLock;

use super::info::gcd;
use super::linear::LinearForm;
use super::order;
use super::rules::RuleSet;
use super::Simplifier;
use crate::ir::{BinaryOp, Expr, ExprKind};

pub(super) fn rules() -> &'static RuleSet {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    RULES.get_or_init(|| {
        rules! {
            Any {
                "x > y" => "y < x";
                "x >= y" => "y <= x";
                // False for every value, NaN included.
                "x < x" => "false";
                "select(x, y, z) < select(x, w, u)" => "select(x, y < w, z < u)";
                "select(x, y, z) <= select(x, w, u)" => "select(x, y <= w, z <= u)";
                "select(x, y, z) == select(x, w, u)" => "select(x, y == w, z == u)";
                "select(x, y, z) != select(x, w, u)" => "select(x, y != w, z != u)";
            }
            Bool {
                "x == x" => "true";
                "x != x" => "false";
                "x <= x" => "true";
                "x == true" => "x";
                "x == false" => "!x";
                "x != true" => "!x";
                "x != false" => "x";
            }
            Int {
                "x == x" => "true";
                "x != x" => "false";
                "x <= x" => "true";
                "min(x, y) < x" => "y < x";
                "x < min(x, y)" => "false";
                "max(x, y) < x" => "false";
                "x < max(x, y)" => "x < y";
                "min(x, y) <= x" => "true";
                "x <= min(x, y)" => "x <= y";
                "max(x, y) <= x" => "y <= x";
                "x <= max(x, y)" => "true";
                "min(x, y) <= max(x, y)" => "true";
                "min(x, c0) < c1" => "true" if "c0 < c1";
                "min(x, c0) < c1" => "x < c1";
                "max(x, c0) < c1" => "false" if "c0 >= c1";
                "max(x, c0) < c1" => "x < c1";
                "c1 < min(x, c0)" => "false" if "c0 <= c1";
                "c1 < min(x, c0)" => "c1 < x";
                "c1 < max(x, c0)" => "true" if "c0 > c1";
                "c1 < max(x, c0)" => "c1 < x";
                "min(x, c0) <= c1" => "true" if "c0 <= c1";
                "min(x, c0) <= c1" => "x <= c1";
                "max(x, c0) <= c1" => "false" if "c0 > c1";
                "max(x, c0) <= c1" => "x <= c1";
                "c1 <= min(x, c0)" => "false" if "c0 < c1";
                "c1 <= min(x, c0)" => "c1 <= x";
                "c1 <= max(x, c0)" => "true" if "c0 >= c1";
                "c1 <= max(x, c0)" => "c1 <= x";
            }
            Exact {
                "x / c0 < c1" => "x < fold(c1 * c0)" if "c0 > 0";
                "c1 < x / c0" => "fold((c1 + 1) * c0 - 1) < x" if "c0 > 0";
                "x / c0 <= c1" => "x < fold((c1 + 1) * c0)" if "c0 > 0";
                "c1 <= x / c0" => "fold(c1 * c0) <= x" if "c0 > 0";
                // Division by a positive constant is monotonic (a window moving by y / 2
                // moves forward).
                "x / c1 <= (x + c0) / c1" => "true" if "c0 >= 0 && c1 > 0";
                "(x + c0) / c1 <= x / c1" => "true" if "c0 <= 0 && c1 > 0";
            }
        }
    })
}

pub(super) fn simplify(s: &mut Simplifier, e: &Expr) -> Option<Expr> {
    rules().apply(s, e).or_else(|| linear_comparison(s, e))
}

/// `a op b` for integer operands, through the exact difference `d = a - b`.
fn linear_comparison(s: &mut Simplifier, e: &Expr) -> Option<Expr> {
    let ExprKind::Binary(op, a, b) = e.kind() else {
        return None;
    };
    if !a.ty().is_int_or_uint()
        || !matches!(
            op,
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Eq | BinaryOp::Ne
        )
    {
        return None;
    }
    let d = LinearForm::exact(s, a).minus(&LinearForm::exact(s, b))?;
    let lanes = e.ty().lanes;
    let constant = |v: bool| Some(Expr::bool_(v).broadcast_to(lanes));
    let (lo, hi) = d.bounds(s);
    let decided = match op {
        BinaryOp::Lt if hi < 0 || lo >= 0 => Some(hi < 0),
        BinaryOp::Le if hi <= 0 || lo > 0 => Some(hi <= 0),
        BinaryOp::Eq | BinaryOp::Ne if lo > 0 || hi < 0 || never_zero(&d) => Some(false),
        BinaryOp::Eq | BinaryOp::Ne if lo == 0 && hi == 0 => Some(true),
        _ => None,
    };
    if let Some(v) = decided {
        return constant(if *op == BinaryOp::Ne { !v } else { v });
    }
    let rewritten = match d.terms.as_slice() {
        [(t, k)] => one_term(*op, t, *k, d.constant)?,
        [(t1, 1), (t2, -1)] | [(t2, -1), (t1, 1)] if d.constant == 0 => {
            let (t1, t2) = if op.is_commutative() && order::compare(t2, t1).is_lt() {
                (t2, t1)
            } else {
                (t1, t2)
            };
            Expr::binary(*op, t1.clone(), t2.clone())
        }
        _ => return None,
    };
    if rewritten == *e {
        return None;
    }
    Some(s.make(rewritten))
}

/// Whether `d` cannot be zero because its constant is not a multiple of the gcd of its
/// coefficients.
fn never_zero(d: &LinearForm) -> bool {
    let g = d.terms.iter().fold(0i128, |g, (_, k)| gcd(g, *k));
    g > 1 && d.constant % g != 0
}

/// `k*t + c op 0` as a comparison of `t` with a constant (when that constant fits `t`'s type).
fn one_term(op: BinaryOp, t: &Expr, k: i128, c: i128) -> Option<Expr> {
    let ty = t.ty();
    let bound = |v: i128| {
        ty.can_represent_int(v)
            .then(|| Expr::make_const(ty, v as i64))
    };
    let ceil_div = |x: i128, y: i128| -(-x).div_euclid(y);
    Some(match (op, k > 0) {
        // k*t < -c
        (BinaryOp::Lt, true) => Expr::binary(op, t.clone(), bound(ceil_div(-c, k))?),
        (BinaryOp::Lt, false) => Expr::binary(op, bound(c.div_euclid(-k))?, t.clone()),
        // k*t <= -c
        (BinaryOp::Le, true) => Expr::binary(op, t.clone(), bound((-c).div_euclid(k))?),
        (BinaryOp::Le, false) => Expr::binary(op, bound(ceil_div(c, -k))?, t.clone()),
        // k*t == -c (never_zero has ruled out a remainder)
        _ => Expr::binary(op, t.clone(), bound((-c) / k)?),
    })
}
