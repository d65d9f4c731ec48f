//! Pipelines with several output Funcs (`Pipeline::with_outputs`, Halide's `Pipeline({f,
//! g})`): independent outputs, outputs sharing an intermediate Func (at root or inlined), an
//! output read by another, outputs of different types and dimensionalities, each run on the
//! definition-level evaluator, the Stmt interpreter and the LLVM JIT (fresh buffers and
//! `realize_into`) and checked against plain Rust loops; and the mistakes a caller can make,
//! as errors naming the Func.

use tessera::pipeline::OutputBox;
use tessera::prelude::*;
use tessera::{InterpStats, Symbol};

/// The three runners' outputs of `pipeline`, each output over its box: the evaluator's, the
/// interpreter's and the JIT's (fresh buffers), each one buffer per value of each output;
/// and what the interpreter counted.
fn run_everywhere(
    pipeline: &Pipeline,
    images: &[(&ImageParam, AnyBuffer)],
    boxes: &[OutputBox],
) -> (Vec<(&'static str, Vec<AnyBuffer>)>, InterpStats) {
    let mut inputs = Inputs::new();
    let mut evaluator = Evaluator::new();
    for (image, buffer) in images {
        inputs = inputs.image(image, buffer.clone());
        evaluator = evaluator.with_input(image, buffer.clone());
    }
    let evaluated = pipeline.evaluate_each(&mut evaluator, boxes).unwrap();
    let interpreted = pipeline.realize_interp_each(&inputs, boxes).unwrap();
    let compiled = pipeline.compile_jit(&Target::host()).unwrap();
    let jitted = compiled.realize_each(&inputs, boxes).unwrap();
    let runs = vec![
        ("evaluator", evaluated),
        ("interpreter", interpreted.buffers),
        ("jit", jitted),
    ];
    (runs, interpreted.stats)
}

/// Asserts that `buffer` covers exactly `[mins, mins + extents)` and holds `want` there.
fn check<T: Scalar + PartialEq + std::fmt::Debug>(
    what: &str,
    buffer: &AnyBuffer,
    (mins, extents): OutputBox,
    want: impl Fn(&[i64]) -> T,
) {
    let typed = buffer.clone().into_typed::<T>().unwrap();
    assert_eq!(
        (typed.mins(), typed.extents()),
        (mins.to_vec(), extents.to_vec()),
        "{what}'s box"
    );
    typed.for_each_coord(|c| assert_eq!(typed.get(c), want(c), "{what} at {c:?}"));
}

fn assert_error<T: std::fmt::Debug>(result: Result<T>, words: &[&str]) {
    let message = result.expect_err("expected an error").to_string();
    for w in words {
        assert!(message.contains(w), "{message:?} does not mention {w:?}");
    }
}

fn ramp_image(name: &str, w: i64, h: i64) -> (ImageParam, Buffer<u16>) {
    let image = ImageParam::new(Type::u16(), 2, name);
    let buffer =
        Buffer::<u16>::from_fn(&[0, 0], &[w, h], |c| ((c[0] * 7 + c[1] * 13) % 1000) as u16);
    (image, buffer)
}

#[test]
fn two_independent_outputs_each_hold_their_own_values() {
    let (input, image) = ramp_image("mo_indep_in", 40, 30);
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (doubled, gradient) = (Func::new("mo_doubled"), Func::new("mo_gradient"));
    doubled.define((x, y), input.at((x, y)) * 2).unwrap();
    gradient.define((x, y), x * 3 - y).unwrap();
    doubled
        .split(y, "yo", "yi", 8)
        .parallel("yo")
        .vectorize(x, 8);
    gradient.vectorize(x, 4);
    let pipeline = Pipeline::with_outputs(&[&doubled, &gradient]);
    let (a, b): (OutputBox, OutputBox) = ((&[0, 0], &[40, 30]), (&[-5, 2], &[17, 9]));
    for (runner, out) in run_everywhere(&pipeline, &[(&input, image.clone().into())], &[a, b]).0 {
        assert_eq!(out.len(), 2, "{runner}: one buffer per output");
        check(&format!("{runner} doubled"), &out[0], a, |c| {
            image.get(c).wrapping_mul(2)
        });
        check(&format!("{runner} gradient"), &out[1], b, |c| {
            (c[0] * 3 - c[1]) as i32
        });
    }
}

/// `shared(x, y) = in(x, y) + in(x + 1, y)`, read by both outputs: `sum` at the same point
/// and `diff` one row down.
fn outputs_sharing(prefix: &str, input: &ImageParam) -> (Func, Func, Func) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let shared = Func::new(&format!("{prefix}_shared"));
    let sum = Func::new(&format!("{prefix}_sum"));
    let diff = Func::new(&format!("{prefix}_diff"));
    shared
        .define((x, y), input.at((x, y)) + input.at((x + 1, y)))
        .unwrap();
    sum.define((x, y), shared.at((x, y)) * 3).unwrap();
    diff.define((x, y), shared.at((x, y + 1)) - shared.at((x, y)))
        .unwrap();
    (shared, sum, diff)
}

