//! Halide's `test/correctness/skip_stages_memoize.cpp`: a memoized Func whose consumers use
//! it only under a Param's condition is not computed where the condition is false, and is
//! where it is true. Halide traces the memoized Funcs' stores; here they print each point
//! they compute (a count per Func, compared with what the toggles allow).

use crate::memoize::{counted, Counts};
use tessera::prelude::*;

fn jit(f: &Func) -> Compiled {
    Pipeline::new(f).compile_jit(&Target::host()).unwrap()
}

/// Halide's `check_correctness_single`: `2x` where the toggle is on, 1 elsewhere.
fn expected_single(toggle: bool, x: i64) -> i32 {
    if toggle {
        2 * x as i32
    } else {
        1
    }
}

#[test]
fn single_memoize() {
    let counts = Counts::default();
    let toggle = Param::<bool>::new("toggle");
    let (f1, f2) = (Func::new("f1_0"), Func::new("f2_0"));
    let x = Var::new("x");
    f1.define(x, counted(2 * x, "f1")).unwrap();
    f2.define(x, select(toggle.expr(), f1.at(x), 1)).unwrap();
    f1.compute_root().memoize();
    let c = jit(&f2);
    for (on, computed) in [(false, 0), (true, 10)] {
        let inputs = Inputs::new()
            .custom_print(counts.handler())
            .param(toggle.bind(on));
        let out = c.realize_as::<i32>(&inputs, &[0], &[10]).unwrap();
        for i in 0..10 {
            assert_eq!(out.get(&[i]), expected_single(on, i));
        }
        assert_eq!(counts.of("f1"), computed, "toggle {on}");
    }
}

#[test]
fn tuple_memoize() {
    let counts = Counts::default();
    let toggle = Param::<bool>::new("toggle");
    let (f1, f2) = (Func::new("f1_1"), Func::new("f2_1"));
    let x = Var::new("x");
    f1.define(x, vec![counted(2 * x, "f1"), 2 * x]).unwrap();
    f2.define(
        x,
        vec![
            select(toggle.expr(), f1.value_at(x, 0), 1),
            select(toggle.expr(), f1.value_at(x, 1), 1),
        ],
    )
    .unwrap();
    f1.compute_root().memoize();
    let c = jit(&f2);
    for (on, computed) in [(false, 0), (true, 128)] {
        let inputs = Inputs::new()
            .custom_print(counts.handler())
            .param(toggle.bind(on));
        let out = c.realize(&inputs, &[0], &[128]).unwrap();
        for buffer in out {
            let buffer = buffer.into_typed::<i32>().unwrap();
            for i in 0..128 {
                assert_eq!(buffer.get(&[i]), expected_single(on, i));
            }
        }
        assert_eq!(counts.of("f1"), computed, "toggle {on}");
    }
}

#[test]
fn non_trivial_allocate_predicate() {
    let counts = Counts::default();
    let toggle = Param::<bool>::new("toggle");
    let (f1, f2, f3) = (Func::new("f1_2"), Func::new("f2_2"), Func::new("f3_2"));
    let x = Var::new("x");
    f1.define(x, counted(2 * x, "f1")).unwrap();
    f2.define(x, counted(select(toggle.expr(), f1.at(x), 1), "f2"))
        .unwrap();
    f3.define(x, select(toggle.expr(), f2.at(x), 1)).unwrap();
    f1.compute_root().memoize();
    f2.compute_root().memoize();
    let c = jit(&f3);
    for (on, computed) in [(false, 0), (true, 10)] {
        let inputs = Inputs::new()
            .custom_print(counts.handler())
            .param(toggle.bind(on));
        let out = c.realize_as::<i32>(&inputs, &[0], &[10]).unwrap();
        for i in 0..10 {
            assert_eq!(out.get(&[i]), expected_single(on, i));
        }
        assert_eq!(counts.of("f1"), computed, "toggle {on}");
        assert_eq!(counts.of("f2"), computed, "toggle {on}");
    }
}

#[test]
fn double_memoize() {
    let counts = Counts::default();
    let (toggle1, toggle2) = (Param::<bool>::new("toggle1"), Param::<bool>::new("toggle2"));
    let (f1, f2, f3) = (Func::new("f1_3"), Func::new("f2_3"), Func::new("f3_3"));
    let x = Var::new("x");
    f1.define(x, counted(x, "f1")).unwrap();
    f2.define(x, counted(x, "f2")).unwrap();
    f3.define(
        x,
        select(toggle1.expr(), f1.at(x), 1) + select(toggle2.expr(), f2.at(x), 0),
    )
    .unwrap();
    f1.compute_root().memoize();
    f2.compute_root().memoize();
    let c = jit(&f3);
    for on1 in [false, true] {
        for on2 in [false, true] {
            let before = (counts.of("f1"), counts.of("f2"));
            let inputs = Inputs::new()
                .custom_print(counts.handler())
                .param(toggle1.bind(on1))
                .param(toggle2.bind(on2));
            let out = c.realize_as::<i32>(&inputs, &[0], &[10]).unwrap();
            for i in 0..10 {
                let want = if on1 { i as i32 } else { 1 } + if on2 { i as i32 } else { 0 };
                assert_eq!(out.get(&[i]), want, "toggles {on1} {on2}");
            }
            // Computed only where used, and then only the first time (later cached).
            let f1_new = counts.of("f1") - before.0;
            let f2_new = counts.of("f2") - before.1;
            assert_eq!(
                f1_new,
                if on1 && !on2 { 10 } else { 0 },
                "f1, toggles {on1} {on2}"
            );
            assert_eq!(
                f2_new,
                if on2 && !on1 { 10 } else { 0 },
                "f2, toggles {on1} {on2}"
            );
        }
    }
}
