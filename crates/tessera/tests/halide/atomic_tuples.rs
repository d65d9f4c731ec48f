//! Halide's `test/correctness/atomic_tuples.cpp`: parallel, `atomic()` updates of Tuple
//! Funcs, where the elements are updated independently, coupled across elements, coupled in
//! pairs, or written on even and odd rows from the other rows. Halide checks the values and
//! counts the atomic nodes (and mutexes) in its lowered IR.
//!
//! In the first four cases the parallel loop is over a pure variable of the update (`y`), so
//! each iteration writes its own row; in the last, each update reads only rows it does not
//! write, which lowering proves (even rows are never odd ones). The atomic-node counts are
//! left out (they inspect Halide's IR). The output is 64 x 64 instead of 128 x 128.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

const N: i64 = 64;

/// `f(x, y) = init`, updated by `update(f, x, y)` in parallel over y, summed into g.
fn parallel_tuple_update(
    init: impl Fn(Var, Var) -> Vec<Expr>,
    update: impl Fn(&Func, Var, Var) -> Vec<Expr>,
) -> Func {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), Tuple(init(x, y))).unwrap();
    f.update((x, y), Tuple(update(&f, x, y))).unwrap();
    f.compute_root();
    f.update_stage(0).parallel(y).atomic();
    let values = f.output_types().len();
    let g = Func::new("g");
    let sum = (1..values).fold(f.value_at((x, y), 0), |s, i| s + f.value_at((x, y), i));
    g.define((x, y), sum).unwrap();
    g
}

fn assert_sums(g: &Func, expected: impl Fn(i32, i32) -> i32) {
    let run = check(g, &TestInputs::new(), &[0, 0], &[N, N]);
    let out = crate::i32_values(&run);
    for y in 0..N {
        for x in 0..N {
            let want = expected(x as i32, y as i32);
            assert_eq!(out.get(&[x, y]), want, "at ({x}, {y})");
        }
    }
}

#[test]
fn independent_elements() {
    let g = parallel_tuple_update(
        |x, y| vec![x.into(), y.into()],
        |f, x, y| vec![f.value_at((x, y), 0) + x, f.value_at((x, y), 1) + y],
    );
    assert_sums(&g, |x, y| 2 * x + 2 * y);
}

#[test]
fn coupled_elements() {
    let g = parallel_tuple_update(
        |x, y| vec![x.into(), y.into()],
        |f, x, y| vec![f.value_at((x, y), 1) + x, f.value_at((x, y), 0) + y],
    );
    assert_sums(&g, |x, y| 2 * x + 2 * y);
}

#[test]
fn two_coupled_elements_and_an_independent_one() {
    let g = parallel_tuple_update(
        |x, y| vec![x.into(), y.into(), Expr::from(0)],
        |f, x, y| {
            vec![
                f.value_at((x, y), 1) + x,
                f.value_at((x, y), 0) + y,
                f.value_at((x, y), 2) + 1,
            ]
        },
    );
    assert_sums(&g, |x, y| 2 * x + 2 * y + 1);
}

#[test]
fn two_coupled_pairs() {
    let g = parallel_tuple_update(
        |x, y| vec![x.into(), y.into(), x.into(), y.into()],
        |f, x, y| {
            vec![
                f.value_at((x, y), 1) + x,
                f.value_at((x, y), 0) + y,
                f.value_at((x, y), 3) + x,
                f.value_at((x, y), 2) + y,
            ]
        },
    );
    assert_sums(&g, |x, y| 4 * x + 4 * y);
}

#[test]
fn even_and_odd_rows_updated_from_each_other() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), Tuple(vec![x.into(), y.into()])).unwrap();
    let r = RDom::named("r", [(0, 65)]);
    let r2 = r.x() * 2;
    // Even rows from the odd rows next to them, then odd rows from the even ones.
    f.update(
        (x, r2.clone()),
        Tuple(vec![
            f.value_at((x, r2.clone() + 1), 1) + x,
            f.value_at((x, r2.clone() - 1), 0) + r2.clone(),
        ]),
    )
    .unwrap();
    f.update(
        (x, r2.clone() + 1),
        Tuple(vec![
            f.value_at((x, r2.clone()), 1) + x,
            f.value_at((x, r2.clone() + 2), 0) + r2 + 1,
        ]),
    )
    .unwrap();
    f.compute_root();
    f.update_stage(0).parallel(r.x()).atomic();
    f.update_stage(1).parallel(r.x()).atomic();
    let g = Func::new("g");
    g.define((x, y), f.value_at((x, y), 0) + f.value_at((x, y), 1))
        .unwrap();
    // The odd rows are updated after the even rows: another x + y.
    assert_sums(&g, |x, y| {
        2 * x + 2 * y + 1 + if y % 2 == 1 { x + y } else { 0 }
    });
}
