//! Non-temporal stores (`Func::store_nontemporal`): an output's whole-vector stores bypass the
//! caches. A normal store of a line that is not cached first reads the line from memory; an
//! output larger than the caches, written once and not read back, pays that read for nothing
//! and evicts data that will be read again (on blur, 61 MB out, a quarter of the run time).
//!
//! A store bypasses the caches only when its address is aligned to the vector, tested at run
//! time, because x86's non-temporal stores require that alignment; other stores of the output
//! are normal. Non-temporal stores are weakly ordered, so every function that made one fences
//! before it returns: the caller, or the thread joining a parallel loop, then sees the data.

use inkwell::values::{BasicValue, PointerValue};
use inkwell::IntPredicate;

use super::values::{Built, Value};
use super::vector::Access;
use super::Codegen;
use crate::error::Result;
use crate::ir::Type;

impl<'ctx> Codegen<'ctx> {
    /// Stores the value `v` of type `ty` at `ptr`: non-temporally when the buffer is
    /// `nontemporal`, `v` a vector and `ptr` aligned to it, normally otherwise.
    pub(super) fn dense_store(
        &mut self,
        v: Value<'ctx>,
        ty: Type,
        ptr: PointerValue<'ctx>,
        access: Access<'ctx>,
        nontemporal: bool,
    ) -> Result<()> {
        let bytes = ty.bytes() as u64 * ty.lanes as u64;
        let natural = u64::from(self.target.vector_bits / 8);
        if !(nontemporal && ty.is_vector() && bytes.is_power_of_two() && bytes >= 16) {
            self.aligned_store(v, ptr, access);
            return Ok(());
        }
        let align = bytes.min(natural);
        let i64t = self.ctx.i64_type();
        let address = self.builder.build_ptr_to_int(ptr, i64t, "").built();
        let misalignment = self
            .builder
            .build_and(address, i64t.const_int(align - 1, false), "")
            .built();
        let aligned = self
            .builder
            .build_int_compare(IntPredicate::EQ, misalignment, i64t.const_zero(), "")
            .built();
        self.if_then_else(
            aligned.into(),
            |cg| {
                cg.nontemporal_store(
                    v,
                    ptr,
                    Access {
                        align: align as u32,
                        ..access
                    },
                );
                Ok(())
            },
            |cg| {
                cg.aligned_store(v, ptr, access);
                Ok(())
            },
        )
    }

    fn nontemporal_store(&mut self, v: Value<'ctx>, ptr: PointerValue<'ctx>, access: Access<'ctx>) {
        let store = self.builder.build_store(ptr, v).built();
        self.describe_access(store, access);
        let one = self.ctx.i32_type().const_int(1, false);
        let node = self.ctx.metadata_node(&[one.as_basic_value_enum().into()]);
        store
            .set_metadata(node, self.ctx.get_kind_id("nontemporal"))
            .expect("internal error: a store takes metadata");
        self.f.streamed = true;
    }

    /// Before the current function returns: makes its non-temporal stores visible to whoever
    /// reads the output next (nothing when it made none).
    pub(super) fn fence_streams(&self) {
        if self.f.streamed {
            self.call_intrinsic_void("llvm.x86.sse.sfence", &[], &[]);
        }
    }
}
