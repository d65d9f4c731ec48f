//! The definition-level evaluator on update definitions and reductions: scans, histograms,
//! multi-pass updates, non-rectangular domains, inline reductions and convolutions, each
//! checked against the same computation written as plain Rust loops.

mod eval_common;

use std::collections::BTreeMap;

use eval_common::{points, random_buffer, seeded_rng};
use rand::Rng;
use tessera::prelude::*;

#[test]
fn fibonacci_by_a_scan() {
    let x = Var::new("x");
    let r = RDom::new([(2, 88)]);
    let fib = Func::new("fib");
    fib.define(x, Expr::int(0, 64)).unwrap();
    fib.update(1, 1).unwrap();
    fib.update(r.x(), fib.at(r.x() - 1) + fib.at(r.x() - 2))
        .unwrap();
    let out = Evaluator::new()
        .realize_as::<i64>(&fib, &[-3], &[95])
        .unwrap();
    let mut expected = BTreeMap::new();
    let (mut a, mut b) = (0i64, 1i64);
    expected.insert(0, 0);
    expected.insert(1, 1);
    for i in 2..90 {
        (a, b) = (b, a + b);
        expected.insert(i, b);
    }
    for x in -3..92 {
        // Outside the scanned range the pure definition (0) shows through.
        let e = expected.get(&x).copied().unwrap_or(0);
        assert_eq!(out.get(&[x]), e, "fib({x})");
    }
}

#[test]
fn a_long_scan_is_simulated_iteratively() {
    // 200,000 dependent steps: evaluated one by one, never by recursing per point.
    let n = 200_000;
    let x = Var::new("x");
    let r = RDom::new([(1, n - 1)]);
    let f = Func::new("long_scan");
    f.define(x, x % 7).unwrap();
    f.update(r.x(), f.at(r.x() - 1) * 3 + f.at(r.x())).unwrap();
    let last = Evaluator::new().value_at(&f, &[(n - 1) as i64]).unwrap();
    let mut acc = 0i32;
    for i in 1..n {
        acc = acc.wrapping_mul(3).wrapping_add(i % 7);
    }
    assert_eq!(last, vec![Value::Int(acc as i64)]);
}

#[test]
fn histogram_with_a_data_dependent_left_hand_side() {
    let mut rng = seeded_rng("histogram", 11);
    let input = ImageParam::new(Type::u8(), 2, "hist_input");
    let (mins, extents) = ([3, -2], [37, 23]);
    let buf = random_buffer(&mut rng, &mins, &extents, |r| {
        // A skewed distribution so that some bins are empty and some are full.
        let v: u8 = r.random();
        v / 3 + r.random_range(0..5)
    });
    let i = Var::new("i");
    let r = RDom::new([
        (input.min(0), input.extent(0)),
        (input.min(1), input.extent(1)),
    ]);
    let hist = Func::new("hist");
    hist.define(i, 0).unwrap();
    let bin = input.at((r.x(), r.y()));
    hist.update(&bin, hist.at(&bin) + 1).unwrap();
    let out = Evaluator::new()
        .with_input(&input, buf.clone())
        .realize_as::<i32>(&hist, &[-5], &[300])
        .unwrap();
    let mut expected = [0i32; 256];
    for v in buf.data() {
        expected[*v as usize] += 1;
    }
    for i in -5..295 {
        let e = if (0..256).contains(&i) {
            expected[i as usize]
        } else {
            0
        };
        assert_eq!(out.get(&[i]), e, "bin {i}");
    }
}

