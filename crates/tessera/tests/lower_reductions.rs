//! Update definitions and reductions under schedules, against the evaluator (Halide's
//! fibonacci, histogram, multi_pass_reduction, reduction_non_rectangular, tuple_reduction,
//! argmax, inline_reduction, parallel_reductions): recurrences, scatters with data-dependent
//! coordinates, several passes, `where` clauses, Tuple reductions, and update stages with
//! schedules of their own (split, vectorized and parallel pure Vars; parallel and vectorized
//! reduction loops where every iteration writes its own point).

mod lower_common;

use lower_common::{check, u16_image, u8_image, TestInputs};
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

#[test]
fn fibonacci() {
    let x = Var::new("x");
    let fib = Func::new("fib");
    let r = RDom::named("r", [(2, 38)]);
    fib.define(x, 1).unwrap();
    fib.update(r.x(), fib.at(r.x() - 1) + fib.at(r.x() - 2))
        .unwrap();
    let out = Func::new("out");
    out.define(x, fib.at(x) * 2).unwrap();
    for schedule in 0..3 {
        match schedule {
            0 => fib.compute_root(),
            1 => fib.compute_at(&out, x),
            _ => fib.compute_inline(),
        };
        let run = check(&out, &TestInputs::new(), &[0], &[40]);
        let AnyBuffer::I32(values) = &run.realization.buffers[0] else {
            panic!("out is i32");
        };
        assert_eq!(values.get(&[39]), 2 * 102_334_155);
    }
}

/// A histogram of a u8 image into 16 bins, read back by a consumer.
struct Histogram {
    input: ImageParam,
    hist: Func,
    out: Func,
    i: Var,
}

fn histogram() -> Histogram {
    let input = ImageParam::new(Type::u8(), 2, "input");
    let i = Var::new("i");
    let hist = Func::new("hist");
    let r = RDom::named(
        "r",
        [
            (input.min(0), input.width()),
            (input.min(1), input.height()),
        ],
    );
    hist.define(i, 0).unwrap();
    let bin = clamp(cast_to::<i32>(input.at((r.x(), r.y()))) / 16, 0, 15);
    hist.update(bin.clone(), hist.at(bin) + 1).unwrap();
    let out = Func::new("out");
    out.define(i, hist.at(i) * 3 + hist.at(15 - i)).unwrap();
    Histogram {
        input,
        hist,
        out,
        i,
    }
}

#[test]
fn histograms() {
    for schedule in 0..4 {
        let h = histogram();
        match schedule {
            0 => {
                h.hist.compute_root();
            }
            1 => {
                h.hist.compute_root().vectorize(h.i, 4);
                h.hist
                    .update_stage(0)
                    .split("r.y", "ryo", "ryi", 3)
                    .unroll("r.x", 2);
                h.out.vectorize(h.i, 8);
            }
            2 => {
                h.hist.compute_at(&h.out, h.i);
            }
            _ => {
                h.out.split(h.i, "io", "ii", 4).parallel("io");
                h.hist.compute_at(&h.out, "io");
            }
        }
        let image = u8_image(&[3, -2], &[13, 9], 0, 255, 11);
        let run = check(
            &h.out,
            &TestInputs::new().image(&h.input, image),
            &[0],
            &[16],
        );
        if schedule == 0 {
            // The pure stage covers the 16 bins; the update counts every pixel.
            assert_eq!(run.stores("hist"), 16 + 13 * 9);
        }
    }
}

