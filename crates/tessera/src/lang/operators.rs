//! Operator overloading for the embedded language, with Halide's type-coercion rules:
//! a Rust literal takes the type of the other operand (an integer literal must fit in it; a
//! float literal turns an integer operand into f32); otherwise float beats integer, the wider
//! of two floats or two unsigned types wins, and mixed signed/unsigned integers become a
//! signed integer of the wider width. Mixes Halide refuses (arithmetic on bools, bitwise ops
//! on floats, vectors of different widths) produce an `Invalid` expression that the Func
//! definition using it reports as an error.

use std::ops::{
    Add, AddAssign, BitAnd, BitOr, BitXor, Div, DivAssign, Mul, MulAssign, Neg, Not, Rem, Shl, Shr,
    Sub, SubAssign,
};

use super::rdom::RVar;
use super::var::Var;
use crate::ir::{BinaryOp, Expr, ExprKind, Type, TypeCode, UnaryOp};

/// An operand before coercion: an expression or a not-yet-typed Rust literal.
#[derive(Clone, Debug)]
pub enum Operand {
    /// An expression, of its own type.
    Expr(Expr),
    /// An integer literal, taking the type of the other operand.
    Int(i64),
    /// A float literal, taking the other operand's float type (f32 against an integer).
    Float(f64),
}

/// What an operator or math function accepts: an Expr, a Var, an RVar or a Rust literal.
pub trait IntoOperand {
    /// The operand, its literal not yet typed.
    fn into_operand(self) -> Operand;
}

macro_rules! expr_operand {
    ($($t:ty),*) => {$(
        impl IntoOperand for $t {
            fn into_operand(self) -> Operand {
                Operand::Expr(self.into())
            }
        }
    )*};
}
expr_operand!(Expr, Var, RVar, &Var, &RVar);

/// An operand as it is, e.g. for lists mixing expressions and literals (`mux`).
impl IntoOperand for Operand {
    fn into_operand(self) -> Operand {
        self
    }
}
impl IntoOperand for &Expr {
    fn into_operand(self) -> Operand {
        Operand::Expr(self.clone())
    }
}
impl IntoOperand for i32 {
    fn into_operand(self) -> Operand {
        Operand::Int(self as i64)
    }
}
impl IntoOperand for f32 {
    fn into_operand(self) -> Operand {
        Operand::Float(self as f64)
    }
}
impl IntoOperand for f64 {
    fn into_operand(self) -> Operand {
        Operand::Float(self)
    }
}

impl From<i32> for Expr {
    fn from(v: i32) -> Expr {
        Expr::i32(v)
    }
}
impl From<f32> for Expr {
    fn from(v: f32) -> Expr {
        Expr::f32(v)
    }
}
impl From<f64> for Expr {
    fn from(v: f64) -> Expr {
        Expr::f64(v)
    }
}
/// An f16 constant is an f16 Expr (Halide's `Expr(float16_t)`): with an operand of another
/// float type it is widened or narrowed by the usual matching, unlike a Rust float literal.
impl From<half::f16> for Expr {
    fn from(v: half::f16) -> Expr {
        Expr::make_float(Type::f16(), v.to_f64())
    }
}
impl IntoOperand for half::f16 {
    fn into_operand(self) -> Operand {
        Operand::Expr(self.into())
    }
}
impl From<bool> for Expr {
    fn from(v: bool) -> Expr {
        Expr::bool_(v)
    }
}
impl From<&Expr> for Expr {
    fn from(e: &Expr) -> Expr {
        e.clone()
    }
}

fn is_invalid(e: &Expr) -> bool {
    matches!(e.kind(), ExprKind::Invalid(_))
}

/// A literal converted to type `ty`, or an Invalid expression if it does not fit.
fn literal_as(op: &str, lit: &Operand, ty: Type) -> Expr {
    match *lit {
        Operand::Int(v) => match ty.code {
            TypeCode::Float => Expr::make_float(ty, v as f64),
            TypeCode::Bool => Expr::invalid(ty, format!("cannot combine the integer {v} with a bool in `{op}`; cast the bool to an integer type first")),
            _ if ty.can_represent_int(v as i128) => Expr::make_const(ty, v),
            _ => Expr::invalid(ty, format!("the integer constant {v} does not fit in {ty} (in `{op}`); cast one side explicitly")),
        },
        Operand::Float(v) => Expr::make_float(ty, v),
        Operand::Expr(_) => unreachable!(),
    }
}

