//! The schedules of the two paper apps, on copies of their algorithms (tessera-apps' blur and
//! histeq): every blur strategy (breadth first, full fusion, sliding window, tiles, sliding
//! tiles) and several histeq schedules equal the evaluator bit for bit; the blur strategies
//! compute and store exactly what each strategy promises (evaluation counts and allocation
//! sizes), and the printed IR shows the folded and per-tile allocations.

mod lower_common;

use lower_common::{check, u16_image, u8_image, Checked, TestInputs};
use tessera::pipeline::Pipeline;
use tessera::prelude::*;

struct Blur {
    input: ImageParam,
    blur_x: Func,
    blur_y: Func,
    x: Var,
    y: Var,
}

/// tessera-apps' blur: two 3-tap box filters in u16.
fn blur() -> Blur {
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let blur_x = Func::new("blur_x");
    let blur_y = Func::new("blur_y");
    blur_x
        .define(
            (x, y),
            (input.at((x, y)) + input.at((x + 1, y)) + input.at((x + 2, y))) / 3,
        )
        .unwrap();
    blur_y
        .define(
            (x, y),
            (blur_x.at((x, y)) + blur_x.at((x, y + 1)) + blur_x.at((x, y + 2))) / 3,
        )
        .unwrap();
    Blur {
        input,
        blur_x,
        blur_y,
        x,
        y,
    }
}

/// The output box of the blur tests: sizes that no tile or vector width divides, at
/// non-zero mins.
const MINS: [i64; 2] = [-5, 3];
const W: i64 = 70;
const H: i64 = 45;

fn run_blur(b: &Blur) -> Checked {
    let image = u16_image(&MINS, &[W + 2, H + 2], 1);
    check(
        &b.blur_y,
        &TestInputs::new().image(&b.input, image),
        &MINS,
        &[W, H],
    )
}

#[test]
fn breadth_first_computes_blur_x_once_over_its_whole_region() {
    let b = blur();
    b.blur_x.compute_root();
    let c = run_blur(&b);
    assert_eq!(c.stores("blur_x"), (W * (H + 2)) as u64);
    assert_eq!(c.allocation("blur_x"), (W * (H + 2)) as u64);
    assert_eq!(c.stores("blur_y"), (W * H) as u64);
}

#[test]
fn full_fusion_has_no_intermediate() {
    let b = blur();
    let c = run_blur(&b);
    assert_eq!(c.stores("blur_x"), 0);
    assert_eq!(c.allocations("blur_x"), 0);
}

fn sliding_window(b: &Blur) {
    b.blur_x.store_root().compute_at(&b.blur_y, b.y);
}

#[test]
fn sliding_window_computes_each_point_once_in_four_rows() {
    let b = blur();
    sliding_window(&b);
    let c = run_blur(&b);
    assert_eq!(c.stores("blur_x"), (W * (H + 2)) as u64);
    assert_eq!(c.allocation("blur_x"), (W * 4) as u64);
    assert_eq!(c.allocations("blur_x"), 1);
}

#[test]
fn sliding_window_with_vectorized_rows() {
    let b = blur();
    sliding_window(&b);
    b.blur_x.vectorize(b.x, 8);
    b.blur_y.vectorize(b.x, 8);
    let c = run_blur(&b);
    // Vectors of 8 over rows of 70: the last vector of a row shifts inwards by 2 lanes.
    assert_eq!(c.stores("blur_x"), (72 * (H + 2)) as u64);
    assert_eq!(c.stores("blur_y"), (72 * H) as u64);
    assert_eq!(c.allocation("blur_x"), (W * 4) as u64);
}