/// Runs `sum` and `diff` scheduled by `schedule` everywhere and checks their values; gives
/// the interpreter's counts and the shared Func's name.
fn check_sharing_outputs(
    prefix: &str,
    schedule: impl Fn(&Func, &Func, &Func),
) -> (InterpStats, Symbol) {
    let (input, image) = ramp_image(&format!("{prefix}_in"), 50, 40);
    let (shared, sum, diff) = outputs_sharing(prefix, &input);
    schedule(&shared, &sum, &diff);
    let pipeline = Pipeline::with_outputs(&[&sum, &diff]);
    let at = |x: i64, y: i64| image.get(&[x, y]).wrapping_add(image.get(&[x + 1, y]));
    let (a, b): (OutputBox, OutputBox) = ((&[0, 0], &[49, 40]), (&[3, 1], &[32, 20]));
    let (runs, stats) = run_everywhere(&pipeline, &[(&input, image.clone().into())], &[a, b]);
    for (runner, out) in runs {
        check(&format!("{runner} sum"), &out[0], a, |c| {
            at(c[0], c[1]).wrapping_mul(3)
        });
        check(&format!("{runner} diff"), &out[1], b, |c| {
            at(c[0], c[1] + 1).wrapping_sub(at(c[0], c[1]))
        });
    }
    (stats, shared.name())
}

#[test]
fn outputs_sharing_a_root_func_read_it_once_computed_over_both_regions() {
    let (stats, shared) = check_sharing_outputs("mo_root", |shared, sum, diff| {
        shared.compute_root().vectorize(Var::new("x"), 8);
        sum.parallel(Var::new("y"));
        diff.vectorize(Var::new("x"), 4);
    });
    // One realization over the union of what the two read: x in [0, 48] (sum's; diff's is
    // inside), y in [0, 39] (sum's; diff reads rows 1 to 21).
    assert_eq!(stats.allocations.get(&shared), Some(&1));
    assert_eq!(stats.allocation_elements.get(&shared), Some(&(49 * 40)));
}

#[test]
fn outputs_sharing_an_inlined_func_each_inline_it() {
    let (stats, shared) = check_sharing_outputs("mo_inline", |_, sum, diff| {
        sum.vectorize(Var::new("x"), 8);
        diff.split(Var::new("y"), "yo", "yi", 4).parallel("yo");
    });
    assert_eq!(
        stats.allocations.get(&shared),
        None,
        "inlined, never stored"
    );
}

#[test]
fn an_output_read_by_another_is_computed_once_into_its_buffer() {
    let x = Var::new("x");
    let (square, pairs) = (Func::new("mo_square"), Func::new("mo_pairs"));
    square.define(x, x * x).unwrap();
    pairs.define(x, square.at(x) + square.at(x + 1)).unwrap();
    pairs.vectorize(x, 4);
    // In either order: the output read is realized first.
    for outputs in [[&square, &pairs], [&pairs, &square]] {
        let pipeline = Pipeline::with_outputs(&outputs);
        // The reader's box inside the read one's, which it reads one further.
        let boxes: Vec<OutputBox> = outputs
            .iter()
            .map(|f| -> OutputBox {
                if f.name() == square.name() {
                    (&[-4], &[30])
                } else {
                    (&[-4], &[29])
                }
            })
            .collect();
        let square_at = outputs
            .iter()
            .position(|f| f.name() == square.name())
            .unwrap();
        for (runner, out) in run_everywhere(&pipeline, &[], &boxes).0 {
            check(
                &format!("{runner} square"),
                &out[square_at],
                boxes[square_at],
                |c| (c[0] * c[0]) as i32,
            );
            let pairs_at = 1 - square_at;
            check(
                &format!("{runner} pairs"),
                &out[pairs_at],
                boxes[pairs_at],
                |c| (c[0] * c[0] + (c[0] + 1) * (c[0] + 1)) as i32,
            );
        }
        // One box for both, as Halide's `realize(sizes)`: the read output is computed over
        // what the reader needs, then cropped.
        let compiled = pipeline.compile_jit(&Target::host()).unwrap();
        let same = compiled.realize(&Inputs::new(), &[0], &[16]).unwrap();
        check("same box square", &same[square_at], (&[0], &[16]), |c| {
            (c[0] * c[0]) as i32
        });
        // Into buffers of the caller's, the read output's must hold what is read of it.
        let mut short = vec![
            AnyBuffer::with_mins(Type::i32(), &[0], &[16]).unwrap(),
            AnyBuffer::with_mins(Type::i32(), &[0], &[16]).unwrap(),
        ];
        assert_error(
            compiled.realize_into(&Inputs::new(), &mut short),
            &["mo_square"],
        );
    }
}

