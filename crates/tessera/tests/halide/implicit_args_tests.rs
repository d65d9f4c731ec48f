//! Halide's `test/correctness/implicit_args_tests.cpp`: pure and update definitions whose
//! left-hand side ends in implicit arguments (`_`, here `Var::placeholder()`), with single
//! values and Tuples, an update at a data-dependent coordinate, and updates (`+=`, `*=`)
//! given without a pure definition, which Halide starts from the reduction's identity.
//! Every value is checked against Halide's closed forms.
//!
//! The four updates without a pure definition are `Func::update_add` / `update_mul`, each
//! also checked in the explicit form Halide's comments say it is equivalent to. Halide
//! realizes 100 x 100 x 100; here 10 x 10 x 10 (the data-dependent update still reaches only
//! x = 0 and 1).

use crate::{assert_i32_output, realize};
use tessera::prelude::*;

const N: i64 = 10;

/// `h(x, y) = x + y`, computed at root.
fn h_sum() -> Func {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let h = Func::new("h");
    h.define((x, y), x + y).unwrap();
    h.compute_root();
    h
}

/// `g(x) = x + 2`, computed at root.
fn g_plus_two() -> Func {
    let x = Var::new("x");
    let g = Func::new("g");
    g.define(x, x + 2).unwrap();
    g.compute_root();
    g
}

/// `h(x, y) = {x + y, x - y}` and `g(x) = {x + 2, x - 2}`, computed at root.
fn tuple_h_and_g() -> (Func, Func) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let h = Func::new("h");
    h.define((x, y), Tuple(vec![x + y, x - y])).unwrap();
    h.compute_root();
    let g = Func::new("g");
    g.define(x, Tuple(vec![x + 2, x - 2])).unwrap();
    g.compute_root();
    (h, g)
}

/// `f(x, y, z) = x` at root, read by `g(clamp(f(r, _), 0, 50), _) += 2` over `r` in [0, 2).
fn f_of_x() -> Func {
    let (x, y, z) = (Var::new("x"), Var::new("y"), Var::new("z"));
    let f = Func::new("f");
    f.define((x, y, z), Expr::from(x)).unwrap();
    f.compute_root();
    f
}

fn cube(f: &Func, expected: impl Fn(i64, i64, i64) -> i64) {
    let run = realize(f, &[N, N, N]);
    assert_i32_output(&run, 0, |p| expected(p[0], p[1], p[2]));
}

#[test]
fn a_pure_definition_with_implicit_arguments() {
    let h = h_sum();
    let (x, all) = (Var::new("x"), Var::placeholder());
    let f = Func::new("f");
    f.define((x, all), h.at(all) + 2).unwrap();
    cube(&f, |_, y, z| y + z + 2);
}

fn data_dependent_update(tuple: bool) {
    let h = h_sum();
    let f = f_of_x();
    let (x, all) = (Var::new("x"), Var::placeholder());
    let r = RDom::new([(0, 2)]);
    let g = Func::new("g");
    let at = (clamp(f.at((r.x(), all)), 0, 50), all);
    if tuple {
        g.define((x, all), Tuple(vec![h.at(all) + 1])).unwrap();
        g.update(at.clone(), Tuple(vec![g.at(at) + 2])).unwrap();
    } else {
        g.define((x, all), h.at(all) + 1).unwrap();
        g.update(at.clone(), g.at(at) + 2).unwrap();
    }
    cube(&g, |x, y, z| {
        if x == 0 || x == 1 {
            y + z + 3
        } else {
            y + z + 1
        }
    });
}

#[test]
fn an_update_at_a_data_dependent_coordinate() {
    data_dependent_update(false);
}

#[test]
fn a_tuple_update_at_a_data_dependent_coordinate() {
    data_dependent_update(true);
}

#[test]
fn an_update_with_implicit_arguments() {
    let (h, g) = (h_sum(), g_plus_two());
    let (x, all) = (Var::new("x"), Var::placeholder());
    let f = Func::new("f");
    f.define((x, all), h.at(all) + 3).unwrap();
    f.update((x, all), f.at((x, all)) + h.at(all) * g.at(all))
        .unwrap();
    cube(&f, |_, y, z| (y + z + 3) + (y + z) * (y + 2));
}

/// `f(x, _) += h(_) + 2`, with no pure definition (`explicit`: with `f(x, _0, _1) = 0` first).
fn sum_without_pure_definition(explicit: bool) {
    let h = h_sum();
    let (x, all) = (Var::new("x"), Var::placeholder());
    let f = Func::new("f");
    if explicit {
        f.define((x, Var::implicit(0), Var::implicit(1)), 0)
            .unwrap();
    }
    f.update_add((x, all), h.at(all) + 2).unwrap();
    cube(&f, |_, y, z| y + z + 2);
}

#[test]
fn a_sum_without_a_pure_definition() {
    sum_without_pure_definition(false);
}

