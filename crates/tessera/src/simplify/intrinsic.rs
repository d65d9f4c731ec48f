//! Intrinsic calls: constant arguments fold (through `eval::value::intrinsic`, in the driver);
//! rounding functions are idempotent and absorb each other and integer-valued casts;
//! `abs` of something non-negative and `saturating_cast` of something that fits are plain
//! casts.

use std::sync::OnceLock;

use super::rules::RuleSet;
use super::Simplifier;
use crate::ir::{CallKind, Expr, ExprKind, Intrinsic};

pub(super) fn rules() -> &'static RuleSet {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    RULES.get_or_init(|| {
        rules! {
            Any {
                "likely(likely(x))" => "likely(x)";
            }
            Float {
                // Each result is an integer (or NaN, ±inf, ±0 unchanged), which every
                // rounding function leaves alone.
                "floor(floor(x))" => "floor(x)";
                "floor(ceil(x))" => "ceil(x)";
                "floor(round(x))" => "round(x)";
                "floor(trunc(x))" => "trunc(x)";
                "ceil(floor(x))" => "floor(x)";
                "ceil(ceil(x))" => "ceil(x)";
                "ceil(round(x))" => "round(x)";
                "ceil(trunc(x))" => "trunc(x)";
                "round(floor(x))" => "floor(x)";
                "round(ceil(x))" => "ceil(x)";
                "round(round(x))" => "round(x)";
                "round(trunc(x))" => "trunc(x)";
                "trunc(floor(x))" => "floor(x)";
                "trunc(ceil(x))" => "ceil(x)";
                "trunc(round(x))" => "round(x)";
                "trunc(trunc(x))" => "trunc(x)";
            }
        }
    })
}

pub(super) fn simplify(s: &mut Simplifier, e: &Expr) -> Option<Expr> {
    rules().apply(s, e).or_else(|| by_type(s, e))
}

/// Rewrites that depend on the argument's type or bounds.
fn by_type(s: &mut Simplifier, e: &Expr) -> Option<Expr> {
    let ExprKind::Call {
        kind: CallKind::Intrinsic(op),
        args,
        ..
    } = e.kind()
    else {
        return None;
    };
    let arg = args.first()?;
    let (ty, arg_ty) = (e.ty(), arg.ty());
    match op {
        Intrinsic::Floor | Intrinsic::Ceil | Intrinsic::Round | Intrinsic::Trunc if matches!(arg.kind(), ExprKind::Cast(x) if !x.ty().is_float()) => {
            Some(arg.clone())
        }
        Intrinsic::Abs if arg_ty.is_uint() => Some(arg.clone()),
        Intrinsic::Abs if arg_ty.is_int() && s.info(arg).lo >= 0 => {
            Some(s.make(Expr::cast(ty, arg.clone())))
        }
        Intrinsic::Absd if !arg_ty.is_float() && args[0] == args[1] => Some(Expr::zero(ty)),
        Intrinsic::SaturatingCast if ty.can_represent_type(arg_ty.element()) => {
            Some(s.make(Expr::cast(ty, arg.clone())))
        }
        Intrinsic::SaturatingCast
            if arg_ty.is_int_or_uint() && ty.is_int_or_uint() && {
                let i = s.info(arg);
                ty.can_represent_int(i.lo) && ty.can_represent_int(i.hi)
            } =>
        {
            Some(s.make(Expr::cast(ty, arg.clone())))
        }
        _ => None,
    }
}
