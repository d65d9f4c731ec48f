//! `rfactor`: reductions factored into partial reductions (over split, parallel and vectorized
//! loops), checked against plain-Rust reductions of the *original* definitions — the
//! evaluator sees the factored definitions, so it only checks the lowering — and the
//! mistakes rfactor refuses.

mod lower_common;

use lower_common::{check, u8_image, TestInputs};
use tessera::prelude::*;

/// A 256-bin histogram of a u8 image, factored into strips of 8 rows × 4 interleaved
/// sub-histograms, strips in parallel (Halide's histogram rfactor schedule), at sizes the
/// factors do not divide.
#[test]
fn histogram_factored_into_parallel_strips() {
    for (width, height, vectorize) in [(37, 29, false), (64, 16, true), (5, 3, false)] {
        let input = ImageParam::new(Type::u8(), 2, "input");
        let (i, strip, lane) = (Var::new("i"), Var::new("strip"), Var::new("lane"));
        let hist = lower_common::histogram(&input);
        let out = Func::new("out");
        out.define(i, hist.at(i)).unwrap();

        hist.update_stage(0)
            .split("r.x", "rxo", "rxi", 4)
            .split("r.y", "ryo", "ryi", 8);
        let partial = hist
            .update_stage(0)
            .rfactor(&[("ryo".into(), strip), ("rxi".into(), lane)])
            .unwrap();
        partial.compute_root().parallel(strip);
        partial
            .update_stage(0)
            .reorder((lane, "rxo", "ryi", strip))
            .parallel(strip);
        hist.compute_root();
        if vectorize {
            partial.vectorize(i, 16);
            hist.vectorize(i, 16);
            hist.update_stage(0).vectorize(i, 16);
        }

        let image = u8_image(&[2, -1], &[width, height], 0, 255, width as u64);
        let mut expected = [0i32; 256];
        for y in -1..height - 1 {
            for x in 2..width + 2 {
                expected[image.get(&[x, y]) as usize] += 1;
            }
        }
        let run = check(&out, &TestInputs::new().image(&input, image), &[0], &[256]);
        let AnyBuffer::I32(actual) = &run.realization.buffers[0] else {
            panic!("out is i32");
        };
        for (bin, &count) in expected.iter().enumerate() {
            assert_eq!(
                actual.get(&[bin as i64]),
                count,
                "bin {bin} at {width}x{height}"
            );
        }
    }
}

/// Row maxima of an i32 image, the reduction over x factored into vector lanes.
#[test]
fn maximum_factored_into_vector_lanes() {
    let input = ImageParam::new(Type::i32(), 2, "input");
    let (y, u) = (Var::new("y"), Var::new("u"));
    let r = RDom::named("r", [(0, 50)]);
    let f = Func::new("f");
    f.define(y, i32::MIN).unwrap();
    f.update(y, max(f.at(y), input.at((r.x(), y)))).unwrap();
    f.update_stage(0).split("r.x", "rxo", "rxi", 8);
    let partial = f.update_stage(0).rfactor(&[("rxi".into(), u)]).unwrap();
    partial.compute_at(&f, y).vectorize(u, 8);
    partial.update_stage(0).vectorize(u, 8);

    let image = Buffer::<i32>::from_fn(&[0, 0], &[50, 7], |p| {
        ((p[0] * 7919 + p[1] * 104_729) % 1000) as i32 - 500
    });
    let expected: Vec<i32> = (0..7)
        .map(|row| (0..50).map(|x| image.get(&[x, row])).max().unwrap())
        .collect();
    let run = check(&f, &TestInputs::new().image(&input, image), &[0], &[7]);
    let AnyBuffer::I32(actual) = &run.realization.buffers[0] else {
        panic!("f is i32");
    };
    for (row, &m) in expected.iter().enumerate() {
        assert_eq!(actual.get(&[row as i64]), m);
    }
}

/// A sum with a `where` clause, an unsplit RVar preserved: the predicate moves into the
/// intermediate and refers to the new pure Var.
#[test]
fn sum_with_predicate_over_a_preserved_rvar() {
    let (x, v) = (Var::new("x"), Var::new("v"));
    let r = RDom::named("r", [(0, 9), (-3, 5)]);
    r.where_(((r.x() + r.y()) % 3).ne_(0));
    let f = Func::new("f");
    f.define(x, cast_to::<u32>(0)).unwrap();
    f.update(x, f.at(x) + cast_to::<u32>(x * r.x() + r.y() * r.y()))
        .unwrap();
    let partial = f.update_stage(0).rfactor(&[("r.y".into(), v)]).unwrap();
    partial.compute_root().parallel(v);

    let run = check(&f, &TestInputs::new(), &[-2], &[6]);
    let AnyBuffer::U32(actual) = &run.realization.buffers[0] else {
        panic!("f is u32");
    };
    for xv in -2i64..4 {
        let mut sum = 0u32;
        for ry in -3i64..2 {
            for rx in 0i64..9 {
                if (rx + ry).rem_euclid(3) != 0 {
                    sum = sum.wrapping_add((xv * rx + ry * ry) as u32);
                }
            }
        }
        assert_eq!(actual.get(&[xv]), sum, "x = {xv}");
    }
}

fn rfactor_error(result: Result<Func>) -> String {
    match result {
        Err(Error::Schedule(e)) => e.message,
        Err(other) => panic!("expected a schedule error, got {other}"),
        Ok(f) => panic!("expected an error, got the intermediate {}", f.name()),
    }
}

#[test]
fn mistakes_are_refused_with_the_reason() {
    let (x, u) = (Var::new("x"), Var::new("u"));
    let r = RDom::named("r", [(0, 16)]);

    let sum_f = Func::new("sum_f");
    sum_f.define(x, 0.0f32).unwrap();
    sum_f
        .update(x, sum_f.at(x) + cast_to::<f32>(r.x()))
        .unwrap();
    let msg = rfactor_error(sum_f.update_stage(0).rfactor(&[("r.x".into(), u)]));
    assert!(
        msg.contains("sum_f.update(0).rfactor") && msg.contains("float"),
        "{msg}"
    );

    let scan = Func::new("scan");
    scan.define(x, 1).unwrap();
    scan.update(x, scan.at(x) * 2 + r.x()).unwrap();
    let msg = rfactor_error(scan.update_stage(0).rfactor(&[("r.x".into(), u)]));
    assert!(msg.contains("op e"), "{msg}");

    let count = Func::new("count");
    count.define(x, 0).unwrap();
    count.update(x, count.at(x) + r.x()).unwrap();
    let msg = rfactor_error(count.update_stage(0).rfactor(&[("nope".into(), u)]));
    assert!(msg.contains("no loop nope") && msg.contains("r.x"), "{msg}");
    let msg = rfactor_error(count.update_stage(0).rfactor(&[("x".into(), u)]));
    assert!(msg.contains("pure loop"), "{msg}");
    let msg = rfactor_error(count.update_stage(0).rfactor(&[("r.x".into(), x)]));
    assert!(msg.contains("fresh Var"), "{msg}");
    let msg = rfactor_error(count.pure_stage().rfactor(&[("r.x".into(), u)]));
    assert!(msg.contains("pure definition"), "{msg}");
}
