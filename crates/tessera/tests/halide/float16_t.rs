//! Halide's `test/correctness/float16_t.cpp`, its float16 halves: f16 arithmetic in a pipeline
//! against `half::f16` arithmetic on the host, `sqrt` and `abs` of f16 vectorized by 16, f16
//! scalar Params, `lerp` of f16 Params, narrowing conversions rounding ties to even, and
//! `trunc`/`round`/`ceil`/`floor` of f16 against f32; Halide's GPU case (an f16 image times an
//! f16 Param) runs here on the CPU. Each runs on the evaluator, the interpreter and native
//! code (`check`). The bfloat16 halves are not ported: Tessera has no bfloat16.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

fn values<T: Scalar>(run: &crate::lower_common::Checked, index: usize) -> Buffer<T>
where
    Buffer<T>: TryFrom<AnyBuffer, Error = Error>,
{
    run.realization.buffers[index].clone().try_into().unwrap()
}

/// `-0.5 + x / 128` in f16, as Halide's `in1`.
fn ramp_value(x: Var) -> Expr {
    cast_to::<f16>(Expr::from(-0.5f32)) + cast_to::<f16>(x) / 128
}

#[test]
fn pipeline_arithmetic_matches_host_arithmetic() {
    let x = Var::new("x");
    let in1 = Func::new("in1");
    in1.define(x, ramp_value(x)).unwrap();
    let run = check(&in1, &TestInputs::new(), &[0], &[128]);
    let out = values::<f16>(&run, 0);
    for i in 0..128 {
        let correct = f16::from_f32(-0.5) + f16::from_f32(i as f32) / f16::from_f32(128.0);
        assert_eq!(out.get(&[i]).to_bits(), correct.to_bits(), "in1({i})");
    }
}

#[test]
fn sqrt_and_abs_of_f16_vectorized() {
    let image = Buffer::from_fn(&[0], &[128], |c| {
        f16::from_f32(-0.5) + f16::from_f32(c[0] as f32) / f16::from_f32(128.0)
    });
    let input = ImageParam::new(Type::f16(), 1, "in1");
    let x = Var::new("x");
    let wrap1 = Func::new("wrap1");
    wrap1.define(x, input.at(x)).unwrap();
    let f = Func::new("f");
    // sqrt(|4a|) and 2 sqrt(|a|) are the same f16: scaling by 4 and by 2 is exact.
    f.define(
        x,
        abs(sqrt(abs(wrap1.at(x) * 4.0f32)) - sqrt(abs(wrap1.at(x))) * 2.0f32),
    )
    .unwrap();
    f.compute_root().vectorize(x, 16);
    wrap1.compute_at(&f, x).vectorize_loop(x);
    let r = RDom::new([(0, 128)]);
    let g = Func::new("g");
    g.define((), maximum(cast_to::<f64>(f.at(r.x())))).unwrap();
    let inputs = TestInputs::new().image(&input, image.clone());
    let run = check(&g, &inputs, &[], &[]);
    assert_eq!(values::<f64>(&run, 0).get(&[]), 0.0);
    // f itself, step by step in f16 on the host.
    let run = check(&f, &inputs, &[0], &[128]);
    let out = values::<f16>(&run, 0);
    for i in 0..128 {
        let a = image.get(&[i]).to_f32();
        let sqrt16 = |v: f32| f16::from_f32(f16::from_f32(v).to_f32().abs().sqrt());
        let want = f16::from_f32(
            (sqrt16(a * 4.0).to_f32() - f16::from_f32(sqrt16(a).to_f32() * 2.0).to_f32()).abs(),
        );
        assert_eq!(out.get(&[i]).to_bits(), want.to_bits(), "f({i})");
    }
}

#[test]
fn f16_scalar_params() {
    let (a, b) = (Param::<f16>::new("a"), Param::<f16>::new("b"));
    let f = Func::new("f");
    f.define((), cast_to::<f32>(&a) + cast_to::<f32>(&b))
        .unwrap();
    let inputs = TestInputs::new()
        .param(a.bind(f16::from_f32(1.5)))
        .param(b.bind(f16::from_f32(2.75)));
    let run = check(&f, &inputs, &[], &[]);
    assert_eq!(values::<f32>(&run, 0).get(&[]), 4.25);
}

#[test]
fn lerp_of_f16_params() {
    let (a, b, c) = (
        Param::<f16>::new("a"),
        Param::<f16>::new("b"),
        Param::<f16>::new("c"),
    );
    let f = Func::new("f");
    f.define((), lerp(Expr::from(&a), Expr::from(&b), Expr::from(&c)))
        .unwrap();
    // The weights 0 and 1 give the ends exactly (Halide checks 0).
    for (weight, want) in [(0.0, 24.0625f32), (1.0, 30.1875)] {
        let inputs = TestInputs::new()
            .param(a.bind(f16::from_f32(24.0625)))
            .param(b.bind(f16::from_f32(30.1875)))
            .param(c.bind(f16::from_f32(weight)));
        let run = check(&f, &inputs, &[], &[]);
        assert_eq!(
            values::<f16>(&run, 0).get(&[]).to_f32(),
            want,
            "weight {weight}"
        );
    }
}

