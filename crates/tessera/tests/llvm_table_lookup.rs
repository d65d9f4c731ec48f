//! Byte gathers from small lookup tables: on AVX-512 VBMI targets they compile to in-register
//! permutes (`vpermi2b`) when interval analysis proves the indices lie in the table. Tables
//! of every size up to 256 entries, at several vector widths, against the evaluator (and the
//! interpreter, and native code on this machine); the permutes appear in the code for a VBMI
//! target, and not for a table too big for the registers.

mod lower_common;

use lower_common::{check, u8_image, TestInputs};
use tessera::codegen::{emit_llvm_ir, Target};
use tessera::lower::LowerOptions;
use tessera::pipeline::{signature, Pipeline};
use tessera::prelude::*;

const PERMUTE: &str = "llvm.x86.avx512.vpermi2var.qi.512";

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

fn uses_permutes(out: &Func) -> bool {
    let lowered = Pipeline::new(out)
        .lower(&LowerOptions::default())
        .expect("lowers");
    let ir = emit_llvm_ir(
        &lowered.stmt,
        &signature(&lowered),
        &vbmi_target(),
        "lookup",
    )
    .expect("compiles");
    ir.contains(PERMUTE)
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
}
