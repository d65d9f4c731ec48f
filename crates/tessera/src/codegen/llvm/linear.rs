//! Integer vectors in linear form, `base + stride * [0, 1, 2, ...]` with scalar `base` and
//! `stride`, recognized through ramps, broadcasts, sums, differences, products with uniform
//! vectors and let-bound names. Flattened indices reach code generation in such shapes —
//! `(ramp(x, 1, 16) - x16(min)) * x16(stride) + x16(offset)`, or through a vector let — and
//! knowing their stride is what makes an access dense, strided or a gather. The arithmetic
//! wraps like the vector arithmetic it replaces.

use super::values::Value;
use super::{Binding, Codegen};
use crate::error::Result;
use crate::ir::{BinaryOp, Expr, ExprKind, Type};

/// `base + stride * lane`; no stride means every lane is `base`.
#[derive(Clone, Copy)]
pub(super) struct Linear<'ctx> {
    pub base: Value<'ctx>,
    pub stride: Option<Value<'ctx>>,
}

impl<'ctx> Codegen<'ctx> {
    /// The linear form of the integer vector `e`, if it has one.
    pub(super) fn linear(&mut self, e: &Expr) -> Result<Option<Linear<'ctx>>> {
        let ty = e.ty();
        if !ty.is_int_or_uint() || ty.is_scalar() {
            return Ok(None);
        }
        let scalar = ty.element();
        Ok(match e.kind() {
            ExprKind::Ramp(base, stride) if base.ty().is_scalar() => Some(Linear {
                base: self.expr(base)?,
                stride: Some(self.expr(stride)?),
            }),
            ExprKind::Broadcast(v) if v.ty().is_scalar() => Some(Linear {
                base: self.expr(v)?,
                stride: None,
            }),
            ExprKind::Var(name) => self.binding(*name)?.linear,
            ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul), a, b) => {
                let (Some(x), Some(y)) = (self.linear(a)?, self.linear(b)?) else {
                    return Ok(None);
                };
                self.combine(*op, x, y, scalar)
            }
            _ => None,
        })
    }

    /// `x op y` in linear form (a product only when one side is uniform).
    fn combine(
        &self,
        op: BinaryOp,
        x: Linear<'ctx>,
        y: Linear<'ctx>,
        ty: Type,
    ) -> Option<Linear<'ctx>> {
        let scalar = |op, a, b| self.binary(op, a, b, ty, None);
        let base = scalar(op, x.base, y.base);
        let stride = match (op, x.stride, y.stride) {
            (BinaryOp::Mul, Some(_), Some(_)) => return None,
            (BinaryOp::Mul, Some(s), None) => Some(scalar(op, s, y.base)),
            (BinaryOp::Mul, None, Some(s)) => Some(scalar(op, x.base, s)),
            (_, None, None) => None,
            (_, Some(s), None) => Some(s),
            (BinaryOp::Add, None, Some(s)) => Some(s),
            (_, None, Some(s)) => Some(scalar(op, self.zero(ty), s)),
            (_, Some(s), Some(t)) => Some(scalar(op, s, t)),
        };
        Some(Linear { base, stride })
    }

    /// The vector of type `ty` a linear form stands for.
    pub(super) fn materialize(&self, l: Linear<'ctx>, ty: Type) -> Value<'ctx> {
        let base = self.splat(l.base, ty.lanes);
        match l.stride {
            None => base,
            Some(s) => {
                let steps = self.lane_constants(ty, |i| i as i64);
                let offsets = self.binary(BinaryOp::Mul, self.splat(s, ty.lanes), steps, ty, None);
                self.binary(BinaryOp::Add, base, offsets, ty, None)
            }
        }
    }

    /// What a let binds `value` to: its value, and its linear form when it has one (then the
    /// value is built from that form, so `value` is compiled once).
    pub(super) fn let_binding(&mut self, value: &Expr) -> Result<Binding<'ctx>> {
        match self.linear(value)? {
            Some(l) => Ok(Binding {
                value: self.materialize(l, value.ty()),
                linear: Some(l),
                wide: None,
            }),
            // Computed once, in 64 bits; the i32 value is its truncation, which is exactly
            // the wrapping 32-bit arithmetic (sums, differences and products agree modulo
            // 2^32).
            None if value.ty() == Type::i32() => {
                let wide = self.address(value)?;
                Ok(Binding {
                    value: self.cast(wide, Type::i64(), Type::i32()),
                    linear: None,
                    wide: Some(wide),
                })
            }
            None => Ok(self.expr(value)?.into()),
        }
    }
}
