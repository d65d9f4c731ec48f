//! `fuse`: fused loops compute exactly their dimensions' regions, alone and with a producer
//! computed at the fused loop (tiles fused into one parallel loop).

mod lower_common;

use lower_common::{check, u16_image, TestInputs};
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
