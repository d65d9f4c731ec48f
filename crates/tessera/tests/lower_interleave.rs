//! Interleaving strided stores: a loop unrolled inside a vectorized one stores its vectors at
//! stride 2 or 3; consecutive such stores filling a dense span become one dense store of an
//! `interleave`, with exactly the evaluator's results (on the interpreter and the JIT), and
//! stores that cannot be combined safely are left alone. The values of a Tuple stored in
//! turn interleave each, and values alternating by lane parity (`x % k` of the vectorized
//! x) are computed as interleaved parts.

mod lower_common;

use lower_common::{check, interleave_count, u16_image, TestInputs};
use tessera::ir::{CallKind, ExprKind, Intrinsic, Stmt, StmtKind};
use tessera::prelude::*;

/// The strides of the vector stores into `buffer` in `s`, and how many store an `interleave`.
fn store_shapes(s: &Stmt, buffer: &str) -> (Vec<i128>, usize) {
    let (mut strides, mut interleaved) = (Vec::new(), 0);
    fn walk(s: &Stmt, buffer: &str, strides: &mut Vec<i128>, interleaved: &mut usize) {
        if let StmtKind::Store {
            buffer: b,
            index,
            value,
            ..
        } = s.kind()
        {
            if b.as_str() == buffer {
                if let ExprKind::Ramp(_, stride) = index.kind() {
                    strides.extend(stride.as_int_const());
                }
                *interleaved += usize::from(matches!(
                    value.kind(),
                    ExprKind::Call {
                        kind: CallKind::Intrinsic(Intrinsic::Interleave),
                        ..
                    }
                ));
            }
        }
        s.for_each_child(|_| {}, |c| walk(c, buffer, strides, interleaved));
    }
    walk(s, buffer, &mut strides, &mut interleaved);
    (strides, interleaved)
}

/// Whether some expression in `s` is an `interleave` not at the top of a store's value.
fn nested_interleave(s: &Stmt) -> bool {
    interleave_count(s) != store_shapes(s, "out").1
}

/// `out(x, y) = input(x, y) * 3 + input(x + 1, y)` with x split by `factor` (unrolled) inside
/// vectors of 8 tile columns, as a 2x2-tiled output is.
fn unrolled_in_vectors(factor: i32) -> (ImageParam, Func) {
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let out = Func::new("out");
    out.define((x, y), input.at((x, y)) * 3 + input.at((x + 1, y)))
        .unwrap();
    out.split(x, x, "xi", factor)
        .vectorize(x, 8)
        .unroll_loop("xi");
    (input, out)
}

#[test]
fn stores_of_even_and_odd_columns_become_one_dense_store() {
    for factor in [2, 3] {
        let (input, out) = unrolled_in_vectors(factor);
        let width = 8 * factor as i64 * 3;
        let image = u16_image(&[-3, 2], &[width + 5, 6], factor as u64);
        let run = check(
            &out,
            &TestInputs::new().image(&input, image),
            &[-3, 2],
            &[width, 5],
        );
        let (strides, interleaved) = store_shapes(&run.lowered.stmt, "out");
        assert!(interleaved > 0, "factor {factor}:\n{}", run.lowered.stmt);
        assert!(
            strides.iter().all(|&s| s == 1),
            "factor {factor}: {strides:?}"
        );
        assert!(!nested_interleave(&run.lowered.stmt));
    }
}

#[test]
fn widths_that_are_not_whole_vectors_keep_their_tails_right() {
    // The last vector shifts inwards; the steady state is interleaved and every point is
    // still the evaluator's.
    let (input, out) = unrolled_in_vectors(2);
    let image = u16_image(&[0, 0], &[60, 3], 9);
    check(
        &out,
        &TestInputs::new().image(&input, image),
        &[0, 0],
        &[53, 3],
    );
}

#[test]
fn stores_reading_their_own_buffer_stay_apart() {
    // An update reads the buffer its stores write: the pass does not work out which
    // elements each store reads, so it keeps such stores apart.
    let input = ImageParam::new(Type::u16(), 1, "input");
    let x = Var::new("x");
    let out = Func::new("out");
    out.define(x, input.at(x)).unwrap();
    out.update(x, out.at(x) * 2 + 1).unwrap();
    out.update_stage(0)
        .split(x, x, "xi", 2)
        .vectorize(x, 8)
        .unroll_loop("xi");
    let image = u16_image(&[0], &[32], 4);
    let run = check(&out, &TestInputs::new().image(&input, image), &[0], &[32]);
    let (strides, _) = store_shapes(&run.lowered.stmt, "out");
    assert!(strides.contains(&2), "{strides:?}\n{}", run.lowered.stmt);
}

#[test]
fn values_alternating_by_lane_parity_are_computed_as_interleaved_parts() {
    // `x % k` of the vectorized x splits each value into k parts; the odd min and a width
    // that is not whole vectors put x's parity anywhere in a vector, and a Tuple's values
    // are vector lets.
    for (k, vector, elements) in [(2, 8, 1), (2, 8, 2), (3, 12, 1), (4, 8, 2)] {
        let input = ImageParam::new(Type::u16(), 1, "input");
        let x = Var::new("x");
        let out = Func::new("out");
        let values: Vec<Expr> = (0..elements)
            .map(|i| {
                select(
                    (x % k).eq_(1),
                    input.at(x / k + i),
                    input.at(x / k + 5) * (3 + i),
                )
            })
            .collect();
        out.define(x, values).unwrap();
        out.vectorize(x, vector);
        let image = u16_image(&[-3], &[40], 11);
        let run = check(&out, &TestInputs::new().image(&input, image), &[-5], &[53]);
        assert!(
            interleave_count(&run.lowered.stmt) >= elements as usize,
            "k {k}, {elements} values:\n{}",
            run.lowered.stmt
        );
    }
}

#[test]
fn tuple_values_stored_in_turn_interleave_each() {
    // Each update stores value 0 then value 1 of the Tuple at even (then odd) columns: the
    // other value's store between two of one value's does not keep them apart. (Values
    // reading memory are let-bound before both stores, a shape not interleaved yet.)
    let input = ImageParam::new(Type::u16(), 1, "input");
    let x = Var::new("x");
    let out = Func::new("out");
    out.define(x, vec![input.at(x), input.at(x) + 1]).unwrap();
    let r = RDom::new([(0, 8)]);
    let u16_of = |e: Expr| cast_to::<u16>(e);
    out.update(2 * r.x(), vec![u16_of(r.x() * 3), u16_of(r.x() + 100)])
        .unwrap();
    out.update(
        2 * r.x() + 1,
        vec![u16_of(r.x() * 7 + 1), u16_of(r.x() * 5)],
    )
    .unwrap();
    for j in 0..2 {
        out.update_stage(j).vectorize_loop(r.x());
    }
    let image = u16_image(&[0], &[20], 5);
    let run = check(&out, &TestInputs::new().image(&input, image), &[0], &[20]);
    assert_eq!(
        interleave_count(&run.lowered.stmt),
        2,
        "{}",
        run.lowered.stmt
    );
}