#[test]
fn per_row_histograms_whose_bin_uses_the_pure_var() {
    // hist(b, y) counts row y's values, shifted by y % 3: the data-dependent bin coordinate
    // mentions y, which also stands alone in its own position (as in Halide's bilateral grid).
    let mut rng = seeded_rng("per_row_histograms", 17);
    let input = ImageParam::new(Type::u8(), 2, "rows_input");
    let (mins, extents) = ([2, -3], [29, 9]);
    let buf = random_buffer(&mut rng, &mins, &extents, |r| r.random_range(0..40u8));
    let (b, y) = (Var::new("b"), Var::new("y"));
    let r = RDom::new([(input.min(0), input.extent(0))]);
    let hist = Func::new("row_hist");
    hist.define((b, y), 0).unwrap();
    let bin = cast_to::<i32>(input.at((r.x(), y))) / 4 + y % 3;
    hist.update((bin.clone(), y), hist.at((bin, y)) + 1)
        .unwrap();
    let (out_mins, out_extents) = ([-1, -3], [16, 9]);
    let out = Evaluator::new()
        .with_input(&input, buf.clone())
        .realize_as::<i32>(&hist, &out_mins, &out_extents)
        .unwrap();
    for p in points(&out_mins, &out_extents) {
        let (bin, row) = (p[0], p[1]);
        let expected = (mins[0]..mins[0] + extents[0])
            .filter(|&x| i64::from(buf.get(&[x, row])) / 4 + row.rem_euclid(3) == bin)
            .count() as i32;
        assert_eq!(out.get(&p), expected, "bin {bin} of row {row}");
    }
}

#[test]
fn integral_image_by_two_scans_with_pure_vars() {
    let mut rng = seeded_rng("integral_image", 12);
    let input = ImageParam::new(Type::i32(), 2, "integral_input");
    let (mins, extents) = ([-4, 6], [19, 13]);
    let buf = random_buffer(&mut rng, &mins, &extents, |r| r.random_range(-50..50));
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("integral");
    f.define((x, y), input.at((x, y))).unwrap();
    // Scan along x in every row (y stays a pure Var), then along y in every column.
    let rx = RDom::new([(input.min(0) + 1, input.extent(0) - 1)]);
    f.update((rx.x(), y), f.at((rx.x(), y)) + f.at((rx.x() - 1, y)))
        .unwrap();
    let ry = RDom::new([(input.min(1) + 1, input.extent(1) - 1)]);
    f.update((x, ry.x()), f.at((x, ry.x())) + f.at((x, ry.x() - 1)))
        .unwrap();
    let consumer = Func::new("box_sum");
    consumer
        .define(
            (x, y),
            f.at((x, y)) - f.at((x - 1, y)) - f.at((x, y - 1)) + f.at((x - 1, y - 1)),
        )
        .unwrap();

    let mut ev = Evaluator::new().with_input(&input, buf.clone());
    let out = ev.realize_as::<i32>(&f, &mins, &extents).unwrap();
    for p in points(&mins, &extents) {
        let mut expected = 0;
        for q in points(&mins, &[p[0] - mins[0] + 1, p[1] - mins[1] + 1]) {
            expected += buf.get(&q);
        }
        assert_eq!(out.get(&p), expected, "at {p:?}");
    }
    // Differences of the integral image give back the input.
    let inner = ev
        .realize_as::<i32>(&consumer, &[mins[0] + 1, mins[1] + 1], &[18, 12])
        .unwrap();
    inner.for_each_coord(|p| assert_eq!(inner.get(p), buf.get(p), "at {p:?}"));
}

