//! Halide's `test/correctness/print_loop_nest.cpp`: the loop nest (`Pipeline::loop_nest`,
//! Halide's `print_loop_nest`) of three outputs tiled differently, an RGB-to-YUV-420
//! shape. Halide's test only prints it; here its loops are checked against the tiles the
//! schedule asks for; then Halide's case, u and v fused into y's `x_outer` loop with
//! `compute_with`.

use tessera::prelude::*;

/// The three outputs, tiled as Halide's test tiles them.
fn yuv_outputs() -> [Func; 3] {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let input = ImageParam::new(Type::i32(), 3, "input");
    let outputs = ["output_y", "output_u", "output_v"].map(Func::new);
    let [output_y, output_u, output_v] = &outputs;
    output_y.define((x, y), input.at((x, y, 0))).unwrap();
    output_u
        .define((x, y), input.at((x * 2, y * 2, 1)))
        .unwrap();
    output_v
        .define((x, y), input.at((x * 2, y * 2, 2)))
        .unwrap();
    output_u.tile(x, y, "x_outer", "y_outer", "x_inner", "y_inner", 4, 1);
    output_v.tile(x, y, "x_outer", "y_outer", "x_inner", "y_inner", 4, 1);
    output_y.tile(x, y, "x_outer", "y_outer", "x_inner", "y_inner", 8, 2);
    outputs
}

/// The `produce` lines and loops of a loop nest: each as its indentation and its first
/// words (`produce f`, or `for` and the loop's name), with the loop's extent where it is a
/// constant.
fn loop_lines(nest: &str) -> Vec<String> {
    nest.lines()
        .filter_map(|line| {
            let depth = (line.len() - line.trim_start().len()) / 2;
            let text = line.trim_start();
            if let Some(rest) = text.strip_prefix("for (") {
                let fields: Vec<&str> = rest.trim_end_matches(')').split(", ").collect();
                let extent = fields.last().filter(|e| e.parse::<i64>().is_ok());
                let extent = extent.map_or(String::new(), |e| format!(" x{e}"));
                Some(format!("{depth} for {}{extent}", fields[0]))
            } else {
                let produce = text.strip_prefix("produce ")?;
                Some(format!("{depth} produce {}", produce.split(' ').next()?))
            }
        })
        .collect()
}

/// The production of y and its loops: 8 x 2 tiles.
const Y_TILES: [&str; 5] = [
    "0 produce output_y",
    "1 for output_y.s0.y.y_outer",
    "2 for output_y.s0.x.x_outer",
    "3 for output_y.s0.y.y_inner x2",
    "4 for output_y.s0.x.x_inner x8",
];

#[test]
fn loop_nest_of_three_outputs_tiled_differently() {
    let [output_y, output_u, output_v] = yuv_outputs();
    let nest = Pipeline::with_outputs(&[&output_y, &output_u, &output_v])
        .loop_nest()
        .unwrap();
    // y in 8 x 2 tiles; u and v in 4 x 1 tiles, whose inner loop of one row is left out.
    let want = Y_TILES.into_iter().chain([
        "1 produce output_u",
        "2 for output_u.s0.y.y_outer",
        "3 for output_u.s0.x.x_outer",
        "4 for output_u.s0.x.x_inner x4",
        "2 produce output_v",
        "3 for output_v.s0.y.y_outer",
        "4 for output_v.s0.x.x_outer",
        "5 for output_v.s0.x.x_inner x4",
    ]);
    assert!(loop_lines(&nest).into_iter().eq(want), "{nest}");
}

#[test]
fn loop_nest_of_outputs_computed_with_one_another() {
    let [output_y, output_u, output_v] = yuv_outputs();
    output_u.compute_with(&output_y, "x_outer");
    output_v.compute_with(&output_y, "x_outer");
    let nest = Pipeline::with_outputs(&[&output_y, &output_u, &output_v])
        .loop_nest()
        .unwrap();
    // y's tiles as before, u's and v's inner loops run in each iteration of y's x_outer
    // (their one-row y_inner loops left out), as Halide fuses them: the steady state of the
    // nest, before the partial tiles at the edges.
    let want = Y_TILES.into_iter().chain([
        "3 for output_u.s0.x.x_inner x4",
        "3 for output_v.s0.x.x_inner x4",
    ]);
    let lines = loop_lines(&nest);
    assert!(lines.iter().map(String::as_str).take(7).eq(want), "{nest}");
    // No loops of their own outside y's.
    for line in &lines {
        assert!(
            !line.contains("output_u.s0.y") && !line.contains("output_v.s0.y"),
            "{nest}"
        );
        assert!(
            !line.contains("x_outer") || line.contains("output_y"),
            "{nest}"
        );
    }
}
