//! `Func::store_nontemporal`: an output's aligned whole-vector stores become non-temporal
//! stores (`vmovnt*`), the others stay normal, and the values are those of plain Rust loops
//! whatever the alignment of the rows, the vector tails and the threads writing them. Only the
//! output may be written so.

use tessera::codegen::aot::emit_assembly;
use tessera::codegen::Target;
use tessera::lang::schedule::TailStrategy;
use tessera::lower::LowerOptions;
use tessera::pipeline::{signature, Inputs, Pipeline};
use tessera::prelude::*;

/// `out(x, y) = input(x, y) * 3 + input(x + 1, y)` over f32, in parallel strips of 4 rows,
/// vectorized by 16 (a 64-byte vector), written non-temporally when `nontemporal`.
fn pipeline(name: &str, nontemporal: bool) -> (ImageParam, Func) {
    let input = ImageParam::new(Type::f32(), 2, &format!("{name}_in"));
    let (x, y) = (Var::new("x"), Var::new("y"));
    let out = Func::new(name);
    out.define((x, y), input.at((x, y)) * 3.0f32 + input.at((x + 1, y)))
        .expect("a valid definition");
    out.split_with_tail("y", "yo", "yi", 4, TailStrategy::GuardWithIf)
        .parallel("yo")
        .vectorize("x", 16);
    if nontemporal {
        out.store_nontemporal();
    }
    (input, out)
}

#[test]
fn nontemporal_outputs_compute_what_plain_loops_compute_at_any_alignment() {
    let (input, out) = pipeline("nt_values", true);
    let compiled = Pipeline::new(&out)
        .compile_jit(&Target::host())
        .expect("compiles");
    // Widths that keep every vector aligned (64, 128), and ones where rows start off the
    // alignment and the last vector of a row shifts inwards (37, 100, 16 + 3), with origins
    // off the alignment too; 9 and 1 rows leave partial strips.
    for (x0, y0, w, h) in [
        (0, 0, 64, 9),
        (0, 0, 128, 1),
        (0, 0, 37, 9),
        (5, -3, 100, 13),
        (-7, 2, 19, 6),
    ] {
        let image = Buffer::from_fn(&[x0, y0], &[w + 1, h], |c| {
            ((c[0] * 7 + c[1] * 13) % 29) as f32 * 0.5
        });
        let inputs = Inputs::new().image(&input, image.clone());
        let got = compiled.realize(&inputs, &[x0, y0], &[w, h]).expect("runs");
        let want = Buffer::from_fn(&[x0, y0], &[w, h], |c| {
            image.get(&[c[0], c[1]]) * 3.0 + image.get(&[c[0] + 1, c[1]])
        });
        assert_eq!(got[0], AnyBuffer::from(want), "{w} x {h} at ({x0}, {y0})");
    }
}

/// The assembly of the pipeline for an AVX-512 CPU.
fn assembly(name: &str, nontemporal: bool) -> String {
    let (_, out) = pipeline(name, nontemporal);
    let lowered = Pipeline::new(&out)
        .lower(&LowerOptions::default())
        .expect("lowers");
    let target = Target::x86_64("skylake-avx512", "+avx,+avx2,+fma,+avx512f,+avx512bw");
    emit_assembly(&lowered.stmt, &signature(&lowered), &target, name).expect("compiles")
}

#[test]
fn only_nontemporal_outputs_bypass_the_caches_and_they_fence() {
    let streamed = assembly("nt_asm", true);
    assert!(streamed.contains("vmovntps"), "{streamed}");
    assert!(streamed.contains("sfence"), "{streamed}");
    // The misaligned stores of the same output stay normal stores.
    assert!(streamed.contains("vmovups"), "{streamed}");
    let plain = assembly("plain_asm", false);
    assert!(
        !plain.contains("vmovnt") && !plain.contains("sfence"),
        "{plain}"
    );
}

#[test]
fn only_the_output_can_be_written_nontemporally() {
    let input = ImageParam::new(Type::f32(), 2, "nt_error_in");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let inner = Func::new("nt_inner");
    inner
        .define((x, y), input.at((x, y)) * 2.0f32)
        .expect("a valid definition");
    let out = Func::new("nt_outer");
    out.define((x, y), inner.at((x, y)) + 1.0f32)
        .expect("a valid definition");
    inner.compute_root().store_nontemporal();
    let message = Pipeline::new(&out)
        .compile_jit(&Target::host())
        .expect_err("an intermediate Func cannot bypass the caches")
        .to_string();
    assert!(
        message.contains("nt_inner.store_nontemporal()") && message.contains("nt_outer"),
        "{message}"
    );
}
