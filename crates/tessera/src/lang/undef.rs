//! Halide's `undef`: a value that is not there. It spreads outwards through every operation
//! (`f(x)[0] + undef` is undef), so a Tuple element whose value is undef stores nothing — an
//! update keeps that element as it was, a pure definition leaves its storage as it was (for
//! the output, what the buffer held) — except through a select's arm, where it makes the
//! definition store only where the other arm is chosen (`select(x < 20, 20 * x, undef)`; in
//! a coordinate too). This module takes the undefs out of a definition's coordinates and
//! values, leaving what is stored and the condition under which it is.

use super::math::select;
use super::scalar::Scalar;
use crate::error::{Error, Result};
use crate::ir::substitute::substitute;
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

/// `a && b`, where a missing condition always holds.
fn and(a: Option<Expr>, b: Option<Expr>) -> Option<Expr> {
    match (a, b) {
        (Some(a), Some(b)) if a == b => Some(a),
        (Some(a), Some(b)) => Some(Expr::binary(BinaryOp::And, a, b)),
        (a, b) => a.or(b),
    }
}

/// `e` with its undefs taken out, as Halide's `RemoveUndef`: undef spreads outwards through
/// every operation, making the whole value undef, except through a select's arm, where it
/// makes the value stored only where the other arm is chosen.
fn take_out(e: &Expr) -> Stored {
    if !contains_undef(e) {
        return Stored::Value {
            value: e.clone(),
            guard: None,
        };
    }
    if is_undef(e) {
        return Stored::Nothing;
    }
    match e.kind() {
        ExprKind::Select(c, a, b) => {
            let Stored::Value {
                value: c,
                guard: condition_guard,
            } = take_out(c)
            else {
                return Stored::Nothing;
            };
            match take_out_of_arms(&c, a, b) {
                Stored::Value { value, guard } => Stored::Value {
                    value,
                    guard: and(condition_guard, guard),
                },
                Stored::Nothing => Stored::Nothing,
            }
        }
        // The bound value's undefs belong where it is used.
        ExprKind::Let(name, value, body) => take_out(&substitute(body, *name, value)),
        _ => {
            let mut undefined = false;
            let mut guard = None;
            let value = e.map_children(|child| match take_out(child) {
                Stored::Nothing => {
                    undefined = true;
                    child.clone()
                }
                Stored::Value {
                    value,
                    guard: child_guard,
                } => {
                    guard = and(guard.take(), child_guard);
                    value
                }
            });
            if undefined {
                Stored::Nothing
            } else {
                Stored::Value { value, guard }
            }
        }
    }
}

/// `select(c, a, b)` with the undefs of its arms taken out (`c` has none).
fn take_out_of_arms(c: &Expr, a: &Expr, b: &Expr) -> Stored {
    match (take_out(a), take_out(b)) {
        (Stored::Nothing, Stored::Nothing) => Stored::Nothing,
        (Stored::Value { value, guard }, Stored::Nothing) => Stored::Value {
            value,
            guard: and(Some(c.clone()), guard),
        },
        (Stored::Nothing, Stored::Value { value, guard }) => Stored::Value {
            value,
            guard: and(Some(Expr::unary(UnaryOp::Not, c.clone())), guard),
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
            // Each arm stores where its own undefs allow, so the guard follows the choice.
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

/// A definition's coordinates and values with their undefs taken out.
pub(crate) struct WithoutUndef {
    /// The coordinates written.
    pub args: Vec<Expr>,
    /// Per Tuple element, the value to store (`None`: the element is undef).
    pub values: Vec<Option<Expr>>,
    /// The condition under which the definition stores (`Some(false)` when every element is
    /// undef).
    pub guard: Option<Expr>,
}

/// The coordinates and values of a definition (the `what` of Func `name`) with their undefs
/// taken out. A coordinate's undefs make the definition store only where they are
/// not chosen; a coordinate undef everywhere, or Tuple elements stored under different
/// conditions, are errors.
pub(crate) fn take_out_undef(
    name: Symbol,
    what: &str,
    args: &[Expr],
    values: &[Expr],
) -> Result<WithoutUndef> {
    let mut coordinates = Vec::new();
    let mut coordinate_guard = None;
    for (i, a) in args.iter().enumerate() {
        match take_out(a) {
            Stored::Nothing => {
                return Err(Error::Definition(format!(
                    "coordinate {i} of the {what} of {name} is {a}, undef wherever it is evaluated; a coordinate may be undef only under a select's condition"
                )))
            }
            Stored::Value { value, guard } => {
                coordinates.push(value);
                coordinate_guard = and(coordinate_guard, guard);
            }
        }
    }
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
        Some(guard) => and(coordinate_guard, guard),
        None => Some(Expr::bool_(false)),
    };
    Ok(WithoutUndef {
        args: coordinates,
        values: stored,
        guard,
    })
}
