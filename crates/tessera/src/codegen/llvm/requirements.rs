//! Conditions generated code checks inside expressions: `require` (the run fails with its
//! message where the condition is false in any lane) and `promise_clamped` (trusted, except
//! in checked mode, where a value outside its promised bounds fails the run instead of
//! reaching an access sized by the promise). Both report through `tessera_error`, as
//! assertions do.

use super::values::Value;
use super::Codegen;
use crate::error::Result;
use crate::eval::expr::broken_promise_message;
use crate::ir::{BinaryOp, Expr, MessagePart, Symbol, Type, UnaryOp};
use crate::runtime::context::{encode_template, TemplatePart};

impl<'ctx> Codegen<'ctx> {
    /// `require(args[0], args[1], args[2..])` with the interned message text `message`.
    pub(super) fn require(&mut self, message: Symbol, args: &[Expr]) -> Result<Value<'ctx>> {
        let holds = self.expr(&args[0])?;
        let fails = self.unary(UnaryOp::Not, holds, args[0].ty());
        let any_fails = self.any_lane(fails, args[0].ty());
        self.if_then(any_fails, |cg| {
            let mut parts = vec![MessagePart::Text("requirement failed: ".into())];
            parts.extend(MessagePart::from_interned(message, &args[2..]));
            cg.report_message(&parts)
        })?;
        self.expr(&args[1])
    }

    /// `promise_clamped(args[0], args[1], args[2])`: the value, checked in checked mode.
    pub(super) fn promise_clamped(&mut self, args: &[Expr]) -> Result<Value<'ctx>> {
        let v = self.expr(&args[0])?;
        if !self.target.bounds_checks {
            return Ok(v);
        }
        let ty = args[0].ty();
        let (lo, hi) = (self.expr(&args[1])?, self.expr(&args[2])?);
        let below = self.binary(BinaryOp::Lt, v, lo, ty, None);
        let above = self.binary(BinaryOp::Gt, v, hi, ty, None);
        let bool_ty = Type::bool_().with_lanes(ty.lanes);
        let outside = self.binary(BinaryOp::Or, below, above, bool_ty, None);
        let any_outside = self.any_lane(outside, bool_ty);
        self.if_then(any_outside, |cg| {
            let shown = [ty, args[1].ty(), args[2].ty()]
                .map(|t| encode_template(&[TemplatePart::Value(t)]));
            let text = format!("checked mode: {}", broken_promise_message(&args[0], shown));
            let values: Vec<(Value<'ctx>, Type)> =
                vec![(v, ty), (lo, args[1].ty()), (hi, args[2].ty())];
            cg.report_error_values(&text, &values);
            Ok(())
        })?;
        Ok(v)
    }

    /// Whether any lane of the bool vector (or scalar) `b` is true.
    pub(super) fn any_lane(&self, b: Value<'ctx>, ty: Type) -> Value<'ctx> {
        if ty.is_vector() {
            self.reduce("llvm.vector.reduce.or", b)
        } else {
            b
        }
    }
}
