//! Halide's `test/correctness/many_dimensions.cpp`: a Func of 20 dimensions (the sum of its
//! arguments) computed at each pixel of `g(x, y) = f(site1) + f(site2)`, where each
//! coordinate of the two sites is a random 0/1 mix of `x`, `y` and a constant, taken mod 2
//! (and often equal in both sites, so the hypercube computed per pixel stays small).
//! Halide only realizes g over 10x10 with C's `rand()`; here the sites come from a seeded
//! generator, every value of g is checked against plain Rust, and the points of f computed
//! must not exceed Halide's (per pixel, the box spanning the two sites), with 20
//! dimensions and with 8.

use crate::{i32_values, realize};
use tessera::prelude::*;

/// One random 0/1 site coordinate: a constant bit, maybe plus x, maybe plus y, mod 2;
/// as (constant, uses x, uses y).
type Coord = (i32, bool, bool);

fn coord_expr((k, ux, uy): Coord, x: Var, y: Var) -> Expr {
    let mut e = Expr::from(k);
    if ux {
        e += x;
    }
    if uy {
        e += y;
    }
    e % 2
}

fn coord_value((k, ux, uy): Coord, x: i64, y: i64) -> i64 {
    (k as i64 + if ux { x } else { 0 } + if uy { y } else { 0 }) % 2
}

/// `g` over 10x10 with a `d`-dimensional `f`, its values checked; returns the points of f
/// computed and the points Halide computes (per pixel, the box spanning the two sites).
fn many_dimensions(d: usize) -> (u64, u64) {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let vars: Vec<Var> = (0..d).map(|i| Var::new(&format!("v{i}"))).collect();
    let mut e = Expr::from(0);
    for v in &vars {
        e += *v;
    }
    let f = Func::new("f");
    f.define(vars.as_slice(), e).unwrap();

    let mut site1 = Vec::new();
    let mut site2 = Vec::new();
    for _ in 0..d {
        let a: Coord = ((next() & 1) as i32, next() & 1 == 1, next() & 1 == 1);
        let b: Coord = ((next() & 1) as i32, next() & 1 == 1, next() & 1 == 1);
        site2.push(b);
        site1.push(if next() & 4 != 0 { b } else { a });
    }
    let (x, y) = (Var::new("x"), Var::new("y"));
    let s1: Vec<Expr> = site1.iter().map(|&c| coord_expr(c, x, y)).collect();
    let s2: Vec<Expr> = site2.iter().map(|&c| coord_expr(c, x, y)).collect();
    let g = Func::new("g");
    g.define((x, y), f.at(s1) + f.at(s2)).unwrap();
    f.compute_at(&g, x);
    let run = realize(&g, &[10, 10]);
    let out = i32_values(&run);
    let mut hull_points = 0u64;
    for yy in 0..10 {
        for xx in 0..10 {
            hull_points += site1
                .iter()
                .zip(&site2)
                .map(|(&a, &b)| {
                    (coord_value(a, xx, yy) - coord_value(b, xx, yy)).unsigned_abs() + 1
                })
                .product::<u64>();
        }
    }

    for yy in 0..10 {
        for xx in 0..10 {
            let want: i64 = site1
                .iter()
                .chain(&site2)
                .map(|&c| coord_value(c, xx, yy))
                .sum();
            assert_eq!(out.get(&[xx, yy]) as i64, want, "g({xx}, {yy})");
        }
    }
    (run.provides("f"), hull_points)
}

/// Fewer dimensions, as a quicker check of the same bound.
#[test]
fn an_eight_dimensional_func_computed_per_pixel() {
    many_dimensions(8);
}

#[test]
fn a_twenty_dimensional_func_computed_per_pixel() {
    let (computed, halide) = many_dimensions(20);
    assert!(
        computed <= halide,
        "f computed at {computed} points; Halide computes {halide}"
    );
}

/// The smallest form: `f(v) = v` computed at each x of `g(x) = f(x % 2)` needs one point of
/// f per x.
#[test]
fn a_modulo_of_a_fixed_coordinate_needs_one_point() {
    let (x, v) = (Var::new("x"), Var::new("v"));
    let f = Func::new("f");
    f.define(v, Expr::from(v)).unwrap();
    let g = Func::new("g");
    g.define(x, f.at(x % 2)).unwrap();
    f.compute_at(&g, x);
    let run = realize(&g, &[10]);
    let out = i32_values(&run);
    for i in 0..10 {
        assert_eq!(out.get(&[i]) as i64, i % 2, "g({i})");
    }
    assert!(
        run.provides("f") <= 10,
        "f computed at {} points",
        run.provides("f")
    );
}