#[test]
fn a_sum_with_its_pure_definition_written_out() {
    sum_without_pure_definition(true);
}

/// `f(_) += h(_) * g(_) + 3`, 2-D (`explicit`: with `f(_0, _1) = 0` first).
fn all_implicit_sum(explicit: bool) {
    let (h, g) = (h_sum(), g_plus_two());
    let all = Var::placeholder();
    let f = Func::new("f");
    if explicit {
        f.define((Var::implicit(0), Var::implicit(1)), 0).unwrap();
    }
    f.update_add(all, h.at(all) * g.at(all) + 3).unwrap();
    let run = realize(&f, &[N, N]);
    assert_i32_output(&run, 0, |p| (p[0] + p[1]) * (p[0] + 2) + 3);
}

#[test]
fn an_all_implicit_sum_without_a_pure_definition() {
    all_implicit_sum(false);
}

#[test]
fn an_all_implicit_sum_with_its_pure_definition_written_out() {
    all_implicit_sum(true);
}

#[test]
fn a_tuple_with_implicit_arguments() {
    let h = h_sum();
    let (x, all) = (Var::new("x"), Var::placeholder());
    let f = Func::new("f");
    f.define((x, all), Tuple(vec![h.at(all) + 2, x + 2]))
        .unwrap();
    let run = realize(&f, &[N, N, N]);
    assert_i32_output(&run, 0, |p| p[1] + p[2] + 2);
    assert_i32_output(&run, 1, |p| p[0] + 2);
}

/// `f(x, _) *= {h(_) + 2, h(_) * 3}`, with no pure definition (`explicit`: `f(x, _0, _1) = {1, 1}` first).
fn product_without_pure_definition(explicit: bool) {
    let h = h_sum();
    let (x, all) = (Var::new("x"), Var::placeholder());
    let f = Func::new("f");
    if explicit {
        let pure = (x, Var::implicit(0), Var::implicit(1));
        f.define(pure, Tuple(vec![1.into(), 1.into()])).unwrap();
    }
    f.update_mul((x, all), Tuple(vec![h.at(all) + 2, h.at(all) * 3]))
        .unwrap();
    let run = realize(&f, &[N, N, N]);
    assert_i32_output(&run, 0, |p| p[1] + p[2] + 2);
    assert_i32_output(&run, 1, |p| (p[1] + p[2]) * 3);
}

#[test]
fn a_tuple_product_without_a_pure_definition() {
    product_without_pure_definition(false);
}

#[test]
fn a_tuple_product_with_its_pure_definition_written_out() {
    product_without_pure_definition(true);
}

#[test]
fn a_tuple_update_of_tuple_funcs_with_implicit_arguments() {
    let (h, g) = tuple_h_and_g();
    let (x, all) = (Var::new("x"), Var::placeholder());
    let f = Func::new("f");
    f.define(
        (x, all),
        Tuple(vec![h.value_at(all, 0) + 3, h.value_at(all, 1) + 4]),
    )
    .unwrap();
    f.update(
        (x, all),
        Tuple(vec![
            f.value_at((x, all), 0) + h.value_at(all, 0) * g.value_at(all, 0),
            f.value_at((x, all), 1) + h.value_at(all, 1) * g.value_at(all, 1),
        ]),
    )
    .unwrap();
    let run = realize(&f, &[N, N, N]);
    assert_i32_output(&run, 0, |p| (p[1] + p[2] + 3) + (p[1] + p[2]) * (p[1] + 2));
    assert_i32_output(&run, 1, |p| (p[1] - p[2] + 4) + (p[1] - p[2]) * (p[1] - 2));
}

/// `f(_) += {h(_)[0] * g(_)[0] + 3, h(_)[1] * g(_)[1] + 4}`, 2-D, with no pure definition
/// (`explicit`: `f(_0, _1) = {0, 0}` first).
fn all_implicit_tuple_sum(explicit: bool) {
    let (h, g) = tuple_h_and_g();
    let all = Var::placeholder();
    let f = Func::new("f");
    if explicit {
        let pure = (Var::implicit(0), Var::implicit(1));
        f.define(pure, Tuple(vec![0.into(), 0.into()])).unwrap();
    }
    f.update_add(
        all,
        Tuple(vec![
            h.value_at(all, 0) * g.value_at(all, 0) + 3,
            h.value_at(all, 1) * g.value_at(all, 1) + 4,
        ]),
    )
    .unwrap();
    let run = realize(&f, &[N, N]);
    assert_i32_output(&run, 0, |p| (p[0] + p[1]) * (p[0] + 2) + 3);
    assert_i32_output(&run, 1, |p| (p[0] - p[1]) * (p[0] - 2) + 4);
}

#[test]
fn an_all_implicit_tuple_sum_without_a_pure_definition() {
    all_implicit_tuple_sum(false);
}

#[test]
fn an_all_implicit_tuple_sum_with_its_pure_definition_written_out() {
    all_implicit_tuple_sum(true);
}
