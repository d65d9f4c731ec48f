//! Casts. Only exact rewrites: a cast of a constant folds (through `eval::value::cast`), a
//! cast of a broadcast becomes a broadcast of a cast, an integer cast of an integer ramp
//! becomes a ramp when no lane can wrap differently, and a chain of two casts becomes one
//! cast when the intermediate type loses nothing the outer cast would see (by its type, or
//! because the value's bounds fit it). Casts depend on the types involved, which the rule
//! notation does not express, so this family is code.

use super::info::type_range;
use super::Simplifier;
use crate::ir::{Expr, ExprKind, Type, TypeCode};

pub(super) fn simplify(s: &mut Simplifier, e: &Expr) -> Option<Expr> {
    let ExprKind::Cast(inner) = e.kind() else {
        return None;
    };
    let to = e.ty();
    match inner.kind() {
        ExprKind::Broadcast(v) => {
            let lanes = to.lanes / v.ty().lanes;
            let cast = s.make(Expr::cast(to.element().with_lanes(v.ty().lanes), v.clone()));
            Some(s.make(cast.broadcast_to(lanes)))
        }
        ExprKind::Ramp(..) => ramp(s, e, inner),
        ExprKind::Cast(x)
            if chain_is_one_cast(x.ty(), inner.ty(), to) || keeps_value(s, x, inner.ty()) =>
        {
            Some(if x.ty() == to {
                x.clone()
            } else {
                s.make(Expr::cast(to, x.clone()))
            })
        }
        _ => None,
    }
}

/// `cast(ramp(base, stride))` as `ramp(cast(base), cast(stride))`, for integer types.
///
/// An integer cast keeps a value modulo 2^bits of the result type, and a ramp of that type
/// computes its lanes modulo 2^bits too. Casting to at most as many bits, lane `i` is
/// `base + i*stride` modulo 2^bits either way. Casting to more bits, it is only when the
/// source ramp's lanes did not wrap: then they are the exact `base + i*stride`. (The new ramp
/// may still wrap, when it is unsigned and lanes are negative: its bounds tell.)
fn ramp(s: &mut Simplifier, e: &Expr, ramp: &Expr) -> Option<Expr> {
    let ExprKind::Ramp(base, stride) = ramp.kind() else {
        return None;
    };
    let (from, to) = (base.ty(), e.ty());
    if !from.is_int_or_uint() || !to.is_int_or_uint() {
        return None;
    }
    let widening = to.bits > from.bits;
    if widening && !s.info(ramp).no_wrap {
        return None;
    }
    let part = to.element().with_lanes(from.lanes);
    let base = s.make(Expr::cast(part, base.clone()));
    let stride = s.make(Expr::cast(part, stride.clone()));
    let lanes = to.lanes / from.lanes;
    Some(s.finish_rewrite(e, &Expr::ramp(base, stride, lanes), false))
}

/// Whether the integer cast of `x` to `via` keeps its value, as `x`'s bounds lie in `via`'s
/// range: then `to(via(x))` is `to(x)` (`i64(i32(w))` is `w` for a `w` known to fit 32 bits).
fn keeps_value(s: &mut Simplifier, x: &Expr, via: Type) -> bool {
    if !x.ty().is_int_or_uint() || !via.is_int_or_uint() {
        return false;
    }
    let info = s.info(x);
    let (lo, hi) = type_range(via.element());
    lo <= info.lo && info.hi <= hi
}

fn integral(t: Type) -> bool {
    t.code != TypeCode::Float
}

/// Whether `to(via(x))` equals `to(x)` for every `x` of type `from`.
fn chain_is_one_cast(from: Type, via: Type, to: Type) -> bool {
    // The first cast keeps the value: then only the value reaches the second cast, unless
    // the two casts convert differently (integers wrap, floats saturate into integers), which
    // matters only if the value might not fit `to`.
    let keeps_value = via.can_represent_type(from);
    let same_conversion = integral(from) == integral(via);
    if keeps_value && (same_conversion || to.can_represent_type(from)) {
        return true;
    }
    // Integer truncation: the low bits of an extension or truncation are the low bits of
    // the original, as long as the intermediate keeps at least the bits the result keeps.
    [from, via, to].iter().all(|t| t.is_int_or_uint()) && to.bits <= via.bits
}