/// Applies Halide's `match_types` to two expressions.
pub fn match_types(op: &str, a: Expr, b: Expr) -> (Expr, Expr) {
    if is_invalid(&a) || is_invalid(&b) || a.ty() == b.ty() {
        return (a, b);
    }
    let (la, lb) = (a.ty().lanes, b.ty().lanes);
    let (a, b) = if la == lb {
        (a, b)
    } else if la == 1 {
        (a.broadcast_to(lb), b)
    } else if lb == 1 {
        let b = b.broadcast_to(la);
        (a, b)
    } else {
        let msg = format!("cannot combine vectors of {la} and {lb} lanes in `{op}`");
        return (
            Expr::invalid(a.ty(), msg.clone()),
            Expr::invalid(a.ty(), msg),
        );
    };
    let (ta, tb) = (a.ty(), b.ty());
    if ta == tb {
        return (a, b);
    }
    let lanes = ta.lanes;
    if ta.is_bool() || tb.is_bool() {
        let msg = format!(
            "cannot combine {ta} and {tb} in `{op}`; cast the bool to an integer type first"
        );
        return (Expr::invalid(ta, msg.clone()), Expr::invalid(ta, msg));
    }
    match (ta.is_float(), tb.is_float()) {
        (false, true) => (Expr::cast(tb, a), b),
        (true, false) => (a.clone(), Expr::cast(ta, b)),
        (true, true) => {
            let t = if ta.bits >= tb.bits { ta } else { tb };
            (Expr::cast(t, a), Expr::cast(t, b))
        }
        (false, false) if ta.is_uint() && tb.is_uint() => {
            let t = if ta.bits >= tb.bits { ta } else { tb };
            (Expr::cast(t, a), Expr::cast(t, b))
        }
        (false, false) => {
            let t = Type::int(ta.bits.max(tb.bits)).with_lanes(lanes);
            (Expr::cast(t, a), Expr::cast(t, b))
        }
    }
}

/// Coerces two operands to one type: literals adapt to the expression beside them.
pub fn coerce(op: &str, a: Operand, b: Operand) -> (Expr, Expr) {
    match (a, b) {
        (Operand::Expr(a), Operand::Expr(b)) => match_types(op, a, b),
        (Operand::Expr(a), lit) => coerce_with_literal(op, a, &lit, false),
        (lit, Operand::Expr(b)) => coerce_with_literal(op, b, &lit, true),
        (a, b) => {
            let (a, b) = (operand_default_expr(a), operand_default_expr(b));
            match_types(op, a, b)
        }
    }
}

/// Coerces a list of operands to one type, the one `coerce` reaches folding over the list:
/// expressions meet by Halide's `match_types`, literals take the type of the expressions.
pub fn coerce_list(op: &str, operands: Vec<Operand>) -> Vec<Expr> {
    let Some(first) = operands.first() else {
        return Vec::new();
    };
    let anchor = operands[1..].iter().fold(first.clone(), |anchor, o| {
        Operand::Expr(coerce(op, anchor, o.clone()).0)
    });
    operands
        .into_iter()
        .map(|o| coerce(op, anchor.clone(), o).1)
        .collect()
}

fn operand_default_expr(o: Operand) -> Expr {
    match o {
        Operand::Expr(e) => e,
        Operand::Int(v) => Expr::int(v, 32),
        Operand::Float(v) => Expr::f32(v as f32),
    }
}

fn coerce_with_literal(op: &str, e: Expr, lit: &Operand, literal_first: bool) -> (Expr, Expr) {
    let e = match lit {
        Operand::Float(_) if !e.ty().is_float() && !is_invalid(&e) => {
            Expr::cast(Type::f32().with_lanes(e.ty().lanes), e)
        }
        _ => e,
    };
    let l = literal_as(op, lit, e.ty().element()).broadcast_to(e.ty().lanes);
    if literal_first {
        (l, e)
    } else {
        (e, l)
    }
}

/// `a op b` with coercion and the operator's own type rules.
pub fn binary_op(op: BinaryOp, a: Operand, b: Operand) -> Expr {
    let name = op.symbol();
    let (a, b) = coerce(name, a, b);
    for e in [&a, &b] {
        if is_invalid(e) {
            return e.clone();
        }
    }
    let ty = a.ty();
    use BinaryOp::*;
    let problem = match op {
        Add | Sub | Mul | Div | Mod | Min | Max if ty.is_bool() => Some(format!(
            "cannot apply `{name}` to bools; cast them to an integer type first"
        )),
        And | Or if !ty.is_bool() => Some(format!("`{name}` needs bool operands, not {ty}")),
        BitAnd | BitOr | BitXor | Shl | Shr if ty.is_float() => {
            Some(format!("`{name}` needs integer operands, not {ty}"))
        }
        Shl | Shr if ty.is_bool() => Some(format!("`{name}` needs integer operands, not bool")),
        _ => None,
    };
    match problem {
        Some(msg) => Expr::invalid(
            if op.is_comparison() {
                Type::bool_()
            } else {
                ty
            },
            msg,
        ),
        None => Expr::binary(op, a, b),
    }
}

