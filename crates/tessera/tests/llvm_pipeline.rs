//! Compiled pipelines end to end: external buffers must be dense in x unless their stride
//! constraint there is changed (a buffer with another stride in dimension 0 is a clear error, from the JIT and the interpreter alike, never wrong
//! results), and compiling the same pipeline again for the same target returns the cached
//! code without running LLVM; calls LLVM rewrites into other libm functions still link.

use tessera::codegen::Target;
use tessera::pipeline::{Inputs, Pipeline};
use tessera::prelude::*;

/// `out(x, y) = input(x, y) * 2 + input(x + 1, y)`, vectorized by `lanes` over x, with the
/// given names (so tests do not share cached code by accident).
fn pipeline(input_name: &str, output_name: &str, lanes: i32) -> (ImageParam, Func) {
    let input = ImageParam::new(Type::i32(), 2, input_name);
    let (x, y) = (Var::new("x"), Var::new("y"));
    let out = Func::new(output_name);
    out.define((x, y), input.at((x, y)) * 2 + input.at((x + 1, y)))
        .expect("a valid definition");
    out.vectorize("x", lanes);
    (input, out)
}

fn reference(input: &Buffer<i32>, w: i64, h: i64) -> Buffer<i32> {
    Buffer::from_fn(&[0, 0], &[w, h], |c| {
        input.get(&[c[0], c[1]]) * 2 + input.get(&[c[0] + 1, c[1]])
    })
}

/// A `w × h` image of i32 whose elements are `stride` apart in x (padding in between).
fn strided_image(w: i64, h: i64, stride: i64) -> Buffer<i32> {
    let dims = vec![
        Dim {
            min: 0,
            extent: w,
            stride,
        },
        Dim {
            min: 0,
            extent: h,
            stride: stride * w,
        },
    ];
    let data = (0..(stride * w * h) as i32).collect();
    Buffer::from_parts(data, dims).expect("the dimensions fit the data")
}

#[test]
fn buffers_must_be_dense_in_x() {
    let (w, h) = (37, 5);
    let (input, out) = pipeline("strided_in", "strided_out", 8);
    let p = Pipeline::new(&out);
    let compiled = p.compile_jit(&Target::host()).expect("compiles");

    // Dense buffers compute the reference.
    let dense = Buffer::from_fn(&[0, 0], &[w + 1, h], |c| (c[0] * 7 - c[1] * 3) as i32);
    let inputs = Inputs::new().image(&input, dense.clone());
    let got = compiled.realize(&inputs, &[0, 0], &[w, h]).expect("runs");
    assert_eq!(got[0], AnyBuffer::from(reference(&dense, w, h)));

    // An input strided in x is refused, by the JIT and by the interpreter.
    let inputs = Inputs::new().image(&input, strided_image(w + 1, h, 2));
    for error in [
        compiled.realize(&inputs, &[0, 0], &[w, h]).map(drop),
        p.realize_interp(&inputs, &[0, 0], &[w, h]).map(drop),
    ] {
        let message = error.expect_err("a strided input is an error").to_string();
        assert!(
            message.contains("input `strided_in` must be dense in dimension 0")
                && message.contains("its stride there is 2"),
            "{message}"
        );
    }

    // So is an output strided in x.
    let inputs = Inputs::new().image(&input, dense);
    let mut outputs = [AnyBuffer::from(strided_image(w, h, 3))];
    let message = compiled
        .realize_into(&inputs, &mut outputs)
        .expect_err("a strided output is an error")
        .to_string();
    assert!(
        message.contains("output `strided_out` must be dense in dimension 0")
            && message.contains("its stride there is 3"),
        "{message}"
    );
}

