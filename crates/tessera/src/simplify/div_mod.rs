//! Division and modulo, Euclidean as everywhere in Tessera: the quotient rounds toward −∞, the
//! remainder is never negative, and dividing by zero gives zero — so `x / x` is not 1 and
//! `x % x` is 0. Besides the rules, a division of a linear form by a constant pulls out the
//! terms whose coefficients the constant divides (`(x*4 + 3) / 4` is `x`), and a modulo drops
//! them (`(x*8 + y) % 4` is `y % 4`); both only when the form is exact, since wraparound
//! breaks divisibility.

use std::sync::OnceLock;

use super::info::fits;
use super::linear::{rebuild, LinearForm};
use super::rules::RuleSet;
use super::Simplifier;
use crate::ir::{BinaryOp, Expr, ExprKind};

pub(super) fn rules() -> &'static RuleSet {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    RULES.get_or_init(|| {
        rules! {
            Float {
                "x / 1" => "x";
            }
            Int {
                "x / 1" => "x";
                "x / 0" => "0";
                "0 / x" => "0";
                "x / -1" => "-x";
                "x % 1" => "0";
                "x % -1" => "0";
                "x % 0" => "0";
                "0 % x" => "0";
                "x % x" => "0";
                "x / c0" => "0" if "lo(x) >= 0 && hi(x) < c0";
                "x % c0" => "x" if "lo(x) >= 0 && hi(x) < c0";
                "x % c0" => "x" if "lo(x) >= 0 && hi(x) < -c0";
                "(x % c0) % c1" => "x % c1" if "c0 != 0 && c1 != 0 && c0 % c1 == 0";
                "select(x, c1, c2) / c0" => "select(x, fold(c1 / c0), fold(c2 / c0))";
                "select(x, c1, c2) % c0" => "select(x, fold(c1 % c0), fold(c2 % c0))";
            }
            Exact {
                "(x / c0) / c1" => "x / fold(c0 * c1)" if "c0 > 0 && c1 > 0";
                "(x * c0) / c1" => "x / fold(c1 / c0)" if "c0 > 0 && c1 > 0 && c1 % c0 == 0";
                "(x * c0) % c1" => "(x % fold(c1 / c0)) * c0" if "c0 > 0 && c1 > 0 && c1 % c0 == 0";
                // Ramps, lane by lane `(x + i*c0) / c1`: a stride the divisor divides moves
                // every lane by whole quotients; and when all lanes stay in the block of
                // `|c1|` consecutive values that x is in (x's alignment or bounds tell), the
                // quotient is the same for every lane and the remainders are a ramp.
                "ramp(x, c0) / c1" => "ramp(x / c1, fold(c0 / c1))" if "c1 != 0 && c0 % c1 == 0";
                "ramp(x, c0) % c1" => "broadcast(x % c1)" if "c1 != 0 && c0 % c1 == 0";
                "ramp(x, c0, c2) / c1" => "broadcast(x / c1)" if "c1 != 0
                    && lo(x % c1) + min(c0 * (c2 - 1), 0) >= 0
                    && hi(x % c1) + max(c0 * (c2 - 1), 0) < max(c1, -c1)";
                "ramp(x, c0, c2) % c1" => "ramp(x % c1, c0)" if "c1 != 0
                    && lo(x % c1) + min(c0 * (c2 - 1), 0) >= 0
                    && hi(x % c1) + max(c0 * (c2 - 1), 0) < max(c1, -c1)";
            }
        }
    })
}

pub(super) fn simplify(s: &mut Simplifier, e: &Expr) -> Option<Expr> {
    rules().apply(s, e).or_else(|| split_linear(s, e))
}

/// The part of a linear form that a division or modulo by `c` keeps: the terms whose
/// coefficients `c` does not divide and the constant's remainder (coefficients reduced
/// modulo `c` for a modulo). Returns it as an expression only when that expression's value is
/// exactly its form's unbounded value, which the division needs.
fn exact_rest(s: &mut Simplifier, rest: &LinearForm, e: &Expr) -> Option<Expr> {
    let ty = e.ty();
    if let Some(c) = rest.as_constant() {
        return fits(ty.element(), c, c).then(|| Expr::make_const(ty, c as i64));
    }
    if rest.constant == 0 && rest.terms.len() == 1 && rest.terms[0].1 == 1 {
        return Some(rest.terms[0].0.clone());
    }
    let (lo, hi) = rest.bounds(s);
    if !fits(ty.element(), lo, hi) {
        return None;
    }
    let rebuilt = rebuild(s, rest, ty);
    rebuilt.exact.then_some(rebuilt.expr)
}

fn split_linear(s: &mut Simplifier, e: &Expr) -> Option<Expr> {
    let ExprKind::Binary(op, num, den) = e.kind() else {
        return None;
    };
    let c = den.as_int_const()?;
    if !e.ty().is_int_or_uint() || c.abs() < 2 || !s.info(num).linear_exact {
        return None;
    }
    let form = LinearForm::of(num)?;
    let divides = |k: i128| k % c == 0;
    if *op == BinaryOp::Mod {
        let m = c.abs();
        let mut rest = form.clone();
        for (_, k) in &mut rest.terms {
            *k = k.rem_euclid(m);
        }
        rest.terms.retain(|(_, k)| *k != 0);
        rest.constant = form.constant.rem_euclid(m);
        if rest == form {
            return None;
        }
        let kept = exact_rest(s, &rest, e)?;
        return Some(s.make(Expr::binary(BinaryOp::Mod, kept, den.clone())));
    }
    let (pulled, kept): (Vec<_>, Vec<_>) =
        form.terms.iter().cloned().partition(|(_, k)| divides(*k));
    let quotient_constant = form.constant.div_euclid(c);
    if pulled.is_empty() && quotient_constant == 0 {
        return None;
    }
    let rest = LinearForm {
        terms: kept,
        constant: form.constant.rem_euclid(c),
    };
    let kept = exact_rest(s, &rest, e)?;
    let kept_quotient = s.make(Expr::binary(BinaryOp::Div, kept, den.clone()));
    // (c*A + R) / c == A + R / c in unbounded integers (Euclidean division, any sign of c);
    // the result is in range because the original quotient is.
    let mut quotient = LinearForm::of(&kept_quotient)?;
    quotient.constant = quotient.constant.checked_add(quotient_constant)?;
    quotient
        .terms
        .extend(pulled.into_iter().map(|(t, k)| (t, k / c)));
    quotient.normalize();
    let rebuilt = rebuild(s, &quotient, e.ty());
    Some(s.refine_rebuilt(e, rebuilt))
}