/// Several updates, each reading values the previous ones (or itself, earlier in the same
/// update) produced, replayed with a Rust map.
#[test]
fn multi_pass_reductions_apply_in_order() {
    let x = Var::new("x");
    let f = Func::new("passes");
    f.define(x, x * 3).unwrap();
    f.update(x, f.at(x) + 1).unwrap();
    // Reads f(r + 1) before this update writes it: the previous update's value.
    let r = RDom::new([(0, 10)]);
    f.update(r.x(), f.at(r.x() + 1) - f.at(r.x())).unwrap();
    f.update(4, 100).unwrap();
    // Writes 10, 9, ..., -1, each reading the point written just before.
    let s = RDom::new([(0, 12)]);
    f.update(10 - s.x(), f.at(11 - s.x()) * 2 - s.x()).unwrap();
    let t = RDom::new([(0, 7)]);
    t.where_((t.x() % 2).eq_(0));
    f.update(t.x() * 3, f.at(t.x() * 3) + t.x()).unwrap();
    assert_eq!(f.update_count(), 5);

    let (lo, hi) = (-6i64, 25i64);
    let mut v: BTreeMap<i64, i64> = (lo - 5..hi + 25).map(|x| (x, x * 3)).collect();
    for val in v.values_mut() {
        *val += 1;
    }
    for r in 0..10 {
        let new = v[&(r + 1)] - v[&r];
        v.insert(r, new);
    }
    v.insert(4, 100);
    for s in 0..12 {
        let new = v[&(11 - s)] * 2 - s;
        v.insert(10 - s, new);
    }
    for t in (0..7).filter(|t| t % 2 == 0) {
        let new = v[&(t * 3)] + t;
        v.insert(t * 3, new);
    }
    let out = Evaluator::new()
        .realize_as::<i32>(&f, &[lo], &[hi - lo])
        .unwrap();
    for x in lo..hi {
        assert_eq!(out.get(&[x]) as i64, v[&x], "x={x}");
    }
}

#[test]
fn where_restricts_to_a_disc() {
    let mut rng = seeded_rng("where_disc", 13);
    let radius = 4;
    let r = RDom::new([(-radius, 2 * radius + 1), (-radius, 2 * radius + 1)]);
    r.where_((r.x() * r.x() + r.y() * r.y()).le(radius * radius));
    // An update without an RDom writes once; one that mentions the RDom (here through a
    // no-op) runs once per point of the disc.
    let count = Func::new("disc_count");
    count.define((), 0).unwrap();
    count.update((), count.at(()) + 1).unwrap();
    let area = Func::new("disc_area");
    area.define((), 0).unwrap();
    area.update((), area.at(()) + 1 + r.x() * 0).unwrap();
    let mut ev = Evaluator::new();
    assert_eq!(ev.value_at(&count, &[]).unwrap(), vec![Value::Int(1)]);
    let expected_area = (-radius..=radius)
        .flat_map(|y| (-radius..=radius).map(move |x| (x, y)))
        .filter(|(x, y)| x * x + y * y <= radius * radius)
        .count() as i64;
    assert_eq!(
        ev.value_at(&area, &[]).unwrap(),
        vec![Value::Int(expected_area)]
    );

    let input = ImageParam::new(Type::f32(), 2, "disc_input");
    let (mins, extents) = ([-10, -10], [30, 25]);
    let buf = random_buffer(&mut rng, &mins, &extents, |r| r.random_range(0.0f32..1.0));
    let (x, y) = (Var::new("x"), Var::new("y"));
    let blur = Func::new("disc_blur");
    blur.define((x, y), 0.0f32).unwrap();
    blur.update((x, y), blur.at((x, y)) + input.at((x + r.x(), y + r.y())))
        .unwrap();
    let (out_mins, out_extents) = ([-6, -6], [22, 17]);
    let out = Evaluator::new()
        .with_input(&input, buf.clone())
        .realize_as::<f32>(&blur, &out_mins, &out_extents)
        .unwrap();
    for p in points(&out_mins, &out_extents) {
        let mut expected = 0.0f32;
        for dy in -radius as i64..=radius as i64 {
            for dx in -radius as i64..=radius as i64 {
                if dx * dx + dy * dy <= (radius * radius) as i64 {
                    expected += buf.get(&[p[0] + dx, p[1] + dy]);
                }
            }
        }
        assert_eq!(out.get(&p), expected, "at {p:?}");
    }
}

#[test]
fn where_predicates_may_use_pure_vars_and_params() {
    let x = Var::new("x");
    let limit = Param::<i32>::new("limit");
    let r = RDom::new([(0, 10)]);
    r.where_(r.x().le(x));
    r.where_(r.x().lt(limit.expr()));
    let tri = Func::new("triangle");
    tri.define(x, 0).unwrap();
    tri.update(x, tri.at(x) + r.x()).unwrap();
    let out = Evaluator::new()
        .with_param(limit.bind(7))
        .realize_as::<i32>(&tri, &[-2], &[14])
        .unwrap();
    for x in -2..12i32 {
        let expected: i32 = (0..10).filter(|&r| r <= x && r < 7).sum();
        assert_eq!(out.get(&[x as i64]), expected, "x={x}");
    }
}

