//! Benchmark of the LLVM backend on a 3×3 box blur of a 2048×2048 u16 image (Halide's blur:
//! a horizontal then a vertical 3-tap average, computed per strip of 32 rows into a scratch
//! buffer, strips in parallel, 32-lane vectors), written in Tessera's language and compiled
//! through the safe `Pipeline` API, against a plain Rust loop doing the same arithmetic. Run
//! with `cargo run --release --example llvm_blur`.

use std::time::Instant;

use tessera::prelude::*;

const W: i64 = 2048;
const H: i64 = 2048;
const STRIP: i64 = 32;
const LANES: i32 = 32;

fn reference(input: &Buffer<u16>, output: &mut Buffer<u16>) {
    let (w, h) = (W as usize, H as usize);
    let stride = input.dim(1).stride as usize;
    let src = input.data();
    let dst = output.data_mut();
    let mut bx = vec![0u16; w * (STRIP as usize + 2)];
    for y0 in (0..h).step_by(STRIP as usize) {
        for y in 0..STRIP as usize + 2 {
            let row = &src[(y0 + y) * stride..];
            for x in 0..w {
                bx[y * w + x] = row[x].wrapping_add(row[x + 1]).wrapping_add(row[x + 2]) / 3;
            }
        }
        for y in 0..STRIP as usize {
            for x in 0..w {
                let s = bx[y * w + x]
                    .wrapping_add(bx[(y + 1) * w + x])
                    .wrapping_add(bx[(y + 2) * w + x]);
                dst[(y0 + y) * w + x] = s / 3;
            }
        }
    }
}

fn best_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1000.0
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() -> Result<()> {
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
    blur_y
        .split(y, "strip", "yi", STRIP as i32)
        .parallel("strip")
        .vectorize(x, LANES);
    blur_x.compute_at(&blur_y, "strip").vectorize(x, LANES);

    let image = Buffer::<u16>::from_fn(&[0, 0], &[W + 2, H + 2], |c| {
        ((c[0] * 37 + c[1] * 101) % 20000) as u16
    });
    let target = Target::host();
    let pipeline = Pipeline::new(&blur_y);
    let first = pipeline.compile_jit(&target)?;
    let mut compiled = pipeline.compile_jit(&target)?;
    println!(
        "target {target}; compile {:.1} ms; again {:.3} ms (from the JIT cache: {})",
        first.compile_ms(),
        compiled.compile_ms(),
        compiled.from_cache()
    );

    let inputs = Inputs::new().image(&input, image.clone());
    let mut out = vec![AnyBuffer::from(Buffer::<u16>::new(&[W, H]))];
    let mut expected = Buffer::<u16>::new(&[W, H]);
    reference(&image, &mut expected);
    compiled.realize_into(&inputs, &mut out)?;
    assert_eq!(
        out[0],
        AnyBuffer::from(expected.clone()),
        "the JIT and the reference differ"
    );

    for threads in [1, 2] {
        compiled.set_threads(threads)?;
        let ms = best_ms(20, || {
            compiled.realize_into(&inputs, &mut out).expect("runs")
        });
        println!("JIT, {threads} thread(s): {ms:.2} ms");
    }
    let ms = best_ms(10, || reference(&image, &mut expected));
    println!("plain Rust loop, 1 thread: {ms:.2} ms");
    Ok(())
}
