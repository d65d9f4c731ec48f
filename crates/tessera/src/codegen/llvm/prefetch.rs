//! `Prefetch` statements (`Func::prefetch`) as `llvm.prefetch` calls: a read prefetch of the
//! cache line holding the element, into all cache levels (locality 3), as Halide emits on
//! x86. The address is formed without LLVM's `inbounds` promise, since a `NonFaulting`
//! prefetch may point outside its buffer; in checked mode a prefetch that must lie inside
//! (`Clamp`, `GuardWithIf`) is checked as a load would be.

use inkwell::intrinsics::Intrinsic as LlvmIntrinsic;

use super::values::{Built, Value};
use super::Codegen;
use crate::error::{Error, Result};
use crate::ir::{Expr, Symbol, Type};

impl<'ctx> Codegen<'ctx> {
    pub(super) fn prefetch(
        &mut self,
        buffer: Symbol,
        ty: Type,
        args: &[Expr],
        in_bounds: bool,
    ) -> Result<()> {
        let [index] = args else {
            return Err(Error::Codegen(format!(
                "the prefetch of {buffer} was not flattened"
            )));
        };
        let storage = self.typed_storage(buffer, ty, "Prefetch of", index, None)?;
        if self.target.bounds_checks && in_bounds {
            self.check_access("prefetch of", buffer, &storage, index, None)?;
        }
        let i = self.address(index)?;
        let Value::IntValue(i) = i else {
            return Err(Error::Codegen(format!(
                "the prefetch of {buffer} has the non-scalar index {index}"
            )));
        };
        let elem = self.storage_type(ty);
        // SAFETY: a GEP of one i64 index from a pointer; without `inbounds` it is defined
        // whatever the address, which the prefetch only hints at.
        let ptr = unsafe { self.builder.build_gep(elem, storage.base, &[i], "") }.built();
        let f = LlvmIntrinsic::find("llvm.prefetch")
            .and_then(|f| f.get_declaration(&self.module, &[ptr.get_type().into()]))
            .ok_or_else(|| Error::Codegen("no LLVM intrinsic llvm.prefetch".into()))?;
        let i32t = Type::i32();
        let (read, all_levels, data) = (
            self.int_const(i32t, 0),
            self.int_const(i32t, 3),
            self.int_const(i32t, 1),
        );
        self.call(f, &[Value::PointerValue(ptr), read, all_levels, data]);
        Ok(())
    }
}
