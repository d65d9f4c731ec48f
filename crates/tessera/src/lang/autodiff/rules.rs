//! The differentiation rules: reverse-mode accumulation through one expression (Halide's
//! `ReverseAccumulationVisitor` at expression level). The adjoint of the whole value flows
//! down the tree, each node handing its operands the adjoint times its partial derivative
//! in that operand; what reaches a call to a Func or an input image, or a float `Param`, is
//! one [`Contribution`] to that leaf's adjoint. Only float expressions carry derivatives:
//! the flow stops at a cast from an integer, and integer coordinates never carry any.
//!
//! Where a `select`, `min` or `max` chooses an operand, the condition travels down with the
//! adjoint and guards the leaf's contribution (`select(c, adjoint * ∂, 0)`), so a partial
//! derivative that is infinite or NaN where its operand is not chosen (`1 / x` guarded by
//! `x > 0`) never reaches the sum.

use crate::error::{Error, Result};
use crate::ir::parameter::InputId;
use crate::ir::substitute::inline_lets;
use crate::ir::{BinaryOp, CallKind, Expr, ExprKind, Intrinsic, Symbol, Type, UnaryOp};
use crate::lang::function::{FuncId, Function};
use crate::lang::math::{cos, cosh, floor, log, pow, select, sin, sinh, sqrt};
use crate::lang::operators::ExprOps;

/// What a contribution is the adjoint of.
#[derive(Clone, Debug)]
pub(super) enum Leaf {
    Func(Function),
    Image(InputId, Symbol),
    Param(Symbol, Type),
}

/// Identifies a leaf: a Func by identity, an image by its input, a `Param` by name.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(super) enum LeafKey {
    Func(FuncId),
    Image(InputId),
    Param(Symbol),
}

impl Leaf {
    pub(super) fn key(&self) -> LeafKey {
        match self {
            Leaf::Func(f) => LeafKey::Func(f.id()),
            Leaf::Image(id, _) => LeafKey::Image(*id),
            Leaf::Param(name, _) => LeafKey::Param(*name),
        }
    }
}

/// `adjoint` is added to the leaf's adjoint at coordinates `args` (no coordinates for a
/// `Param`).
#[derive(Clone, Debug)]
pub(super) struct Contribution {
    pub leaf: Leaf,
    pub args: Vec<Expr>,
    pub adjoint: Expr,
}

/// The contributions of `value`, whose adjoint is `seed`, to the adjoints of the leaves it
/// reads, those reading the same leaf at the same coordinates summed. `func` names the Func
/// being differentiated in errors.
pub(super) fn differentiate(value: &Expr, seed: &Expr, func: Symbol) -> Result<Vec<Contribution>> {
    let mut walk = Walk {
        func,
        found: Vec::new(),
    };
    walk.flow(&inline_lets(value), seed.clone(), None)?;
    let mut merged: Vec<Contribution> = Vec::new();
    for c in walk.found {
        let same = merged
            .iter_mut()
            .find(|m| m.leaf.key() == c.leaf.key() && m.args == c.args);
        match same {
            Some(m) => m.adjoint = m.adjoint.clone() + c.adjoint,
            None => merged.push(c),
        }
    }
    Ok(merged)
}

struct Walk {
    func: Symbol,
    found: Vec<Contribution>,
}

fn and(guard: &Option<Expr>, c: Expr) -> Option<Expr> {
    Some(match guard {
        Some(g) => g.clone().and(c),
        None => c,
    })
}

fn not(c: Expr) -> Expr {
    Expr::unary(UnaryOp::Not, c)
}

fn float(ty: Type, v: f64) -> Expr {
    Expr::make_float(ty, v)
}

impl Walk {
    fn unsupported(&self, what: &str) -> Error {
        Error::Definition(format!(
            "propagate_adjoints: cannot differentiate {what} in the definition of {}",
            self.func
        ))
    }

    fn leaf(&mut self, leaf: Leaf, args: Vec<Expr>, adjoint: Expr, guard: Option<Expr>) {
        let adjoint = match guard {
            Some(g) => select(g, adjoint.clone(), Expr::zero(adjoint.ty())),
            None => adjoint,
        };
        self.found.push(Contribution {
            leaf,
            args,
            adjoint,
        });
    }