#[test]
fn tuple_updates() {
    let mut rng = seeded_rng("tuple_updates", 14);
    let input = ImageParam::new(Type::f32(), 1, "samples");
    let buf = random_buffer(&mut rng, &[-20], &[50], |r| r.random_range(-5.0f32..5.0));
    let r = RDom::new([(input.min(0), input.extent(0))]);
    let stats = Func::new("stats");
    stats
        .define((), Tuple(vec![Expr::from(0), Expr::from(0.0f32)]))
        .unwrap();
    let positive = input.at(r.x()).gt(0.0f32);
    stats
        .update(
            (),
            Tuple(vec![
                stats.value_at((), 0) + select(positive.clone(), 1, 0),
                stats.value_at((), 1) + select(positive, input.at(r.x()), 0.0f32),
            ]),
        )
        .unwrap();
    let got = Evaluator::new()
        .with_input(&input, buf.clone())
        .value_at(&stats, &[])
        .unwrap();
    let (mut n, mut total) = (0i64, 0.0f32);
    for &v in buf.data() {
        if v > 0.0 {
            n += 1;
            total += v;
        }
    }
    assert_eq!(got, vec![Value::Int(n), Value::F32(total)]);
}

#[test]
fn convolution_with_an_rdom() {
    let mut rng = seeded_rng("convolution", 15);
    let input = ImageParam::new(Type::i16(), 2, "conv_input");
    let (mins, extents) = ([0, -3], [24, 20]);
    let buf = random_buffer(&mut rng, &mins, &extents, |r| r.random_range(-300i16..300));
    let (x, y) = (Var::new("x"), Var::new("y"));
    let kernel = Func::new("kernel");
    kernel.define((x, y), (x + 1) * (y + 2) - x * x).unwrap();
    let r = RDom::new([(0, 3), (0, 4)]);
    let conv = Func::new("conv");
    conv.define((x, y), 0).unwrap();
    conv.update(
        (x, y),
        conv.at((x, y))
            + kernel.at((r.x(), r.y())) * cast_to::<i32>(input.at((x + r.x() - 1, y + r.y() - 1))),
    )
    .unwrap();
    let (out_mins, out_extents) = ([1, -2], [21, 16]);
    let out = Evaluator::new()
        .with_input(&input, buf.clone())
        .realize_as::<i32>(&conv, &out_mins, &out_extents)
        .unwrap();
    for p in points(&out_mins, &out_extents) {
        let mut expected = 0i32;
        for ry in 0..4i64 {
            for rx in 0..3i64 {
                let k = ((rx + 1) * (ry + 2) - rx * rx) as i32;
                expected += k * buf.get(&[p[0] + rx - 1, p[1] + ry - 1]) as i32;
            }
        }
        assert_eq!(out.get(&p), expected, "at {p:?}");
    }
}

#[test]
fn an_update_over_rows_mixes_a_pure_var_and_an_rvar() {
    // f(x, r) = f(x, r - 1) * 2 + f(x, r): each column x is an independent scan over rows.
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("rows");
    f.define((x, y), x - y).unwrap();
    let r = RDom::new([(1, 6)]);
    f.update((x, r.x()), f.at((x, r.x() - 1)) * 2 + f.at((x, r.x())))
        .unwrap();
    let out = Evaluator::new()
        .realize_as::<i32>(&f, &[-3, -1], &[7, 10])
        .unwrap();
    for xv in -3..4i64 {
        let mut col: BTreeMap<i64, i64> = (-1..9).map(|y| (y, xv - y)).collect();
        for r in 1..7 {
            let new = col[&(r - 1)] * 2 + col[&r];
            col.insert(r, new);
        }
        for yv in -1..9 {
            assert_eq!(out.get(&[xv, yv]) as i64, col[&yv], "at ({xv}, {yv})");
        }
    }
}

