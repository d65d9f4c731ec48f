//! Halide issue #6186: a producer computed inside a `GuardWithIf` split of its consumer must
//! not require input rows past the output (a 100-row output split by 64 needs rows 0..=99
//! of its input, not 0..=127). Halide's test only realizes the pipeline; this also checks
//! the values and that the producer computes no row past the output.

use crate::lower_common::{check, TestInputs};
use tessera::lang::schedule::TailStrategy;
use tessera::lang::stage::DimName;
use tessera::prelude::*;

#[test]
fn a_producer_inside_a_guarded_split_reads_only_the_output_rows() {
    let input = ImageParam::new(Type::u8(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let intermed = Func::new("intermed");
    intermed.define((x, y), input.at((x, y))).unwrap();
    let output = Func::new("output");
    output.define((x, y), intermed.at((x, y))).unwrap();
    output.split_with_tail(
        DimName(y.name()),
        "chunk",
        "yi",
        64,
        TailStrategy::GuardWithIf,
    );
    intermed.compute_at(&output, "yi");
    let image = Buffer::<u8>::from_fn(&[0, 0], &[100, 100], |c| (c[0] * 3 + c[1] * 7) as u8);
    let inputs = TestInputs::new().image(&input, image.clone());
    let run = check(&output, &inputs, &[0, 0], &[100, 100]);
    let AnyBuffer::U8(values) = &run.realization.buffers[0] else {
        panic!("output is u8");
    };
    // Beyond Halide's test: the rows past the output are not computed at all.
    assert_eq!(run.stores("intermed"), 100 * 100);
    for yy in 0..100 {
        for xx in 0..100 {
            assert_eq!(
                values.get(&[xx, yy]),
                image.get(&[xx, yy]),
                "at ({xx}, {yy})"
            );
        }
    }
}
