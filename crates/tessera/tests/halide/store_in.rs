//! Halide's `test/correctness/store_in.cpp`: `store_in(MemoryType)` places each of three root
//! Funcs on the stack or the heap, and Halide counts the heap allocations for every
//! combination of Auto, Stack and Heap (here: the interpreter counts the allocations the final
//! Stmt places on the heap, which code generation follows). With the default (Auto)
//! placement, Halide puts all three on the stack because each is bounded by a small constant
//! (f1 is read at 0 and 1, f2 at 0 and `select(p, 0, 2)`, f3 at `x % 1000`); here their
//! allocations must be at most those constant sizes (2, 3 and 1000), and the output is
//! checked with plain Rust.

use crate::lower_common::{check, Checked, TestInputs};
use tessera::prelude::*;

/// The output f, its Param, and its producers f1, f2 and f3.
fn pipeline() -> (Func, Param<bool>, [Func; 3]) {
    let x = Var::new("x");
    let p = Param::<bool>::new("p");
    let [f1, f2, f3] = ["f1", "f2", "f3"].map(|n| {
        let f = Func::new(n);
        f.define(x, x).unwrap();
        f.compute_root();
        f
    });
    let f = Func::new("f");
    f.define(
        x,
        (f1.at(0) + f1.at(1)) + f2.at(select(p.expr(), 0, 2)) + f2.at(0) + f3.at(x % 1000),
    )
    .unwrap();
    (f, p, [f1, f2, f3])
}

fn run(f: &Func, p: &Param<bool>) -> Checked {
    let run = check(f, &TestInputs::new().param(p.bind(true)), &[0], &[1024]);
    let out = crate::i32_values(&run);
    for i in 0..1024 {
        assert_eq!(i64::from(out.get(&[i])), 1 + i % 1000, "at {i}");
    }
    run
}

#[test]
fn the_default_placement_bounds_every_allocation_by_a_constant() {
    let (f, p, _) = pipeline();
    let run = run(&f, &p);
    for (func, size) in [("f1", 2), ("f2", 3), ("f3", 1000)] {
        let elements = run.allocation(func);
        assert!(
            elements <= size,
            "{func} allocates {elements}, at most {size}"
        );
    }
}

#[test]
fn explicit_memory_types() {
    use MemoryType::{Auto, Heap, Stack};
    for t1 in [Auto, Stack, Heap] {
        for t2 in [Auto, Stack, Heap] {
            for t3 in [Auto, Stack, Heap] {
                let (f, p, producers) = pipeline();
                for (func, memory) in producers.iter().zip([t1, t2, t3]) {
                    func.store_in(memory);
                }
                let run = run(&f, &p);
                for (name, memory) in [("f1", t1), ("f2", t2), ("f3", t3)] {
                    let want = u64::from(memory == Heap);
                    assert_eq!(
                        run.heap_allocations(name),
                        want,
                        "{name} in {memory} ({t1}, {t2}, {t3})"
                    );
                }
            }
        }
    }
}

#[test]
fn a_stack_allocation_needs_a_constant_size() {
    let x = Var::new("x");
    let g = Func::new("g");
    g.define(x, x * 2).unwrap();
    let f = Func::new("f");
    f.define(x, g.at(x) + g.at(x + 1)).unwrap();
    g.compute_root().store_in(MemoryType::Stack);
    let err = tessera::lower::lower(&f, &Default::default()).unwrap_err();
    assert!(
        err.to_string()
            .contains("g is stored in Stack memory, which needs a constant size"),
        "{err}"
    );
}

#[test]
fn register_memory_is_a_stack_allocation() {
    let (f, p, [f1, ..]) = pipeline();
    f1.store_in(MemoryType::Register);
    let run = run(&f, &p);
    assert_eq!(run.heap_allocations("f1"), 0);
}

#[test]
fn a_stack_allocation_must_fit_a_stack_frame() {
    let x = Var::new("x");
    let g = Func::new("g");
    g.define(x, x * 2).unwrap();
    let f = Func::new("f");
    f.define(x, g.at(x % (1 << 20))).unwrap();
    g.compute_root().store_in(MemoryType::Stack);
    let err = tessera::lower::lower(&f, &Default::default()).unwrap_err();
    assert!(
        err.to_string()
            .contains("g is stored in Stack memory, but needs 4194304 bytes"),
        "{err}"
    );
}
