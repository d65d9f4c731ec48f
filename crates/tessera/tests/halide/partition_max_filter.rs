//! Halide's `test/correctness/partition_max_filter.cpp` (issue 5353): a 3 x 3 max filter of
//! an image with a repeat-edge boundary is partitioned into 8 loops: top rows, bottom rows,
//! and the middle rows with left edge, centre and right edge in x. Here the loops of the
//! lowered code are counted the same way, and the values (the input is zeros, as in
//! Halide, and here also a ramp) are checked. Halide's 1280 x 1024 image is shrunk to
//! 64 x 48.

use crate::lower_common::{check, walk_stmts, TestInputs};
use tessera::ir::StmtKind;
use tessera::prelude::*;

const W: i64 = 64;
const H: i64 = 48;

/// The lowered max filter's loops, after checking its values on zeros (as Halide) and on a
/// ramp.
fn max_filter_loops() -> usize {
    let input = ImageParam::new(Type::u8(), 2, "input");
    let max_y = crate::max_filter_3x3(&repeat_edge(&input), "max_y");
    let mut loops = 0;
    for ramp in [false, true] {
        let data = Buffer::<u8>::from_fn(&[0, 0], &[W, H], |p| {
            if ramp {
                (p[0] * 3 + p[1] * 5) as u8
            } else {
                0
            }
        });
        let run = check(
            &max_y,
            &TestInputs::new().image(&input, data.clone()),
            &[0, 0],
            &[W, H],
        );
        let AnyBuffer::U8(out) = &run.realization.buffers[0] else {
            panic!("max_y is u8");
        };
        out.for_each_coord(|p| {
            let mut m = 0;
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let at = [(p[0] + dx).clamp(0, W - 1), (p[1] + dy).clamp(0, H - 1)];
                    m = m.max(data.get(&at));
                }
            }
            assert_eq!(out.get(p), m, "max_y{p:?}");
        });
        loops = 0;
        walk_stmts(&run.lowered.stmt, &mut |s| {
            loops += usize::from(matches!(s.kind(), StmtKind::For { .. }));
        });
    }
    loops
}

#[test]
fn the_values_of_a_max_filter() {
    max_filter_loops();
}

#[test]
fn a_max_filter_is_partitioned_into_eight_loops() {
    let loops = max_filter_loops();
    assert_eq!(
        loops, 8,
        "the lowered max filter has {loops} loops, Halide's 8"
    );
}