#[test]
fn compiling_the_same_pipeline_again_hits_the_jit_cache() {
    let (w, h) = (20, 3);
    let (input, out) = pipeline("cached_in", "cached_out", 8);
    let p = Pipeline::new(&out);
    let host = Target::host();
    let first = p.compile_jit(&host).expect("compiles");
    let second = p.compile_jit(&host).expect("compiles");
    assert!(!first.from_cache(), "nothing compiled this pipeline before");
    assert!(second.from_cache(), "the second compile reuses the first");
    // Another target is another key.
    let baseline = p.compile_jit(&Target::x86_64_baseline()).expect("compiles");
    assert!(!baseline.from_cache());
    // The same algorithm with another schedule lowers differently: another key.
    let (input2, out2) = pipeline("cached_in", "cached_out", 4);
    let rescheduled = Pipeline::new(&out2).compile_jit(&host).expect("compiles");
    assert!(!rescheduled.from_cache());

    // Every one of them computes the reference, the cached code included.
    let image = Buffer::from_fn(&[0, 0], &[w + 1, h], |c| (c[0] * c[1] + 1) as i32);
    let want = AnyBuffer::from(reference(&image, w, h));
    for (compiled, input) in [
        (&first, &input),
        (&second, &input),
        (&baseline, &input),
        (&rescheduled, &input2),
    ] {
        let inputs = Inputs::new().image(input, image.clone());
        let got = compiled.realize(&inputs, &[0, 0], &[w, h]).expect("runs");
        assert_eq!(got[0], want);
    }
}

#[test]
fn output_boxes_are_checked_before_anything_is_allocated() {
    let (input, out) = pipeline("box_in", "box_out", 8);
    let compiled = Pipeline::new(&out)
        .compile_jit(&Target::host())
        .expect("compiles");
    let image = Buffer::from_fn(&[0, 0], &[9, 2], |c| c[0] as i32);
    let inputs = Inputs::new().image(&input, image);
    let refusal = |mins: &[i64], extents: &[i64]| {
        compiled
            .realize(&inputs, mins, extents)
            .expect_err("refused")
            .to_string()
    };
    let e = refusal(&[0, 0], &[-3, 2]);
    assert!(
        e.contains("output box_out") && e.contains("extent -3 of dimension 0"),
        "{e}"
    );
    // Refused by the 32-bit check at once, not after zero-filling 2^33 bytes.
    let e = refusal(&[0, 0], &[1 << 31, 1]);
    assert!(e.contains("extent 2147483648 in dimension 0"), "{e}");
    let e = refusal(&[0, 0], &[1 << 20, 1 << 20]);
    assert!(
        e.contains("output box_out") && e.contains("one buffer may hold"),
        "{e}"
    );

    // An empty box is an empty result.
    let empty = compiled.realize(&inputs, &[0, 0], &[0, 0]).expect("empty");
    assert_eq!(
        empty[0].dims().iter().map(|d| d.extent).collect::<Vec<_>>(),
        [0, 0]
    );
}

fn element_dim(extent: i64, stride: i64) -> Dim {
    Dim {
        min: 0,
        extent,
        stride,
    }
}

/// Layouts of a 16 × 4 output whose elements alias: rows all at one place (stride 0), and
/// rows overlapping by half (stride 8).
fn aliasing_layouts() -> [Vec<Dim>; 2] {
    [
        vec![element_dim(16, 1), element_dim(4, 0)],
        vec![element_dim(16, 1), element_dim(4, 8)],
    ]
}

