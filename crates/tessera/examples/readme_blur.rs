//! The example of README.md: a 3×3 box blur, defined once and evaluated from its definitions.

use tessera::prelude::*;

fn main() -> Result<()> {
    // The algorithm: pure functions over an infinite integer grid, in u16 arithmetic.
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let blur_x = Func::new("blur_x");
    let blur_y = Func::new("blur_y");
    blur_x.define(
        (x, y),
        (input.at((x, y)) + input.at((x + 1, y)) + input.at((x + 2, y))) / 3,
    )?;
    blur_y.define(
        (x, y),
        (blur_x.at((x, y)) + blur_x.at((x, y + 1)) + blur_x.at((x, y + 2))) / 3,
    )?;

    // Evaluate it on a 66 x 50 input, which gives a 64 x 48 output.
    let image = Buffer::<u16>::from_fn(&[0, 0], &[66, 50], |c| (c[0] * c[1] % 4096) as u16);
    let mut evaluator = Evaluator::new().with_input(&input, image);
    let out: Buffer<u16> = evaluator.realize_as(&blur_y, &[0, 0], &[64, 48])?;
    let sum: u64 = out.data().iter().map(|&v| u64::from(v)).sum();
    println!("sum of the {:?} output: {sum}", out.extents());
    Ok(())
}