#[test]
fn sliding_window_ir_is_folded_and_serial() {
    let b = blur();
    sliding_window(&b);
    let ir = Pipeline::new(&b.blur_y).lower_to_string().unwrap();
    let alloc = ir
        .lines()
        .find(|l| l.trim_start().starts_with("alloc blur_x["))
        .unwrap_or_else(|| panic!("no allocation of blur_x:\n{ir}"));
    assert!(
        alloc.contains("u16 *") && alloc.contains("* 4]"),
        "blur_x is not folded to 4 rows: {alloc}\n{ir}"
    );
    assert!(ir.contains("for (blur_y.s0.y,"), "{ir}");
    assert!(!ir.contains("parallel for (blur_y.s0.y,"), "{ir}");
    // The allocation is outside the y loop: it is made once.
    let alloc_at = ir.find("alloc blur_x[").unwrap();
    assert!(alloc_at < ir.find("for (blur_y.s0.y,").unwrap(), "{ir}");
}

fn tiled(b: &Blur) {
    let (xo, yo, xi, yi) = (
        Var::new("xo"),
        Var::new("yo"),
        Var::new("xi"),
        Var::new("yi"),
    );
    b.blur_y.tile(b.x, b.y, xo, yo, xi, yi, 32, 32);
    b.blur_x.compute_at(&b.blur_y, xo);
}

#[test]
fn tiled_computes_one_tile_and_its_halo_per_tile() {
    let b = blur();
    tiled(&b);
    let c = run_blur(&b);
    // 3 × 2 tiles (the last ones shifted inwards), each needing 32 × 34 of blur_x.
    assert_eq!(c.allocations("blur_x"), 6);
    assert_eq!(c.allocation("blur_x"), 32 * 34);
    assert_eq!(c.stores("blur_x"), 6 * 32 * 34);
    assert_eq!(c.stores("blur_y"), 6 * 32 * 32);
}

#[test]
fn tiled_ir_allocates_blur_x_inside_the_tile_loops() {
    let b = blur();
    tiled(&b);
    let ir = Pipeline::new(&b.blur_y).lower_to_string().unwrap();
    let tile_loop = ir
        .find("for (blur_y.s0.x.xo,")
        .unwrap_or_else(|| panic!("no tile loop:\n{ir}"));
    let alloc = ir
        .find("alloc blur_x[u16 * 32 * 34]")
        .unwrap_or_else(|| panic!("no 32 × 34 allocation of blur_x:\n{ir}"));
    assert!(tile_loop < alloc, "{ir}");
    assert!(ir.find("for (blur_y.s0.y.yo,").unwrap() < tile_loop, "{ir}");
}

#[test]
fn tiled_in_parallel_with_vectors() {
    let b = blur();
    tiled(&b);
    b.blur_y.parallel("yo").vectorize("xi", 8);
    b.blur_x.vectorize(b.x, 8);
    let c = run_blur(&b);
    assert_eq!(c.allocation("blur_x"), 32 * 34);
}

fn sliding_tiles(b: &Blur) {
    let (yo, yi) = (Var::new("yo"), Var::new("yi"));
    b.blur_y.split(b.y, yo, yi, 8);
    b.blur_x.store_at(&b.blur_y, yo).compute_at(&b.blur_y, yi);
}

#[test]
fn sliding_tiles_slide_within_each_strip() {
    let b = blur();
    sliding_tiles(&b);
    let c = run_blur(&b);
    // 6 strips of 8 rows (the last shifted inwards); each computes its 10 rows of blur_x
    // once, in 4 folded rows.
    assert_eq!(c.allocations("blur_x"), 6);
    assert_eq!(c.allocation("blur_x"), (W * 4) as u64);
    assert_eq!(c.stores("blur_x"), (6 * 10 * W) as u64);
}

#[test]
fn sliding_tiles_in_parallel_strips_with_vectors() {
    let b = blur();
    sliding_tiles(&b);
    b.blur_y.parallel("yo").vectorize(b.x, 8);
    b.blur_x.vectorize(b.x, 8);
    let c = run_blur(&b);
    assert_eq!(c.allocation("blur_x"), (W * 4) as u64);
    assert_eq!(c.stores("blur_x"), (6 * 10 * 72) as u64);
}

