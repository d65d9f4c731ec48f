//! Expressions to LLVM values: constants, names, operators, selects, lets, ramps and
//! broadcasts (vectors of any lane count, including vectors of vectors), dispatching loads to
//! `vector` and intrinsic calls to `intrinsics`. Every operation is lane-wise, as in the
//! evaluator; selects and logical operators evaluate both operands, which is equivalent since
//! expressions have no side effects and loads stay inside their buffers.

use super::values::Value;
use super::Codegen;
use crate::error::{Error, Result};
use crate::ir::{BinaryOp, CallKind, Expr, ExprKind, Type};

impl<'ctx> Codegen<'ctx> {
    pub(super) fn expr(&mut self, e: &Expr) -> Result<Value<'ctx>> {
        let ty = e.ty();
        Ok(match e.kind() {
            ExprKind::IntImm(v) => self.int_const(ty, *v),
            ExprKind::UIntImm(v) => self.int_const(ty, *v as i64),
            ExprKind::FloatImm(v) => self.float_const(ty, v.0),
            ExprKind::Var(name) | ExprKind::Param(name, _) => self.lookup(*name)?,
            ExprKind::Cast(a) => {
                let v = self.expr(a)?;
                self.cast(v, a.ty(), ty)
            }
            ExprKind::Unary(op, a) => {
                let v = self.expr(a)?;
                self.unary(*op, v, a.ty())
            }
            ExprKind::Binary(op, a, b) => {
                let (x, y) = (self.expr(a)?, self.expr(b)?);
                let constant = match op {
                    BinaryOp::Div | BinaryOp::Mod | BinaryOp::Shl | BinaryOp::Shr => {
                        b.as_int_const()
                    }
                    _ => None,
                };
                self.binary(*op, x, y, a.ty(), constant)
            }
            ExprKind::Select(c, t, f) => {
                let (c, t, f) = (self.expr(c)?, self.expr(t)?, self.expr(f)?);
                self.select(c, t, f)
            }
            ExprKind::Let(name, value, body) => {
                let b = self.let_binding(value)?;
                return self.with_name(*name, b, |cg| cg.expr(body));
            }
            ExprKind::Ramp(base, stride) => {
                let (b, s) = (self.expr(base)?, self.expr(stride)?);
                self.ramp(b, s, ty, base.ty().lanes)
            }
            ExprKind::Broadcast(v) => {
                let x = self.expr(v)?;
                self.tile(x, ty.lanes)
            }
            ExprKind::Load {
                buffer,
                index,
                predicate,
            } => self.load(ty, *buffer, index, predicate.as_ref())?,
            ExprKind::Call {
                kind: CallKind::Intrinsic(op),
                args,
                ..
            } => self.intrinsic(*op, args, ty)?,
            ExprKind::Call { name, .. } => {
                return Err(Error::Codegen(format!(
                    "the call to {name} was not lowered (only flat Loads reach code generation)"
                )))
            }
            ExprKind::RVar(name, _) => {
                return Err(Error::Codegen(format!(
                    "reduction variable {name} was not lowered to a loop variable"
                )))
            }
            ExprKind::Invalid(message) => {
                return Err(Error::Codegen(format!("invalid expression: {message}")))
            }
        })
    }

    /// `v` (of `inner` lanes) repeated to `lanes` lanes: lane i is lane `i % inner` of `v`.
    pub(super) fn tile(&self, v: Value<'ctx>, lanes: u16) -> Value<'ctx> {
        let inner = Self::lanes_of(v);
        if inner == 1 {
            return self.splat(v, lanes);
        }
        let indices: Vec<u32> = (0..lanes as u32).map(|i| i % inner as u32).collect();
        self.shuffle(v, v, &indices)
    }

    /// `base + stride * [0, 0.., 1, 1.., ...]` over `ty.lanes` lanes, where `base` and
    /// `stride` have `inner` lanes and lane i uses step `i / inner`.
    fn ramp(&self, base: Value<'ctx>, stride: Value<'ctx>, ty: Type, inner: u16) -> Value<'ctx> {
        let lanes = ty.lanes;
        let steps = self.lane_constants(ty, |i| (i / inner as u32) as i64);
        let b = self.tile(base, lanes);
        let s = self.tile(stride, lanes);
        let offsets = self.binary(BinaryOp::Mul, s, steps, ty, None);
        self.binary(BinaryOp::Add, b, offsets, ty, None)
    }

    /// The constant vector of (integer or float) type `ty` whose lane i holds `value(i)`.
    pub(super) fn lane_constants(&self, ty: Type, value: impl Fn(u32) -> i64) -> Value<'ctx> {
        let lanes: Vec<Value<'ctx>> = (0..ty.lanes as u32)
            .map(|i| {
                let v = value(i);
                if ty.is_float() {
                    self.float_const(ty.element(), v as f64)
                } else {
                    self.int_const(ty.element(), v)
                }
            })
            .collect();
        if lanes.len() == 1 {
            return lanes[0];
        }
        inkwell::types::VectorType::const_vector(&lanes).into()
    }
}
