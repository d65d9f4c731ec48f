//! The stores of an `Atomic` statement (`Stage::atomic`) as atomic read-modify-writes: a
//! store `f[i] = f[i] op e` whose `op` the hardware has becomes one `atomicrmw`; any other
//! store reading the point it overwrites becomes a compare-and-swap loop that recomputes
//! the value from the point's current contents until no other thread wrote it in between.
//! Vectorization leaves these stores scalar (a horizontal reduction, or one lane at a time).

use inkwell::llvm_sys::LLVMAtomicRMWBinOp as RmwOp;
use inkwell::values::{AsValueRef, BasicValue, BasicValueEnum};
use inkwell::AtomicOrdering;

use super::values::{Built, Value};
use super::vector::Layout;
use super::Codegen;
use crate::error::{Error, Result};
use crate::ir::read_modify_write::{is_load_of, reads_point, split_update};
use crate::ir::{BinaryOp, Expr, Stmt, Symbol, Type, TypeCode};

impl<'ctx> Codegen<'ctx> {
    /// `body`, its stores made atomic.
    pub(super) fn atomic(&mut self, body: &Stmt) -> Result<()> {
        let outer = std::mem::replace(&mut self.atomic_stores, true);
        let result = self.stmt(body);
        self.atomic_stores = outer;
        result
    }

    /// `buffer[index] = value if predicate`, atomically.
    pub(super) fn atomic_store(
        &mut self,
        buffer: Symbol,
        index: &Expr,
        value: &Expr,
        predicate: Option<&Expr>,
    ) -> Result<()> {
        if index.ty().is_vector() || value.ty().is_vector() {
            return Err(Error::Codegen(format!(
                "internal error: the atomic store to {buffer} is a vector (vectorization makes atomic stores scalar)"
            )));
        }
        if let Some(p) = predicate {
            let holds = self.expr(p)?;
            return self.if_then(holds, |cg| cg.atomic_store(buffer, index, value, None));
        }
        // A store that does not read the point it writes has nothing to keep atomic.
        if !reads_point(value, buffer, index) {
            return self.store(buffer, index, value, None);
        }
        let ty = value.ty();
        let storage = self.typed_storage(buffer, ty, "Store to", index, None)?;
        self.check_access("store to", buffer, &storage, index, None)?;
        let Layout::Scalar(i) = self.layout(index)? else {
            return Err(Error::Codegen(format!(
                "internal error: the scalar index {index} of {buffer} has a vector layout"
            )));
        };
        let ptr = self.element_ptr(self.storage_type(ty), storage.base, i);
        let rmw = split_update(value, buffer, index)
            .and_then(|(op, operand)| Some((rmw_op(op, value.ty())?, operand)));
        match rmw {
            Some((op, operand)) => {
                let operand = self.expr(&operand)?;
                // SAFETY: an FFI call on this function's live builder with two values of its
                // context: `ptr` is a pointer (`element_ptr`) to elements of the operand's
                // type (`storage_type(ty)`, `ty` being the operand's type), and `op` is one
                // LLVM defines for that type (`rmw_op` returns `None` for any other, which
                // takes the compare-and-swap path). The address the generated code touches
                // is the store's own: `check_access` above asserts it in checked mode, and
                // bounds inference sizes `buffer` to cover it otherwise, as for every store.
                unsafe {
                    inkwell::llvm_sys::core::LLVMBuildAtomicRMW(
                        self.builder.as_mut_ptr(),
                        op,
                        ptr.as_value_ref(),
                        operand.as_value_ref(),
                        inkwell::llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic,
                        0,
                    );
                }
                Ok(())
            }
            None => self.compare_and_swap(ptr, buffer, index, value),
        }
    }

