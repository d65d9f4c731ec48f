//! Wrappers (`Func::in_`, Halide's `Func::in`): the copy of a Func one consumer reads,
//! scheduled on its own. Results equal the evaluator's on the interpreter and the JIT whether
//! the wrapper is inlined, computed at root or sliding down a strip while the wrapped Func
//! stays inlined for its other consumers; the consumer's later updates read the wrapper too;
//! misuse is a schedule error naming the Funcs.

mod lower_common;

use lower_common::{check, schedule_error, TestInputs};
use tessera::ir::visit::visit_exprs;
use tessera::ir::{CallKind, ExprKind, Symbol};
use tessera::prelude::*;

const W: i64 = 11;
const H: i64 = 23;

/// `f(x, y) = x * 7 + y * y`; `g(x, y) = f(x, y - 1) + f(x, y + 1)`;
/// `out(x, y) = g(x, y) + g(x, y + 1) + f(x, y)`: f has two consumers.
fn two_consumers() -> (Func, Func, Func) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x * 7 + y * y).unwrap();
    let g = Func::new("g");
    g.define((x, y), f.at((x, y - 1)) + f.at((x, y + 1)))
        .unwrap();
    let out = Func::new("out");
    out.define((x, y), g.at((x, y)) + g.at((x, y + 1)) + f.at((x, y)))
        .unwrap();
    (f, g, out)
}

/// The names of the Funcs `f`'s definitions call.
fn callees(f: &Func) -> Vec<Symbol> {
    let mut out = Vec::new();
    for d in f.function().definitions() {
        for e in d.exprs() {
            visit_exprs(e, &mut |n| {
                if let ExprKind::Call {
                    kind: CallKind::Func(link),
                    ..
                } = n.kind()
                {
                    out.push(link.name());
                }
                true
            });
        }
    }
    out
}

#[test]
fn an_unscheduled_wrapper_is_inlined() {
    let (f, g, out) = two_consumers();
    let wrapper = f.in_(&g);
    assert_eq!(wrapper.name().as_str(), "f_in_g");
    assert_eq!(callees(&g), vec![wrapper.name(), wrapper.name()]);
    check(&out, &TestInputs::new(), &[-2, -3], &[W, H]);
}

#[test]
fn a_wrapper_slides_down_a_strip_while_the_func_stays_inlined() {
    let (f, g, out) = two_consumers();
    out.split("y", "yo", "yi", 8).vectorize("x", 4);
    g.store_at(&out, "yo")
        .compute_at(&out, "yi")
        .vectorize("x", 4);
    f.in_(&g)
        .store_at(&out, "yo")
        .compute_at(&out, "yi")
        .vectorize("x", 4);
    let run = check(&out, &TestInputs::new(), &[0, 0], &[W, H]);
    // Each strip of 8 output rows (the last shifted inwards) needs 9 rows of g and 11 of the
    // wrapper, each computed once, in vectors of 4 over 11 columns (12 lanes a row).
    let strips = (H as u64).div_ceil(8);
    assert_eq!(run.stores("g"), strips * 9 * 12);
    assert_eq!(run.stores("f_in_g"), strips * 11 * 12);
    // f itself is inlined: into the wrapper and into out.
    assert_eq!(run.provides("f"), 0);
    // Both are stored at the strip; the wrapper's storage is folded to the 4 rows one
    // iteration reads (3) although g's storage sits between it and the loop.
    assert_eq!(run.allocation("f_in_g"), W as u64 * 4);
    assert_eq!(run.allocation("g"), W as u64 * 2);
}

#[test]
fn a_wrapper_at_root_of_a_func_computed_at_root() {
    let (f, g, out) = two_consumers();
    f.compute_root();
    f.in_(&g).compute_root().vectorize("x", 4);
    g.compute_root();
    let run = check(&out, &TestInputs::new(), &[3, -1], &[W, H]);
    // Rows -1 ..= H + 1 of it, in vectors of 4 over 11 columns (12 lanes a row).
    assert_eq!(run.provides("f_in_g"), 12 * (H + 3) as u64);
}

#[test]
fn wrapping_again_gives_the_same_wrapper() {
    let (f, g, _) = two_consumers();
    let first = f.in_(&g);
    let second = f.in_(&g);
    assert!(first.function().same_as(second.function()));
    assert_eq!(callees(&g), vec![first.name(), first.name()]);
}

