//! Halide's `test/correctness/func_clone.cpp`: `f.clone_in(g)`, a copy of `f`'s whole
//! definition that `g` reads instead of `f`. Asking twice for the clone of the same
//! consumers (in any order) gives the same Func; each case checks the call graph of the
//! lowered code (which Funcs and inputs each Func's producer calls: the original is gone
//! where only its clones are read) and every output value against plain Rust: a root clone;
//! a clone shared by two of three outputs; a clone made before the consumer's update exists
//! (the update, scheduled with a Param specialization, unrolled RDom splits and parallel
//! vectorized splits, reads the clone too); clones read by Funcs that are themselves cloned
//! elsewhere; clones of clones; and a clone of a reduction computed inside its consumer while
//! the original is computed inside another (its update's reads of itself read the clone).
//! Output sizes are shrunk (200x200 in Halide) to keep the tests fast.

use crate::call_graphs::{call_graph, graph, pipeline_call_graph};
use crate::func_wrapper::update_after_redirect;
use crate::{assert_image_2d, i32_values, realize, realize_outputs, realize_outputs_2d};
use tessera::prelude::*;

#[test]
fn asking_again_gives_the_same_clone() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), x + y).unwrap();
    let g = Func::new("g");
    g.define((x, y), f.at((x, y))).unwrap();
    let clone = f.clone_in(&g);
    for _ in 0..5 {
        assert_eq!(f.clone_in(&g).name(), clone.name());
    }

    let d = Func::new("d");
    d.define((x, y), x + y).unwrap();
    let consumers: Vec<Func> = ["e", "f", "g", "h"]
        .iter()
        .map(|name| {
            let c = Func::new(name);
            c.define((x, y), d.at((x, y))).unwrap();
            c
        })
        .collect();
    let clone1 = d.clone_in(&[&consumers[0], &consumers[1], &consumers[2]]);
    let clone2 = d.clone_in(&[&consumers[2], &consumers[1], &consumers[0]]);
    assert_eq!(clone1.name(), clone2.name());
    assert_ne!(clone1.name(), d.name());
}

#[test]
fn a_root_clone() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define(x, Expr::from(x)).unwrap();
    let g = Func::new("g");
    g.define((x, y), f.at(x)).unwrap();
    let clone = f.clone_in(&g);
    clone.compute_root();
    f.compute_root();
    let run = realize(&g, &[64, 64]);
    assert_eq!(
        call_graph(&run.lowered),
        graph! { g => [clone], clone => [] },
        "the call graph"
    );
    assert_image_2d(i32_values(&run), |x, _| x);
}

#[test]
fn a_clone_shared_by_two_of_three_outputs() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define(x, Expr::from(x)).unwrap();
    let (g1, g2, g3) = (Func::new("g1"), Func::new("g2"), Func::new("g3"));
    for g in [&g1, &g2, &g3] {
        g.define((x, y), f.at(x)).unwrap();
    }
    f.compute_root();
    let f_clone = f.clone_in(&[&g1, &g2]);
    f_clone.compute_root();
    let pipeline = Pipeline::with_outputs(&[&g1, &g2, &g3]);
    assert_eq!(
        pipeline_call_graph(&pipeline),
        graph! { g1 => [f_clone], g2 => [f_clone], g3 => [f], f_clone => [], f => [] },
        "the call graph"
    );
    for out in realize_outputs_2d(&Inputs::new(), &pipeline, 64) {
        assert_image_2d(&out, |x, _| x);
    }
}

fn update_after_clone(param_value: bool) {
    update_after_redirect(
        param_value,
        |f, g| f.clone_in(g),
        |_, clone, g| {
            graph! { g => [clone, g], clone => [] }
        },
    );
}

#[test]
fn an_update_defined_after_the_clone_reads_it_specialized() {
    update_after_clone(true);
}

#[test]
fn an_update_defined_after_the_clone_reads_it_unspecialized() {
    update_after_clone(false);
}

