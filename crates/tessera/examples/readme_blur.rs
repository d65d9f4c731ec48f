//! The example of README.md: a 3×3 box blur, defined once, scheduled, compiled to native code
//! and checked against a plain Rust loop. `cargo test` runs it as a doctest of README.md.

use tessera::prelude::*;

fn main() -> Result<()> {
    // The algorithm: pure functions over an infinite integer grid, in u16 arithmetic.
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (blur_x, blur_y) = (Func::new("blur_x"), Func::new("blur_y"));
    blur_x.define(
        (x, y),
        (input.at((x, y)) + input.at((x + 1, y)) + input.at((x + 2, y))) / 3,
    )?;
    blur_y.define(
        (x, y),
        (blur_x.at((x, y)) + blur_x.at((x, y + 1)) + blur_x.at((x, y + 2))) / 3,
    )?;

    // The schedule: strips of 32 rows in parallel, blur_x computed per row of a strip and
    // kept in a sliding window, both vectorized 16 wide.
    blur_y
        .split(y, "yo", "yi", 32)
        .parallel("yo")
        .vectorize(x, 16);
    blur_x
        .store_at(&blur_y, "yo")
        .compute_at(&blur_y, "yi")
        .vectorize(x, 16);

    // Compile for this machine and run on a 642 x 482 input, giving a 640 x 480 output.
    let image = Buffer::<u16>::from_fn(&[0, 0], &[642, 482], |c| (c[0] * c[1] % 4096) as u16);
    let compiled = Pipeline::new(&blur_y).compile_jit(&Target::host())?;
    let inputs = Inputs::new().image(&input, image.clone());
    let out = compiled.realize_as::<u16>(&inputs, &[0, 0], &[640, 480])?;

    // The same blur as a plain loop gives the same output.
    let mean_of_row = |x: i64, y: i64| (0..3).map(|d| image.get(&[x + d, y])).sum::<u16>() / 3;
    for y in 0..480 {
        for x in 0..640 {
            let expected = (0..3).map(|d| mean_of_row(x, y + d)).sum::<u16>() / 3;
            assert_eq!(out.get(&[x, y]), expected, "at ({x}, {y})");
        }
    }
    println!(
        "compiled in {:.0} ms; output {:?} equals the plain loop's",
        compiled.compile_ms(),
        out.extents()
    );
    Ok(())
}
