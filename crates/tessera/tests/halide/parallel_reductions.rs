//! Halide's `test/correctness/parallel_reductions.cpp`: a sum of 0..256 decomposed by hand
//! into 16 parallel, vectorized partial sums and a final sum; and a parallel, vectorized
//! prefix sum of 256 values laid out as 16 rows of 16: a scan of each row (rows in
//! parallel), a scan down the row totals, and each output the sum of the two. (Halide sets
//! the output's bounds to [0, 256) with `output_buffer().set_bounds`; here the output is
//! simply realized over [0, 256).)

use crate::lower_common::{check, u8_image, TestInputs};
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

#[test]
fn a_sum_of_parallel_vectorized_partial_sums() {
    let i = Var::new("i");
    let (r1, r2) = (RDom::new([(0, 16)]), RDom::new([(0, 16)]));
    let f1 = Func::new("f1");
    f1.define(i, sum(i * 16 + r1.x())).unwrap();
    let f2 = Func::new("f2");
    f2.define((), sum(f1.at(r2.x()))).unwrap();
    f1.compute_root().vectorize(i, 4).parallel(i);
    let run = check(&f2, &TestInputs::new(), &[], &[]);
    assert_eq!(crate::i32_values(&run).get(&[]), 256 * 255 / 2);
}

#[test]
fn a_parallel_vectorized_prefix_sum() {
    const CHUNK: i32 = 16;
    let input = ImageParam::new(Type::i32(), 1, "input");
    let data = u8_image(&[0], &[256], 0, 15, 3);
    let data = Buffer::<i32>::from_fn(&[0], &[256], |c| i32::from(data.get(c)));
    let (i, j) = (Var::new("i"), Var::new("j"));
    let r1 = RDom::new([(0, CHUNK)]);
    let sum_rows = Func::new("sum_rows");
    sum_rows.define((i, j), 0).unwrap();
    sum_rows
        .update(
            (r1.x().expr(), j.expr()),
            sum_rows.at((r1.x() - 1, j)) + input.at(r1.x() + j * CHUNK),
        )
        .unwrap();
    let sum_cols = Func::new("sum_cols");
    sum_cols.define(j, 0).unwrap();
    sum_cols
        .update(
            r1.x(),
            sum_cols.at(r1.x()) + sum_cols.at(r1.x() - 1) + sum_rows.at((CHUNK - 1, r1.x())),
        )
        .unwrap();
    let out = Func::new("out");
    let (x, y) = (i % CHUNK, i / CHUNK);
    out.define(i, sum_rows.at((x, y.clone())) + sum_cols.at(y - 1))
        .unwrap();
    out.split_with_tail(i, "io", "ii", CHUNK, TailStrategy::Auto)
        .vectorize("ii", 4)
        .parallel("io");
    sum_rows.compute_root().vectorize(i, 4).parallel(j);
    sum_rows.update_stage(0).parallel(j);
    sum_cols.compute_root().vectorize(j, 4);
    let run = check(
        &out,
        &TestInputs::new().image(&input, data.clone()),
        &[0],
        &[256],
    );
    let result = crate::i32_values(&run);
    let mut correct = 0;
    for k in 0..256 {
        correct += data.get(&[k]);
        assert_eq!(result.get(&[k]), correct, "out({k})");
    }
}