#[test]
fn clones_read_by_funcs_cloned_elsewhere() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let names = ["a", "b", "c", "d", "e", "f"];
    let [a, b, c, d, e, f] = names.map(Func::new);
    a.define((x, y), x + y).unwrap();
    b.define((x, y), a.at((x, y)) + 1).unwrap();
    e.define((x, y), a.at((x, y)) + 2).unwrap();
    c.define((x, y), b.at((x, y)) + 2).unwrap();
    d.define((x, y), c.at((x, y)) + 3).unwrap();
    f.define((x, y), c.at((x, y)) + 4).unwrap();
    let a_clone_in_b = a.clone_in(&b);
    a_clone_in_b.compute_root();
    let c_clone_in_f = c.clone_in(&f);
    c_clone_in_f.compute_root();
    for func in [&a, &b, &c, &d, &e, &f] {
        func.compute_root();
    }
    let pipeline = Pipeline::with_outputs(&[&d, &e, &f]);
    assert_eq!(
        pipeline_call_graph(&pipeline),
        graph! {
            e => [a], a => [], d => [c], f => [c_clone_in_f], c => [b],
            c_clone_in_f => [b], b => [a_clone_in_b], a_clone_in_b => [],
        },
        "the call graph"
    );
    let out = realize_outputs_2d(&Inputs::new(), &pipeline, 25);
    assert_image_2d(&out[0], |x, y| x + y + 6);
    assert_image_2d(&out[1], |x, y| x + y + 2);
    assert_image_2d(&out[2], |x, y| x + y + 7);
}

#[test]
fn clones_of_clones() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let names = ["a", "b", "c", "d", "e", "f"];
    let [a, b, c, d, e, f] = names.map(Func::new);
    a.define((x, y), x + y).unwrap();
    b.define((x, y), a.at((x, y)) + 1).unwrap();
    c.define((x, y), b.at((x, y)) + 2).unwrap();
    d.define((x, y), b.at((x, y)) + 3).unwrap();
    e.define((x, y), a.at((x, y)) + b.at((x, y))).unwrap();
    f.define((x, y), a.at((x, y)) + b.at((x, y)) + 1).unwrap();
    let b_clone_in_d_f = b.clone_in(&[&d, &f]);
    b_clone_in_d_f.compute_root();
    let a_clone_in_b_e = a.clone_in(&[&b, &e]);
    a_clone_in_b_e.compute_root();
    let a_clone_in_b_e_in_e = a_clone_in_b_e.clone_in(&e);
    a_clone_in_b_e_in_e.compute_root();
    for func in [&a, &b, &c, &d, &e, &f] {
        func.compute_root();
    }
    let pipeline = Pipeline::with_outputs(&[&c, &d, &e, &f]);
    assert_eq!(
        pipeline_call_graph(&pipeline),
        graph! {
            e => [b, a_clone_in_b_e_in_e], c => [b], b => [a_clone_in_b_e],
            a_clone_in_b_e => [], a_clone_in_b_e_in_e => [], d => [b_clone_in_d_f],
            f => [b_clone_in_d_f, a], b_clone_in_d_f => [a], a => [],
        },
        "the call graph"
    );
    let out = realize_outputs_2d(&Inputs::new(), &pipeline, 25);
    assert_image_2d(&out[0], |x, y| x + y + 3);
    assert_image_2d(&out[1], |x, y| x + y + 4);
    assert_image_2d(&out[2], |x, y| 2 * x + 2 * y + 1);
    assert_image_2d(&out[3], |x, y| 2 * x + 2 * y + 2);
}

/// Halide only realizes this pipeline (the schedule would be refused if the clone's update
/// still read the original); the values are checked here too: `sum(x) = 28 x`.
#[test]
fn a_clone_of_a_reduction_reads_itself() {
    let x = Var::new("x");
    let r = RDom::new([(0, 8)]);
    let sum = Func::new("sum");
    sum.update_add(x, r.x() * x).unwrap();
    let (f, g) = (Func::new("f"), Func::new("g"));
    f.define(x, sum.at(x)).unwrap();
    g.define(x, sum.at(x)).unwrap();
    let sum_in_g = sum.clone_in(&g);
    sum_in_g.compute_at(&g, x);
    sum.compute_at(&f, x);
    let pipeline = Pipeline::with_outputs(&[&f, &g]);
    assert_eq!(
        pipeline_call_graph(&pipeline),
        graph! { f => [sum], sum => [sum], g => [sum_in_g], sum_in_g => [sum_in_g] },
        "the call graph"
    );
    let boxes: [(&[i64], &[i64]); 2] = [(&[0], &[128]), (&[0], &[128])];
    for out in realize_outputs(&Inputs::new(), &pipeline, &boxes) {
        let out = out.into_typed::<i32>().unwrap();
        out.for_each_coord(|p| assert_eq!(i64::from(out.get(p)), 28 * p[0], "at {p:?}"));
    }
}
