//! Checked mode (`Target::bounds_checks`): before every load and store, the flat indices of
//! its active lanes are compared with the indices its allocation or buffer holds, and an
//! access outside them fails the run with an error naming the buffer, the indices and the
//! bounds. The same code otherwise: this catches an out-of-bounds access the compiler let
//! through even where it would not have crashed, on native code rather than the interpreter.

use inkwell::IntPredicate;

use super::values::{Op, Value};
use super::{Codegen, Storage};
use crate::error::Result;
use crate::ir::{Expr, Symbol, Type};
use crate::lang::image_param::buffer_field;
use crate::runtime::context::{encode_template, TemplatePart};

impl<'ctx> Codegen<'ctx> {
    /// The flat indices `[first, end)` of a pipeline buffer of `dims` dimensions, from its
    /// extents and strides (bound as names): `sum((extent - 1) * stride)` over the negative
    /// and the positive strides; none at all when an extent is not positive.
    pub(super) fn buffer_span(
        &mut self,
        buffer: Symbol,
        dims: usize,
    ) -> (Value<'ctx>, Value<'ctx>) {
        let i64t = Type::i64();
        let zero = self.zero(i64t);
        let one = self.int_const(i64t, 1);
        let (mut first, mut last) = (zero, zero);
        let mut empty = self.int_const(Type::bool_(), 0);
        for d in 0..dims {
            let field = |cg: &mut Self, name: &str| {
                let v = cg
                    .binding(buffer_field(buffer, name, d))
                    .expect("internal error: buffer fields are bound")
                    .value;
                cg.cast(v, Type::i32(), i64t)
            };
            let (extent, stride) = (field(self, "extent"), field(self, "stride"));
            let steps = self.binop(Op::Sub, extent, one);
            let reach = self.binop(Op::Mul, steps, stride);
            let below = self.min_or_max(IntPredicate::SLT, reach, zero);
            let above = self.min_or_max(IntPredicate::SGT, reach, zero);
            first = self.binop(Op::Add, first, below);
            last = self.binop(Op::Add, last, above);
            let none = self.icmp(IntPredicate::SLE, extent, zero);
            empty = self.binop(Op::Or, empty, none);
        }
        let end = self.binop(Op::Add, last, one);
        let end = self.select(empty, first, end);
        (first, end)
    }

    /// The flat indices `[0, product(extents))` of an allocation.
    pub(super) fn allocation_span(
        &mut self,
        extents: &[Expr],
    ) -> Result<(Value<'ctx>, Value<'ctx>)> {
        let mut elements = self.int_const(Type::i64(), 1);
        for e in extents {
            let v = self.expr(e)?;
            let wide = self.cast(v, e.ty(), Type::i64());
            elements = self.binop(Op::Mul, elements, wide);
        }
        Ok((self.zero(Type::i64()), elements))
    }

    /// In checked mode, fails the run unless every active lane of an access to `buffer` at
    /// `index` (`what`: "load from", "store to") is inside its storage.
    pub(super) fn check_access(
        &mut self,
        what: &str,
        buffer: Symbol,
        storage: &Storage<'ctx>,
        index: &Expr,
        predicate: Option<&Expr>,
    ) -> Result<()> {
        let Some((first, end)) = storage.valid else {
            return Ok(());
        };
        let lanes = index.ty().lanes;
        let indices = if lanes == 1 {
            self.address(index)?
        } else {
            let layout = self.layout(index)?;
            let indices = self.lane_indices(layout, lanes);
            // A gather's indices are the index vector itself, of the index's type.
            let wide = Type::i64().with_lanes(lanes);
            if indices.get_type() == self.llvm_type(wide) {
                indices
            } else {
                self.cast(indices, index.ty(), wide)
            }
        };
        let (first_v, end_v) = (self.splat(first, lanes), self.splat(end, lanes));
        let below = self.icmp(IntPredicate::SLT, indices, first_v);
        let past = self.icmp(IntPredicate::SGE, indices, end_v);
        let mut outside = self.binop(Op::Or, below, past);
        if let Some(p) = predicate {
            let active = self.expr(p)?;
            outside = self.binop(Op::And, outside, active);
        }
        let any = if lanes == 1 {
            outside
        } else {
            self.reduce("llvm.vector.reduce.or", outside)
        };
        let (lowest, highest) = if lanes == 1 {
            (indices, indices)
        } else {
            (
                self.reduce("llvm.vector.reduce.smin", indices),
                self.reduce("llvm.vector.reduce.smax", indices),
            )
        };
        let i64t = Type::i64();
        self.if_then(any, |cg| {
            let template = encode_template(&[
                TemplatePart::Text(&format!("checked mode: a {what} {buffer} at indices [")),
                TemplatePart::Value(i64t),
                TemplatePart::Text(", "),
                TemplatePart::Value(i64t),
                TemplatePart::Text("] is outside its storage, indices ["),
                TemplatePart::Value(i64t),
                TemplatePart::Text(", "),
                TemplatePart::Value(i64t),
                TemplatePart::Text(")"),
            ]);
            let values = [lowest, highest, first, end].map(|v| (v, i64t));
            cg.report_error_values(&template, &values);
            Ok(())
        })
    }

    /// `a` if `a p b`, else `b` (the smaller with `SLT`, the larger with `SGT`).
    fn min_or_max(&self, p: IntPredicate, a: Value<'ctx>, b: Value<'ctx>) -> Value<'ctx> {
        let pick_a = self.icmp(p, a, b);
        self.select(pick_a, a, b)
    }

    /// The horizontal reduction `intrinsic` of a vector.
    pub(super) fn reduce(&self, intrinsic: &str, v: Value<'ctx>) -> Value<'ctx> {
        self.call_intrinsic(intrinsic, &[v.get_type()], &[v])
    }
}