// ---- inline reductions ----------------------------------------------------------------------

#[test]
fn inline_sum_keeps_the_type_and_wraps() {
    let mut rng = seeded_rng("inline_sum", 16);
    let input = ImageParam::new(Type::u8(), 2, "sum_input");
    let (mins, extents) = ([-1, -1], [12, 10]);
    let buf = random_buffer(&mut rng, &mins, &extents, |r| r.random::<u8>());
    let (x, y) = (Var::new("x"), Var::new("y"));
    let r = RDom::new([(-1, 3), (-1, 3)]);
    let wrapped = Func::new("box_u8");
    wrapped
        .define((x, y), sum(input.at((x + r.x(), y + r.y()))))
        .unwrap();
    assert_eq!(wrapped.output_type(), Some(Type::u8()));
    let wide = Func::new("box_u32");
    wide.define(
        (x, y),
        sum(cast_to::<u32>(input.at((x + r.x(), y + r.y())))),
    )
    .unwrap();
    let mut ev = Evaluator::new().with_input(&input, buf.clone());
    let (out_mins, out_extents) = ([0, 0], [10, 8]);
    let a = ev
        .realize_as::<u8>(&wrapped, &out_mins, &out_extents)
        .unwrap();
    let b = ev
        .realize_as::<u32>(&wide, &out_mins, &out_extents)
        .unwrap();
    for p in points(&out_mins, &out_extents) {
        let (mut narrow, mut total) = (0u8, 0u32);
        for q in points(&[p[0] - 1, p[1] - 1], &[3, 3]) {
            narrow = narrow.wrapping_add(buf.get(&q));
            total += buf.get(&q) as u32;
        }
        assert_eq!((a.get(&p), b.get(&p)), (narrow, total), "at {p:?}");
    }
}

#[test]
fn inline_product_maximum_and_minimum() {
    let mut rng = seeded_rng("inline_extrema", 17);
    let input = ImageParam::new(Type::f32(), 1, "ext_input");
    let buf = random_buffer(&mut rng, &[-8], &[40], |r| r.random_range(-10.0f32..10.0));
    let x = Var::new("x");
    let r = RDom::new([(-2, 5)]);
    let k = RDom::new([(1, 5)]);
    let (prod, hi, lo) = (Func::new("prod"), Func::new("hi"), Func::new("lo"));
    prod.define(x, product(cast_to::<i64>(x + k.x()))).unwrap();
    hi.define(x, maximum(input.at(x + r.x()))).unwrap();
    lo.define(x, minimum(input.at(x + r.x()) * -1.0f32))
        .unwrap();
    let mut ev = Evaluator::new().with_input(&input, buf.clone());
    let p = ev.realize_as::<i64>(&prod, &[-10], &[20]).unwrap();
    let h = ev.realize_as::<f32>(&hi, &[-6], &[36]).unwrap();
    let l = ev.realize_as::<f32>(&lo, &[-6], &[36]).unwrap();
    for x in -10..10i64 {
        let expected: i64 = (1..6).map(|k| x + k).product();
        assert_eq!(p.get(&[x]), expected, "product at {x}");
    }
    for x in -6..30i64 {
        let window: Vec<f32> = (-2..3).map(|d| buf.get(&[x + d])).collect();
        let max = window.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let min = window
            .iter()
            .map(|v| v * -1.0)
            .fold(f32::INFINITY, f32::min);
        assert_eq!((h.get(&[x]), l.get(&[x])), (max, min), "at {x}");
    }
}

