//! Halide's `test/correctness/reduction_non_rectangular.cpp`: updates over RDoms restricted by
//! `where` predicates (linear and not, of free Vars, Params and Funcs, of the Func being
//! updated itself), with the values checked against plain Rust over 200 x 200 and, where
//! Halide traces the stores of an intermediate `g`, the points of `g` Tessera computes against
//! Halide's count. Its three GPU cases are not applicable.

use crate::lower_common::{check, TestInputs};
use crate::{assert_outputs_2d, realize};
use tessera::lang::stage::DimName;
use tessera::prelude::*;

/// `f(x, y) = x + y` over 200 x 200, updated by `update` (given f and x, y).
fn x_plus_y(name: &str) -> (Func, Var, Var) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new(name);
    f.define((x, y), x + y).unwrap();
    (f, x, y)
}

fn in_box(x: i64, y: i64, n: i64) -> bool {
    (0..n).contains(&x) && (0..n).contains(&y)
}

#[test]
fn equality_inequality_bound() {
    let (f, _, _) = x_plus_y("f_0");
    let r = RDom::new([(0, 100), (0, 100)]);
    r.where_(r.x().lt(r.y()));
    r.where_(!(r.x().ne_(10)));
    f.update_add((r.x(), r.y()), 1).unwrap();
    let run = realize(&f, &[200, 200]);
    assert_outputs_2d(&run, 200, |x, y| {
        vec![x + y + i64::from(x == 10 && (0..100).contains(&y) && x < y)]
    });
}

#[test]
fn split_fuse() {
    let (f, _, _) = x_plus_y("f_1");
    let r = RDom::new([(0, 100), (0, 100)]);
    r.where_(r.x().lt(r.y()));
    f.update_add((r.x(), r.y()), 1).unwrap();
    f.update_stage(0)
        .reorder((r.y(), r.x()))
        .split(r.x(), "rx_outer", "rx_inner", 4)
        .fuse("rx_inner", r.y(), "r_fused");
    let run = realize(&f, &[200, 200]);
    assert_outputs_2d(&run, 200, |x, y| {
        vec![x + y + i64::from(in_box(x, y, 100) && x < y)]
    });
}

/// Halide's 200 x 200 x 200, here 200 x 200 x 6 (the predicate depends on z: every z up to 5
/// moves the boundary of the triangle).
#[test]
fn free_variable_bound() {
    let (x, y, z) = (Var::new("x"), Var::new("y"), Var::new("z"));
    let f = Func::new("f_2");
    f.define((x, y, z), x + y + z).unwrap();
    let r = RDom::named("r", [(0, 100), (0, 100)]);
    r.where_(r.x().lt(r.y() + z));
    f.update_add((r.x(), r.y(), z.expr()), 1).unwrap();
    let run = realize(&f, &[200, 200, 6]);
    let out = run.i32_values(0);
    out.for_each_coord(|p| {
        let (x, y, z) = (p[0], p[1], p[2]);
        let want = x + y + z + i64::from(in_box(x, y, 100) && x < y + z);
        assert_eq!(i64::from(out.get(p)), want, "at {p:?}");
    });
}

#[test]
fn func_call_inside_bound() {
    let (f, x, _) = x_plus_y("f_3");
    let g = Func::new("g_3");
    g.define(x, x.expr()).unwrap();
    let r = RDom::named("r", [(0, 100), (0, 100)]);
    r.where_(r.x().lt(g.at(r.y() + 10)));
    f.update_add((r.x(), r.y()), 1).unwrap();
    g.compute_root();
    let run = realize(&f, &[200, 200]);
    assert_outputs_2d(&run, 200, |x, y| {
        vec![x + y + i64::from(in_box(x, y, 100) && x < y + 10)]
    });
    // Halide computes g over [10, 109].
    assert_eq!(run.provides("g_3"), 100);
}

#[test]
fn func_call_inside_bound_inline() {
    let (f, x, _) = x_plus_y("f_4");
    let (g, h) = (Func::new("g_4"), Func::new("h_4"));
    g.define(x, x.expr()).unwrap();
    h.define(x, x * 2).unwrap();
    let r = RDom::named("r", [(0, 100), (0, 100)]);
    r.where_(r.x().lt(g.at(r.y()) + h.at(r.x())));
    f.update_add((r.x(), r.y()), 1).unwrap();
    let run = realize(&f, &[200, 200]);
    assert_outputs_2d(&run, 200, |x, y| {
        vec![x + y + i64::from(in_box(x, y, 100) && x < y + 2 * x)]
    });
}

