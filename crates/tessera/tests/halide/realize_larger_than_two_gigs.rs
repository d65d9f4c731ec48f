//! Halide's `realize_larger_than_two_gigs.cpp`: `big(x, y, z, w) = 42`, computed at the root
//! over an RDom of `extent`^3 x (`extent` / 2 + 1) points and summed. With large buffers and
//! `extent` = 2^16 its storage needs just past 2^63 elements; without them and `extent` =
//! 256, just past 2^31. Both are refused when the pipeline runs, naming the Func (Tessera
//! keeps allocations inside a pipeline to 2^31 - 1 elements with large buffers too; the
//! product is computed so that it cannot wrap, which 2^16 x 2^16 x 2^16 x 32769 in 64 bits
//! would). Added: an output box or a buffer whose size overflows is an error too, not a
//! panic or a wrapped size.

use tessera::prelude::*;

/// Halide's `grand_total` over a root-computed `big`, sized by the Param `extent`.
fn grand_total(extent: &Param<i32>) -> Func {
    let e = extent.expr();
    let r = RDom::new([
        (Expr::from(0), e.clone()),
        (Expr::from(0), e.clone()),
        (Expr::from(0), e.clone()),
        (Expr::from(0), e / 2 + 1),
    ]);
    let (x, y, z, w) = (Var::new("x"), Var::new("y"), Var::new("z"), Var::new("w"));
    let big = Func::new("big");
    big.define((x, y, z, w), cast_to::<u8>(42)).unwrap();
    big.compute_root();
    let total = Func::new("grand_total");
    total
        .define((), cast_to::<u8>(sum(big.at((r.x(), r.y(), r.z(), r.w())))))
        .unwrap();
    total
}

/// The error a run with `extent` set to `value` fails with, natively for `target` and on the
/// interpreter (the same).
fn run_error(large_buffers: bool, value: i32) -> String {
    let extent = Param::<i32>::new("extent");
    let total = grand_total(&extent);
    let inputs = Inputs::new().param(extent.bind(value));
    let target = Target::host().with_large_buffers(large_buffers);
    let compiled = Pipeline::new(&total).compile_jit(&target).unwrap();
    let native = compiled
        .realize_as::<u8>(&inputs, &[], &[])
        .expect_err("the storage of big is too large")
        .to_string();
    let interp = Pipeline::new(&total)
        .realize_interp(&inputs, &[], &[])
        .expect_err("the storage of big is too large")
        .to_string();
    assert_eq!(native, interp);
    native
}

#[test]
fn storage_past_2_pow_63_with_large_buffers() {
    let message = run_error(true, 1 << 16);
    assert!(
        message.contains("storage of big needs 65536 x 65536 x 65536 x 32769 elements"),
        "{message}"
    );
}

#[test]
fn storage_past_2_pow_31_without_large_buffers() {
    let message = run_error(false, 1 << 8);
    assert!(
        message.contains("storage of big needs 256 x 256 x 256 x 129 elements"),
        "{message}"
    );
}

#[test]
fn a_small_extent_sums_every_point() {
    // The same pipeline where its storage fits: 42 * 8 * 8 * 8 * 5 points, in u8.
    let extent = Param::<i32>::new("extent");
    let total = grand_total(&extent);
    let inputs = Inputs::new().param(extent.bind(8));
    let mut expected = 0u8;
    for _ in 0..8 * 8 * 8 * 5 {
        expected = expected.wrapping_add(42);
    }
    let compiled = Pipeline::new(&total).compile_jit(&Target::host()).unwrap();
    let out: Buffer<u8> = compiled.realize_as(&inputs, &[], &[]).unwrap();
    assert_eq!(out.get(&[]), expected);
}

#[test]
fn an_output_box_whose_size_overflows_is_an_error() {
    let (x, y, z, w) = (Var::new("x"), Var::new("y"), Var::new("z"), Var::new("w"));
    let f = Func::new("f");
    f.define((x, y, z, w), cast_to::<u8>(x + y + z + w))
        .unwrap();
    // 2^64 elements: the product overflows 64 bits.
    let sizes = [1 << 16; 4];
    let message = f.realize::<u8>(&sizes).unwrap_err().to_string();
    assert!(message.contains("more than 2^64 bytes"), "{message}");
    let compiled = Pipeline::new(&f).compile_jit(&Target::host()).unwrap();
    let message = compiled
        .realize(&Inputs::new(), &[0; 4], &sizes)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("output f") && message.contains("more than 2^64 bytes"),
        "{message}"
    );
    // A coordinate past 32 bits.
    let message = f
        .realize::<u8>(&[1 << 31, 1, 1, 1])
        .unwrap_err()
        .to_string();
    assert!(message.contains("32 bits"), "{message}");
}

#[test]
fn a_buffer_whose_size_overflows_is_an_error() {
    let e = Buffer::<u16>::try_with_mins(&[0; 3], &[1 << 30, 1 << 30, 1 << 30]).unwrap_err();
    assert!(e.to_string().contains("more than 2^64 bytes"), "{e}");
    let e = Buffer::<u8>::try_with_mins(&[0; 2], &[1 << 21, 1 << 20]).unwrap_err();
    assert!(e.to_string().contains("2199023255552 bytes"), "{e}");
    let dims = vec![
        Dim {
            min: 0,
            extent: 1 << 40,
            stride: 1 << 40,
        };
        2
    ];
    let e = Buffer::<u8>::from_parts(vec![0; 16], dims).unwrap_err();
    assert!(e.to_string().contains("past 2^63"), "{e}");
}