#[test]
fn inline_argmax_and_argmin_find_the_first_extremum() {
    let input = ImageParam::new(Type::i32(), 2, "arg_input");
    // Ties everywhere: the first extremum in iteration order (x fastest) must win.
    let buf = Buffer::from_fn(&[-2, 1], &[6, 5], |p| {
        ((p[0] * 7 + p[1] * 3).rem_euclid(5)) as i32
    });
    let r = RDom::new([
        (input.min(0), input.extent(0)),
        (input.min(1), input.extent(1)),
    ]);
    let best = Func::new("best");
    best.define((), Tuple(argmax(input.at((r.x(), r.y())))))
        .unwrap();
    let worst = Func::new("worst");
    worst
        .define((), Tuple(argmin(input.at((r.x(), r.y())))))
        .unwrap();
    let mut ev = Evaluator::new().with_input(&input, buf.clone());
    let first = |better: fn(i32, i32) -> bool| {
        let mut found: Option<(i64, i64, i32)> = None;
        for p in points(&[-2, 1], &[6, 5]) {
            let v = buf.get(&p);
            if found.is_none_or(|(_, _, b)| better(v, b)) {
                found = Some((p[0], p[1], v));
            }
        }
        let (x, y, v) = found.unwrap();
        vec![Value::Int(x), Value::Int(y), Value::Int(v as i64)]
    };
    assert_eq!(ev.value_at(&best, &[]).unwrap(), first(|a, b| a > b));
    assert_eq!(ev.value_at(&worst, &[]).unwrap(), first(|a, b| a < b));
}

#[test]
fn inline_reductions_over_free_vars_in_any_order() {
    // Vars named so that their alphabetical order differs from their order of use.
    let (b, a) = (Var::new("b"), Var::new("a"));
    let g = Func::new("grid");
    g.define((b, a), b * 100 + a).unwrap();
    let r = RDom::new([(0, 4)]);
    let f = Func::new("row_max_arg");
    let am = argmax(g.at((b, a + r.x())) % 7);
    f.define(
        (a, b),
        Tuple(vec![
            am[0].clone(),
            am[1].clone(),
            sum(g.at((a * r.x(), b))),
        ]),
    )
    .unwrap();
    let mut ev = Evaluator::new();
    for av in -2..3i64 {
        for bv in -1..4i64 {
            let vals: Vec<i64> = (0..4).map(|r| (bv * 100 + av + r).rem_euclid(7)).collect();
            let (mut arg, mut max) = (0, i32::MIN as i64);
            for (r, &v) in vals.iter().enumerate() {
                if v > max {
                    (arg, max) = (r as i64, v);
                }
            }
            let total: i64 = (0..4).map(|r| av * r * 100 + bv).sum();
            assert_eq!(
                ev.value_at(&f, &[av, bv]).unwrap(),
                vec![Value::Int(arg), Value::Int(max), Value::Int(total)],
                "at ({av}, {bv})"
            );
        }
    }
}

#[test]
fn inline_reductions_over_an_empty_domain_give_the_identity() {
    let n = Param::<i32>::new("n");
    let r = RDom::new([(0, n.expr())]);
    let e = cast_to::<i16>(r.x());
    let f = Func::new("empties");
    let am = argmax(e.clone());
    f.define(
        (),
        Tuple(vec![
            sum(e.clone()),
            product(e.clone()),
            maximum(e.clone()),
            minimum(e.clone()),
            am[0].clone(),
            am[1].clone(),
        ]),
    )
    .unwrap();
    let mut ev = Evaluator::new().with_param(n.bind(0));
    assert_eq!(
        ev.value_at(&f, &[]).unwrap(),
        vec![
            Value::Int(0),
            Value::Int(1),
            Value::Int(i16::MIN as i64),
            Value::Int(i16::MAX as i64),
            Value::Int(0),
            Value::Int(i16::MIN as i64),
        ]
    );
    let mut ev = Evaluator::new().with_param(n.bind(5));
    assert_eq!(
        ev.value_at(&f, &[]).unwrap(),
        vec![
            Value::Int(10),
            Value::Int(0),
            Value::Int(4),
            Value::Int(0),
            Value::Int(4),
            Value::Int(4),
        ]
    );
}