#[test]
fn two_linear_bounds() {
    let (f, x, y) = x_plus_y("f_5");
    let g = Func::new("g_5");
    g.define((x, y), x + y).unwrap();
    let r = RDom::new([(0, 100), (0, 100)]);
    r.where_((r.x() * 2 + 30).lt(r.y()));
    r.where_(r.y().ge(100 - r.x()));
    f.update_add((r.x(), r.y()), g.at((r.x(), r.y())) * 2)
        .unwrap();
    g.compute_root();
    let run = realize(&f, &[200, 200]);
    assert_outputs_2d(&run, 200, |x, y| {
        let inside = in_box(x, y, 100) && 2 * x + 30 < y && y >= 100 - x;
        vec![if inside { 3 * (x + y) } else { x + y }]
    });
    // Halide's bounding box of the two constraints: r.x in [1, 34], r.y in [66, 99].
    assert!(
        run.provides("g_5") <= 34 * 34,
        "g computed at {} points, Halide 34 x 34",
        run.provides("g_5")
    );
}

#[test]
fn circle_bound() {
    let (f, x, y) = x_plus_y("f_6");
    let g = Func::new("g_6");
    g.define((x, y), x.expr()).unwrap();
    let r = RDom::new([(0, 100), (0, 100)]);
    r.where_((r.x() * r.x() + r.y() * r.y()).le(100));
    f.update_add((r.x(), r.y()), g.at((r.x(), r.y()))).unwrap();
    g.compute_at(&f, r.y());
    let run = realize(&f, &[200, 200]);
    assert_outputs_2d(&run, 200, |x, y| {
        vec![
            x + y
                + if in_box(x, y, 100) && x * x + y * y <= 100 {
                    x
                } else {
                    0
                },
        ]
    });
    // The nonlinear predicate stays a guard inside the loops over the whole box.
    assert!(run.provides("g_6") <= 100 * 100);
}

#[test]
fn intermediate_computed_if_param() {
    let (f, x, y) = x_plus_y("f_7");
    let g = Func::new("g_7");
    g.define((x, y), x + y).unwrap();
    let p = Param::<i32>::new("p");
    let r = RDom::new([(0, 100), (0, 100)]);
    r.where_(p.expr().gt(3));
    f.update_add((r.x(), r.y()), g.at((r.x(), r.y())) * 2)
        .unwrap();
    g.compute_root();
    for (p_value, g_points) in [(5, 100 * 100), (0, 0)] {
        let run = check(
            &f,
            &TestInputs::new().param(p.bind(p_value)),
            &[0, 0],
            &[200, 200],
        );
        assert_outputs_2d(&run, 200, |x, y| {
            let updated = p_value > 3 && in_box(x, y, 100);
            vec![if updated { 3 * (x + y) } else { x + y }]
        });
        assert_eq!(
            run.provides("g_7"),
            g_points,
            "g's points with p = {p_value}"
        );
    }
}

/// `f(r.x, r.y) (+)= g(r.x, r.y)` over the triangle r.x < r.y of 200 x 200, g computed per
/// point of f's update: Halide computes g at the triangle's 200 · 199 / 2 points only.
fn triangle_of_g(name: &str, accumulate: bool, schedule: impl Fn(&Func, &Func, &RDom)) {
    let (f, x, y) = x_plus_y(&format!("f_{name}"));
    let g = Func::new(&format!("g_{name}"));
    g.define((x, y), x.expr()).unwrap();
    let r = RDom::named("r", [(0, 200), (0, 200)]);
    r.where_(r.x().lt(r.y()));
    let at = (r.x().expr(), r.y().expr());
    if accumulate {
        f.update_add(at.clone(), g.at(at)).unwrap();
    } else {
        f.update(at.clone(), g.at(at)).unwrap();
    }
    schedule(&f, &g, &r);
    let run = realize(&f, &[200, 200]);
    assert_outputs_2d(&run, 200, |x, y| match (x < y, accumulate) {
        (true, true) => vec![x + y + x],
        (true, false) => vec![x],
        (false, _) => vec![x + y],
    });
    assert_eq!(run.provides(&format!("g_{name}")), 200 * 199 / 2);
}

#[test]
fn tile_intermediate_bound_depend_on_output() {
    triangle_of_g("8", true, |f, g, r| {
        f.update_stage(0)
            .tile(r.x(), r.y(), r.x(), r.y(), "rxi", "ryi", 8, 8)
            .reorder((DimName::from("rxi"), DimName::from("ryi"), r.x(), r.y()));
        g.compute_at(f, "ryi");
    });
}

#[test]
fn intermediate_bound_depend_on_output() {
    triangle_of_g("9", false, |f, g, r| {
        g.compute_at(f, r.y());
    });
}

