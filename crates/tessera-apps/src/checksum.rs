//! Output checksums printed by `tessera run` and the examples: 64-bit FNV-1a over the
//! elements' little-endian bytes in file order (so it equals FNV-1a of the data section of the
//! `.npy` file `tessera run --output` writes), and the plain sum of the values.

use tessera::eval::value::Value;
use tessera::prelude::*;

use tessera::io::layout::for_each_coord_in_file_order;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// 64-bit FNV-1a of `bytes`, continuing from `hash`.
fn fnv1a(mut hash: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(FNV_PRIME);
    }
    hash
}

/// The little-endian bytes of a value of type `ty` (bools are one byte).
fn value_bytes(v: Value, ty: Type) -> Vec<u8> {
    // The raw bits are zero-extended to 64: the first bytes are the element's own.
    v.to_bits().to_le_bytes()[..ty.bytes()].to_vec()
}

/// FNV-1a (64-bit) of the buffer's elements in file order.
pub fn fnv1a64(buffer: &AnyBuffer) -> u64 {
    let ty = buffer.ty();
    let mut hash = FNV_OFFSET;
    for_each_coord_in_file_order(buffer.dims(), |c| {
        hash = fnv1a(hash, &value_bytes(buffer.get_value(c), ty));
    });
    hash
}

/// The sum of the buffer's elements (as f64; exact for integer images below 2^53).
pub fn sum(buffer: &AnyBuffer) -> f64 {
    let mut total = 0.0;
    for_each_coord_in_file_order(buffer.dims(), |c| total += buffer.get_value(c).as_f64());
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_known_vectors() {
        // Published FNV-1a 64 test vectors.
        assert_eq!(fnv1a(FNV_OFFSET, b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a(FNV_OFFSET, b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a(FNV_OFFSET, b"foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn hashes_little_endian_elements_in_file_order() {
        // A 3 x 1 u16 image whose little-endian bytes spell "foobar".
        let values = [
            u16::from_le_bytes(*b"fo"),
            u16::from_le_bytes(*b"ob"),
            u16::from_le_bytes(*b"ar"),
        ];
        let b = Buffer::<u16>::from_fn(&[0, 0], &[3, 1], |c| values[c[0] as usize]);
        assert_eq!(fnv1a64(&b.clone().into()), 0x85944171f73967e8);
        assert_eq!(
            sum(&b.into()),
            values.iter().map(|&v| f64::from(v)).sum::<f64>()
        );
    }
}
