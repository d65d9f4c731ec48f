//! Loads and stores, chosen by the index's linear form (`linear`): a scalar access; a dense
//! vector access for stride 1 (`llvm.masked.load`/`store` when predicated); dense loads of the
//! covering span plus shuffles for small constant strides; a scalar load broadcast for a
//! uniform index; otherwise gathers (`llvm.masked.gather`, or one scalar load per lane on CPUs
//! where that is faster: `Target::prefers_scalar_gathers`) and scatters (`llvm.masked.scatter`, lanes stored in order, so the
//! last of equal indices wins), but for byte gathers from small tables (`table_lookup`). Predicated-off lanes of a load read as zero, as in the evaluator. Bools
//! are bytes in memory.
//!
//! Every plain load and store carries type-based alias metadata naming its buffer, so LLVM
//! knows accesses to different buffers are independent (a store to one buffer does not force
//! reloading another) — Halide's assumption too: a pipeline's buffers do not overlap. The
//! Rust API guarantees it (output buffers are borrowed mutably, inputs own their data); the
//! AOT header states it as a requirement.

use inkwell::basic_block::BasicBlock;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValue, MetadataValue, PointerValue};

use super::linear::Linear;
use super::values::{Built, Value};
use super::{Codegen, Storage};
use crate::error::{Error, Result};
use crate::ir::{BinaryOp, Expr, ExprKind, Symbol, Type};

/// How a plain load or store is made: its alignment (the element's size) and the TBAA tag
/// of its buffer.
#[derive(Clone, Copy)]
pub(super) struct Access<'ctx> {
    pub(super) align: u32,
    pub(super) tag: MetadataValue<'ctx>,
}

/// Largest constant stride loaded densely and shuffled, and the largest span loaded so.
const MAX_SHUFFLED_STRIDE: i128 = 4;
const MAX_SHUFFLED_SPAN: i128 = 256;

