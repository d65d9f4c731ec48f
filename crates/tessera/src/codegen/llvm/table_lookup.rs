//! Byte gathers from small tables, as in-register permutes: a load of 8-bit elements from an
//! allocation of at most 256 of them (a lookup table: histogram equalization's, a tone
//! curve), at indices interval analysis proves lie inside it, on a target with AVX-512 VBMI.
//! The table's bytes fit in four 64-byte registers (LLVM hoists their loads out of the loop
//! when the loop does not write the table); each 64 lanes of the gather are then two
//! `vpermi2b` permutes (each picks from 128 bytes by the index's low seven bits) and a blend
//! on its eighth, instead of one load per lane.

use inkwell::types::{BasicTypeEnum, VectorType};

use super::values::{Op, Value};
use super::vector::Access;
use super::{Codegen, Storage};
use crate::analysis::bounds::{bounds_of_expr, Scope};
use crate::ir::{Expr, Type};

/// Bytes one permute source register holds.
const REGISTER_BYTES: u64 = 64;
/// Table entries one `vpermi2b` chooses from (two registers).
const PERMUTE_ENTRIES: u64 = 2 * REGISTER_BYTES;
/// The largest table looked up in registers.
const MAX_ENTRIES: u64 = 2 * PERMUTE_ENTRIES;

impl<'ctx> Codegen<'ctx> {
    /// `storage[indices]` for a gather of type `ty` by permutes, when the table and the
    /// indices allow it (see the module comment); `None` otherwise.
    pub(super) fn table_lookup(
        &self,
        ty: Type,
        storage: &Storage<'ctx>,
        index: &Expr,
        indices: Value<'ctx>,
        access: Access<'ctx>,
    ) -> Option<Value<'ctx>> {
        let entries = storage.entries?;
        if ty.bits != 8
            || !ty.is_int_or_uint()
            || !(1..=MAX_ENTRIES).contains(&entries)
            || !self.target.has_feature("avx512vbmi")
        {
            return None;
        }
        let range = bounds_of_expr(index, &Scope::new());
        let (lo, hi) = (range.min?.as_int_const()?, range.max?.as_int_const()?);
        if lo < 0 || hi >= i128::from(entries) {
            return None;
        }
        let reached = hi as u64 + 1;
        let byte = self.ctx.i8_type();
        let register: BasicTypeEnum<'ctx> = byte.vec_type(REGISTER_BYTES as u32).into();
        // The registers the indices reach (the bytes past the table's end read as zero, and
        // are never picked). Two per permute; a missing second one is zero.
        let tables: Vec<Value<'ctx>> = (0..reached.div_ceil(REGISTER_BYTES))
            .map(|k| self.table_register(storage, entries, k, register, access))
            .collect();
        let zero = register.const_zero();
        let pair = |i: usize| (tables[i], tables.get(i + 1).copied().unwrap_or(zero));

        let lanes = ty.lanes as u32;
        let byte_indices = self.convert(Op::Trunc, indices, byte.vec_type(lanes).into());
        let mut chunks = Vec::new();
        for start in (0..lanes).step_by(REGISTER_BYTES as usize) {
            // 64 lanes of indices (the last chunk padded with copies of lane 0).
            let picks: Vec<u32> = (start..start + REGISTER_BYTES as u32)
                .map(|l| if l < lanes { l } else { 0 })
                .collect();
            let idx = self.shuffle(byte_indices, byte_indices, &picks);
            let permute = |(a, b): (Value<'ctx>, Value<'ctx>)| {
                self.call_intrinsic("llvm.x86.avx512.vpermi2var.qi.512", &[], &[a, idx, b])
            };
            let low = permute(pair(0));
            let chunk = if reached > PERMUTE_ENTRIES {
                let high = permute(pair(2));
                // Indices 128..=255 are negative as bytes.
                let upper = self.icmp(
                    inkwell::IntPredicate::SLT,
                    idx,
                    register.into_vector_type().const_zero().into(),
                );
                self.select(upper, high, low)
            } else {
                low
            };
            chunks.push(chunk);
        }
        Some(self.first_lanes(&chunks, lanes))
    }

    /// The first `lanes` lanes of the 64-lane `chunks` laid end to end.
    fn first_lanes(&self, chunks: &[Value<'ctx>], lanes: u32) -> Value<'ctx> {
        let mut joined = chunks.to_vec();
        while joined.len() > 1 {
            joined = joined
                .chunks(2)
                .map(|two| match two {
                    [a, b] => {
                        let n = 2 * Self::lanes_of(*a) as u32;
                        self.shuffle(*a, *b, &(0..n).collect::<Vec<_>>())
                    }
                    [a] => *a,
                    _ => unreachable!("chunks(2) yields one or two"),
                })
                .collect();
        }
        let all = joined[0];
        if Self::lanes_of(all) as u32 == lanes {
            all
        } else {
            self.shuffle(all, all, &(0..lanes).collect::<Vec<_>>())
        }
    }

    /// Register `k` of the table: its bytes `64k..64k+63`, those past `entries` zero.
    fn table_register(
        &self,
        storage: &Storage<'ctx>,
        entries: u64,
        k: u64,
        register: BasicTypeEnum<'ctx>,
        access: Access<'ctx>,
    ) -> Value<'ctx> {
        let byte = self.ctx.i8_type();
        let ptr = self.element_ptr(byte.into(), storage.base, (k * REGISTER_BYTES) as i64);
        let present = entries.saturating_sub(k * REGISTER_BYTES);
        if present >= REGISTER_BYTES {
            return self.aligned_load(register, ptr, access);
        }
        let bit = self.ctx.bool_type();
        let mask_bits: Vec<_> = (0..REGISTER_BYTES)
            .map(|l| bit.const_int(u64::from(l < present), false))
            .collect();
        let mask = VectorType::const_vector(&mask_bits).into();
        self.call_intrinsic(
            "llvm.masked.load",
            &[register, ptr.get_type().into()],
            &[
                ptr.into(),
                self.i32_const(access.align as i32).into(),
                mask,
                register.const_zero(),
            ],
        )
    }
}