#[test]
fn multi_pass_reductions() {
    // Two updates: a horizontal sum over a window, then a running sum along x.
    let input = ImageParam::new(Type::u8(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    for schedule in 0..3 {
        let f = Func::new("f");
        let w = RDom::named("w", [(-1, 3)]);
        let s = RDom::named("s", [(1, 9)]);
        f.define((x, y), 0).unwrap();
        f.update(
            (x, y),
            f.at((x, y)) + cast_to::<i32>(input.at((x + w.x(), y))),
        )
        .unwrap();
        f.update((s.x(), y), f.at((s.x() - 1, y)) + f.at((s.x(), y)))
            .unwrap();
        let out = Func::new("out");
        out.define((x, y), f.at((x, y)) - f.at((x, y - 1))).unwrap();
        match schedule {
            0 => {
                f.compute_root();
            }
            1 => {
                f.compute_root().vectorize(x, 4);
                f.update_stage(0).vectorize(x, 4).parallel(y);
                f.update_stage(1).parallel(y);
            }
            _ => {
                out.parallel(y);
                f.compute_at(&out, y);
                f.update_stage(0).split(x, "xo", "xi", 3).unroll("w.x", 3);
            }
        }
        let image = u8_image(&[-2, -3], &[16, 10], 0, 255, 5);
        check(
            &out,
            &TestInputs::new().image(&input, image),
            &[-1, -2],
            &[12, 8],
        );
    }
}

#[test]
fn non_rectangular_domains() {
    // A triangle (r.x <= r.y) and a disc, summed per point.
    let input = ImageParam::new(Type::u8(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    for schedule in 0..3 {
        let tri = Func::new("tri");
        let r = RDom::named("r", [(0, 4), (0, 4)]);
        r.where_(r.x().le(r.y()));
        tri.define((x, y), 0).unwrap();
        tri.update(
            (x, y),
            tri.at((x, y)) + cast_to::<i32>(input.at((x + r.x(), y + r.y()))),
        )
        .unwrap();
        let disc = Func::new("disc");
        let d = RDom::named("d", [(-2, 5), (-2, 5)]);
        d.where_((d.x() * d.x() + d.y() * d.y()).le(4));
        disc.define((x, y), 0).unwrap();
        disc.update((x, y), disc.at((x, y)) + tri.at((x + d.x(), y + d.y())))
            .unwrap();
        match schedule {
            0 => {
                tri.compute_root();
            }
            1 => {
                tri.compute_at(&disc, y).vectorize(x, 4);
                disc.update_stage(0).vectorize(x, 8);
                tri.update_stage(0).vectorize(x, 4);
            }
            _ => {
                tri.compute_at(disc.update_stage(0), x);
                disc.update_stage(0)
                    .reorder((x, "d.x", "d.y", y))
                    .parallel(y);
            }
        }
        let image = u8_image(&[-5, -5], &[25, 25], 0, 255, 8);
        check(
            &disc,
            &TestInputs::new().image(&input, image),
            &[-2, 0],
            &[10, 7],
        );
    }
}

#[test]
fn tuple_reductions_and_inline_reductions() {
    let input = ImageParam::new(Type::u8(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    for schedule in 0..3 {
        // argmax along a row of 6, as a Tuple update: (best index, best value).
        let best = Func::new("best");
        let r = RDom::named("r", [(0, 6)]);
        best.define((x, y), Tuple(vec![Expr::from(-1), Expr::from(-1)]))
            .unwrap();
        let v = cast_to::<i32>(input.at((x + r.x(), y)));
        let better = v.clone().gt(best.value_at((x, y), 1));
        best.update(
            (x, y),
            Tuple(vec![
                select(better.clone(), r.x().expr(), best.value_at((x, y), 0)),
                select(better, v, best.value_at((x, y), 1)),
            ]),
        )
        .unwrap();
        // The same through the inline reductions.
        let s = RDom::named("s", [(0, 6)]);
        let inline = Func::new("inline");
        inline
            .define(
                (x, y),
                sum(cast_to::<i32>(input.at((x + s.x(), y))))
                    + maximum(cast_to::<i32>(input.at((x + s.x(), y)))) * 1000,
            )
            .unwrap();
        let out = Func::new("out");
        out.define(
            (x, y),
            best.value_at((x, y), 0) * 100000 + best.value_at((x, y), 1) + inline.at((x, y)),
        )
        .unwrap();
        match schedule {
            0 => {
                best.compute_root();
            }
            1 => {
                best.compute_at(&out, "yi").vectorize(x, 4);
                best.update_stage(0).vectorize(x, 4);
                // (out itself is not vectorized: the inline reductions are computed inside
                // its innermost loop, which the vectorizer refuses.)
                out.split(y, "yo", "yi", 2);
            }
            _ => {
                out.parallel(y);
                best.compute_at(&out, x);
            }
        }
        let image = u8_image(&[0, 0], &[20, 8], 0, 40, 13);
        check(
            &out,
            &TestInputs::new().image(&input, image),
            &[1, 1],
            &[11, 6],
        );
    }
}

#[test]
fn update_stages_with_their_own_schedules() {
    // f(x, y) = input, then f(x, y) += f(x, y) / 2 (pure Vars only), then a pointwise
    // update over r in [0, 12): f(r, y) = f(r, y) * 3 + r (every iteration writes its own
    // point, so the reduction loop may run in parallel or as vector lanes).
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let directives: [fn(&Func, Var, Var); 6] = [
        |f, x, _| {
            f.update_stage(0).split(x, "xo", "xi", 4).vectorize("xi", 4);
        },
        |f, x, y| {
            f.update_stage(0)
                .split_with_tail(x, "xo", "xi", 5, TailStrategy::GuardWithIf)
                .parallel(y)
                .vectorize("xi", 2);
        },
        |f, x, y| {
            f.update_stage(0).fuse(x, y, "xy").parallel("xy");
        },
        |f, _, y| {
            f.update_stage(1).parallel("r.x").vectorize(y, 3);
        },
        |f, _, _| {
            f.update_stage(1).vectorize("r.x", 8);
        },
        |f, _, y| {
            f.update_stage(1)
                .split("r.x", "ro", "ri", 5)
                .reorder(("ri", y, "ro"))
                .parallel("ro")
                .unroll("ri", 2);
        },
    ];
    for schedule in directives {
        let f = Func::new("f");
        f.define((x, y), cast_to::<u16>(input.at((x, y)))).unwrap();
        f.update((x, y), f.at((x, y)) + f.at((x, y)) / 2).unwrap();
        let r = RDom::named("r", [(0, 12)]);
        f.update((r.x(), y), f.at((r.x(), y)) * 3 + cast_to::<u16>(r.x()))
            .unwrap();
        let out = Func::new("out");
        out.define((x, y), f.at((x, y)) + f.at((x + 1, y))).unwrap();
        f.compute_root();
        schedule(&f, x, y);
        let image = u16_image(&[-2, 1], &[16, 5], 12);
        check(
            &out,
            &TestInputs::new().image(&input, image),
            &[-2, 1],
            &[15, 5],
        );
    }
}

#[test]
fn a_producer_used_only_where_a_predicate_never_holds() {
    // The update's `where` is false on the whole domain, so nothing of g is needed: g gets an
    // empty region and no storage instead of a lowering error (found by the schedule fuzzer).
    let x = Var::new("x");
    let g = Func::new("g");
    g.define(x, x * 2).unwrap();
    g.compute_root();
    let r = RDom::named("r", [(0, 2)]);
    r.where_(r.x().lt(0));
    let f = Func::new("f");
    f.define(x, 1).unwrap();
    f.update(x, f.at(x) + g.at(x + r.x())).unwrap();
    let run = check(&f, &TestInputs::new(), &[0], &[5]);
    let AnyBuffer::I32(values) = &run.realization.buffers[0] else {
        panic!("f is i32");
    };
    assert!((0..5).all(|i| values.get(&[i]) == 1));
}

/// The values of `f` (i32, 3-D) over `[0, extents)` checked against `reference`.
fn check_i32_volume(f: &Func, extents: &[i64; 3], reference: impl Fn(&[i64]) -> i64) {
    let run = check(f, &TestInputs::new(), &[0; 3], extents);
    let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
        panic!("{} is i32", f.name())
    };
    tessera::lang::buffer::for_each_coord_in(&[0; 3], extents, &mut |c| {
        assert_eq!(out.get(c) as i64, reference(c), "{}{c:?}", f.name());
    });
}

#[test]
fn an_update_whose_placeholder_stands_for_the_funcs_own_vars() {
    let (x, y, z, all) = (
        Var::new("x"),
        Var::new("y"),
        Var::new("z"),
        Var::placeholder(),
    );
    let g = Func::new("source_volume");
    g.define((x, y, z), x + 10 * y + 100 * z).unwrap();
    let f = Func::new("accumulated_volume");
    f.define((x, y, z), 1).unwrap();
    // f(x, _) = f(x, _) + g(x, _) is f(x, y, z) = f(x, y, z) + g(x, y, z).
    f.update((x, all), f.at((x, all)) + g.at((x, all))).unwrap();
    check_i32_volume(&f, &[2, 3, 4], |c| 1 + c[0] + 10 * c[1] + 100 * c[2]);
}

#[test]
fn a_reduction_over_the_first_dimension_of_a_func_defined_with_a_placeholder() {
    let (x, y, z, all) = (
        Var::new("x"),
        Var::new("y"),
        Var::new("z"),
        Var::placeholder(),
    );
    let g = Func::new("ramp_volume");
    g.define((x, y, z), x + 10 * y + 100 * z).unwrap();
    // f(_) = g(_): f's pure Vars are _0, _1, _2.
    let f = Func::new("prefix_volume");
    f.define(all, g.at(all)).unwrap();
    assert_eq!(
        f.args(),
        vec![Var::implicit(0), Var::implicit(1), Var::implicit(2)]
    );
    // f(r, _) = f(r, _) + f(r - 1, _): a running sum along dimension 0, whose `_` stands
    // for f's own _1 and _2 (and the call's _0 and _1 are renamed to them).
    let r = RDom::new([(1, 3)]);
    f.update(
        (r.x(), all.expr()),
        f.at((r.x(), all.expr())) + f.at((r.x() - 1, all.expr())),
    )
    .unwrap();
    f.vectorize(Var::implicit(1), 4);
    check_i32_volume(&f, &[4, 5, 3], |c| {
        (0..=c[0]).map(|i| i + 10 * c[1] + 100 * c[2]).sum()
    });
}

#[test]
fn an_update_storing_only_where_a_select_with_undef_chooses_a_value() {
    let x = Var::new("x");
    let f = Func::new("tripled_multiples");
    f.define(x, x).unwrap();
    // f(x) = select(x % 3 == 0, f(x) * 10, undef): only the multiples of 3 are stored.
    f.update(x, select((x % 3).eq_(0), f.at(x) * 10, undef::<i32>()))
        .unwrap();
    f.update_stage(0).vectorize(x, 4);
    let run = check(&f, &TestInputs::new(), &[0], &[30]);
    let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
        panic!("i32")
    };
    for i in 0..30 {
        let want = if i % 3 == 0 { 10 * i } else { i };
        assert_eq!(out.get(&[i]) as i64, want, "f({i})");
    }
    // 30 points of the pure definition, 10 of the update.
    assert_eq!(run.provides("tripled_multiples"), 40);
}

#[test]
fn a_param_used_only_in_the_condition_of_an_undef_select_is_an_argument() {
    // The condition becomes the definitions' guard; the native code must still take p (it
    // failed to compile: "p is not defined here").
    let x = Var::new("x");
    let p = Param::<bool>::new("p");
    let f = Func::new("guarded_by_p");
    f.define(x, select(p.expr(), x * 2, undef::<i32>()))
        .unwrap();
    let g = Func::new("guarded_update");
    g.define(x, f.at(x)).unwrap();
    g.update(x, select(p.expr(), g.at(x) + 1, undef::<i32>()))
        .unwrap();
    f.compute_root();
    let run = check(&g, &TestInputs::new().param(p.bind(true)), &[0], &[8]);
    let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
        panic!("i32")
    };
    for i in 0..8 {
        assert_eq!(out.get(&[i]) as i64, 2 * i + 1, "g({i})");
    }
}

#[test]
fn tuple_updates_leaving_one_element_undef() {
    let x = Var::new("x");
    let f = Func::new("ping_pong");
    f.define(x, Tuple(vec![x * 2, x * 3])).unwrap();
    let r = RDom::new([(0, 10)]);
    let (left, right) = (max(r.x() - 1, 0), min(r.x() + 1, 9));
    // Element 0 from element 1's neighbours, then element 1 from element 0's.
    f.update(
        r.x(),
        Tuple(vec![
            f.value_at(r.x(), 0) + f.value_at(left.clone(), 1) + f.value_at(right.clone(), 1),
            undef::<i32>(),
        ]),
    )
    .unwrap();
    f.update(
        r.x(),
        Tuple(vec![
            undef::<i32>(),
            f.value_at(r.x(), 1) + f.value_at(left, 0) + f.value_at(right, 0),
        ]),
    )
    .unwrap();
    let run = check(&f, &TestInputs::new(), &[0], &[10]);
    let mut a: Vec<i64> = (0..10).map(|i| i * 2).collect();
    let mut b: Vec<i64> = (0..10).map(|i| i * 3).collect();
    for i in 0..10 {
        a[i] += b[i.saturating_sub(1)] + b[(i + 1).min(9)];
    }
    for i in 0..10 {
        b[i] += a[i.saturating_sub(1)] + a[(i + 1).min(9)];
    }
    for (value, want) in [(0, &a), (1, &b)] {
        let AnyBuffer::I32(out) = &run.realization.buffers[value] else {
            panic!("i32")
        };
        for (i, &want) in want.iter().enumerate() {
            assert_eq!(out.get(&[i as i64]) as i64, want, "ping_pong({i})[{value}]");
        }
    }
}

#[test]
fn an_undef_intermediate_read_only_where_it_stores() {
    for compute_root in [false, true] {
        let x = Var::new("x");
        let evens = Func::new("stored_evens");
        evens
            .define(x, select((x % 2).eq_(0), x * 5, undef::<i32>()))
            .unwrap();
        let out = Func::new("reads_evens");
        out.define(x, evens.at(x * 2) + 1).unwrap();
        if compute_root {
            evens.compute_root();
        }
        let run = check(&out, &TestInputs::new(), &[0], &[16]);
        let AnyBuffer::I32(got) = &run.realization.buffers[0] else {
            panic!("i32")
        };
        for i in 0..16 {
            assert_eq!(got.get(&[i]) as i64, 10 * i + 1, "reads_evens({i})");
        }
    }
}