#[test]
fn outputs_whose_elements_alias_are_refused_when_written_in_parallel() {
    let (input, out) = pipeline("alias_in", "alias_out", 8);
    out.parallel("y");
    let compiled = Pipeline::new(&out)
        .compile_jit(&Target::host())
        .expect("compiles");
    let image = Buffer::from_fn(&[0, 0], &[17, 4], |c| c[0] as i32);
    let inputs = Inputs::new().image(&input, image);
    for dims in aliasing_layouts() {
        let data = vec![0i32; 64];
        let mut outputs = [AnyBuffer::from(
            Buffer::from_parts(data, dims).expect("fits"),
        )];
        let e = compiled
            .realize_into(&inputs, &mut outputs)
            .expect_err("aliasing output")
            .to_string();
        assert!(
            e.contains("output alias_out") && e.contains("overlap") && e.contains("parallel"),
            "{e}"
        );
    }
    // Padded rows do not alias.
    let padded = Buffer::from_parts(vec![0i32; 80], vec![element_dim(16, 1), element_dim(4, 20)])
        .expect("fits");
    let mut outputs = [AnyBuffer::from(padded)];
    compiled
        .realize_into(&inputs, &mut outputs)
        .expect("padded rows");
}

/// A serial pipeline writes an aliasing output in loop order, so each element keeps the
/// value of the last row written to it (Halide's behaviour); checked against a plain loop
/// doing the same writes.
#[test]
fn outputs_whose_elements_alias_are_written_in_order_by_serial_code() {
    let (input, out) = pipeline("alias_serial_in", "alias_serial_out", 8);
    let compiled = Pipeline::new(&out)
        .compile_jit(&Target::host())
        .expect("compiles");
    let image = Buffer::from_fn(&[0, 0], &[17, 4], |c| (c[0] + 100 * c[1]) as i32);
    let want_row = reference(&image, 16, 4);
    let inputs = Inputs::new().image(&input, image);
    for dims in aliasing_layouts() {
        let row_stride = dims[1].stride as usize;
        let mut want = vec![-1i32; 64];
        for y in 0..4 {
            for x in 0..16 {
                want[row_stride * y + x] = want_row.get(&[x as i64, y as i64]);
            }
        }
        let mut outputs = [AnyBuffer::from(
            Buffer::from_parts(vec![-1i32; 64], dims).expect("fits"),
        )];
        compiled
            .realize_into(&inputs, &mut outputs)
            .expect("a serial pipeline writes an aliasing output");
        let [output] = outputs;
        let output: Buffer<i32> = output.into_typed().expect("i32");
        assert_eq!(output.data(), &want[..], "layout {:?}", output.dims());
    }
}

#[test]
fn thread_counts_above_the_cap_are_errors_naming_both() {
    const { assert!(tessera::runtime::parallel::MAX_THREADS >= 256) };
    let f = Func::new("threads_cap");
    let x = Var::new("x");
    f.define(x, x * 2).expect("a valid definition");
    let mut compiled = Pipeline::new(&f)
        .compile_jit(&Target::host())
        .expect("compiles");
    let e = compiled
        .set_threads(100_000)
        .expect_err("too many")
        .to_string();
    assert!(
        e.contains("100000 worker threads") && e.contains("at most 1024"),
        "{e}"
    );
}

#[test]
fn powers_of_two_that_llvm_turns_into_exp2_link() {
    // LLVM rewrites pow(2, x) as exp2(x), a libm function the pipeline never named.
    let p64 = Param::<f64>::new("exponent64");
    let p32 = Param::<f32>::new("exponent32");
    let x = Var::new("x");
    let out = Func::new("powers_of_two");
    out.define(
        x,
        pow(Expr::f64(2.0), cast_to::<f64>(x) + p64.expr())
            + cast_to::<f64>(pow(Expr::f32(2.0), p32.expr())),
    )
    .expect("a valid definition");
    let compiled = Pipeline::new(&out)
        .compile_jit(&Target::host())
        .expect("compiles and links");
    let inputs = Inputs::new().param(p64.bind(0.5)).param(p32.bind(-1.5));
    let got = compiled.realize(&inputs, &[0], &[3]).expect("runs");
    let got: Buffer<f64> = got[0].clone().try_into().expect("f64 output");
    for i in 0..3 {
        let want = 2.0f64.powf(i as f64 + 0.5) + f64::from(2.0f32.powf(-1.5));
        assert_eq!(got.get(&[i]), want, "at {i}");
    }
}
