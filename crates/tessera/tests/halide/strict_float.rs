//! Halide's `test/correctness/strict_float.cpp`: the sum of squares of a million random
//! floats, in f64 and f32, serially and in 4 or 8 interleaved partial sums (a vectorized
//! inner Func), and by Kahan summation (a Tuple of the sum and its compensation), on random,
//! sorted ascending and sorted descending data, each also block-transposed by 4. Halide asserts,
//! under `strict_float`, that Kahan (serial and vectorized) is at least as close to the f64
//! sum as the plain f32 sum, and that the vectorized sums are nonzero.
//!
//! Tessera has no `strict_float` and no fast-math: it never reassociates or contracts float
//! arithmetic, so every case is checked as Halide's strict ones, and each sum is also
//! compared bit for bit with the same sum in plain Rust. The partial sums are computed at
//! root where Halide computes them at `Var::outermost()` (Tessera has none; for a
//! zero-dimensional consumer the two are the same). 4096 values instead of 10⁶; Halide's
//! hand-written SSE/AVX comparison loops (printed, not checked) are left out.

use crate::lower_common::{check, seeded_rng, TestInputs};
use rand::Rng;
use tessera::prelude::*;

const N: usize = 4096;

fn term(input: &ImageParam, index: Expr) -> Expr {
    input.at(index.clone()) * input.at(index)
}

/// The sum of squares in `accum` (`lanes` interleaved partial sums if nonzero), as f32.
fn simple_sum(input: &ImageParam, accum: Type, lanes: i32) -> Func {
    let total = Func::new("total");
    total.define((), cast(accum, 0)).unwrap();
    if lanes == 0 {
        let r = RDom::named("r", [(Expr::from(0), input.width())]);
        total
            .update((), total.at(()) + cast(accum, term(input, r.x().expr())))
            .unwrap();
    } else {
        let i = Var::new("i");
        let inner = Func::new("total_inner");
        let r_outer = RDom::named("r_outer", [(Expr::from(0), input.width() / lanes)]);
        let r_lanes = RDom::named("r_lanes", [(0, lanes)]);
        inner.define(i, cast(accum, 0)).unwrap();
        inner
            .update(
                i,
                inner.at(i) + cast(accum, term(input, r_outer.x() * lanes + i)),
            )
            .unwrap();
        total
            .update((), total.at(()) + inner.at(r_lanes.x()))
            .unwrap();
        inner.compute_root().vectorize_loop(i);
        inner.update_stage(0).vectorize_loop(i);
    }
    let out = Func::new("out");
    out.define((), cast_to::<f32>(total.at(()))).unwrap();
    out
}

/// One Kahan step of `(sum, compensation)` adding `t`.
fn kahan_step(k: &Func, at: Vec<Expr>, t: Expr) -> Tuple {
    let (sum, comp) = (k.value_at(at.clone(), 0), k.value_at(at, 1));
    let y = t - comp;
    Tuple(vec![
        sum.clone() + y.clone(),
        ((sum.clone() + y.clone()) - sum) - y,
    ])
}

fn kahan_sum(input: &ImageParam, lanes: i32) -> Func {
    let k = Func::new("k_sum");
    k.define((), Tuple(vec![Expr::from(0.0f32), Expr::from(0.0f32)]))
        .unwrap();
    if lanes == 0 {
        let r = RDom::named("r", [(Expr::from(0), input.width())]);
        k.update((), kahan_step(&k, vec![], term(input, r.x().expr())))
            .unwrap();
    } else {
        let i = Var::new("i");
        let inner = Func::new("k_sum_inner");
        let r_outer = RDom::named("r_outer", [(Expr::from(0), input.width() / lanes)]);
        let r_lanes = RDom::named("r_lanes", [(0, lanes)]);
        inner
            .define(i, Tuple(vec![Expr::from(0.0f32), Expr::from(0.0f32)]))
            .unwrap();
        inner
            .update(
                i,
                kahan_step(&inner, vec![i.expr()], term(input, r_outer.x() * lanes + i)),
            )
            .unwrap();
        k.update((), kahan_step(&k, vec![], inner.value_at(r_lanes.x(), 0)))
            .unwrap();
        inner.compute_root().vectorize_loop(i);
        inner.update_stage(0).vectorize_loop(i);
    }
    let out = Func::new("out");
    out.define((), k.value_at((), 0)).unwrap();
    out
}

