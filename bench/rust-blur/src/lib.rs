//! The blur of `../shared/apps/blur.md` written by hand in plain Rust with rayon, the way
//! Tessera's `manual` schedule computes it: the output is cut into strips of `STRIP` rows that
//! run in parallel; within a strip, blur_x slides down one row at a time into a three-row
//! circular buffer, and each output row is blur_y of the three newest blur_x rows. The inner
//! loops are plain slice loops over u16 that LLVM auto-vectorizes (build with
//! `-C target-cpu=native` to get the machine's widest vectors).
//!
//! Images are row-major `u16` slices: the input `(W + 2) × (H + 2)`, the output `W × H`.

use rayon::prelude::*;

/// Output rows per parallel strip (as the `manual` schedule).
pub const STRIP: usize = 32;

/// `(a + b + c) / 3` in wrapping u16 arithmetic, lane by lane.
fn average3(out: &mut [u16], a: &[u16], b: &[u16], c: &[u16]) {
    let n = out.len();
    let (a, b, c) = (&a[..n], &b[..n], &c[..n]);
    for x in 0..n {
        out[x] = a[x].wrapping_add(b[x]).wrapping_add(c[x]) / 3;
    }
}

/// blur_x of one input row: `row` has `out.len() + 2` elements.
fn blur_x_row(out: &mut [u16], row: &[u16]) {
    average3(out, row, &row[1..], &row[2..]);
}

/// Blurs `input` (`width + 2` columns, `height + 2` rows) into `output` (`width × height`).
///
/// # Panics
/// When the slices' lengths do not match the sizes.
pub fn blur(input: &[u16], output: &mut [u16], width: usize, height: usize) {
    let in_width = width + 2;
    assert_eq!(input.len(), in_width * (height + 2), "input size");
    assert_eq!(output.len(), width * height, "output size");
    if width == 0 {
        return;
    }
    output
        .par_chunks_mut(width * STRIP)
        .enumerate()
        .for_each(|(strip, out)| {
            let first = strip * STRIP;
            let in_row = |y: usize| &input[y * in_width..(y + 1) * in_width];
            // blur_x rows y, y + 1, y + 2 live in slots y % 3, (y + 1) % 3, (y + 2) % 3.
            let mut rows = vec![0u16; 3 * width];
            for y in first..first + 2 {
                blur_x_row(&mut rows[(y % 3) * width..][..width], in_row(y));
            }
            for (yi, out_row) in out.chunks_exact_mut(width).enumerate() {
                let y = first + yi;
                blur_x_row(&mut rows[((y + 2) % 3) * width..][..width], in_row(y + 2));
                let slot = |k: usize| &rows[((y + k) % 3) * width..][..width];
                average3(out_row, slot(0), slot(1), slot(2));
            }
        });
}
