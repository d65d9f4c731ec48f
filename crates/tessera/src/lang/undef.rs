//! Halide's `undef`: a value that is not there. As a whole value of a definition it stores
//! nothing — an update keeps that Tuple element as it was, a pure definition leaves its
//! storage as it was (for the output, what the buffer held) — and as an arm of a select that
//! is a whole value it makes the definition store only where the other arm is chosen.
//! Anywhere else it is an error. This module takes the undefs out of a definition's values,
//! leaving the values stored and the condition under which they are.

use super::math::select;
use super::scalar::Scalar;
use crate::error::{Error, Result};
use crate::ir::visit::any_node;
use crate::ir::{BinaryOp, CallKind, Expr, ExprKind, Intrinsic, Symbol, Type, UnaryOp};

/// Halide's `undef<T>()`.
pub fn undef<T: Scalar>() -> Expr {
    undef_of(T::TYPE)
}

/// `undef` of type `ty` (for Tuple elements whose type is known at run time).
pub fn undef_of(ty: Type) -> Expr {
    Expr::intrinsic(ty, Intrinsic::Undef, Vec::new())
}

/// `undef`, or a cast of it (a select's arms are converted to one type).
fn is_undef(e: &Expr) -> bool {
    match e.kind() {
        ExprKind::Call {
            kind: CallKind::Intrinsic(Intrinsic::Undef),
            ..
        } => true,
        ExprKind::Cast(a) => is_undef(a),
        _ => false,
    }
}

fn contains_undef(e: &Expr) -> bool {
    any_node(e, is_undef)
}

/// A value with its undefs taken out: nothing to store, or a value stored where `guard` holds
/// (everywhere if there is none).
enum Stored {
    Nothing,
    Value { value: Expr, guard: Option<Expr> },
}

fn and(a: Expr, b: Option<Expr>) -> Option<Expr> {
    Some(match b {
        Some(b) => Expr::binary(BinaryOp::And, a, b),
        None => a,
    })
}

fn take_out(e: &Expr) -> Stored {
    if is_undef(e) {
        return Stored::Nothing;
    }
    let ExprKind::Select(c, a, b) = e.kind() else {
        return Stored::Value {
            value: e.clone(),
            guard: None,
        };
    };
    if !contains_undef(a) && !contains_undef(b) {
        return Stored::Value {
            value: e.clone(),
            guard: None,
        };
    }
    match (take_out(a), take_out(b)) {
        (Stored::Nothing, Stored::Nothing) => Stored::Nothing,
        (Stored::Value { value, guard }, Stored::Nothing) => Stored::Value {
            value,
            guard: and(c.clone(), guard),
        },
        (Stored::Nothing, Stored::Value { value, guard }) => Stored::Value {
            value,
            guard: and(Expr::unary(UnaryOp::Not, c.clone()), guard),
        },
        (
            Stored::Value {
                value: va,
                guard: ga,
            },
            Stored::Value {
                value: vb,
                guard: gb,
            },
        ) => {
            let always = || Expr::bool_(true);
            let guard = (ga.is_some() || gb.is_some()).then(|| {
                select(
                    c.clone(),
                    ga.unwrap_or_else(always),
                    gb.unwrap_or_else(always),
                )
            });
            Stored::Value {
                value: select(c.clone(), va, vb),
                guard,
            }
        }
    }
}

/// The values of a definition (the `what` of Func `name`) with their undefs taken out: per
/// Tuple element the value to store (`None`: the element is undef), and the condition under
/// which the definition stores (`Some(false)` when every element is undef). The coordinates
/// `args` may not use undef.
pub(crate) fn take_out_undef(
    name: Symbol,
    what: &str,
    args: &[Expr],
    values: &[Expr],
) -> Result<(Vec<Option<Expr>>, Option<Expr>)> {
    let mut stored = Vec::new();
    let mut guards: Vec<Option<Expr>> = Vec::new();
    for v in values {
        match take_out(v) {
            Stored::Nothing => stored.push(None),
            Stored::Value { value, guard } => {
                stored.push(Some(value));
                guards.push(guard);
            }
        }
    }
    if guards.windows(2).any(|w| w[0] != w[1]) {
        return Err(Error::Definition(format!(
            "the {what} of {name} stores its Tuple elements under different conditions (selects with undef arms); its elements must be undef under the same condition"
        )));
    }
    let guard = match guards.into_iter().next() {
        Some(guard) => guard,
        None => Some(Expr::bool_(false)),
    };
    let left = args
        .iter()
        .chain(stored.iter().flatten())
        .chain(&guard)
        .find(|e| contains_undef(e));
    if let Some(e) = left {
        return Err(Error::Definition(format!(
            "the {what} of {name} uses undef inside {e}; undef can only be a whole value of a definition, or an arm of a select that is one"
        )));
    }
    Ok((stored, guard))
}
