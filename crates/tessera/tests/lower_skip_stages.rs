//! Skipping stages (Halide's skip_stages): a Func whose values its consumers use only under a
//! condition they can evaluate before it is computed (a `select` arm or an `if` on
//! parameters or outer loop variables) is computed only when that condition holds. The
//! interpreter counts the points each Func computes; results equal the evaluator, in checked
//! native code too (both arms of a `select` are still read there, from allocated storage).

mod lower_common;

use lower_common::{check, TestInputs};
use tessera::prelude::*;

const W: i64 = 13;
const H: i64 = 7;

/// `out = select(toggle, a, b)` with `a` and `b` computed at root: only the one taken.
#[test]
fn a_parameter_picks_which_producer_is_computed() {
    for toggle in [true, false] {
        let (x, y) = (Var::new("x"), Var::new("y"));
        let p = Param::<bool>::new("toggle");
        let a = Func::new("a");
        a.define((x, y), x * 3 + y).unwrap();
        let b = Func::new("b");
        b.define((x, y), x - y * 5).unwrap();
        let out = Func::new("out");
        out.define((x, y), select(p.expr(), a.at((x, y)), b.at((x + 1, y))))
            .unwrap();
        a.compute_root();
        b.compute_root();
        let inputs = TestInputs::new().param(p.bind(toggle));
        let run = check(&out, &inputs, &[0, 0], &[W, H]);
        let (taken, skipped) = if toggle { ("a", "b") } else { ("b", "a") };
        assert_eq!(run.provides(taken), (W * H) as u64, "toggle {toggle}");
        assert_eq!(run.provides(skipped), 0, "toggle {toggle}");
    }
}

/// A producer computed per row, used only in the rows where the row's condition holds.
#[test]
fn a_producer_per_row_is_computed_only_in_the_rows_using_it() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x * x + y).unwrap();
    let out = Func::new("out");
    out.define((x, y), select((y % 3).eq_(0), f.at((x, y)) * 2, y - x))
        .unwrap();
    f.compute_at(&out, y);
    let run = check(&out, &TestInputs::new(), &[0, 0], &[W, H]);
    let rows_used = (0..H).filter(|r| r % 3 == 0).count() as i64;
    assert_eq!(run.provides("f"), (W * rows_used) as u64);
}

/// A condition on the consumer's inner loop cannot be evaluated before the producer: it is
/// not skipped, but its region is narrowed to the points where the arm is taken
/// (`lower_select_regions.rs`), and the values are right.
#[test]
fn a_condition_on_an_inner_loop_narrows_the_region_instead() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x * 7 - y).unwrap();
    let out = Func::new("out");
    out.define((x, y), select(x.lt(4), f.at((x, y)), 0))
        .unwrap();
    f.compute_at(&out, y);
    let run = check(&out, &TestInputs::new(), &[0, 0], &[W, H]);
    assert_eq!(run.provides("f"), (4 * H) as u64);
}

/// A producer stored outside the loop it is computed in (sliding) is never skipped: later
/// iterations rely on what earlier ones computed.
#[test]
fn a_sliding_producer_is_not_skipped() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x + y * 11).unwrap();
    let out = Func::new("out");
    out.define(
        (x, y),
        select((y % 2).eq_(0), f.at((x, y)) + f.at((x, y + 1)), 1),
    )
    .unwrap();
    f.store_root().compute_at(&out, y);
    let run = check(&out, &TestInputs::new(), &[0, 0], &[W, H]);
    assert_eq!(run.provides("f"), (W * (H + 1)) as u64);
}