struct Histeq {
    input: ImageParam,
    hist: Func,
    cdf: Func,
    cmin: Func,
    lut: Func,
    output: Func,
    x: Var,
    y: Var,
    i: Var,
}

/// tessera-apps' histeq: histogram, cumulative scan, minimum reduction, lookup table, gather.
fn histeq() -> Histeq {
    let input = ImageParam::new(Type::u8(), 2, "input");
    let (x, y, i) = (Var::new("x"), Var::new("y"), Var::new("i"));
    let n = input.width() * input.height();
    let hist = Func::new("hist");
    let r = RDom::named(
        "r",
        [
            (input.min(0), input.width()),
            (input.min(1), input.height()),
        ],
    );
    let bin = cast_to::<i32>(input.at((r.x(), r.y())));
    hist.define(i, 0).unwrap();
    hist.update(bin.clone(), hist.at(bin) + 1).unwrap();
    let cdf = Func::new("cdf");
    let s = RDom::named("s", [(1, 255)]);
    cdf.define(i, hist.at(i)).unwrap();
    cdf.update(s.x(), cdf.at(s.x() - 1) + cdf.at(s.x()))
        .unwrap();
    let cmin = Func::new("cmin");
    let b = RDom::named("b", [(0, 256)]);
    cmin.define((), n.clone()).unwrap();
    cmin.update(
        (),
        min(
            cmin.at(()),
            select(hist.at(b.x()).gt(0), cdf.at(b.x()), n.clone()),
        ),
    )
    .unwrap();
    let scale = 255.0f32 / cast_to::<f32>(max(n - cmin.at(()), 1));
    let lut = Func::new("lut");
    let equalized = round(cast_to::<f32>(cdf.at(i) - cmin.at(())) * scale);
    lut.define(i, cast_to::<u8>(clamp(equalized, 0.0f32, 255.0f32)))
        .unwrap();
    let output = Func::new("output");
    output
        .define((x, y), lut.at(cast_to::<i32>(input.at((x, y)))))
        .unwrap();
    Histeq {
        input,
        hist,
        cdf,
        cmin,
        lut,
        output,
        x,
        y,
        i,
    }
}

fn run_histeq(h: &Histeq) -> Checked {
    let (mins, extents) = ([-3, 5], [37, 29]);
    let image = u8_image(&mins, &extents, 40, 160, 2);
    check(
        &h.output,
        &TestInputs::new().image(&h.input, image),
        &mins,
        &extents,
    )
}

#[test]
fn histeq_breadth_first() {
    let h = histeq();
    for f in [&h.hist, &h.cdf, &h.cmin, &h.lut] {
        f.compute_root();
    }
    let c = run_histeq(&h);
    assert_eq!(c.allocation("lut"), 256);
    assert_eq!(c.allocations("hist"), 1);
}

#[test]
fn histeq_parallel_vectorized_output_and_lut() {
    let h = histeq();
    for f in [&h.hist, &h.cdf, &h.cmin] {
        f.compute_root();
    }
    h.lut.compute_root().vectorize(h.i, 8);
    h.hist.vectorize(h.i, 8);
    h.output.parallel(h.y).vectorize(h.x, 8);
    run_histeq(&h);
}

#[test]
fn histeq_inlined_lut_and_split_reductions() {
    let h = histeq();
    h.hist.compute_root();
    h.hist
        .update_stage(0)
        .split("r.x", "rxo", "rxi", 4)
        .unroll("rxi", 2);
    h.cdf.compute_root();
    h.cmin.compute_root();
    h.output.split(h.y, "yo", "yi", 4).parallel("yo");
    run_histeq(&h);
}

#[test]
fn histeq_with_the_scan_computed_around_each_use() {
    // cdf keeps its default schedule: a Func with updates scheduled inline is computed right
    // around each statement that uses it (the cmin update and the lut).
    let h = histeq();
    h.hist.compute_root();
    h.cmin.compute_root();
    h.lut.compute_root();
    run_histeq(&h);
}