    /// Hands `adjoint`, the adjoint of `e` where `guard` holds, down to `e`'s leaves.
    fn flow(&mut self, e: &Expr, adjoint: Expr, guard: Option<Expr>) -> Result<()> {
        let ty = e.ty();
        if !ty.is_float() {
            return Ok(());
        }
        if ty.lanes != 1 {
            return Err(self.unsupported("a vector expression"));
        }
        match e.kind() {
            ExprKind::FloatImm(_) | ExprKind::Var(_) | ExprKind::RVar(..) => Ok(()),
            // A buffer field is an integer; a float `Param` is a leaf.
            ExprKind::Param(name, None) => {
                self.leaf(Leaf::Param(*name, ty), Vec::new(), adjoint, guard);
                Ok(())
            }
            ExprKind::Param(_, Some(_)) => Ok(()),
            ExprKind::Cast(inner) => {
                let inner_ty = inner.ty();
                if inner_ty.is_float() {
                    self.flow(inner, Expr::cast(inner_ty, adjoint), guard)
                } else {
                    Ok(())
                }
            }
            ExprKind::Unary(UnaryOp::Neg, inner) => self.flow(inner, -adjoint, guard),
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, adjoint, guard),
            ExprKind::Select(c, t, f) => {
                self.flow(t, adjoint.clone(), and(&guard, c.clone()))?;
                self.flow(f, adjoint, and(&guard, not(c.clone())))
            }
            ExprKind::Call {
                name,
                kind,
                args,
                value_index,
            } => match kind {
                CallKind::Func(link) => {
                    if *value_index != 0 || link.output_count() != 1 {
                        return Err(self.unsupported(&format!("a call to the Tuple Func {name}")));
                    }
                    self.leaf(Leaf::Func(link.function()), args.clone(), adjoint, guard);
                    Ok(())
                }
                CallKind::Image(link) => {
                    self.leaf(Leaf::Image(link.id(), *name), args.clone(), adjoint, guard);
                    Ok(())
                }
                CallKind::Intrinsic(op) => self.intrinsic(e, *op, args, adjoint, guard),
            },
            ExprKind::Let(..) => unreachable!("lets are inlined before differentiating"),
            _ => Err(self.unsupported(&format!("the expression {e}"))),
        }
    }

    fn binary(
        &mut self,
        op: BinaryOp,
        a: &Expr,
        b: &Expr,
        adjoint: Expr,
        guard: Option<Expr>,
    ) -> Result<()> {
        match op {
            BinaryOp::Add => {
                self.flow(a, adjoint.clone(), guard.clone())?;
                self.flow(b, adjoint, guard)
            }
            BinaryOp::Sub => {
                self.flow(a, adjoint.clone(), guard.clone())?;
                self.flow(b, -adjoint, guard)
            }
            BinaryOp::Mul => {
                self.flow(a, adjoint.clone() * b.clone(), guard.clone())?;
                self.flow(b, adjoint * a.clone(), guard)
            }
            BinaryOp::Div => {
                self.flow(a, adjoint.clone() / b.clone(), guard.clone())?;
                self.flow(b, -(adjoint * a.clone()) / (b.clone() * b.clone()), guard)
            }
            // a mod b = a - b * floor(a / b).
            BinaryOp::Mod => {
                self.flow(a, adjoint.clone(), guard.clone())?;
                self.flow(b, -(adjoint * floor(a.clone() / b.clone())), guard)
            }
            // The operand chosen takes the whole adjoint (the first on a tie).
            BinaryOp::Min | BinaryOp::Max => {
                let first = if op == BinaryOp::Min {
                    a.clone().le(b.clone())
                } else {
                    a.clone().ge(b.clone())
                };
                self.flow(a, adjoint.clone(), and(&guard, first.clone()))?;
                self.flow(b, adjoint, and(&guard, not(first)))
            }
            _ => Err(self.unsupported(&format!("the float operator {}", op.symbol()))),
        }
    }

    fn intrinsic(
        &mut self,
        e: &Expr,
        op: Intrinsic,
        args: &[Expr],
        adjoint: Expr,
        guard: Option<Expr>,
    ) -> Result<()> {
        let ty = e.ty();
        let one = float(ty, 1.0);
        let x = args.first().cloned().unwrap_or_else(|| one.clone());
        let square = |v: &Expr| v.clone() * v.clone();
        match op {
            // Piecewise constant, or no float operand: no derivative.
            Intrinsic::Floor
            | Intrinsic::Ceil
            | Intrinsic::Round
            | Intrinsic::Trunc
            | Intrinsic::Random => Ok(()),
            Intrinsic::Reinterpret if !x.ty().is_float() => Ok(()),
            Intrinsic::SaturatingCast if x.ty().is_float() => {
                self.flow(&x, Expr::cast(x.ty(), adjoint), guard)
            }
            Intrinsic::SaturatingCast => Ok(()),
            // The value with a promise or hint about it.
            Intrinsic::PromiseClamped
            | Intrinsic::Likely
            | Intrinsic::LikelyIfInnermost
            | Intrinsic::MemoizeTag => self.flow(&x, adjoint, guard),
            Intrinsic::Abs => {
                let positive = x.clone().ge(float(ty, 0.0));
                self.flow(&x, adjoint.clone(), and(&guard, positive.clone()))?;
                self.flow(&x, -adjoint, and(&guard, not(positive)))
            }
            Intrinsic::Absd => {
                let y = args[1].clone();
                let above = x.clone().ge(y.clone());
                self.flow(&x, adjoint.clone(), and(&guard, above.clone()))?;
                self.flow(&y, -adjoint.clone(), and(&guard, above.clone()))?;
                self.flow(&x, -adjoint.clone(), and(&guard, not(above.clone())))?;
                self.flow(&y, adjoint, and(&guard, not(above)))
            }
            Intrinsic::Sqrt => self.flow(&x, adjoint / (float(ty, 2.0) * e.clone()), guard),
            Intrinsic::Exp => self.flow(&x, adjoint * e.clone(), guard),
            Intrinsic::Log => self.flow(&x, adjoint / x.clone(), guard),
            Intrinsic::Pow => {
                let y = args[1].clone();
                let dx = y.clone() * pow(x.clone(), y.clone() - one);
                self.flow(&x, adjoint.clone() * dx, guard.clone())?;
                self.flow(&y, adjoint * e.clone() * log(x), guard)
            }
            Intrinsic::Sin => self.flow(&x, adjoint * cos(x.clone()), guard),
            Intrinsic::Cos => self.flow(&x, -(adjoint * sin(x.clone())), guard),
            Intrinsic::Tan => self.flow(&x, adjoint / square(&cos(x.clone())), guard),
            Intrinsic::Asin => self.flow(&x, adjoint / sqrt(one - square(&x)), guard),
            Intrinsic::Acos => self.flow(&x, -adjoint / sqrt(one - square(&x)), guard),
            Intrinsic::Atan => self.flow(&x, adjoint / (one + square(&x)), guard),
            // atan2(y, x): the angle of the point (x, y).
            Intrinsic::Atan2 => {
                let (y, x) = (args[0].clone(), args[1].clone());
                let norm = square(&x) + square(&y);
                self.flow(
                    &y,
                    adjoint.clone() * x.clone() / norm.clone(),
                    guard.clone(),
                )?;
                self.flow(&x, -(adjoint * y) / norm, guard)
            }
            Intrinsic::Sinh => self.flow(&x, adjoint * cosh(x.clone()), guard),
            Intrinsic::Cosh => self.flow(&x, adjoint * sinh(x.clone()), guard),
            Intrinsic::Tanh => self.flow(&x, adjoint / square(&cosh(x.clone())), guard),
            Intrinsic::Hypot => {
                let y = args[1].clone();
                self.flow(&x, adjoint.clone() * x.clone() / e.clone(), guard.clone())?;
                self.flow(&y, adjoint * y.clone() / e.clone(), guard)
            }
            Intrinsic::Lerp if args[2].ty().is_float() => {
                let (a, b, w) = (args[0].clone(), args[1].clone(), args[2].clone());
                self.flow(&a, adjoint.clone() * (one - w.clone()), guard.clone())?;
                self.flow(&b, adjoint.clone() * w.clone(), guard.clone())?;
                self.flow(&w, adjoint * (b - a), guard)
            }
            other => Err(self.unsupported(&format!("the intrinsic {}", other.name()))),
        }
    }
}
