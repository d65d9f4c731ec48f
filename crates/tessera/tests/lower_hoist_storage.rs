//! `hoist_storage`: a Func's allocation made once per iteration of an outer loop (or once
//! at root) instead of once per iteration of its store level, sized for the largest
//! iteration; results equal the evaluator; hoisting across a parallel loop, or to a level
//! inside the storage, is refused naming the Func.

mod lower_common;

use lower_common::{check, schedule_error, TestInputs};
use tessera::prelude::*;

const W: i64 = 11;
const H: i64 = 13;

/// `f(x, y) = x * 5 - y`, `out(x, y) = f(x - 1, y) + f(x + y % 3, y)`: each row of `out`
/// needs a row of f whose width depends on y.
fn pipeline() -> (Func, Func) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x * 5 - y).unwrap();
    let out = Func::new("out");
    out.define((x, y), f.at((x - 1, y)) + f.at((x + y % 3, y)))
        .unwrap();
    (f, out)
}

#[test]
fn storage_is_allocated_once_per_iteration_of_the_hoist_level() {
    // Computed and stored per row: H allocations, or one hoisted to root.
    let (f, out) = pipeline();
    f.compute_at(&out, "y");
    let run = check(&out, &TestInputs::new(), &[0, 0], &[W, H]);
    assert_eq!(run.allocations("f"), H as u64);

    let (f, out) = pipeline();
    f.compute_at(&out, "y").hoist_storage_root();
    let run = check(&out, &TestInputs::new(), &[0, 0], &[W, H]);
    assert_eq!(run.allocations("f"), 1);
    // The widest row: x from -1 to W - 1 + 2.
    assert_eq!(run.allocation("f"), (W + 3) as u64);

    // Per strip of 4 rows, the strips serial: one allocation per strip.
    let (f, out) = pipeline();
    out.split(Var::new("y"), "yo", "yi", 4);
    f.compute_at(&out, "yi").hoist_storage(&out, "yo");
    let run = check(&out, &TestInputs::new(), &[0, 0], &[W, H]);
    assert_eq!(run.allocations("f"), (H as u64).div_ceil(4));
}

#[test]
fn hoisting_across_a_parallel_loop_or_inside_the_storage_is_refused() {
    let (f, out) = pipeline();
    out.parallel("y");
    f.compute_at(&out, "y").hoist_storage_root();
    let e = schedule_error(&out);
    assert!(
        e.contains("f.hoist_storage(root)") && e.contains("parallel loop out.s0.y"),
        "{e}"
    );

    let (f, out) = pipeline();
    out.split(Var::new("y"), "yo", "yi", 4);
    f.compute_at(&out, "yi")
        .store_root()
        .hoist_storage(&out, "yo");
    let e = schedule_error(&out);
    assert!(e.contains("not outside where f is stored (root)"), "{e}");

    let (f, out) = pipeline();
    f.compute_at(&out, "y").hoist_storage(&out, "z");
    let e = schedule_error(&out);
    assert!(e.contains("there is no loop z"), "{e}");
}

#[test]
fn hoisting_out_of_a_producers_loops_bounds_the_size_by_that_producers_region() {
    // f is computed per row of g, g at root: the range of g's row loop that f's storage
    // leaves is given by lets of g's region, defined outside that loop. Row y of g reads
    // f's row y from x = 0 to x = W - 1 + y.
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x * 5 - y).unwrap();
    let g = Func::new("g");
    g.define((x, y), f.at((x, y)) + f.at((x + y, y))).unwrap();
    let top = Func::new("top");
    top.define((x, y), g.at((x, y)) + g.at((x, y + 2))).unwrap();
    g.compute_root().split(y, "yo", "yi", 4);
    f.compute_at(&g, "yi").hoist_storage_root();
    let run = check(&top, &TestInputs::new(), &[0, 0], &[W, H]);
    assert_eq!(run.allocations("f"), 1);
    // g's last row is H + 1.
    assert_eq!(run.allocation("f"), (W + H + 1) as u64);
}

#[test]
fn storage_hoists_to_a_loop_of_one_iteration() {
    // yi split by its own extent: yio runs once per strip, and is still a hoist level.
    let (f, out) = pipeline();
    let y = Var::new("y");
    out.split(y, "yo", "yi", 4).split("yi", "yio", "yii", 4);
    f.compute_at(&out, "yii").hoist_storage(&out, "yio");
    let run = check(&out, &TestInputs::new(), &[0, 0], &[W, H]);
    assert_eq!(run.allocations("f"), (H as u64).div_ceil(4));
}
