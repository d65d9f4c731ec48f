//! Byte gathers from small tables, as in-register byte shuffles: a load of 8-bit elements
//! from an allocation of at most 256 of them (a lookup table: histogram equalization's, a
//! tone curve), at indices interval analysis proves lie inside it. The table's bytes are
//! loaded into registers (LLVM hoists their loads out of the loop when the loop does not
//! write the table), and each lane picks its byte there instead of one load per lane:
//!
//! - with AVX-512 VBMI, the table fills up to four 64-byte registers; each 64 lanes are two
//!   `vpermi2b` permutes (each picks from 128 bytes by the index's low seven bits) and a
//!   blend on its eighth bit;
//! - with AVX2 (or SSSE3), the table is cut into 16-byte groups, each broadcast to every
//!   128-bit lane of a register; each 32 (16) lanes take one `pshufb` per group, which picks
//!   by the index's low four bits and gives zero where the index's top bit is set, so only
//!   the group the index falls in contributes (see `shuffle_chunk`). Up to 16 shuffles, plus
//!   an xor, an add and an or each, still beat a lane-by-lane gather, which pays a lane
//!   extraction and an insertion per byte on the one shuffle unit.

use inkwell::types::{BasicTypeEnum, VectorType};

use super::values::{Op, Value};
use super::vector::Access;
use super::{Codegen, Storage};
use crate::analysis::bounds::{bounds_of_expr, Scope};
use crate::ir::{Expr, Type};

/// The largest table looked up in registers.
const MAX_ENTRIES: u64 = 256;
/// Bytes one `vpermi2b` source register holds.
const PERMUTE_REGISTER_BYTES: u64 = 64;
/// Table entries one `vpermi2b` chooses from (two registers).
const PERMUTE_ENTRIES: u64 = 2 * PERMUTE_REGISTER_BYTES;
/// Table entries one `pshufb` chooses from (within each 128-bit lane).
const SHUFFLE_GROUP_BYTES: u64 = 16;
/// Added with unsigned saturation to an index whose group is the one being looked up (high
/// nibble zero after the xor), it keeps the index's top bit clear; any other index
/// reaches 0x80 or more, which `pshufb` reads as "zero this lane".
const SHUFFLE_BIAS: u64 = 0x70;

/// How the target picks table bytes in registers.
#[derive(Clone, Copy)]
enum Lookup {
    /// AVX-512 VBMI's `vpermi2b`, 64 lanes a chunk.
    Permute,
    /// `pshufb` over `lanes` bytes (32 with AVX2, 16 with SSSE3), by `intrinsic`.
    Shuffle { lanes: u32, intrinsic: &'static str },
}

impl Lookup {
    /// Lanes looked up together.
    fn chunk_lanes(self) -> u32 {
        match self {
            Lookup::Permute => PERMUTE_REGISTER_BYTES as u32,
            Lookup::Shuffle { lanes, .. } => lanes,
        }
    }

    /// Bytes of the table one register load takes.
    fn register_bytes(self) -> u64 {
        match self {
            Lookup::Permute => PERMUTE_REGISTER_BYTES,
            Lookup::Shuffle { .. } => SHUFFLE_GROUP_BYTES,
        }
    }
}

impl<'ctx> Codegen<'ctx> {
    /// `storage[indices]` for a gather of type `ty` by in-register byte picks, when the
    /// target, the table and the indices allow it (see the module comment); `None`
    /// otherwise.
    pub(super) fn table_lookup(
        &self,
        ty: Type,
        storage: &Storage<'ctx>,
        index: &Expr,
        indices: Value<'ctx>,
        access: Access<'ctx>,
    ) -> Option<Value<'ctx>> {
        let entries = storage.entries?;
        if ty.bits != 8 || !ty.is_int_or_uint() || !(1..=MAX_ENTRIES).contains(&entries) {
            return None;
        }
        let lookup = self.byte_lookup()?;
        let range = bounds_of_expr(index, &Scope::new());
        let (lo, hi) = (range.min?.as_int_const()?, range.max?.as_int_const()?);
        if lo < 0 || hi >= i128::from(entries) {
            return None;
        }
        let reached = hi as u64 + 1;
        let lanes = ty.lanes as u32;
        let registers = reached.div_ceil(lookup.register_bytes());
        // A shuffle per table group and chunk against about one extraction and insertion
        // per lane: a gather of few lanes from a large table is cheaper lane by lane.
        if matches!(lookup, Lookup::Shuffle { .. }) && registers > u64::from(lanes) {
            return None;
        }
        let byte = self.ctx.i8_type();
        let register: BasicTypeEnum<'ctx> = byte.vec_type(lookup.register_bytes() as u32).into();
        // The registers the indices reach (the bytes past the table's end read as zero, and
        // are never picked).
        let tables: Vec<Value<'ctx>> = (0..registers)
            .map(|k| self.table_register(storage, entries, k, register, access))
            .collect();

