//! Byte gathers from small lookup tables: when interval analysis proves the indices lie in
//! the table, they compile to in-register permutes (`vpermi2b`) on AVX-512 VBMI targets and
//! to byte shuffles (`pshufb`) on AVX2 and SSSE3 ones. Tables of every size up to 256
//! entries, at several vector widths, against the evaluator (and the interpreter, and native
//! code on this machine); the permutes or shuffles appear in the code for each target, and
//! not for a table too big for the registers, nor for a gather of fewer lanes than the
//! shuffles it would take.

mod lower_common;

use lower_common::{check, u8_image, TestInputs};
use tessera::codegen::{emit_llvm_ir, Target};
use tessera::lower::LowerOptions;
use tessera::pipeline::{signature, Pipeline};
use tessera::prelude::*;

const PERMUTE: &str = "llvm.x86.avx512.vpermi2var.qi.512";
const SHUFFLE_AVX2: &str = "llvm.x86.avx2.pshuf.b";
const SHUFFLE_SSSE3: &str = "llvm.x86.ssse3.pshuf.b.128";

/// A Sapphire Rapids target, whatever machine runs the test (only compiled, never run).
fn vbmi_target() -> Target {
    Target::x86_64(
        "sapphirerapids",
        "+avx,+avx2,+avx512f,+avx512bw,+avx512vl,+avx512dq,+avx512vbmi",
    )
}

/// `out(x, y) = lut(index(input(x, y)))`, `lut` a table of `entries` bytes at root, the
/// output vectorized `lanes` wide.
fn lookup(entries: i32, lanes: i32, index: fn(Expr, i32) -> Expr) -> (ImageParam, Func) {
    let input = ImageParam::new(Type::u8(), 2, "input");
    let (i, x, y) = (Var::new("i"), Var::new("x"), Var::new("y"));
    let lut = Func::new("lut");
    lut.define(i, cast_to::<u8>(i * 37 + 11)).unwrap();
    let out = Func::new("out");
    let at = index(cast_to::<i32>(input.at((x, y))), entries);
    out.define((x, y), lut.at(at)).unwrap();
    lut.compute_root();
    out.vectorize(x, lanes);
    (input, out)
}

fn modulo(v: Expr, n: i32) -> Expr {
    v % n
}

fn clamped(v: Expr, n: i32) -> Expr {
    min(v, n - 1)
}

/// A Haswell target: AVX2, no AVX-512 (only compiled, never run).
fn avx2_target() -> Target {
    Target::x86_64("haswell", "+sse2,+ssse3,+sse4.1,+avx,+avx2,+fma")
}

/// A target with SSSE3 and 128-bit vectors only (only compiled, never run).
fn ssse3_target() -> Target {
    Target::x86_64("core2", "+sse2,+ssse3")
}

/// The LLVM IR of `out` for `target`.
fn llvm_ir(out: &Func, target: &Target) -> String {
    let lowered = Pipeline::new(out)
        .lower(&LowerOptions::default())
        .expect("lowers");
    emit_llvm_ir(&lowered.stmt, &signature(&lowered), target, "lookup").expect("compiles")
}

fn uses_permutes(out: &Func) -> bool {
    llvm_ir(out, &vbmi_target()).contains(PERMUTE)
}

/// Whether `out` looks bytes up by shuffles on both the AVX2 and the SSSE3 target (and
/// gathers nothing there).
fn uses_shuffles(out: &Func) -> bool {
    [
        (avx2_target(), SHUFFLE_AVX2),
        (ssse3_target(), SHUFFLE_SSSE3),
    ]
    .iter()
    .all(|(target, shuffle)| {
        let ir = llvm_ir(out, target);
        ir.contains(shuffle) && !ir.contains("llvm.masked.gather")
    })
}

#[test]
fn lookups_in_tables_of_every_size_match_the_evaluator() {
    for entries in [256, 200, 129, 128, 100, 64, 10] {
        for (lanes, index) in [
            (16, modulo as fn(Expr, i32) -> Expr),
            (32, clamped),
            (64, modulo),
            (128, clamped),
        ] {
            let (input, out) = lookup(entries, lanes, index);
            let image = u8_image(&[0, 0], &[131, 3], 0, 255, entries as u64);
            check(
                &out,
                &TestInputs::new().image(&input, image),
                &[0, 0],
                &[128, 3],
            );
            assert!(
                uses_permutes(&out),
                "{entries} entries, {lanes} lanes: no permute"
            );
            assert!(
                uses_shuffles(&out),
                "{entries} entries, {lanes} lanes: no byte shuffle"
            );
        }
    }
}

#[test]
fn tables_too_big_for_registers_stay_gathers() {
    // A table of 512 entries does not fit the registers: the lookup stays a gather.
    let input = ImageParam::new(Type::u8(), 2, "input");
    let (i, x, y) = (Var::new("i"), Var::new("x"), Var::new("y"));
    let lut = Func::new("lut");
    lut.define(i, cast_to::<u8>(i * 3)).unwrap();
    let out = Func::new("out");
    out.define((x, y), lut.at(cast_to::<i32>(input.at((x, y))) * 2))
        .unwrap();
    lut.compute_root();
    out.vectorize(x, 32);
    let image = u8_image(&[0, 0], &[64, 2], 0, 255, 5);
    check(
        &out,
        &TestInputs::new().image(&input, image),
        &[0, 0],
        &[64, 2],
    );
    assert!(!uses_permutes(&out));
    assert!(!llvm_ir(&out, &avx2_target()).contains(SHUFFLE_AVX2));
}

#[test]
fn few_lanes_from_a_large_table_stay_a_gather_on_avx2() {
    // 8 lanes from 256 entries would take 16 shuffles: a lane-by-lane gather is cheaper.
    // 8 lanes from 100 entries take 7 shuffles, and are looked up so.
    for (entries, shuffled) in [(256, false), (100, true)] {
        let (input, out) = lookup(entries, 8, modulo);
        let image = u8_image(&[0, 0], &[64, 2], 0, 255, 7);
        check(
            &out,
            &TestInputs::new().image(&input, image),
            &[0, 0],
            &[64, 2],
        );
        let ir = llvm_ir(&out, &avx2_target());
        assert_eq!(ir.contains(SHUFFLE_AVX2), shuffled, "{entries} entries");
    }
}