/// Eight consecutive f16s from 37.2789, and the midpoints between neighbours.
fn neighbours_and_midpoints() -> (Vec<f16>, Vec<f64>) {
    let start = f16::from_f32(37.2789).to_bits();
    let neighbours: Vec<f16> = (0..9).map(|i| f16::from_bits(start + i)).collect();
    let midpoints = neighbours
        .windows(2)
        .map(|w| (w[0].to_f64() + w[1].to_f64()) / 2.0)
        .collect();
    (neighbours, midpoints)
}

#[test]
fn narrowing_conversions_round_ties_to_even() {
    let (neighbours, midpoints) = neighbours_and_midpoints();
    // The midpoints are exact in f32 and f64: each is a tie, in either source type.
    for source in [Type::f32(), Type::f64()] {
        let image: AnyBuffer = if source == Type::f32() {
            Buffer::from_fn(&[0], &[8], |c| midpoints[c[0] as usize] as f32).into()
        } else {
            Buffer::from_fn(&[0], &[8], |c| midpoints[c[0] as usize]).into()
        };
        let input = ImageParam::new(source, 1, "midpoints");
        let x = Var::new("x");
        let narrowed = Func::new("narrowed");
        narrowed.define(x, cast_to::<f16>(input.at(x))).unwrap();
        narrowed.vectorize(x, 8);
        let run = check(
            &narrowed,
            &TestInputs::new().image(&input, image),
            &[0],
            &[8],
        );
        let out = values::<f16>(&run, 0);
        for i in 0..8 {
            let (a, b, ab) = (neighbours[i], neighbours[i + 1], out.get(&[i as i64]));
            assert!(a <= ab && ab <= b, "{source}: misordered {a} {ab} {b}");
            let even = if a.to_bits() % 2 == 0 { a } else { b };
            assert_eq!(
                ab.to_bits(),
                even.to_bits(),
                "{source}: the tie between {a} and {b}"
            );
        }
    }
}

#[test]
fn rounding_intrinsics_of_f16_match_f32() {
    let x = Var::new("x");
    let noise = Func::new("noise");
    noise.define(x, (random_int(&[]) % 256) * 0.1f32).unwrap();
    noise.compute_root();
    let noise_values = values::<f32>(&check(&noise, &TestInputs::new(), &[0], &[1024]), 0);
    // Each op: its name, the pipeline's function and plain Rust's.
    type Op = (&'static str, fn(Expr) -> Expr, fn(f32) -> f32);
    let ops: [Op; 4] = [
        ("trunc", |e| trunc(e), f32::trunc),
        ("round", |e| round(e), f32::round_ties_even),
        ("ceil", |e| ceil(e), f32::ceil),
        ("floor", |e| floor(e), f32::floor),
    ];
    for (name, op, reference) in ops {
        let f32_func = Func::new(&format!("{name}_f32"));
        f32_func.define(x, op(noise.at(x))).unwrap();
        let f16_func = Func::new(&format!("{name}_f16"));
        f16_func.define(x, op(cast_to::<f16>(noise.at(x)))).unwrap();
        let mut outputs = Vec::new();
        for f in [&f32_func, &f16_func] {
            f.compute_root().vectorize(x, 16);
            outputs.push(check(f, &TestInputs::new(), &[0], &[1024]));
        }
        let (wide, narrow) = (values::<f32>(&outputs[0], 0), values::<f16>(&outputs[1], 0));
        for i in 0..1024 {
            let n = noise_values.get(&[i]);
            assert_eq!(wide.get(&[i]), reference(n), "{name} of f32 {n}");
            let n16 = f16::from_f32(n).to_f32();
            assert_eq!(
                narrow.get(&[i]).to_f32(),
                reference(n16),
                "{name} of f16 {n16}"
            );
            // Halide's check: the f16 result is the f32 one.
            assert_eq!(narrow.get(&[i]).to_f32(), wide.get(&[i]), "{name} of {n}");
        }
    }
}

/// Halide's GPU case, an f16 image times an f16 Param times an integer, on the CPU.
#[test]
fn f16_image_times_f16_param() {
    let input = ImageParam::new(Type::f16(), 2, "input");
    let mul = Param::<f16>::new("mul");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let output = Func::new("output");
    output
        .define((x, y), x * y * (input.at((x, y)) * Expr::from(&mul)))
        .unwrap();
    output.vectorize(x, 8);
    let inputs = TestInputs::new()
        .image(
            &input,
            Buffer::from_fn(&[0, 0], &[8, 8], |_| f16::from_f32(0.25)),
        )
        .param(mul.bind(f16::from_f32(2.0)));
    let run = check(&output, &inputs, &[0, 0], &[8, 8]);
    let out = values::<f16>(&run, 0);
    for (x, y) in (0..8).flat_map(|y| (0..8).map(move |x| (x, y))) {
        let correct = f16::from_f32((x * y) as f32 / 2.0);
        assert_eq!(out.get(&[x, y]).to_bits(), correct.to_bits(), "({x}, {y})");
    }
}