        let byte_indices = self.convert(Op::Trunc, indices, byte.vec_type(lanes).into());
        let chunk_lanes = lookup.chunk_lanes();
        let mut chunks = Vec::new();
        for start in (0..lanes).step_by(chunk_lanes as usize) {
            // A chunk of indices (the last one padded with copies of lane 0).
            let picks: Vec<u32> = (start..start + chunk_lanes)
                .map(|l| if l < lanes { l } else { 0 })
                .collect();
            let idx = self.shuffle(byte_indices, byte_indices, &picks);
            chunks.push(match lookup {
                Lookup::Permute => self.permute_chunk(&tables, idx, reached),
                Lookup::Shuffle { intrinsic, .. } => self.shuffle_chunk(&tables, idx, intrinsic),
            });
        }
        Some(self.first_lanes(&chunks, lanes))
    }

    /// How this target picks bytes from a table in registers; `None` without the
    /// instructions.
    fn byte_lookup(&self) -> Option<Lookup> {
        if self.target.has_feature("avx512vbmi") {
            Some(Lookup::Permute)
        } else if self.target.has_feature("avx2") {
            Some(Lookup::Shuffle {
                lanes: 32,
                intrinsic: "llvm.x86.avx2.pshuf.b",
            })
        } else if self.target.has_feature("ssse3") {
            Some(Lookup::Shuffle {
                lanes: 16,
                intrinsic: "llvm.x86.ssse3.pshuf.b.128",
            })
        } else {
            None
        }
    }

    /// 64 lanes at byte indices `idx` from the 64-byte table registers `tables`, of which
    /// the indices reach the first `reached` bytes.
    fn permute_chunk(&self, tables: &[Value<'ctx>], idx: Value<'ctx>, reached: u64) -> Value<'ctx> {
        let zero = tables[0].get_type().const_zero();
        // Two registers per permute; a missing second one is zero.
        let pair = |i: usize| (tables[i], tables.get(i + 1).copied().unwrap_or(zero));
        let permute = |(a, b): (Value<'ctx>, Value<'ctx>)| {
            self.call_intrinsic("llvm.x86.avx512.vpermi2var.qi.512", &[], &[a, idx, b])
        };
        let low = permute(pair(0));
        if reached <= PERMUTE_ENTRIES {
            return low;
        }
        let high = permute(pair(2));
        // Indices 128..=255 are negative as bytes.
        let upper = self.icmp(inkwell::IntPredicate::SLT, idx, zero);
        self.select(upper, high, low)
    }

    /// The lanes at byte indices `idx` from the 16-byte table groups `groups`, by
    /// `pshufb` (`intrinsic`). Group k holds the indices whose high nibble is k: xored with
    /// k << 4, those alone fall below 16, and `SHUFFLE_BIAS` then zeroes every other lane
    /// of that group's shuffle, so or-ing the shuffles gives each lane its one byte.
    fn shuffle_chunk(
        &self,
        groups: &[Value<'ctx>],
        idx: Value<'ctx>,
        intrinsic: &str,
    ) -> Value<'ctx> {
        let lanes = Self::lanes_of(idx);
        let byte = Type::u8().with_lanes(lanes);
        let bias = self.int_const(byte, SHUFFLE_BIAS as i64);
        let vector = self.llvm_type(byte);
        // Each group in every 128-bit lane of the register.
        let broadcast: Vec<u32> = (0..u32::from(lanes))
            .map(|l| l % SHUFFLE_GROUP_BYTES as u32)
            .collect();
        let mut result: Option<Value<'ctx>> = None;
        for (k, group) in groups.iter().enumerate() {
            let table = self.shuffle(*group, *group, &broadcast);
            let local = if k == 0 {
                idx
            } else {
                let high = self.int_const(byte, (k as u64 * SHUFFLE_GROUP_BYTES) as i64);
                self.binop(Op::Xor, idx, high)
            };
            let pick = self.call_intrinsic("llvm.uadd.sat", &[vector], &[local, bias]);
            let part = self.call_intrinsic(intrinsic, &[], &[table, pick]);
            result = Some(match result {
                Some(r) => self.binop(Op::Or, r, part),
                None => part,
            });
        }
        result.expect("internal error: a table lookup reaches at least one group")
    }

    /// The first `lanes` lanes of the equally long `chunks` laid end to end.
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

    /// Register `k` of the table, of type `register` (n bytes): its bytes `nk..nk+n-1`,
    /// those past `entries` zero.
    fn table_register(
        &self,
        storage: &Storage<'ctx>,
        entries: u64,
        k: u64,
        register: BasicTypeEnum<'ctx>,
        access: Access<'ctx>,
    ) -> Value<'ctx> {
        let bytes = u64::from(register.into_vector_type().get_size());
        let byte = self.ctx.i8_type();
        let ptr = self.element_ptr(byte.into(), storage.base, (k * bytes) as i64);
        let present = entries.saturating_sub(k * bytes);
        if present >= bytes {
            return self.aligned_load(register, ptr, access);
        }
        let bit = self.ctx.bool_type();
        let mask_bits: Vec<_> = (0..bytes)
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
