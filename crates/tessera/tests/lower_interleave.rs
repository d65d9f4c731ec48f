//! Interleaving strided stores: a loop unrolled inside a vectorized one stores its vectors at
//! stride 2 or 3; consecutive such stores filling a dense span become one dense store of an
//! `interleave`, with exactly the evaluator's results (on the interpreter and the JIT), and
//! stores that cannot be combined safely are left alone.

mod lower_common;

use lower_common::{check, u16_image, TestInputs};
use tessera::ir::visit::visit_stmt_exprs;
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
    let mut count = 0;
    visit_stmt_exprs(s, &mut |e| {
        count += usize::from(matches!(
            e.kind(),
            ExprKind::Call {
                kind: CallKind::Intrinsic(Intrinsic::Interleave),
                ..
            }
        ));
        true
    });
    count != store_shapes(s, "out").1
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
