//! Halide's `test/correctness/popc_clz_ctz_bounds.cpp`: the results of `popcount`,
//! `count_leading_zeros` and `count_trailing_zeros` of u8 values are bounded by 8, so they
//! can index a 9-element table without clamping; a Tuple of the three lookups, scalar and
//! vectorized by 8, against the counts in Rust. Halide's table is a buffer embedded in the
//! pipeline; here it is an ImageParam.

use crate::lower_common::{check, seeded_rng, TestInputs};
use rand::Rng;
use tessera::prelude::*;

/// A permutation of 0..=8.
const MAPPING: [u8; 9] = [4, 2, 8, 5, 1, 7, 0, 3, 6];

#[test]
fn bit_counts_index_a_table_without_clamping() {
    let mut rng = seeded_rng("popc_clz_ctz_bounds", 0);
    let data = Buffer::<u8>::from_fn(&[0], &[16], |_| rng.random());
    for vectorize in [false, true] {
        let input = ImageParam::new(Type::u8(), 1, "in");
        let mapping = ImageParam::new(Type::u8(), 1, "mapping");
        let x = Var::new("x");
        let f = Func::new("f");
        let v = input.at(x);
        f.define(
            x,
            Tuple(vec![
                mapping.at(popcount(v.clone())),
                mapping.at(count_leading_zeros(v.clone())),
                mapping.at(count_trailing_zeros(v)),
            ]),
        )
        .unwrap();
        if vectorize {
            f.vectorize(x, 8);
        }
        let inputs = TestInputs::new().image(&input, data.clone()).image(
            &mapping,
            Buffer::from_fn(&[0], &[9], |p| MAPPING[p[0] as usize]),
        );
        let run = check(&f, &inputs, &[0], &[16]);
        for i in 0..16 {
            let d = data.get(&[i]);
            let counts = [d.count_ones(), d.leading_zeros(), d.trailing_zeros()];
            for (value, count) in counts.into_iter().enumerate() {
                let AnyBuffer::U8(out) = &run.realization.buffers[value] else {
                    panic!("f is u8");
                };
                assert_eq!(
                    out.get(&[i]),
                    MAPPING[count as usize],
                    "value {value} at {i}"
                );
            }
        }
    }
}
