//! Halide's `test/correctness/process_some_tiles.cpp`: brighten the tiles of an image that a
//! low-resolution bitmap selects. `brighter` is computed per tile of `output_tiles`, inside
//! the loops over the tile coordinates, where the select's condition, `bitmap(x, y)`, reads
//! an input image at those coordinates: skip_stages computes `brighter` only for the tiles
//! selected. Halide counts the calls of its extern `pow` (16 x 16, one tile); here the
//! interpreter counts the points of `brighter` computed, which must be at most that. The
//! values are checked against plain Rust within Halide's 0.001 (and against the evaluator
//! exactly). Halide's `tile` shifts its last tiles inwards, which its bounds prove never
//! happens here (`bound` makes the output whole tiles); Tessera's do not prove it, so a tile
//! would span two columns of tiles (and read the bitmap past its edge): the tiles are
//! `RoundUp` splits, the same loops when the output is whole tiles.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

const TILE: i32 = 16;
const TILES: i32 = 10;

#[test]
fn only_the_tiles_the_bitmap_selects_are_brightened() {
    let bitmap = ImageParam::new(Type::bool_(), 2, "bitmap");
    let image = ImageParam::new(Type::f32(), 2, "image");
    let (x, y, xi, yi) = (Var::new("x"), Var::new("y"), Var::new("xi"), Var::new("yi"));
    let (xo, yo) = (Var::new("xo"), Var::new("yo"));
    let tiled = Func::new("tiled");
    tiled
        .define((xi, yi, x, y), image.at((x * TILE + xi, y * TILE + yi)))
        .unwrap();
    let brighter = Func::new("brighter");
    brighter
        .define((xi, yi, x, y), pow(tiled.at((xi, yi, x, y)), 0.8f32))
        .unwrap();
    let output_tiles = Func::new("output_tiles");
    output_tiles
        .define(
            (xi, yi, x, y),
            select(
                bitmap.at((x, y)),
                brighter.at((xi, yi, x, y)),
                tiled.at((xi, yi, x, y)),
            ),
        )
        .unwrap();
    let output = Func::new("output");
    output
        .define(
            (x, y),
            output_tiles.at((x % TILE, y % TILE, x / TILE, y / TILE)),
        )
        .unwrap();
    output
        .bound(x, 0, (image.width() / TILE) * TILE)
        .bound(y, 0, (image.height() / TILE) * TILE)
        .split_with_tail(x, xo, xi, TILE, TailStrategy::RoundUp)
        .split_with_tail(y, yo, yi, TILE, TailStrategy::RoundUp)
        .reorder((xi, yi, xo, yo))
        .vectorize(xi, 4);
    brighter.compute_at(&output_tiles, x);
    output_tiles.compute_at(&output, xo);

    let (tile, tiles) = (i64::from(TILE), i64::from(TILES));
    let selected = |tx: i64, ty: i64| tx == 5 && ty == 5;
    let bits = Buffer::<bool>::from_fn(&[0, 0], &[tiles, tiles], |c| selected(c[0], c[1]));
    let value = |xx: i64, yy: i64| (((xx + yy) as f32).sin() + 1.0) / 2.0;
    let n = tiles * tile;
    let pixels = Buffer::<f32>::from_fn(&[0, 0], &[n, n], |c| value(c[0], c[1]));
    let inputs = TestInputs::new().image(&bitmap, bits).image(&image, pixels);
    let run = check(&output, &inputs, &[0, 0], &[n, n]);
    let computed = run.provides("brighter");
    assert!(
        computed <= (tile * tile) as u64,
        "brighter computed at {computed} points, Halide's pow is called {} times",
        tile * tile
    );
    let AnyBuffer::F32(result) = &run.realization.buffers[0] else {
        panic!("the output is f32");
    };
    for yy in 0..n {
        for xx in 0..n {
            let v = value(xx, yy);
            let expected = if selected(xx / tile, yy / tile) {
                v.powf(0.8)
            } else {
                v
            };
            let got = result.get(&[xx, yy]);
            assert!(
                (got - expected).abs() <= 0.001,
                "output({xx}, {yy}) = {got}, not {expected}"
            );
        }
    }
}