    /// `*ptr = value`, where `value` reads `*ptr` as `buffer[index]`: the value is computed
    /// from the contents loaded and stored only if they are still there, else again.
    fn compare_and_swap(
        &mut self,
        ptr: inkwell::values::PointerValue<'ctx>,
        buffer: Symbol,
        index: &Expr,
        value: &Expr,
    ) -> Result<()> {
        let ty = value.ty();
        // cmpxchg takes integers: a float's bits, a bool's stored byte.
        let bits_ty =
            ty.with_code(TypeCode::UInt)
                .with_bits(if ty.is_bool() { 8 } else { ty.bits });
        let int = self.llvm_type(bits_ty);
        let first = self.builder.build_load(int, ptr, "").built();
        first
            .as_instruction_value()
            .expect("internal error: a load is an instruction")
            .set_atomic_ordering(AtomicOrdering::Monotonic)
            .map_err(|e| Error::Codegen(format!("internal error: {e}")))?;
        first
            .as_instruction_value()
            .expect("internal error: a load is an instruction")
            .set_alignment(u32::from(bits_ty.bits) / 8)
            .map_err(|e| Error::Codegen(format!("internal error: {e}")))?;
        let entry = self.current_block();
        let retry = self.ctx.append_basic_block(self.f.function, "cas");
        let done = self.ctx.append_basic_block(self.f.function, "cas_done");
        self.builder.build_unconditional_branch(retry).built();
        self.builder.position_at_end(retry);
        let old = self.builder.build_phi(int, "old").built();
        old.add_incoming(&[(&first, entry)]);
        let old_bits = old.as_basic_value();
        let old_value = self.element_of_bits(old_bits, ty);
        let name = Symbol::new(&format!("{buffer}.atomic_old"));
        let recomputed = with_point_as(value, buffer, index, Expr::var(name, ty));
        let new = self.with_name(name, old_value, |cg| cg.expr(&recomputed))?;
        let new_bits = self.to_bits(self.stored_value(new, ty), bits_ty);
        let swapped = self
            .builder
            .build_cmpxchg(
                ptr,
                old_bits,
                new_bits,
                AtomicOrdering::Monotonic,
                AtomicOrdering::Monotonic,
            )
            .built();
        let seen = self.builder.build_extract_value(swapped, 0, "").built();
        let stored = self.builder.build_extract_value(swapped, 1, "").built();
        old.add_incoming(&[(&seen, self.current_block())]);
        self.builder
            .build_conditional_branch(stored.into_int_value(), done, retry)
            .built();
        self.builder.position_at_end(done);
        Ok(())
    }

    /// The element of type `ty` whose stored bits are `bits`.
    fn element_of_bits(&self, bits: Value<'ctx>, ty: Type) -> Value<'ctx> {
        if ty.is_float() {
            self.builder
                .build_bit_cast(bits, self.llvm_type(ty), "")
                .built()
        } else {
            self.loaded_value(bits, ty)
        }
    }

    /// The stored element `v` as the unsigned integer type `bits_ty` of its width.
    fn to_bits(&self, v: Value<'ctx>, bits_ty: Type) -> BasicValueEnum<'ctx> {
        if v.is_float_value() {
            self.builder
                .build_bit_cast(v, self.llvm_type(bits_ty), "")
                .built()
        } else {
            v.as_basic_value_enum()
        }
    }
}

/// `value` with its loads of `buffer[index]` replaced by `by`.
fn with_point_as(value: &Expr, buffer: Symbol, index: &Expr, by: Expr) -> Expr {
    crate::ir::visit::mutate_exprs(value, &mut |n| {
        is_load_of(n, buffer, index).then(|| by.clone())
    })
}

/// LLVM's `atomicrmw` operation computing `op` exactly as Tessera does on `ty` (wrapping
/// integer arithmetic; float addition and subtraction).
fn rmw_op(op: BinaryOp, ty: Type) -> Option<RmwOp> {
    use BinaryOp::*;
    if ty.is_float() {
        return match op {
            Add => Some(RmwOp::LLVMAtomicRMWBinOpFAdd),
            Sub => Some(RmwOp::LLVMAtomicRMWBinOpFSub),
            _ => None,
        };
    }
    if ty.is_bool() {
        return None;
    }
    let signed = ty.is_int();
    Some(match op {
        Add => RmwOp::LLVMAtomicRMWBinOpAdd,
        Sub => RmwOp::LLVMAtomicRMWBinOpSub,
        BitAnd => RmwOp::LLVMAtomicRMWBinOpAnd,
        BitOr => RmwOp::LLVMAtomicRMWBinOpOr,
        BitXor => RmwOp::LLVMAtomicRMWBinOpXor,
        Min if signed => RmwOp::LLVMAtomicRMWBinOpMin,
        Max if signed => RmwOp::LLVMAtomicRMWBinOpMax,
        Min => RmwOp::LLVMAtomicRMWBinOpUMin,
        Max => RmwOp::LLVMAtomicRMWBinOpUMax,
        _ => return None,
    })
}