#[test]
fn outputs_of_different_types_and_dimensionalities() {
    let (input, image) = ramp_image("mo_types_in", 24, 16);
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (scaled, row_sum, pair) = (
        Func::new("mo_scaled"),
        Func::new("mo_row_sum"),
        Func::new("mo_pair"),
    );
    scaled
        .define((x, y), cast(Type::f32(), input.at((x, y))) * 0.5f32)
        .unwrap();
    let r = RDom::new([(0, 24)]);
    row_sum.define(y, cast(Type::u32(), 0)).unwrap();
    row_sum
        .update(y, row_sum.at(y) + cast(Type::u32(), input.at((r.x(), y))))
        .unwrap();
    pair.define(x, Tuple(vec![cast(Type::u8(), x), cast(Type::i16(), -x)]))
        .unwrap();
    scaled.vectorize(x, 8);
    let pipeline = Pipeline::with_outputs(&[&scaled, &row_sum, &pair]);
    let boxes: [OutputBox; 3] = [(&[0, 0], &[24, 16]), (&[2], &[10]), (&[0], &[300])];
    for (runner, out) in run_everywhere(&pipeline, &[(&input, image.clone().into())], &boxes).0 {
        assert_eq!(out.len(), 4, "{runner}: a buffer per value of each output");
        check(&format!("{runner} scaled"), &out[0], boxes[0], |c| {
            image.get(c) as f32 * 0.5
        });
        check(&format!("{runner} row_sum"), &out[1], boxes[1], |c| {
            (0..24).map(|i| image.get(&[i, c[0]]) as u32).sum::<u32>()
        });
        check(&format!("{runner} pair.0"), &out[2], boxes[2], |c| {
            c[0] as u8
        });
        check(&format!("{runner} pair.1"), &out[3], boxes[2], |c| {
            -c[0] as i16
        });
    }
    // One box for all is Halide's `realize(sizes)`: outputs of other dimensionalities
    // need one each.
    let compiled = pipeline.compile_jit(&Target::host()).unwrap();
    let inputs = Inputs::new().image(&input, image);
    assert_error(
        compiled.realize(&inputs, &[0, 0], &[8, 8]),
        &["mo_row_sum", "1 dimensions"],
    );
    assert_error(
        compiled.realize_each(&inputs, &boxes[..2]),
        &[
            "3 outputs",
            "mo_scaled, mo_row_sum, mo_pair",
            "2 output boxes",
        ],
    );
}

#[test]
fn realize_into_takes_one_buffer_per_value_of_each_output() {
    let x = Var::new("x");
    let (f, g) = (Func::new("mo_into_f"), Func::new("mo_into_g"));
    f.define(x, x * 100).unwrap();
    g.define(x, cast(Type::f32(), x)).unwrap();
    let compiled = Pipeline::with_outputs(&[&f, &g])
        .compile_jit(&Target::host())
        .unwrap();
    let mut buffers = vec![
        AnyBuffer::with_mins(Type::i32(), &[0], &[100]).unwrap(),
        AnyBuffer::with_mins(Type::f32(), &[5], &[10]).unwrap(),
    ];
    compiled.realize_into(&Inputs::new(), &mut buffers).unwrap();
    check("f", &buffers[0], (&[0], &[100]), |c| (c[0] * 100) as i32);
    check("g", &buffers[1], (&[5], &[10]), |c| c[0] as f32);
    assert_error(
        compiled.realize_into(&Inputs::new(), &mut buffers[..1]),
        &["2 output buffers", "mo_into_f, mo_into_g", "1 were given"],
    );
    let mut wrong_type = vec![
        AnyBuffer::with_mins(Type::i32(), &[0], &[100]).unwrap(),
        AnyBuffer::with_mins(Type::i32(), &[0], &[10]).unwrap(),
    ];
    assert_error(
        compiled.realize_into(&Inputs::new(), &mut wrong_type),
        &["mo_into_g", "f32"],
    );
}