#[test]
fn self_reference_bound() {
    let (f, x, y) = x_plus_y("f_10");
    let g = Func::new("g_10");
    g.define((x, y), 10).unwrap();
    let r1 = RDom::named("r1", [(0, 100), (0, 100)]);
    r1.where_(f.at((r1.x(), r1.y())).ge(40));
    r1.where_(f.at((r1.x(), r1.y())).ne_(50));
    f.update_add((r1.x(), r1.y()), 1).unwrap();
    f.compute_root();
    let r2 = RDom::named("r2", [(0, 50), (0, 50)]);
    r2.where_(f.at((r2.x(), r2.y())).lt(30));
    g.update_add((r2.x(), r2.y()), f.at((r2.x(), r2.y())))
        .unwrap();
    let f_value = |x: i64, y: i64| {
        let v = x + y;
        v + i64::from(in_box(x, y, 100) && v >= 40 && v != 50)
    };
    let run_f = realize(&f, &[200, 200]);
    assert_outputs_2d(&run_f, 200, |x, y| vec![f_value(x, y)]);
    let run_g = realize(&g, &[200, 200]);
    assert_outputs_2d(&run_g, 200, |x, y| {
        let v = f_value(x, y);
        vec![10 + if in_box(x, y, 50) && v < 30 { v } else { 0 }]
    });
}

#[test]
fn random_float_bound() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f_11");
    f.define((x, y), Tuple(vec![random_float(&[]).lt(0.5f32), x + y]))
        .unwrap();
    let r = RDom::new([(0, 100), (0, 100)]);
    let current = f.tuple_at((r.x(), r.y()));
    r.where_(current[0].clone());
    f.update(
        (r.x(), r.y()),
        Tuple(vec![current[0].clone(), current[1].clone() + 10]),
    )
    .unwrap();
    let run = realize(&f, &[200, 200]);
    let (AnyBuffer::Bool(coin), AnyBuffer::I32(sum)) =
        (&run.realization.buffers[0], &run.realization.buffers[1])
    else {
        panic!("f is (bool, i32)");
    };
    let mut heads = 0;
    sum.for_each_coord(|p| {
        let (x, y) = (p[0], p[1]);
        heads += i64::from(coin.get(p));
        let want = x
            + y
            + if in_box(x, y, 100) && coin.get(p) {
                10
            } else {
                0
            };
        assert_eq!(i64::from(sum.get(p)), want, "at {p:?}");
    });
    assert!(
        (19000..=21000).contains(&heads),
        "{heads} of 40000 below 0.5"
    );
}

#[test]
fn newton_method() {
    let x = Var::new("x");
    let inverse = Func::new("inverse");
    let denominator = cast_to::<f32>(x + 1);
    // Negating the bits of a float roughly inverts it (piecewise linearly).
    let estimate =
        reinterpret(Type::f32(), !reinterpret(Type::u32(), denominator.clone())) * -0.25f32;
    inverse
        .define(x, Tuple(vec![estimate, Expr::from(0)]))
        .unwrap();
    const MAX_ITERS: i32 = 10;
    let r = RDom::new([(0, MAX_ITERS)]);
    let current = inverse.tuple_at(x)[0].clone();
    r.where_(abs(current.clone() * denominator.clone() - 1.0f32).gt(0.001f32));
    inverse
        .update(
            x,
            Tuple(vec![
                current.clone() * (Expr::from(2.0f32) - denominator * current),
                r.x() + 1,
            ]),
        )
        .unwrap();
    let run = realize(&inverse, &[128]);
    let (AnyBuffer::F32(value), AnyBuffer::I32(iterations)) =
        (&run.realization.buffers[0], &run.realization.buffers[1])
    else {
        panic!("inverse is (f32, i32)");
    };
    for i in 0..128 {
        let product = (i + 1) as f32 * value.get(&[i]);
        assert!(iterations.get(&[i]) < MAX_ITERS, "no convergence at {i}");
        assert!((product - 1.0).abs() <= 0.001, "at {i}: {product}");
    }
}

#[test]
fn vectorize_predicated_rvar() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f_vec");
    f.define((x, y), 0).unwrap();
    let (w, h) = (
        f.output_buffer().dim(0).extent() / 2 * 2,
        f.output_buffer().dim(1).extent() / 2 * 2,
    );
    let r = RDom::new([(Expr::from(1), w - 2), (Expr::from(1), h - 2)]);
    r.where_(((r.x() + r.y()) % 2).eq_(0));
    f.update_add((r.x(), r.y()), 10).unwrap();
    f.update_stage(0)
        .unroll(r.x(), 2)
        .allow_race_conditions()
        .vectorize(r.x(), 8);
    let run = realize(&f, &[200, 200]);
    assert_outputs_2d(&run, 200, |x, y| {
        let inside = (1..199).contains(&x) && (1..199).contains(&y) && (x + y) % 2 == 0;
        vec![if inside { 10 } else { 0 }]
    });
}