/// `&`, `|`, `^` on bools are the logical operators; on integers they are bitwise.
fn bitwise_or_logical(op: BinaryOp, a: Operand, b: Operand) -> Expr {
    let both_bool = [&a, &b]
        .iter()
        .all(|o| matches!(o, Operand::Expr(e) if e.ty().is_bool()));
    let op = match (both_bool, op) {
        (true, BinaryOp::BitAnd) => BinaryOp::And,
        (true, BinaryOp::BitOr) => BinaryOp::Or,
        (true, BinaryOp::BitXor) => BinaryOp::Ne,
        _ => op,
    };
    binary_op(op, a, b)
}

/// `a << b` / `a >> b`: the shift amount is converted to the type of the shifted value.
fn shift(op: BinaryOp, a: Operand, b: Operand) -> Expr {
    match (a, b) {
        (Operand::Expr(a), Operand::Expr(b))
            if a.ty() != b.ty() && !b.ty().is_float() && !a.ty().is_float() && !is_invalid(&b) =>
        {
            let b = Expr::cast(a.ty().with_lanes(b.ty().lanes), b);
            binary_op(op, Operand::Expr(a), Operand::Expr(b))
        }
        (a, b) => binary_op(op, a, b),
    }
}

macro_rules! impl_binary_trait {
    ($Trait:ident, $method:ident, $combine:expr) => {
        impl<R: IntoOperand> $Trait<R> for Expr {
            type Output = Expr;
            fn $method(self, rhs: R) -> Expr {
                $combine(self.into_operand(), rhs.into_operand())
            }
        }
        impl<R: IntoOperand> $Trait<R> for &Expr {
            type Output = Expr;
            fn $method(self, rhs: R) -> Expr {
                $combine(self.into_operand(), rhs.into_operand())
            }
        }
        impl<R: IntoOperand> $Trait<R> for Var {
            type Output = Expr;
            fn $method(self, rhs: R) -> Expr {
                $combine(self.into_operand(), rhs.into_operand())
            }
        }
        impl<R: IntoOperand> $Trait<R> for RVar {
            type Output = Expr;
            fn $method(self, rhs: R) -> Expr {
                $combine(self.into_operand(), rhs.into_operand())
            }
        }
        impl<R: IntoOperand> $Trait<R> for &RVar {
            type Output = Expr;
            fn $method(self, rhs: R) -> Expr {
                $combine(self.into_operand(), rhs.into_operand())
            }
        }
        impl_binary_trait!(@literal $Trait, $method, $combine, i32, f32, f64);
    };
    (@literal $Trait:ident, $method:ident, $combine:expr, $($lit:ty),*) => {$(
        impl $Trait<Expr> for $lit {
            type Output = Expr;
            fn $method(self, rhs: Expr) -> Expr {
                $combine(self.into_operand(), rhs.into_operand())
            }
        }
        impl $Trait<&Expr> for $lit {
            type Output = Expr;
            fn $method(self, rhs: &Expr) -> Expr {
                $combine(self.into_operand(), rhs.into_operand())
            }
        }
        impl $Trait<Var> for $lit {
            type Output = Expr;
            fn $method(self, rhs: Var) -> Expr {
                $combine(self.into_operand(), rhs.into_operand())
            }
        }
        impl $Trait<RVar> for $lit {
            type Output = Expr;
            fn $method(self, rhs: RVar) -> Expr {
                $combine(self.into_operand(), rhs.into_operand())
            }
        }
    )*};
}

impl_binary_trait!(Add, add, |a, b| binary_op(BinaryOp::Add, a, b));
impl_binary_trait!(Sub, sub, |a, b| binary_op(BinaryOp::Sub, a, b));
impl_binary_trait!(Mul, mul, |a, b| binary_op(BinaryOp::Mul, a, b));
impl_binary_trait!(Div, div, |a, b| binary_op(BinaryOp::Div, a, b));
impl_binary_trait!(Rem, rem, |a, b| binary_op(BinaryOp::Mod, a, b));
impl_binary_trait!(BitAnd, bitand, |a, b| bitwise_or_logical(
    BinaryOp::BitAnd,
    a,
    b
));
impl_binary_trait!(BitOr, bitor, |a, b| bitwise_or_logical(
    BinaryOp::BitOr,
    a,
    b
));
impl_binary_trait!(BitXor, bitxor, |a, b| bitwise_or_logical(
    BinaryOp::BitXor,
    a,
    b
));
impl_binary_trait!(Shl, shl, |a, b| shift(BinaryOp::Shl, a, b));
impl_binary_trait!(Shr, shr, |a, b| shift(BinaryOp::Shr, a, b));

