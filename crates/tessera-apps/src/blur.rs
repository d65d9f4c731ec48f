//! blur — the separable 3×3 box blur of the Halide paper (2 stages), in uint16 arithmetic:
//!
//! ```text
//! blur_x(x, y) = (input(x, y) + input(x+1, y) + input(x+2, y)) / 3
//! blur_y(x, y) = (blur_x(x, y) + blur_x(x, y+1) + blur_x(x, y+2)) / 3      (the output)
//! ```
//!
//! A W × H output reads a (W+2) × (H+2) input, so there is no boundary condition. Sums wrap
//! in u16; test inputs use 12-bit values, where they cannot.

use tessera::lang::param::ParamBinding;
use tessera::prelude::*;

use crate::app::{App, AppPipeline};
use crate::synthetic;

pub struct Blur;

/// The algorithm: `blur_x` averages three columns, `blur_y` three rows of `blur_x`.
pub fn pipeline() -> Result<AppPipeline> {
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
    Ok(AppPipeline {
        output: blur_y,
        input,
    })
}

/// The blur in plain Rust loops: a `(W-2) × (H-2)` output at the input's mins, every sum
/// wrapping in u16 as the pipeline's arithmetic does.
pub fn reference(input: &Buffer<u16>) -> Buffer<u16> {
    let (x0, y0) = (input.dim(0).min, input.dim(1).min);
    let (w, h) = ((input.width() - 2).max(0), (input.height() - 2).max(0));
    let at = |x: i64, y: i64| input.get(&[x0 + x, y0 + y]);
    let blur_x = |x: i64, y: i64| {
        at(x, y)
            .wrapping_add(at(x + 1, y))
            .wrapping_add(at(x + 2, y))
            / 3
    };
    let mut out = Buffer::with_mins(&[x0, y0], &[w, h]);
    for y in 0..h {
        for x in 0..w {
            let sum = blur_x(x, y)
                .wrapping_add(blur_x(x, y + 1))
                .wrapping_add(blur_x(x, y + 2));
            out.set(&[x0 + x, y0 + y], sum / 3);
        }
    }
    out
}

impl App for Blur {
    fn name(&self) -> &'static str {
        "blur"
    }
    fn input_description(&self) -> &'static str {
        "u16 grayscale, (W+2) x (H+2)"
    }
    fn input_type(&self) -> Type {
        Type::u16()
    }
    fn input_channels(&self) -> Option<i64> {
        None
    }
    fn default_size(&self) -> (i64, i64) {
        (6400, 4800)
    }
    fn input_extents(&self, width: i64, height: i64) -> Vec<i64> {
        vec![width + 2, height + 2]
    }
    fn output_extents(&self, input_extents: &[i64]) -> Option<Vec<i64>> {
        let out: Vec<i64> = input_extents.iter().map(|e| e - 2).collect();
        out.iter().all(|&e| e > 0).then_some(out)
    }
    fn build(&self) -> Result<AppPipeline> {
        pipeline()
    }
    /// 12-bit values, as the spec's test inputs, so the u16 sums do not wrap.
    fn default_input(&self, width: i64, height: i64) -> AnyBuffer {
        let image = synthetic::image(&self.input_extents(width, height), synthetic::DEFAULT_SEED);
        let extents = image.extents();
        Buffer::<u16>::from_fn(&[0, 0], &extents, |c| {
            (image.get(c) * 4095.0).round() as u16
        })
        .into()
    }
    fn reference(&self, input: &AnyBuffer, _params: &[ParamBinding]) -> Result<AnyBuffer> {
        self.check_input(input)?;
        let input: Buffer<u16> = input.clone().try_into()?;
        Ok(reference(&input).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_by_hand() {
        // Rows 0 1 2 / 3 4 5 / 6 7 8: blur_x is 1, 4, 7 and blur_y (1 + 4 + 7) / 3 = 4.
        let input = Buffer::from_fn(&[0, 0], &[3, 3], |c| (3 * c[1] + c[0]) as u16);
        let out = reference(&input);
        assert_eq!((out.extents(), out.get(&[0, 0])), (vec![1, 1], 4));
    }

    #[test]
    fn default_input_is_twelve_bit_and_sized_for_the_output() {
        let AnyBuffer::U16(input) = Blur.default_input(30, 20) else {
            panic!("blur's input is u16");
        };
        assert_eq!(input.extents(), vec![32, 22]);
        assert!(input.data().iter().all(|&v| v < 4096));
        assert!(input.data().iter().any(|&v| v > 3000) && input.data().iter().any(|&v| v < 1000));
    }
}
