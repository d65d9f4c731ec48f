//! `SymbolMap`: hash maps keyed by `Symbol` with a one-multiply hash. Symbols are small,
//! distinct integers, so SipHash's flooding resistance buys nothing here, while it costs a
//! visible share of the interpreter's time (every variable lookup and memory access hashes).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::ir::Symbol;

pub(super) type SymbolMap<V> = HashMap<Symbol, V, BuildHasherDefault<SymbolHasher>>;

/// FxHash's mixing step (rotate, xor, multiply by an odd constant).
#[derive(Default)]
pub(super) struct SymbolHasher(u64);

const MULTIPLIER: u64 = 0x517c_c1b7_2722_0a95;

impl Hasher for SymbolHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64);
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(MULTIPLIER);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}