#[test]
fn later_updates_of_the_consumer_read_the_wrapper() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x - y * 3).unwrap();
    let g = Func::new("g");
    g.define((x, y), f.at((x, y))).unwrap();
    let wrapper = f.in_(&g);
    let r = RDom::new([(0, 3)]);
    g.update((x, y), g.at((x, y)) + f.at((x + r.x(), y)))
        .unwrap();
    assert!(callees(&g).iter().all(|&c| c != f.name()));
    f.compute_root();
    wrapper.compute_root();
    g.compute_root();
    let out = Func::new("out");
    out.define((x, y), g.at((x, y)) * 2 + f.at((x, y))).unwrap();
    check(&out, &TestInputs::new(), &[0, 0], &[W, H]);
}

#[test]
fn wrappers_of_tuples_and_of_funcs_with_updates() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), Tuple(vec![x + y, x * y])).unwrap();
    f.update(
        (x, y),
        Tuple(vec![f.value_at((x, y), 0) * 2, f.value_at((x, y), 1) + 1]),
    )
    .unwrap();
    f.compute_root();
    let g = Func::new("g");
    g.define((x, y), f.value_at((x, y), 0) - f.value_at((x + 1, y), 1))
        .unwrap();
    f.in_(&g).compute_at(&g, "y").vectorize("x", 4);
    check(&g, &TestInputs::new(), &[-5, 2], &[W, H]);
}

#[test]
fn misuse_is_a_schedule_error_naming_the_funcs() {
    let (f, _, out) = two_consumers();
    f.in_(&f);
    let err = schedule_error(&out);
    assert!(err.contains("f.in_(f): a Func cannot wrap itself"), "{err}");

    let (f, _, out) = two_consumers();
    let unrelated = Func::new("unrelated");
    unrelated.define((Var::new("x"), Var::new("y")), 1).unwrap();
    f.in_(&unrelated);
    let err = schedule_error(&out);
    assert!(
        err.contains("f.in_(unrelated): unrelated does not call f, so there is nothing to wrap"),
        "{err}"
    );

    let (f, _, out) = two_consumers();
    let undefined = Func::new("undefined");
    f.in_(&undefined);
    let err = schedule_error(&out);
    assert!(
        err.contains("f.in_(undefined): undefined has no definition yet"),
        "{err}"
    );

    // The error stays with the wrapped Func, here one no pipeline reaches.
    let (_, g, _) = two_consumers();
    let undefined = Func::new("undefined");
    assert_eq!(undefined.in_(&g).name(), undefined.name());
    let errors: Vec<String> = (undefined.function().read().schedule.errors.iter())
        .map(|e| e.message.clone())
        .collect();
    assert_eq!(
        errors,
        vec!["undefined.in_(g): undefined has no definition yet; define it before wrapping it"]
    );
}

#[test]
fn a_func_read_only_in_a_reduction_bound_can_be_wrapped() {
    // `g`'s update sums over `r` in [0, f(2, 1)): `f` is read only in the RDom's extent.
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x + y * 2).unwrap();
    let g = Func::new("g");
    g.define((x, y), x * y).unwrap();
    let r = RDom::new([(Expr::from(0), f.at((2, 1)))]);
    g.update((x, y), g.at((x, y)) + r.x()).unwrap();
    let wrapper = f.in_(&g);
    assert_eq!(wrapper.name().as_str(), "f_in_g");
    wrapper.compute_root();
    check(&g, &TestInputs::new(), &[-1, 0], &[W, H]);
}

#[test]
fn a_func_read_only_in_a_store_condition_can_be_wrapped() {
    // `g`'s update stores only where `f` is even: `f` is read only in the update's guard.
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x * 3 + y).unwrap();
    let g = Func::new("g");
    g.define((x, y), x - y).unwrap();
    g.update(
        (x, y),
        select(
            (f.at((x, y)) % 2).eq_(0),
            g.at((x, y)) + 100,
            undef::<i32>(),
        ),
    )
    .unwrap();
    let wrapper = f.in_(&g);
    assert_eq!(wrapper.name().as_str(), "f_in_g");
    wrapper.compute_at(&g, "y");
    check(&g, &TestInputs::new(), &[0, -4], &[W, H]);
}
