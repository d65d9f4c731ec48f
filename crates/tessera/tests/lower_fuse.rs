//! `fuse`: fused loops compute exactly their dimensions' regions, alone and with a producer
//! computed at the fused loop (tiles fused into one parallel loop); a pure loop fused with a
//! reduction loop is a reduction loop.

mod lower_common;

use lower_common::{check, schedule_error, u16_image, TestInputs};
use tessera::prelude::*;

#[test]
fn fused_output_loops_cover_exactly_the_output() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = Func::new("g");
    g.define((x, y), x + y * 3).unwrap();
    g.fuse(x, y, "t");
    let c = check(&g, &TestInputs::new(), &[-2, 4], &[5, 3]);
    assert_eq!(c.stores("g"), 15);
}

#[test]
fn a_producer_computed_per_fused_tile() {
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y, xo, yo, xi, yi) = (
        Var::new("x"),
        Var::new("y"),
        Var::new("xo"),
        Var::new("yo"),
        Var::new("xi"),
        Var::new("yi"),
    );
    let f = Func::new("f");
    let g = Func::new("g");
    f.define((x, y), input.at((x, y)) + input.at((x + 1, y + 1)))
        .unwrap();
    g.define((x, y), f.at((x, y)) + f.at((x + 1, y))).unwrap();
    g.tile(x, y, xo, yo, xi, yi, 4, 4)
        .fuse(xo, yo, "tile")
        .parallel("tile");
    f.compute_at(&g, "tile");
    let inputs = TestInputs::new().image(&input, u16_image(&[0, 0], &[19, 14], 7));
    let c = check(&g, &inputs, &[0, 0], &[17, 12]);
    // Each 4x4 tile of g computes a 5x4 tile of f; with shifted edge tiles, 5x3 = 15 tiles.
    assert_eq!(c.allocation("f"), 20);
    assert_eq!(c.stores("f"), 15 * 20);
}

#[test]
fn loops_fuse_in_any_order_and_across_others() {
    // As in Halide, the fused loop takes the inner loop's place and the outer one goes away,
    // wherever it was: across another loop (x with c, y between), with a loop inside it
    // (y with x), and of a split's two loops the other way round.
    let input = ImageParam::new(Type::u16(), 3, "input");
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));
    /// Schedules the consumer and its producer.
    type Schedule<'a> = &'a dyn Fn(&Func, &Func);
    let schedules: [Schedule; 3] = [
        &|g, _| {
            g.fuse(x, c, "xc");
        },
        &|g, f| {
            g.fuse(y, x, "yx");
            f.compute_at(g, "yx");
        },
        &|g, f| {
            g.split(x, "xo", "xi", 3).fuse("xo", "xi", "t").parallel(y);
            f.compute_at(g, y);
        },
    ];
    for schedule in schedules {
        let f = Func::new("f");
        f.define((x, y, c), input.at((x, y, c)) * 2 + input.at((x + 1, y, c)))
            .unwrap();
        let g = Func::new("g");
        g.define((x, y, c), f.at((x, y, c)) + f.at((x + 1, y, c)))
            .unwrap();
        schedule(&g, &f);
        let image = u16_image(&[0, 0, 0], &[14, 5, 3], 11);
        let inputs = TestInputs::new().image(&input, image);
        let run = check(&g, &inputs, &[0, 0, 0], &[12, 5, 3]);
        assert_eq!(run.stores("g"), 12 * 5 * 3);
    }
}

#[test]
fn a_pure_loop_fused_with_a_reduction_loop_is_a_reduction_loop() {
    // Sums of 3 consecutive inputs, 2 outputs per pass of the fused loop (Halide's
    // horizontal reductions): serial, vectorized with atomic(), or vectorized without it,
    // which races (lanes of one output store to one point) and is refused.
    let input = ImageParam::new(Type::u16(), 1, "input");
    let image = u16_image(&[0], &[3 * 11], 5);
    let expected: Vec<u32> = (0..11)
        .map(|i| (0..3).map(|k| u32::from(image.get(&[3 * i + k]))).sum())
        .collect();
    let x = Var::new("x");
    for how in ["serial", "atomic", "racy"] {
        let r = RDom::new([(0, 3)]);
        let f = Func::new("f");
        f.define(x, cast_to::<u32>(Expr::from(0))).unwrap();
        f.update(x, f.at(x) + cast_to::<u32>(input.at(x * 3 + r.x())))
            .unwrap();
        let update = f.update_stage(0);
        update.split(x, "xo", "xi", 2).fuse(r.x(), "xi", "t");
        match how {
            "serial" => {}
            "atomic" => {
                update.atomic().vectorize_loop("t");
            }
            _ => {
                update.vectorize_loop("t");
                let msg = schedule_error(&f);
                assert!(msg.contains("vectorize(t)"), "{msg}");
                continue;
            }
        }
        let inputs = TestInputs::new().image(&input, image.clone());
        let run = check(&f, &inputs, &[0], &[10]);
        let AnyBuffer::U32(out) = &run.realization.buffers[0] else {
            panic!("f is u32");
        };
        for (i, want) in expected.iter().take(10).enumerate() {
            assert_eq!(out.get(&[i as i64]), *want, "{how} at {i}");
        }
    }
}