fn realize(out: &Func, input: &ImageParam, data: &[f32]) -> f32 {
    let buffer = Buffer::<f32>::from_fn(&[0], &[N as i64], |p| data[p[0] as usize]);
    let run = check(out, &TestInputs::new().image(input, buffer), &[], &[]);
    let AnyBuffer::F32(b) = &run.realization.buffers[0] else {
        panic!("the sum is f32");
    };
    b.get(&[])
}

/// The partial sums of `lanes` interleaved lanes (one lane: the serial sum), then their sum.
fn reference_sum<A: Copy + std::ops::Add<Output = A>>(
    data: &[f32],
    lanes: usize,
    zero: A,
    widen: impl Fn(f32) -> A,
) -> A {
    let mut partial = vec![zero; lanes];
    for o in 0..data.len() / lanes {
        for (j, p) in partial.iter_mut().enumerate() {
            let v = data[o * lanes + j];
            *p = *p + widen(v * v);
        }
    }
    partial.into_iter().fold(zero, |a, p| a + p)
}

fn kahan(values: impl Iterator<Item = f32>) -> (f32, f32) {
    values.fold((0.0f32, 0.0f32), |(sum, comp), t| {
        let y = t - comp;
        (sum + y, ((sum + y) - sum) - y)
    })
}

fn reference_kahan(data: &[f32], lanes: usize) -> f32 {
    if lanes == 1 {
        return kahan(data.iter().map(|v| v * v)).0;
    }
    let partial: Vec<f32> = (0..lanes)
        .map(|j| {
            kahan((0..data.len() / lanes).map(|o| data[o * lanes + j] * data[o * lanes + j])).0
        })
        .collect();
    kahan(partial.into_iter()).0
}

fn check_data(data: &[f32]) {
    let input = ImageParam::new(Type::f32(), 1, "in");
    let mut results = Vec::new();
    for (accum, lanes) in [(Type::f64(), 0), (Type::f64(), 4), (Type::f64(), 8)]
        .into_iter()
        .chain([(Type::f32(), 0), (Type::f32(), 4), (Type::f32(), 8)])
    {
        let got = realize(&simple_sum(&input, accum, lanes), &input, data);
        let l = (lanes as usize).max(1);
        let want = if accum == Type::f64() {
            reference_sum(data, l, 0.0f64, f64::from) as f32
        } else {
            reference_sum(data, l, 0.0f32, |v| v)
        };
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "{accum} sum over {lanes} lanes: {got} vs {want}"
        );
        results.push(got);
    }
    let (double, float) = (results[0], results[3]);
    assert!(results.iter().all(|&v| v != 0.0));
    for lanes in [0, 4, 8] {
        let got = realize(&kahan_sum(&input, lanes), &input, data);
        let want = reference_kahan(data, (lanes as usize).max(1));
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "Kahan over {lanes} lanes: {got} vs {want}"
        );
        assert!(
            (double - got).abs() <= (double - float).abs(),
            "Kahan over {lanes} lanes is {got}, further from {double} than the f32 sum {float}"
        );
    }
}

/// `data` block-transposed by 4, as Halide's test does.
fn transposed(data: &[f32]) -> Vec<f32> {
    let block = data.len() / 4;
    let mut out = vec![0.0; data.len()];
    for i in 0..block {
        for j in 0..4 {
            out[i * 4 + j] = data[j * block + i];
        }
    }
    out
}

fn random_data() -> Vec<f32> {
    let mut rng = seeded_rng("strict_float", 21);
    (0..N).map(|_| rng.random::<f32>()).collect()
}

#[test]
fn random_data_summed_every_way() {
    let data = random_data();
    check_data(&data);
    check_data(&transposed(&data));
}

#[test]
fn ascending_data_summed_every_way() {
    let mut data = random_data();
    data.sort_by(f32::total_cmp);
    check_data(&data);
    check_data(&transposed(&data));
}

#[test]
fn descending_data_summed_every_way() {
    let mut data = random_data();
    data.sort_by(|a, b| b.total_cmp(a));
    check_data(&data);
    check_data(&transposed(&data));
}
