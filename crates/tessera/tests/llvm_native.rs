//! What the backend emits: assembly of a 16-lane f32 loop uses the target's full vector
//! registers (zmm with AVX-512, ymm with AVX2) with no scalarized arithmetic; and an object
//! file with its generated C header links into a C program (which supplies the runtime
//! functions) and computes what the interpreter computes.

mod llvm_common;

use std::process::Command;

use llvm_common::*;
use tessera::codegen::{c_header, emit_assembly, emit_object, Target};
use tessera::ir::{Expr, ExprKind, Stmt, Type};
use tessera::lang::buffer::Buffer;

/// `out[x] = in[x] * k + in[x + 1]` over 16-lane vectors.
fn saxpy_case() -> Case {
    let f16 = Type::f32().with_lanes(16);
    let x16 = mul(var("x"), int(16));
    let k = Expr::new(Type::f32(), ExprKind::Param(sym("k"))).broadcast_to(16);
    let value = add(
        mul(load(f16, "in", Expr::ramp(x16.clone(), int(1), 16)), k),
        load(f16, "in", Expr::ramp(add(x16.clone(), int(1)), int(1), 16)),
    );
    let n = Expr::new(Type::i32(), ExprKind::Param(sym("out.extent.0")));
    let s = serial(
        "x",
        int(0),
        tessera::ir::Expr::binary(tessera::ir::BinaryOp::Div, n, int(16)),
        store("out", Expr::ramp(x16, int(1), 16), value),
    );
    Case::new(s)
        .image("in", Buffer::<f32>::from_fn(&[0], &[257], |c| c[0] as f32))
        .output("out", Buffer::<f32>::new(&[256]))
        .param("k", Type::f32(), tessera::eval::value::Value::F32(2.0))
}

/// The instructions of the assembly listing (no directives, labels or comments).
fn instructions(asm: &str) -> Vec<&str> {
    asm.lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.starts_with('.') && !l.starts_with('#') && !l.ends_with(':')
        })
        .collect()
}

fn assert_vectorized(target: &Target, register: &str) {
    let case = saxpy_case();
    let asm = emit_assembly(&case.stmt, &case.signature(), target, "saxpy").expect("compiles");
    let code = instructions(&asm);
    let uses = |mnemonic: &str| {
        code.iter()
            .any(|l| l.starts_with(mnemonic) && l.contains(&format!("%{register}")))
    };
    assert!(
        uses("vmulps") && uses("vaddps"),
        "no {register} arithmetic in:\n{asm}"
    );
    assert!(uses("vmovups"), "no {register} loads or stores in:\n{asm}");
    let scalar = code
        .iter()
        .filter(|l| l.starts_with("vmulss") || l.starts_with("vaddss"))
        .count();
    assert_eq!(scalar, 0, "scalarized arithmetic in:\n{asm}");
    if register == "ymm" {
        assert!(!asm.contains("%zmm"), "zmm on a 256-bit target:\n{asm}");
    }
}

#[test]
fn sixteen_lane_float_loops_fill_the_targets_vector_registers() {
    let host = Target::host();
    match host.vector_bits {
        512 => assert_vectorized(&host, "zmm"),
        256 => assert_vectorized(&host, "ymm"),
        _ => {}
    }
    assert_vectorized(&Target::x86_64("haswell", "+avx,+avx2,+fma,+sse4.2"), "ymm");
    // The JIT computes the same as the interpreter.
    saxpy_case().check();
}

const DRIVER: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include "pipeline.h"

int32_t tessera_parallel_for(int32_t (*task)(const void *, int32_t), const void *closure,
                             int32_t min, int32_t extent) {
    for (int32_t i = min; i < min + extent; i++) {
        int32_t code = task(closure, i);
        if (code) return code;
    }
    return 0;
}
void *tessera_malloc(void *ctx, int64_t bytes, const char *name) {
    (void)ctx; (void)name;
    return aligned_alloc(64, (size_t)((bytes + 63) / 64 * 64 + 64));
}
void tessera_free(void *ctx, void *block) { (void)ctx; free(block); }
int32_t tessera_error(void *ctx, const char *message, const uint64_t *values) {
    (void)ctx; (void)values;
    fprintf(stderr, "error: %s\n", message);
    return -1;
}

int main(void) {
    float in_data[257], out_data[256];
    for (int i = 0; i < 257; i++) in_data[i] = (float)i;
    tessera_dim_t in_dim = {0, 257, 1}, out_dim = {0, 256, 1};
    tessera_buffer_t in = {(uint8_t *)in_data, 2, 32, 1, &in_dim};
    tessera_buffer_t out = {(uint8_t *)out_data, 2, 32, 1, &out_dim};
    float k = 2.0f;
    const void *args[] = {&out, &in, &k, NULL};
    int32_t code = saxpy(args);
    if (code) return 1;
    for (int i = 0; i < 256; i++) printf("%.9g\n", out_data[i]);
    return 0;
}
"#;

#[test]
fn object_files_link_into_a_c_program() {
    if Command::new("cc").arg("--version").output().is_err() {
        eprintln!("no C compiler: skipped");
        return;
    }
    let case = saxpy_case();
    let dir = std::env::temp_dir().join(format!("tessera-aot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let signature = case.signature();
    // The same loop, parallel, into a heap allocation (its size is only known at run time)
    // that is then copied out: the driver's parallel_for, malloc and free all run.
    let tessera::ir::StmtKind::For {
        name,
        min,
        extent,
        body,
        ..
    } = case.stmt.kind()
    else {
        unreachable!()
    };
    let tessera::ir::StmtKind::Store { index, value, .. } = body.kind() else {
        unreachable!()
    };
    let n = Expr::new(Type::i32(), ExprKind::Param(sym("out.extent.0")));
    let stmt = allocate(
        "tmp",
        Type::f32(),
        vec![n.clone()],
        Stmt::block([
            parallel(
                name.as_str(),
                min.clone(),
                extent.clone(),
                store("tmp", index.clone(), value.clone()),
            ),
            serial(
                "i",
                int(0),
                n,
                store("out", var("i"), load(Type::f32(), "tmp", var("i"))),
            ),
        ]),
    );
    emit_object(
        &stmt,
        &signature,
        &Target::host(),
        "saxpy",
        &dir.join("saxpy.o"),
    )
    .expect("emits");
    std::fs::write(
        dir.join("pipeline.h"),
        c_header(&signature, "saxpy").expect("header"),
    )
    .expect("writes");
    std::fs::write(dir.join("driver.c"), DRIVER).expect("writes");
    let built = Command::new("cc")
        .current_dir(&dir)
        .args(["-O1", "-o", "driver", "driver.c", "saxpy.o", "-lm"])
        .output()
        .expect("cc runs");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let run = Command::new(dir.join("driver"))
        .output()
        .expect("driver runs");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let expected = case.interpret().expect("interprets");
    let printed: Vec<f32> = String::from_utf8_lossy(&run.stdout)
        .lines()
        .map(|l| l.parse().expect("a float"))
        .collect();
    let Some(tessera::lang::buffer::AnyBuffer::F32(out)) = expected.first() else {
        panic!()
    };
    assert_eq!(printed, out.data());
    std::fs::remove_dir_all(&dir).ok();
}