#[test]
fn output_lists_and_schedules_that_cannot_be_pipelines_are_errors_naming_the_func() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (f, g) = (Func::new("mo_err_f"), Func::new("mo_err_g"));
    f.define((x, y), x + y).unwrap();
    g.define((x, y), f.at((x, y)) * 2).unwrap();
    assert_error(
        Pipeline::with_outputs(&[&f, &g, &f]).lower_to_string(),
        &["mo_err_f", "listed twice"],
    );
    assert_error(
        Pipeline::with_outputs(&[]).lower_to_string(),
        &["at least one output"],
    );
    let options = tessera::autoschedule::AutoScheduleOptions::default();
    assert_error(
        Pipeline::with_outputs(&[&f, &g]).auto_schedule(&Target::host(), &options),
        &["one output", "mo_err_f, mo_err_g"],
    );
    // An output is computed at root: not at a loop of another output.
    f.compute_at(&g, y);
    assert_error(
        Pipeline::with_outputs(&[&f, &g]).lower_to_string(),
        &["mo_err_f is an output", "computed at root"],
    );
    assert_error(
        Pipeline::with_outputs(&[&f, &g]).realize_interp(&Inputs::new(), &[0, 0], &[4, 4]),
        &["mo_err_f is an output"],
    );
}

/// Halide's RGB-to-YUV-420 shape (`print_loop_nest.cpp`): `y` the input's channel 0, `u`
/// and `v` channels 1 and 2 at every other pixel; y in 8 x 2 tiles, u and v in 4 x 1.
fn yuv(prefix: &str, input: &ImageParam) -> [Func; 3] {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let outputs = ["y", "u", "v"].map(|n| Func::new(&format!("{prefix}_{n}")));
    for (c, out) in outputs.iter().enumerate() {
        let step = if c == 0 { 1 } else { 2 };
        out.define((x, y), input.at((x * step, y * step, c as i32)))
            .unwrap();
        let (w, h) = if c == 0 { (8, 2) } else { (4, 1) };
        out.tile(x, y, "xo", "yo", "xi", "yi", w, h);
    }
    outputs
}

#[test]
fn outputs_computed_with_one_another_share_their_loops() {
    let input = ImageParam::new(Type::u16(), 3, "mo_yuv_in");
    let image = Buffer::<u16>::from_fn(&[0, 0, 0], &[96, 64, 3], |c| {
        ((c[0] * 7 + c[1] * 13 + c[2] * 101) % 1000) as u16
    });
    // Halide's 4:2:0 sizes (u and v half of y each way, so their tiles line up with y's),
    // then sizes whose tiles do not line up and whose edges are partial tiles.
    let sizes: [[OutputBox; 3]; 2] = [
        [
            (&[0, 0], &[48, 32]),
            (&[0, 0], &[24, 16]),
            (&[0, 0], &[24, 16]),
        ],
        [
            (&[0, 0], &[45, 31]),
            (&[3, 1], &[19, 13]),
            (&[1, 0], &[30, 5]),
        ],
    ];
    for boxes in sizes {
        let [oy, ou, ov] = yuv("mo_yuv", &input);
        ou.compute_with(&oy, "xo");
        ov.compute_with(&oy, "xo");
        let pipeline = Pipeline::with_outputs(&[&oy, &ou, &ov]);
        // v's innermost loop runs inside y's x tiles.
        let nest = pipeline.loop_nest().unwrap();
        let at = |loop_name: &str| nest.find(&format!("for ({loop_name},")).unwrap();
        assert!(at("mo_yuv_y.s0.x.xo") < at("mo_yuv_v.s0.x.xi"), "{nest}");
        assert!(!nest.contains("for (mo_yuv_v.s0.x.xo,"), "{nest}");
        let images = [(&input, image.clone().into())];
        for (runner, out) in run_everywhere(&pipeline, &images, &boxes).0 {
            for (c, (buffer, b)) in out.iter().zip(boxes).enumerate() {
                let step = if c == 0 { 1 } else { 2 };
                check(&format!("{runner} channel {c}"), buffer, b, |p| {
                    image.get(&[p[0] * step, p[1] * step, c as i64])
                });
            }
        }
    }
}

#[test]
fn outputs_whose_loops_cannot_fuse_are_errors_naming_them() {
    let input = ImageParam::new(Type::u16(), 3, "mo_yuv_err_in");
    let [oy, ou, ov] = yuv("mo_yuv_err", &input);
    oy.parallel("yo");
    ou.compute_with(&oy, "xo");
    assert_error(
        Pipeline::with_outputs(&[&oy, &ou, &ov]).lower_to_string(),
        &[
            "mo_yuv_err_u.compute_with(mo_yuv_err_y, xo)",
            "differ",
            "parallel for mo_yuv_err_y.s0.y.yo",
        ],
    );
    // An output read by another is computed before it, not with it.
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (a, b) = (Func::new("mo_with_a"), Func::new("mo_with_b"));
    a.define((x, y), input.at((x, y, 0)) + 1).unwrap();
    b.define((x, y), a.at((x, y)) * 2).unwrap();
    b.compute_with(&a, "x");
    assert_error(
        Pipeline::with_outputs(&[&a, &b]).lower_to_string(),
        &[
            "mo_with_b.compute_with(mo_with_a, x)",
            "mo_with_b uses mo_with_a",
        ],
    );
}
