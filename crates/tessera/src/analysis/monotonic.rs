//! Monotonicity of an expression in one variable (Halide's `is_monotonic`): whether it never
//! decreases, never increases, does not depend on the variable, or none of these is known,
//! as the variable grows. It reads the structure of the expression, with the monotonicity of
//! names bound outside it (a chain of lets) given in a scope, so a long chain of lets that
//! refer to each other is analysed in time linear in its size, where substituting the lets
//! into one expression would grow it exponentially.

use std::collections::HashMap;

use crate::ir::{BinaryOp, CallKind, Expr, ExprKind, Intrinsic, Symbol, UnaryOp};

/// How an expression changes as the variable grows (for a bool, false < true).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Monotonic {
    /// It does not depend on the variable.
    Constant,
    /// It never decreases.
    Increasing,
    /// It never increases.
    Decreasing,
    /// Unknown.
    Unknown,
}

use Monotonic::*;

impl Monotonic {
    fn flip(self) -> Monotonic {
        match self {
            Increasing => Decreasing,
            Decreasing => Increasing,
            other => other,
        }
    }

    /// The direction of a sum (or a min, max, and, or) of two operands moving so.
    fn and(self, other: Monotonic) -> Monotonic {
        match (self, other) {
            (Constant, m) | (m, Constant) => m,
            (a, b) if a == b => a,
            _ => Unknown,
        }
    }

    /// Whether it never decreases (a constant included).
    pub fn never_decreases(self) -> bool {
        matches!(self, Constant | Increasing)
    }

    /// Whether it never increases (a constant included).
    pub fn never_increases(self) -> bool {
        matches!(self, Constant | Decreasing)
    }
}

/// How `e` moves as `var` grows; names in `scope` move as the scope says, other names are
/// constant.
pub fn monotonicity(e: &Expr, var: Symbol, scope: &HashMap<Symbol, Monotonic>) -> Monotonic {
    let m = |e: &Expr| monotonicity(e, var, scope);
    // Anything whose operands are all constant is constant.
    let of_constants = |operands: &[&Expr]| {
        if operands.iter().all(|e| m(e) == Constant) {
            Constant
        } else {
            Unknown
        }
    };
    match e.kind() {
        ExprKind::IntImm(_) | ExprKind::UIntImm(_) | ExprKind::FloatImm(_) => Constant,
        ExprKind::Var(n) | ExprKind::RVar(n, _) | ExprKind::Param(n, _) => {
            if *n == var {
                Increasing
            } else {
                scope.get(n).copied().unwrap_or(Constant)
            }
        }
        ExprKind::Cast(a) => {
            // Widening and float conversions (which round and saturate) keep the order;
            // a narrowing integer conversion wraps.
            let (from, to) = (a.ty().element(), e.ty().element());
            if to.is_float() || from.is_float() || to.can_represent_type(from) {
                m(a)
            } else {
                of_constants(&[a])
            }
        }
        ExprKind::Unary(UnaryOp::Neg | UnaryOp::Not, a) => m(a).flip(),
        ExprKind::Unary(UnaryOp::BitNot, a) => of_constants(&[a]),
        ExprKind::Binary(op, a, b) => {
            let (ma, mb) = (m(a), m(b));
            match op {
                BinaryOp::Add | BinaryOp::Min | BinaryOp::Max | BinaryOp::And | BinaryOp::Or => {
                    ma.and(mb)
                }
                BinaryOp::Sub => ma.and(mb.flip()),
                BinaryOp::Lt | BinaryOp::Le => mb.and(ma.flip()),
                BinaryOp::Gt | BinaryOp::Ge => ma.and(mb.flip()),
                BinaryOp::Mul => match (a.as_int_const(), b.as_int_const()) {
                    (_, Some(c)) => scaled(ma, c),
                    (Some(c), _) => scaled(mb, c),
                    _ => of_constants(&[a, b]),
                },
                BinaryOp::Div => match b.as_int_const() {
                    Some(c) if c != 0 => scaled(ma, c),
                    _ => of_constants(&[a, b]),
                },
                _ => of_constants(&[a, b]),
            }
        }
        ExprKind::Select(c, t, f) => match m(c) {
            Constant => m(t).and(m(f)),
            _ => of_constants(&[c, t, f]),
        },
        ExprKind::Let(name, value, body) => {
            let mut inner = scope.clone();
            inner.insert(*name, m(value));
            monotonicity(body, var, &inner)
        }
        ExprKind::Call {
            kind: CallKind::Intrinsic(Intrinsic::Likely | Intrinsic::LikelyIfInnermost),
            args,
            ..
        } => m(&args[0]),
        ExprKind::Call { args, .. } => of_constants(&args.iter().collect::<Vec<_>>()),
        ExprKind::Load { index, .. } => of_constants(&[index]),
        ExprKind::Ramp(base, stride) => of_constants(&[base, stride]),
        ExprKind::Broadcast(a) => m(a),
        ExprKind::Invalid(_) => Unknown,
    }
}

/// The direction of `x * c` (or `x / c`) for a constant `c`.
fn scaled(x: Monotonic, c: i128) -> Monotonic {
    match c.signum() {
        0 => Constant,
        1 => x,
        _ => x.flip(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Type;

    fn v() -> Expr {
        Expr::var("v", Type::i32())
    }
    fn y() -> Expr {
        Expr::var("y", Type::i32())
    }
    fn of(e: &Expr) -> Monotonic {
        monotonicity(e, Symbol::new("v"), &HashMap::new())
    }
    fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
        Expr::binary(op, a, b)
    }

    #[test]
    fn sums_differences_and_scalings() {
        let two = Expr::i32(2);
        assert_eq!(of(&y()), Constant);
        assert_eq!(of(&bin(BinaryOp::Add, v(), y())), Increasing);
        assert_eq!(of(&bin(BinaryOp::Sub, y(), v())), Decreasing);
        assert_eq!(of(&bin(BinaryOp::Mul, v(), Expr::i32(-3))), Decreasing);
        assert_eq!(of(&bin(BinaryOp::Div, v(), two.clone())), Increasing);
        assert_eq!(of(&bin(BinaryOp::Mul, v(), y())), Unknown);
        assert_eq!(of(&bin(BinaryOp::Sub, v(), v())), Unknown);
        assert_eq!(of(&bin(BinaryOp::Mod, v(), two)), Unknown);
        let clamped = bin(
            BinaryOp::Min,
            bin(BinaryOp::Add, v(), Expr::i32(1)),
            Expr::i32(20),
        );
        assert_eq!(of(&clamped), Increasing);
    }

    #[test]
    fn selects_comparisons_and_lets() {
        let c = bin(BinaryOp::Lt, y(), Expr::i32(3));
        assert_eq!(of(&Expr::select(c, v(), y())), Increasing);
        let moving = bin(BinaryOp::Lt, v(), Expr::i32(3));
        assert_eq!(of(&moving), Decreasing);
        assert_eq!(of(&Expr::select(moving, v(), y())), Unknown);
        let t = Symbol::new("t");
        let body = bin(BinaryOp::Sub, Expr::i32(0), Expr::var(t, Type::i32()));
        assert_eq!(of(&Expr::let_in(t, v(), body.clone())), Decreasing);
        let scope: HashMap<Symbol, Monotonic> = [(t, Increasing)].into_iter().collect();
        assert_eq!(monotonicity(&body, Symbol::new("v"), &scope), Decreasing);
        // A narrowing conversion wraps.
        assert_eq!(of(&Expr::cast(Type::u8(), v())), Unknown);
        assert_eq!(of(&Expr::cast(Type::i64(), v())), Increasing);
    }
}