macro_rules! impl_assign {
    ($Trait:ident, $method:ident, $op:expr) => {
        impl<R: IntoOperand> $Trait<R> for Expr {
            /// As in Halide, `self` keeps its type: `rhs` is cast to it first.
            fn $method(&mut self, rhs: R) {
                let rhs = in_type_of(self, rhs.into_operand());
                *self = binary_op($op, self.clone().into_operand(), rhs);
            }
        }
    };
}

/// `rhs` converted to `target`'s element type (keeping its own lanes), so that a compound
/// assignment does not change the type of the Expr it assigns to. Invalid operands pass
/// through, to report their own error.
fn in_type_of(target: &Expr, rhs: Operand) -> Operand {
    let element = target.ty().element();
    if is_invalid(target) {
        return rhs;
    }
    match rhs {
        Operand::Expr(e) if !is_invalid(&e) && e.ty().element() != element => {
            Operand::Expr(Expr::cast(element.with_lanes(e.ty().lanes), e))
        }
        Operand::Float(v) if !element.is_float() => {
            Operand::Expr(Expr::cast(element, Expr::make_float(Type::f64(), v)))
        }
        other => other,
    }
}
impl_assign!(AddAssign, add_assign, BinaryOp::Add);
impl_assign!(SubAssign, sub_assign, BinaryOp::Sub);
impl_assign!(MulAssign, mul_assign, BinaryOp::Mul);
impl_assign!(DivAssign, div_assign, BinaryOp::Div);

/// `-e`: IEEE sign flip for floats, wrapping negation for integers.
pub fn negate(e: Expr) -> Expr {
    if e.ty().is_bool() {
        return Expr::invalid(e.ty(), "cannot negate a bool; use `!` for logical not");
    }
    Expr::unary(UnaryOp::Neg, e)
}

/// `!e`: logical not for bools, bitwise complement for integers.
pub fn not(e: Expr) -> Expr {
    match e.ty().code {
        TypeCode::Bool => Expr::unary(UnaryOp::Not, e),
        TypeCode::Float => Expr::invalid(
            e.ty(),
            format!("`!` needs a bool or integer operand, not {}", e.ty()),
        ),
        _ => Expr::unary(UnaryOp::BitNot, e),
    }
}

macro_rules! impl_unary {
    ($($t:ty),*) => {$(
        impl Neg for $t {
            type Output = Expr;
            fn neg(self) -> Expr {
                negate(Expr::from(self))
            }
        }
        impl Not for $t {
            type Output = Expr;
            fn not(self) -> Expr {
                not(Expr::from(self))
            }
        }
    )*};
}
impl_unary!(Expr, &Expr, Var, RVar, &RVar);

/// Comparisons and logical operators as methods (Rust's comparison traits must return bool).
pub trait ExprOps: IntoOperand + Sized {
    /// `self == rhs` (Halide's `==`).
    fn eq_(self, rhs: impl IntoOperand) -> Expr {
        binary_op(BinaryOp::Eq, self.into_operand(), rhs.into_operand())
    }
    /// `self != rhs`.
    fn ne_(self, rhs: impl IntoOperand) -> Expr {
        binary_op(BinaryOp::Ne, self.into_operand(), rhs.into_operand())
    }
    /// `self < rhs`.
    fn lt(self, rhs: impl IntoOperand) -> Expr {
        binary_op(BinaryOp::Lt, self.into_operand(), rhs.into_operand())
    }
    /// `self <= rhs`.
    fn le(self, rhs: impl IntoOperand) -> Expr {
        binary_op(BinaryOp::Le, self.into_operand(), rhs.into_operand())
    }
    /// `self > rhs`.
    fn gt(self, rhs: impl IntoOperand) -> Expr {
        binary_op(BinaryOp::Gt, self.into_operand(), rhs.into_operand())
    }
    /// `self >= rhs`.
    fn ge(self, rhs: impl IntoOperand) -> Expr {
        binary_op(BinaryOp::Ge, self.into_operand(), rhs.into_operand())
    }
    /// `self && rhs`, of booleans.
    fn and(self, rhs: impl IntoOperand) -> Expr {
        binary_op(BinaryOp::And, self.into_operand(), rhs.into_operand())
    }
    /// `self || rhs`, of booleans.
    fn or(self, rhs: impl IntoOperand) -> Expr {
        binary_op(BinaryOp::Or, self.into_operand(), rhs.into_operand())
    }
}

impl ExprOps for Expr {}
impl ExprOps for &Expr {}
impl ExprOps for Var {}
impl ExprOps for RVar {}
impl ExprOps for &RVar {}