/// How the lanes of an access are laid out in memory, with the compiled index: a scalar i64
/// address (element offset from the buffer's base), or a vector of indices for a gather.
pub(super) enum Layout<'ctx> {
    /// One element at the address.
    Scalar(Value<'ctx>),
    /// Consecutive elements from the address.
    Dense(Value<'ctx>),
    /// Elements `stride` apart from the address.
    Strided(Value<'ctx>, u32),
    /// Every lane at the address.
    Uniform(Value<'ctx>),
    /// Each lane at its own index (a vector).
    Gather(Value<'ctx>),
}

/// The type vector indices of type `ty` address memory in: themselves, or i64 for unsigned
/// indices (addressing sign-extends narrower integers).
pub(super) fn gather_index_type(ty: Type) -> Type {
    if ty.is_uint() {
        Type::i64().with_lanes(ty.lanes)
    } else {
        ty
    }
}

impl<'ctx> Codegen<'ctx> {
    /// The buffer's storage, checked to hold elements of type `ty`, for an access whose index
    /// and predicate must have `ty`'s lanes.
    pub(super) fn typed_storage(
        &self,
        buffer: Symbol,
        ty: Type,
        access: &str,
        index: &Expr,
        predicate: Option<&Expr>,
    ) -> Result<Storage<'ctx>> {
        if let Some(e) = [Some(index), predicate]
            .into_iter()
            .flatten()
            .find(|e| e.ty().lanes != ty.lanes)
        {
            return Err(Error::Codegen(format!(
                "{access} {buffer} of {ty} has the operand {e} of {} lanes",
                e.ty().lanes
            )));
        }
        let s = self.storage(buffer)?;
        if s.elem != ty.element() {
            return Err(Error::Codegen(format!(
                "{access} {buffer} accesses it as {}, but it holds {}",
                ty.element(),
                s.elem
            )));
        }
        Ok(s)
    }

    /// The compiled index of an access, classified by its linear form.
    pub(super) fn layout(&mut self, index: &Expr) -> Result<Layout<'ctx>> {
        let ty = index.ty();
        if ty.is_scalar() {
            return Ok(Layout::Scalar(self.address(index)?));
        }
        let linear = match index.kind() {
            // The common shape: the base goes through `address` (a linear form is built in
            // the index's own type).
            ExprKind::Ramp(base, stride) if base.ty().is_scalar() => Linear {
                base: self.address(base)?,
                stride: Some(self.expr(stride)?),
            },
            _ => match self.linear(index)? {
                Some(l) => Linear {
                    base: self.cast(l.base, ty.element(), Type::i64()),
                    stride: l.stride,
                },
                None => {
                    let v = self.expr(index)?;
                    return Ok(Layout::Gather(self.cast(v, ty, gather_index_type(ty))));
                }
            },
        };
        let Some(stride) = linear.stride else {
            return Ok(Layout::Uniform(linear.base));
        };
        let constant = match stride {
            Value::IntValue(s) => s.get_sign_extended_constant(),
            _ => None,
        };
        Ok(match constant.map(i128::from) {
            Some(1) => Layout::Dense(linear.base),
            Some(0) => Layout::Uniform(linear.base),
            Some(s)
                if (2..=MAX_SHUFFLED_STRIDE).contains(&s)
                    && (ty.lanes as i128 - 1) * s < MAX_SHUFFLED_SPAN =>
            {
                Layout::Strided(linear.base, s as u32)
            }
            _ => {
                // A run-time or large stride: the lanes in the index's type (the base
                // truncated back to it), then widened for the gather.
                let base = self.cast(linear.base, Type::i64(), ty.element());
                let v = self.materialize(
                    Linear {
                        base,
                        stride: Some(stride),
                    },
                    ty,
                );
                Layout::Gather(self.cast(v, ty, gather_index_type(ty)))
            }
        })
    }

    /// The scalar index `e` as an i64 address. Signed 32-bit sums, differences and products
    /// are computed in 64 bits from their sign-extended operands, so constant offsets stay
    /// visible to instruction selection (`sext(a + 1)` cannot fold into an addressing mode;
    /// `sext(a) + 1` can, and neighbouring accesses share one base register). This equals
    /// the 32-bit arithmetic unless that overflows, which lowering already assumes signed
    /// 32-bit arithmetic does not (the overflow contract). Other indices are extended.
    pub(super) fn address(&mut self, e: &Expr) -> Result<Value<'ctx>> {
        let ty = e.ty();
        if ty == Type::i32() {
            match e.kind() {
                ExprKind::IntImm(v) => return Ok(self.int_const(Type::i64(), *v)),
                ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul), a, b) => {
                    let (x, y) = (self.address(a)?, self.address(b)?);
                    return Ok(self.binary(*op, x, y, Type::i64(), None));
                }
                ExprKind::Var(name) => {
                    if let Some(wide) = self.binding(*name)?.wide {
                        return Ok(wide);
                    }
                }
                _ => {}
            }
        }
        let v = self.expr(e)?;
        Ok(self.cast(v, ty, Type::i64()))
    }

    /// The index of every lane of an access (for a gather or scatter) of `lanes` lanes.
    pub(super) fn lane_indices(&self, layout: Layout<'ctx>, lanes: u16) -> Value<'ctx> {
        let ty = Type::i64().with_lanes(lanes);
        let linear = |base, stride: i64| Linear {
            base,
            stride: Some(self.int_const(Type::i64(), stride)),
        };
        match layout {
            Layout::Gather(v) => v,
            Layout::Scalar(b) | Layout::Uniform(b) => self.splat(b, lanes),
            Layout::Dense(b) => self.materialize(linear(b, 1), ty),
            Layout::Strided(b, s) => self.materialize(linear(b, s as i64), ty),
        }
    }

    /// How `buffer` is accessed with values of `ty`: aligned to the element, tagged with the
    /// buffer's alias class.
    fn access(&self, buffer: Symbol, ty: Type) -> Access<'ctx> {
        let i64t = self.ctx.i64_type();
        let root = self
            .ctx
            .metadata_node(&[self.ctx.metadata_string("tessera buffers").into()]);
        let class = self.ctx.metadata_node(&[
            self.ctx.metadata_string(buffer.as_str()).into(),
            root.into(),
            i64t.const_zero().into(),
        ]);
        Access {
            align: ty.bytes() as u32,
            tag: self
                .ctx
                .metadata_node(&[class.into(), class.into(), i64t.const_zero().into()]),
        }
    }

    /// `buffer[index]` of type `ty`, lanes where `predicate` is false reading zero.
    pub(super) fn load(
        &mut self,
        ty: Type,
        buffer: Symbol,
        index: &Expr,
        predicate: Option<&Expr>,
    ) -> Result<Value<'ctx>> {
        if self.target.bounds_checks {
            let storage = self.storage(buffer)?;
            self.check_access("load from", buffer, &storage, index, predicate)?;
        }
        if let Some(v) = self.load_by_parity(ty, buffer, index, predicate)? {
            return Ok(v);
        }
        if let Some(v) = self.load_by_runs(ty, buffer, index, predicate)? {
            return Ok(v);
        }
        if predicate.is_none() {
            if let Some(v) = self.load_clamped_ramp(ty, buffer, index)? {
                return Ok(v);
            }
        }
        let storage = self.typed_storage(buffer, ty, "Load from", index, predicate)?;
        let mem = self.storage_type(ty);
        let elem = self.storage_type(ty.element());
        let access = self.access(buffer, ty);
        let align = access.align;
        let predicate = match predicate {
            Some(p) => Some(self.expr(p)?),
            None => None,
        };
        let layout = self.layout(index)?;
        let raw = match (layout, predicate) {
            (Layout::Scalar(i), None) => self.load_scalar(elem, storage.base, i, access),
            (Layout::Scalar(i), Some(p)) => {
                let zero = mem.const_zero();
                self.if_else_value(p, mem, zero, |cg| {
                    cg.load_scalar(elem, storage.base, i, access)
                })
            }
            (Layout::Dense(base), None) => {
                let ptr = self.element_ptr(elem, storage.base, base);
                self.aligned_load(mem, ptr, access)
            }
            (Layout::Dense(base), Some(mask)) => {
                let ptr = self.element_ptr(elem, storage.base, base);
                let align_v = self.i32_const(align as i32).into();
                self.call_intrinsic(
                    "llvm.masked.load",
                    &[mem, ptr.get_type().into()],
                    &[ptr.into(), align_v, mask, mem.const_zero()],
                )
            }
            (Layout::Strided(base, stride), None) => {
                let ptr = self.element_ptr(elem, storage.base, base);
                self.strided_load(mem, elem, ptr, ty.lanes as u32, stride, access)
            }
            (Layout::Uniform(i), None) => {
                let scalar = self.load_scalar(elem, storage.base, i, access);
                self.splat(scalar, ty.lanes)
            }
            (layout, mask) => {
                let indices = self.lane_indices(layout, index.ty().lanes);
                if mask.is_none() {
                    if let Some(v) = self.table_lookup(ty, &storage, index, indices, access) {
                        return Ok(self.loaded_value(v, ty));
                    }
                    if self.target.prefers_scalar_gathers() {
                        let v =
                            self.scalar_gather(ty, buffer, storage.base, index, indices, access)?;
                        return Ok(self.loaded_value(v, ty));
                    }
                }
                let ptrs = self.element_ptrs(elem, storage.base, indices);
                let mask =
                    mask.unwrap_or_else(|| self.int_const(Type::bool_().with_lanes(ty.lanes), 1));
                self.masked_gather(ty, ptrs, mask, align)
            }
        };
        Ok(self.loaded_value(raw, ty))
    }

    /// `llvm.masked.gather` of the `ty.lanes` lanes at `ptrs`, made of power-of-two parts.
    /// LLVM 19 widens a gather of another lane count with undefined indices, and its x86
    /// backend may then give a `vgatherqps` the same register as destination and index, an
    /// instruction the CPU refuses (SIGILL; fixed upstream in LLVM 20).
    fn masked_gather(
        &self,
        ty: Type,
        ptrs: Value<'ctx>,
        mask: Value<'ctx>,
        align: u32,
    ) -> Value<'ctx> {
        let align_v: Value<'ctx> = self.i32_const(align as i32).into();
        let gather = |cg: &Self, lanes: u16, ptrs: Value<'ctx>, mask: Value<'ctx>| {
            let mem = cg.storage_type(ty.with_lanes(lanes));
            cg.call_intrinsic(
                "llvm.masked.gather",
                &[mem, ptrs.get_type()],
                &[ptrs, align_v, mask, mem.const_zero()],
            )
        };
        if ty.lanes.is_power_of_two() {
            return gather(self, ty.lanes, ptrs, mask);
        }
        let mut all = self.storage_type(ty).const_zero();
        let mut first = 0u16;
        while first < ty.lanes {
            // A last single lane is gathered twice: LLVM's one-lane vectors are scalars here.
            let part = (1u16 << (15 - (ty.lanes - first).leading_zeros())).max(2);
            let last = u32::from(ty.lanes) - 1;
            let lanes: Vec<u32> = (u32::from(first)..u32::from(first + part))
                .map(|i| i.min(last))
                .collect();
            let part_ptrs = self.shuffle(ptrs, ptrs, &lanes);
            let part_mask = self.shuffle(mask, mask, &lanes);
            let loaded = gather(self, part, part_ptrs, part_mask);
            all = self.place_run(all, loaded, u32::from(first));
            first += part;
        }
        all
    }

    /// Stores `value` at `buffer[index]` in the lanes where `predicate` is true.
    pub(super) fn store(
        &mut self,
        buffer: Symbol,
        index: &Expr,
        value: &Expr,
        predicate: Option<&Expr>,
    ) -> Result<()> {
        if self.store_by_runs(buffer, index, value, predicate)? {
            return Ok(());
        }
        let groups = self.enter_gather_groups(value);
        let stored = self.store_value(buffer, index, value.ty(), predicate, |cg| cg.expr(value));
        self.gather_groups = groups;
        stored
    }

    /// Stores the value `compute` compiles, of type `ty`, at `buffer[index]` in the lanes
    /// where `predicate` is true. The store is checked before the value is computed, so a
    /// store out of bounds is reported before the loads its value makes.
    pub(super) fn store_value(
        &mut self,
        buffer: Symbol,
        index: &Expr,
        ty: Type,
        predicate: Option<&Expr>,
        compute: impl FnOnce(&mut Self) -> Result<Value<'ctx>>,
    ) -> Result<()> {
        let storage = self.typed_storage(buffer, ty, "Store to", index, predicate)?;
        self.check_access("store to", buffer, &storage, index, predicate)?;
        let elem = self.storage_type(ty.element());
        let v = compute(self)?;
        let v = self.stored_value(v, ty);
        let predicate = match predicate {
            Some(p) => Some(self.expr(p)?),
            None => None,
        };
        let layout = self.layout(index)?;
        let access = self.access(buffer, ty);
        let align = access.align;
        match (layout, predicate) {
            (Layout::Scalar(i), p) => {
                let ptr = self.element_ptr(elem, storage.base, i);
                match p {
                    None => self.aligned_store(v, ptr, access),
                    Some(p) => self.if_then(p, |cg| {
                        cg.aligned_store(v, ptr, access);
                        Ok(())
                    })?,
                }
            }
            (Layout::Dense(base), None) => {
                let ptr = self.element_ptr(elem, storage.base, base);
                self.dense_store(v, ty, ptr, access, storage.nontemporal)?;
            }
            (Layout::Dense(base), Some(mask)) => {
                let ptr = self.element_ptr(elem, storage.base, base);
                let align_v = self.i32_const(align as i32).into();
                self.call_intrinsic_void(
                    "llvm.masked.store",
                    &[v.get_type(), ptr.get_type().into()],
                    &[v, ptr.into(), align_v, mask],
                );
            }
            (layout, mask) => {
                let indices = self.lane_indices(layout, index.ty().lanes);
                let ptrs = self.element_ptrs(elem, storage.base, indices);
                let mask =
                    mask.unwrap_or_else(|| self.int_const(Type::bool_().with_lanes(ty.lanes), 1));
                let align_v = self.i32_const(align as i32).into();
                self.call_intrinsic_void(
                    "llvm.masked.scatter",
                    &[v.get_type(), ptrs.get_type()],
                    &[v, ptrs, align_v, mask],
                );
            }
        }
        Ok(())
    }

    /// Elements `ptr[i * stride]` for `i < lanes`, as full-width dense loads covering exactly
    /// the span (the last one shifted back so it ends at the span's last element, as Halide
    /// does) and shuffles picking the lanes out of them.
    fn strided_load(
        &self,
        mem: BasicTypeEnum<'ctx>,
        elem: BasicTypeEnum<'ctx>,
        ptr: PointerValue<'ctx>,
        lanes: u32,
        stride: u32,
        access: Access<'ctx>,
    ) -> Value<'ctx> {
        let span = (lanes - 1) * stride + 1;
        let offsets: Vec<u32> = (0..span.div_ceil(lanes))
            .map(|c| (c * lanes).min(span - lanes))
            .collect();
        let chunks: Vec<Value<'ctx>> = offsets
            .iter()
            .map(|&o| {
                let p = self.element_ptr(elem, ptr, o as i64);
                self.aligned_load(mem, p, access)
            })
            .collect();
        // Lane i reads element i * stride from the last chunk that starts at or before it.
        let source = |i: u32| {
            let e = i * stride;
            let c = offsets.iter().rposition(|&o| o <= e).unwrap_or(0);
            (c, e - offsets[c])
        };
        // The span is longer than `lanes` (stride >= 2), so there are at least two chunks.
        let mut picked = chunks[0];
        for (c, &chunk) in chunks.iter().enumerate().skip(1) {
            let indices: Vec<u32> = (0..lanes)
                .map(|i| match source(i) {
                    (from, at) if from == c => lanes + at,
                    (0, at) if c == 1 => at,
                    _ => i,
                })
                .collect();
            picked = self.shuffle(picked, chunk, &indices);
        }
        picked
    }

    pub(super) fn load_scalar(
        &self,
        elem: BasicTypeEnum<'ctx>,
        base: PointerValue<'ctx>,
        index: Value<'ctx>,
        access: Access<'ctx>,
    ) -> Value<'ctx> {
        let ptr = self.element_ptr(elem, base, index);
        self.aligned_load(elem, ptr, access)
    }

    pub(super) fn aligned_load(
        &self,
        ty: BasicTypeEnum<'ctx>,
        ptr: PointerValue<'ctx>,
        access: Access<'ctx>,
    ) -> Value<'ctx> {
        let v = self.builder.build_load(ty, ptr, "").built();
        let load = v
            .as_instruction_value()
            .expect("internal error: a load is an instruction");
        self.describe_access(load, access);
        v
    }

    pub(super) fn aligned_store(
        &self,
        v: Value<'ctx>,
        ptr: PointerValue<'ctx>,
        access: Access<'ctx>,
    ) {
        let store = self.builder.build_store(ptr, v).built();
        self.describe_access(store, access);
    }

    pub(super) fn describe_access(
        &self,
        i: inkwell::values::InstructionValue<'ctx>,
        access: Access<'ctx>,
    ) {
        i.set_alignment(access.align)
            .expect("internal error: a load or store takes an alignment");
        i.set_metadata(access.tag, self.ctx.get_kind_id("tbaa"))
            .expect("internal error: a load or store takes metadata");
    }

    pub(super) fn call_intrinsic_void(
        &self,
        name: &str,
        overloads: &[BasicTypeEnum<'ctx>],
        args: &[Value<'ctx>],
    ) {
        let f = inkwell::intrinsics::Intrinsic::find(name)
            .and_then(|i| i.get_declaration(&self.module, overloads))
            .unwrap_or_else(|| panic!("internal error: no LLVM intrinsic {name}"));
        self.call(f, args);
    }

    /// `condition ? then() : otherwise` as a value, computing `then` only when the (scalar)
    /// condition holds.
    fn if_else_value(
        &mut self,
        condition: Value<'ctx>,
        ty: BasicTypeEnum<'ctx>,
        otherwise: Value<'ctx>,
        then: impl FnOnce(&mut Self) -> Value<'ctx>,
    ) -> Value<'ctx> {
        let before: BasicBlock<'ctx> = self.current_block();
        let then_block = self.ctx.append_basic_block(self.f.function, "then");
        let join = self.ctx.append_basic_block(self.f.function, "join");
        self.builder
            .build_conditional_branch(condition.into_int_value(), then_block, join)
            .built();
        self.builder.position_at_end(then_block);
        let v = then(self);
        let then_end = self.current_block();
        self.builder.build_unconditional_branch(join).built();
        self.builder.position_at_end(join);
        let phi = self.builder.build_phi(ty, "").built();
        phi.add_incoming(&[(&v, then_end), (&otherwise, before)]);
        phi.as_basic_value()
    }
}
