//! The cache lookups and stores `lower::memoize` places around a memoized Func's production:
//! calls of the runtime's `tessera_memoize_lookup` and `tessera_memoize_store` with the
//! name its entries go under, its key values' bits (as a message's, `message_values`), its
//! base pointer and size in bytes (`runtime::memo_cache`).

use inkwell::types::BasicMetadataTypeEnum;
use inkwell::{AddressSpace, IntPredicate};

use super::values::{Built, Value};
use super::Codegen;
use crate::error::Result;
use crate::ir::{Expr, Symbol, Type};

impl<'ctx> Codegen<'ctx> {
    /// `memoize_lookup(bytes, key..)` (`store` false) or `memoize_store(bytes, has eviction
    /// key, eviction key, key..)` of `buffer` under `cache_name`, as a bool.
    pub(super) fn memoize_call(
        &mut self,
        buffer: Symbol,
        cache_name: Symbol,
        store: bool,
        args: &[Expr],
    ) -> Result<Value<'ctx>> {
        let bytes = self.expr(&args[0])?;
        let key_start = if store { 3 } else { 1 };
        let mut key: Vec<(Value<'ctx>, Type)> = Vec::new();
        for e in &args[key_start..] {
            key.push((self.expr(e)?, e.ty()));
        }
        let eviction = if store {
            let has = self.expr(&args[1])?;
            let has = self
                .builder
                .build_int_z_extend(has.into_int_value(), self.ctx.i32_type(), "")
                .built();
            Some((has.into(), self.expr(&args[2])?))
        } else {
            None
        };
        let values = self.message_values(&key);
        let storage = self.storage(buffer)?;
        let name = self
            .builder
            .build_global_string_ptr(cache_name.as_str(), "memoized")
            .built();
        let ptr = self.ctx.ptr_type(AddressSpace::default());
        let (i32t, i64t) = (self.ctx.i32_type(), self.ctx.i64_type());
        let mut call_args: Vec<Value<'ctx>> = vec![
            self.f.user_context.into(),
            name.as_pointer_value().into(),
            values.into(),
            i64t.const_int(key.len() as u64, false).into(),
            storage.base.into(),
            bytes,
        ];
        // The lookup's parameters; the store adds whether there is an eviction key and its
        // value.
        let mut params: Vec<BasicMetadataTypeEnum> = vec![
            ptr.into(),
            ptr.into(),
            ptr.into(),
            i64t.into(),
            ptr.into(),
            i64t.into(),
        ];
        let function = if let Some((has, key)) = eviction {
            call_args.extend([has, key]);
            params.extend([i32t.into(), i64t.into()] as [BasicMetadataTypeEnum; 2]);
            self.runtime_function("tessera_memoize_store", |_| i32t.fn_type(&params, false))
        } else {
            self.runtime_function("tessera_memoize_lookup", |_| i32t.fn_type(&params, false))
        };
        let result = self
            .call(function, &call_args)
            .expect("the memoization calls return an i32");
        let truth = self
            .builder
            .build_int_compare(
                IntPredicate::NE,
                result.into_int_value(),
                i32t.const_zero(),
                "",
            )
            .built();
        Ok(truth.into())
    }
}
