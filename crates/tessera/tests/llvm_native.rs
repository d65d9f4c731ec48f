//! What the backend emits: assembly of a 16-lane f32 loop uses the target's full vector
//! registers (zmm with AVX-512, ymm with AVX2) with no scalarized arithmetic; code for
//! baseline x86-64 (SSE2 only: no masked loads, gathers or rounding instructions) computes the
//! same as the interpreter; a vector loaded once serves uses on both sides of stores to
//! other buffers; and an object file with its generated C header links into a C
//! program (which supplies the runtime functions) and computes what the interpreter computes.

mod llvm_common;

use std::process::Command;

use llvm_common::*;
use tessera::codegen::{c_header, emit_assembly, emit_object, Target};
use tessera::ir::{Expr, ExprKind, Stmt, Type};
use tessera::lang::buffer::Buffer;
use tessera::lower::LowerOptions;
use tessera::pipeline::{signature, Pipeline};
use tessera::prelude::*;

/// `out[x] = in[x] * k + in[x + 1]` over 16-lane vectors.
fn saxpy_case() -> Case {
    let f16 = Type::f32().with_lanes(16);
    let x16 = mul(var("x"), int(16));
    let k = Expr::new(Type::f32(), ExprKind::Param(sym("k"), None)).broadcast_to(16);
    let value = add(
        mul(load(f16, "in", Expr::ramp(x16.clone(), int(1), 16)), k),
        load(f16, "in", Expr::ramp(add(x16.clone(), int(1)), int(1), 16)),
    );
    let n = Expr::new(Type::i32(), ExprKind::Param(sym("out.extent.0"), None));
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

/// `out[x] = in[idx[x]]` over 8-lane vectors: a gather, with indices out of order.
fn gather_case() -> Case {
    let i8x = Type::i32().with_lanes(8);
    let x8 = mul(var("x"), int(8));
    let indices = load(i8x, "idx", Expr::ramp(x8.clone(), int(1), 8));
    let value = load(Type::f32().with_lanes(8), "in", indices);
    let s = serial(
        "x",
        int(0),
        int(8),
        store("out", Expr::ramp(x8, int(1), 8), value),
    );
    Case::new(s)
        .image(
            "in",
            Buffer::<f32>::from_fn(&[0], &[100], |c| c[0] as f32 * 0.5),
        )
        .image(
            "idx",
            Buffer::<i32>::from_fn(&[0], &[64], |c| ((c[0] * 37) % 100) as i32),
        )
        .output("out", Buffer::<f32>::new(&[64]))
}

#[test]
fn gathers_are_gather_instructions_or_lane_by_lane_loads_as_the_cpu_prefers() {
    let features = "+avx,+avx2,+fma,+sse4.2";
    for (cpu, lane_by_lane) in [("skylake", false), ("znver3", true)] {
        let target = Target::x86_64(cpu, features);
        assert_eq!(target.prefers_scalar_gathers(), lane_by_lane);
        let case = gather_case();
        let asm =
            emit_assembly(&case.stmt, &case.signature(), &target, "gather").expect("compiles");
        assert_eq!(asm.contains("vgatherdps"), !lane_by_lane, "{cpu}:\n{asm}");
        // Both forms compute what the interpreter computes.
        case.check_on(&target);
    }
}

/// How many lines of the assembly `asm` (leading whitespace removed) satisfy `pred`.
fn instructions_where(asm: &str, pred: impl Fn(&str) -> bool) -> usize {
    asm.lines().map(str::trim_start).filter(|l| pred(l)).count()
}

/// `out[x] = Σ in[(idx[x] + k) * 3 + x - 2]` over three offsets k: gathers whose indices
/// differ only by uniform terms. Lane by lane, they share one extraction of the varying
/// part's lanes instead of extracting each index vector's own.
#[test]
fn lane_by_lane_gathers_share_the_lanes_of_a_common_varying_index() {
    use tessera::ir::BinaryOp;
    let target = Target::x86_64("znver3", "+avx,+avx2,+fma,+sse4.2");
    let x8 = mul(var("x"), int(8));
    let indices = load(
        Type::i32().with_lanes(8),
        "idx",
        Expr::ramp(x8.clone(), int(1), 8),
    );
    let broadcast = |e: Expr| e.broadcast_to(8);
    let corner = |k: i32| {
        let shifted = add(indices.clone(), broadcast(int(k)));
        let scaled = mul(shifted, broadcast(int(3)));
        let index = bin(
            BinaryOp::Sub,
            add(scaled, broadcast(var("x"))),
            broadcast(int(2)),
        );
        load(Type::f32().with_lanes(8), "in", index)
    };
    let value = add(add(corner(0), corner(1)), corner(-1));
    let s = serial(
        "x",
        int(0),
        int(8),
        store("out", Expr::ramp(x8, int(1), 8), value),
    );
    let case = Case::new(s)
        .image(
            "in",
            Buffer::<f32>::from_fn(&[0], &[400], |c| c[0] as f32 * 0.25 - 7.0),
        )
        .image(
            "idx",
            Buffer::<i32>::from_fn(&[0], &[64], |c| (2 + (c[0] * 37) % 118) as i32),
        )
        .output("out", Buffer::<f32>::new(&[64]));
    let asm = emit_assembly(&case.stmt, &case.signature(), &target, "gathers").expect("compiles");
    let extractions = instructions_where(&asm, |l| {
        l.starts_with("vpextrd") || l.starts_with("vmovd\t%xmm")
    });
    assert!(
        extractions <= 8,
        "{extractions} lane extractions for 3 gathers of 8 lanes sharing one varying index:\n{asm}"
    );
    case.check_on(&target);
}

/// `out[x] = in[3 i + 5] - in[3 i + 6]` summed over three index vectors `i`, two of them
/// under lets of one name: gathers of adjacent elements, loaded lane by lane as pairs where
/// their indices mean the same throughout the store.
#[test]
fn lane_by_lane_gathers_of_adjacent_elements_load_both_at_once() {
    use tessera::ir::{BinaryOp, Symbol};
    let target = Target::x86_64("znver3", "+avx,+avx2,+fma,+sse4.2");
    let x8 = mul(var("x"), int(8));
    let f8 = Type::f32().with_lanes(8);
    let broadcast = |e: Expr| e.broadcast_to(8);
    let difference = |indices: Expr| {
        let at = |k: i32| {
            let index = add(mul(indices.clone(), broadcast(int(3))), broadcast(int(k)));
            load(f8, "in", index)
        };
        bin(BinaryOp::Sub, at(5), at(6))
    };
    let i8x = Type::i32().with_lanes(8);
    let direct = load(i8x, "idx", Expr::ramp(x8.clone(), int(1), 8));
    let reversed = load(i8x, "idx", Expr::ramp(add(x8.clone(), int(7)), int(-1), 8));
    let t = Symbol::from("t");
    let value = add(
        add(
            Expr::let_in(t, direct.clone(), difference(Expr::var(t, i8x))),
            Expr::let_in(t, reversed, difference(Expr::var(t, i8x))),
        ),
        difference(add(direct, broadcast(int(1)))),
    );
    let s = serial(
        "x",
        int(0),
        int(8),
        store("out", Expr::ramp(x8, int(1), 8), value),
    );
    let case = Case::new(s)
        .image(
            "in",
            Buffer::<f32>::from_fn(&[0], &[400], |c| ((c[0] * c[0]) % 97) as f32 * 0.5),
        )
        .image(
            "idx",
            Buffer::<i32>::from_fn(&[0], &[64], |c| ((c[0] * 37) % 120) as i32),
        )
        .output("out", Buffer::<f32>::new(&[64]));
    let asm = emit_assembly(&case.stmt, &case.signature(), &target, "pairs").expect("compiles");
    let single_loads = instructions_where(&asm, |l| {
        (l.starts_with("vmovss") || l.starts_with("vinsertps")) && l.contains('(')
    });
    // The let-bound gathers load an element at a time (2 × 2 × 8), the others in pairs
    // (2 × 8 single loads unpaired).
    assert!(
        single_loads <= 32,
        "{single_loads} single-element loads for 48 gathered lanes, 16 of them pairable:\n{asm}"
    );
    case.check_on(&target);
}

/// `out[x] = in[max(min(r, hi), lo) + off] + 2 in[min(max(r, lo), hi) + off]` over 8-lane
/// ramps `r` of x: boundary-condition reads, loaded as a dense load of the lanes inside
/// `[lo, hi]` blended with the edge elements, never lane by lane; lanes all inside, all
/// outside, straddling either edge, and `lo > hi`.
#[test]
fn loads_at_clamped_ramps_are_dense_loads_blended_with_their_edges() {
    use tessera::eval::value::Value;
    use tessera::ir::{BinaryOp, ExprKind};
    let param = |name: &str| Expr::new(Type::i32(), ExprKind::Param(sym(name), None));
    let x8 = mul(var("x"), int(8));
    let ramp = Expr::ramp(add(x8.clone(), param("s")), int(1), 8);
    let (lo, hi) = (param("lo").broadcast_to(8), param("hi").broadcast_to(8));
    let off = param("off").broadcast_to(8);
    let f8 = Type::f32().with_lanes(8);
    let min_then_max = bin(
        BinaryOp::Max,
        bin(BinaryOp::Min, ramp.clone(), hi.clone()),
        lo.clone(),
    );
    let max_then_min = bin(BinaryOp::Min, bin(BinaryOp::Max, ramp, lo), hi);
    let value = add(
        load(f8, "in", add(min_then_max, off.clone())),
        mul(
            load(f8, "in", add(max_then_min, off)),
            Expr::f32(2.0).broadcast_to(8),
        ),
    );
    let s = serial(
        "x",
        int(0),
        int(8),
        store("out", Expr::ramp(x8, int(1), 8), value),
    );
    let target = Target::x86_64("znver3", "+avx,+avx2,+fma,+sse4.2");
    for (lo, hi, start, off) in [
        (10, 40, 0, 5),
        (10, 40, 20, 5),
        (50, 20, 0, 100),
        (0, 100, 30, 0),
        (70, 90, -30, 50),
        (7, 7, 3, 0),
    ] {
        let case = Case::new(s.clone())
            .image(
                "in",
                Buffer::<f32>::from_fn(&[0], &[200], |c| ((c[0] * 7) % 31) as f32 - 3.5),
            )
            .param("lo", Type::i32(), Value::Int(lo))
            .param("hi", Type::i32(), Value::Int(hi))
            .param("s", Type::i32(), Value::Int(start))
            .param("off", Type::i32(), Value::Int(off))
            .output("out", Buffer::<f32>::new(&[64]));
        case.check_on(&target);
        case.check();
    }
    let case = Case::new(s)
        .image("in", Buffer::<f32>::new(&[200]))
        .param("lo", Type::i32(), Value::Int(0))
        .param("hi", Type::i32(), Value::Int(0))
        .param("s", Type::i32(), Value::Int(0))
        .param("off", Type::i32(), Value::Int(0))
        .output("out", Buffer::<f32>::new(&[64]));
    let asm = emit_assembly(&case.stmt, &case.signature(), &target, "clamped").expect("compiles");
    assert!(
        !asm.contains("vinsertps") && !asm.contains("vgatherdps"),
        "a clamped ramp loaded lane by lane:\n{asm}"
    );
}

#[test]
fn baseline_x86_64_computes_what_the_interpreter_computes() {
    use tessera::ir::{BinaryOp, Intrinsic};
    let baseline = Target::x86_64_baseline();
    let (mut rng, _) = seeded_rng(11);
    for ty in [Type::f32(), Type::i32(), Type::u8(), Type::i64()] {
        let mut ops: Vec<Operation> = [
            BinaryOp::Div,
            BinaryOp::Mod,
            BinaryOp::Min,
            BinaryOp::Shr,
            BinaryOp::Lt,
        ]
        .into_iter()
        .filter(|op| !(ty.is_float() && *op == BinaryOp::Shr))
        .map(|op| Operation {
            name: format!("{op:?}"),
            args: vec![ty, ty],
            result: if op.is_comparison() {
                Type::bool_()
            } else {
                ty
            },
            build: Box::new(move |a: &[Expr]| Expr::binary(op, a[0].clone(), a[1].clone())),
        })
        .collect();
        let to = Type::i16();
        ops.push(Operation {
            name: "cast".into(),
            args: vec![ty],
            result: to,
            build: Box::new(move |a: &[Expr]| {
                Expr::cast(to.with_lanes(a[0].ty().lanes), a[0].clone())
            }),
        });
        if ty.is_float() {
            for op in [Intrinsic::Round, Intrinsic::Floor, Intrinsic::Exp] {
                ops.push(Operation {
                    name: op.name().into(),
                    args: vec![ty],
                    result: ty,
                    build: Box::new(move |a: &[Expr]| Expr::intrinsic(a[0].ty(), op, a.to_vec())),
                });
            }
        }
        elementwise_case(&ops, 16, &mut rng, 32).check_on(&baseline);
    }
    // Predicated (masked) loads and stores, and gathers.
    let lanes = 16;
    let index = Expr::ramp(mul(var("x"), int(lanes)), int(1), lanes as u16);
    let inside = lt(index.clone(), Expr::i32(37).broadcast_to(lanes as u16));
    let gathered = Expr::binary(
        BinaryOp::Mod,
        mul(index.clone(), Expr::i32(5).broadcast_to(16)),
        Expr::i32(37).broadcast_to(16),
    );
    let value = add(
        load_if(
            Type::f32().with_lanes(16),
            "in",
            index.clone(),
            inside.clone(),
        ),
        load(Type::f32().with_lanes(16), "in", gathered),
    );
    let s = serial(
        "x",
        int(0),
        int(3),
        store_if("out", index, value, Some(inside)),
    );
    Case::new(s)
        .image(
            "in",
            Buffer::<f32>::from_fn(&[0], &[37], |c| c[0] as f32 * 1.5),
        )
        .output("out", Buffer::<f32>::new(&[37]))
        .check_on(&baseline);
}

#[test]
fn flattened_indices_through_vector_lets_stay_dense() {
    use tessera::codegen::emit_llvm_ir;
    use tessera::ir::BinaryOp;
    // let xs = ramp(x * 16, 1, 16) in a parallel loop's parent; inside the task the index is
    // (xs - x16(m)) * x16(1) + x16(y * 64): stride 1, so a dense access, not a gather.
    let lanes = 16;
    let xs = Expr::ramp(mul(var("x"), int(16)), int(1), lanes);
    let m = Expr::new(Type::i32(), ExprKind::Param(sym("m"), None));
    let index = |buffer_row: Expr| {
        add(
            mul(
                Expr::binary(
                    BinaryOp::Sub,
                    Expr::var("xs", xs.ty()),
                    m.clone().broadcast_to(lanes),
                ),
                int(1).broadcast_to(lanes),
            ),
            mul(buffer_row, int(64)).broadcast_to(lanes),
        )
    };
    let t = Type::f32().with_lanes(lanes);
    let body = store(
        "out",
        index(var("y")),
        mul(
            load(t, "in", index(var("y"))),
            Expr::f32(3.0).broadcast_to(lanes),
        ),
    );
    let s = serial(
        "x",
        int(0),
        int(4),
        let_stmt("xs", xs, parallel("y", int(0), int(8), body)),
    );
    let case = Case::new(s)
        .image("in", Buffer::<f32>::from_fn(&[0], &[512], |c| c[0] as f32))
        .output("out", Buffer::<f32>::new(&[512]))
        .param("m", Type::i32(), tessera::eval::value::Value::Int(0));
    case.check();
    let ir =
        emit_llvm_ir(&case.stmt, &case.signature(), &Target::host(), "dense").expect("compiles");
    assert!(
        !ir.contains("masked.gather") && !ir.contains("masked.scatter"),
        "{ir}"
    );
    assert!(
        ir.contains("load <16 x float>") && ir.contains("store <16 x float>"),
        "{ir}"
    );
}

#[test]
fn loads_are_kept_across_stores_to_other_buffers() {
    use tessera::codegen::emit_llvm_ir;
    use tessera::lower::LowerOptions;
    use tessera::pipeline::{signature, Pipeline};
    use tessera::prelude::{Func, ImageParam, Var};
    // Four channels unrolled inside vectors, each a long chain of arithmetic on the same
    // input vector, each stored before the next is computed. Buffers never overlap (TBAA), so
    // the input is loaded once per vector however many instructions lie between its uses.
    let input = ImageParam::new(Type::f32(), 1, "input");
    let (x, c) = (Var::new("x"), Var::new("c"));
    let out = Func::new("out");
    let mut v = input.at(x) + tessera::lang::math::cast(Type::f32(), c.expr());
    for i in 0..40 {
        v = v * 1.5f32 + i as f32;
    }
    out.define((x, c), v).unwrap();
    out.bound(c, 0, 4)
        .reorder((c, x))
        .unroll(c, 4)
        .vectorize(x, 8);
    let lowered = Pipeline::new(&out).lower(&LowerOptions::default()).unwrap();
    let ir = emit_llvm_ir(
        &lowered.stmt,
        &signature(&lowered),
        &Target::host(),
        "shared",
    )
    .expect("compiles");
    let (loads, stores) = (
        ir.matches("load <8 x float>").count(),
        ir.matches("store <8 x float>").count(),
    );
    assert!(
        stores >= 4 && loads * 4 == stores,
        "{loads} loads, {stores} stores:\n{ir}"
    );
}

/// The runtime functions a C program linking a pipeline provides.
const RUNTIME_STUBS: &str = include_str!("c/runtime_stubs.c");

/// The C driver's `main`, after the runtime stubs (`c/runtime_stubs.c`).
const DRIVER_MAIN: &str = r#"
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
    let n = Expr::new(Type::i32(), ExprKind::Param(sym("out.extent.0"), None));
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
    std::fs::write(
        dir.join("driver.c"),
        format!("{RUNTIME_STUBS}{DRIVER_MAIN}"),
    )
    .expect("writes");
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

/// `in[(xs + k) / 2 + 3]` over the vector `xs = ramp(x * lanes + o, 1, lanes)`, times a weight
/// by the parity `xs % 2`, plus a predicated read `in[(xs - 1) / 2 + 5]` where `xs < limit`
/// (lanes past it read zero): an upsampling's loads.
fn upsampling_case(lanes: u16, o: i32, limit: i32) -> Case {
    use tessera::ir::BinaryOp;
    let l = i32::from(lanes);
    let xs = Expr::ramp(add(mul(var("x"), int(l)), var("o")), int(1), lanes);
    let c = |v: i32| int(v).broadcast_to(lanes);
    let half = |k: i32, off: i32| add(bin(BinaryOp::Div, add(xs.clone(), c(k)), c(2)), c(off));
    let t = Type::f32().with_lanes(lanes);
    let weight = Expr::cast(t, add(bin(BinaryOp::Mod, xs.clone(), c(2)), c(1)));
    let value = add(
        mul(load(t, "in", half(1, 3)), weight),
        load_if(t, "in", half(-1, 5), lt(xs.clone(), c(limit))),
    );
    let s = serial(
        "x",
        int(0),
        int(64 / l),
        store(
            "out",
            Expr::ramp(mul(var("x"), int(l)), int(1), lanes),
            value,
        ),
    );
    Case::new(s)
        .image(
            "in",
            Buffer::<f32>::from_fn(&[0], &[40], |c| (c[0] * c[0] % 29) as f32 - 7.5),
        )
        .output("out", Buffer::<f32>::new(&[64]))
        .param(
            "o",
            Type::i32(),
            tessera::eval::value::Value::Int(i64::from(o)),
        )
}

#[test]
fn upsampling_loads_are_dense_by_lane_parity() {
    use tessera::codegen::emit_llvm_ir;
    // Even and odd vector starts, and a predicate cutting a vector in the middle.
    for lanes in [16, 8, 4] {
        for o in [0, 1, -3] {
            let case = upsampling_case(lanes, o, 45);
            case.check();
            case.check_on(&Target::x86_64_baseline());
            let ir = emit_llvm_ir(&case.stmt, &case.signature(), &Target::host(), "up")
                .expect("compiles");
            assert!(!ir.contains("masked.gather"), "{lanes} lanes:\n{ir}");
        }
    }
    // Two lanes have no halves worth a shuffle: a gather, with the same values.
    upsampling_case(2, 1, 45).check();
}

/// A predicated gather of `lanes` f32 lanes at data-dependent unsigned (so 64-bit)
/// indices, over 3 vectors of which the last is partly outside the output.
fn masked_gather_case(lanes: u16) -> Case {
    let n = 3 * i32::from(lanes) - 2;
    let index = Expr::ramp(mul(var("x"), int(i32::from(lanes))), int(1), lanes);
    let inside = lt(index.clone(), Expr::i32(n).broadcast_to(lanes));
    let indices = load_if(
        Type::u32().with_lanes(lanes),
        "idx",
        index.clone(),
        inside.clone(),
    );
    let value = load_if(Type::f32().with_lanes(lanes), "in", indices, inside.clone());
    let s = serial(
        "x",
        int(0),
        int(3),
        store_if("out", index, value, Some(inside)),
    );
    Case::new(s)
        .image(
            "in",
            Buffer::<f32>::from_fn(&[0], &[101], |c| c[0] as f32 * 0.25),
        )
        .image(
            "idx",
            Buffer::<u32>::from_fn(&[0], &[i64::from(n)], |c| (c[0] * 37 % 101) as u32),
        )
        .output("out", Buffer::<f32>::new(&[i64::from(n)]))
}

/// The register numbers of the destination and the index of every AVX-512 gather of `asm`.
fn gather_registers(asm: &str) -> Vec<(String, String)> {
    let number = |r: &str| r.trim_start_matches('%')[3..].to_string();
    instructions(asm)
        .into_iter()
        .filter(|l| l.starts_with("vgather") || l.starts_with("vpgather"))
        .filter_map(|l| {
            let index = l.split(',').nth(1)?.trim_end_matches(')').trim();
            let dst = l.split(", ").last()?.split_whitespace().next()?;
            Some((number(dst), number(index)))
        })
        .collect()
}

#[test]
fn masked_gathers_of_any_lane_count_use_distinct_destination_and_index_registers() {
    // LLVM 19 pads a gather of a lane count that is not a power of two with undefined
    // indices, and may then give a gather one register as destination and index: the CPU
    // refuses that instruction (SIGILL). Gathers are therefore emitted in power-of-two parts.
    let avx512 = Target::x86_64("skylake-avx512", "+avx512f,+avx512vl,+avx512bw,+avx512dq");
    for lanes in 2..40u16 {
        let case = masked_gather_case(lanes);
        let asm =
            emit_assembly(&case.stmt, &case.signature(), &avx512, "gather").expect("compiles");
        let registers = gather_registers(&asm);
        // (LLVM loads gathers of fewer lanes lane by lane.)
        assert!(
            lanes < 8 || !registers.is_empty(),
            "{lanes} lanes: no gather instruction:\n{asm}"
        );
        for (dst, index) in registers {
            assert_ne!(
                dst, index,
                "{lanes} lanes: a gather's destination is its index:\n{asm}"
            );
        }
        case.check_on(&Target::host());
    }
}

/// A Harris-like corner response: gradients `gx` and `gy` computed row by row in parallel
/// strips of 8 rows (a sliding window), and 3 × 3 window sums of their products, `lanes`
/// f32 lanes wide: the output loop keeps 18 vectors of gradients live, more than the
/// target's registers hold, so its task function spills vector registers.
fn corner_response_assembly(name: &str, target: &Target, lanes: i32) -> String {
    let input = ImageParam::new(Type::f32(), 2, &format!("{name}_in"));
    let (x, y) = (Var::new("x"), Var::new("y"));
    let gradient = |suffix: &str, (dx, dy): (i32, i32)| {
        let f = Func::new(&format!("{name}_{suffix}"));
        f.define(
            (x, y),
            input.at((x + dx, y + dy)) - input.at((x - dx, y - dy)),
        )
        .expect("a valid definition");
        f
    };
    let (gx, gy) = (gradient("gx", (1, 0)), gradient("gy", (0, 1)));
    let window_sum = |product: &dyn Fn(Expr, Expr) -> Expr| {
        (-1..=1)
            .flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)))
            .map(|(dx, dy)| product(gx.at((x + dx, y + dy)), gy.at((x + dx, y + dy))))
            .reduce(|sum, term| sum + term)
            .expect("nine terms")
    };
    let sxx = window_sum(&|a, _| a.clone() * a);
    let syy = window_sum(&|_, b| b.clone() * b);
    let sxy = window_sum(&|a, b| a * b);
    let out = Func::new(name);
    out.define(
        (x, y),
        sxx.clone() * syy.clone() - sxy.clone() * sxy - (sxx + syy.clone()) * syy * 0.04f32,
    )
    .expect("a valid definition");
    out.split("y", "yo", "yi", 8)
        .parallel("yo")
        .vectorize("x", lanes);
    for g in [&gx, &gy] {
        g.store_at(&out, "yo")
            .compute_at(&out, "yi")
            .vectorize("x", lanes);
    }
    let lowered = Pipeline::new(&out)
        .lower(&LowerOptions::default())
        .expect("lowers");
    emit_assembly(&lowered.stmt, &signature(&lowered), target, name).expect("compiles")
}

/// The byte offset from `%rsp` of the memory operand of `instruction`, if it has one.
fn rsp_offset(instruction: &str) -> Option<i64> {
    let at = instruction.find("(%rsp)")?;
    let start = instruction[..at]
        .rfind(|c: char| !(c.is_ascii_digit() || c == '-'))
        .map_or(0, |i| i + 1);
    let offset = &instruction[start..at];
    Some(if offset.is_empty() {
        0
    } else {
        offset.parse().expect("a decimal offset")
    })
}

/// Every function that keeps `register`-sized vectors on its stack aligns its frame to at
/// least their width (`andq $-N, %rsp`) and places them at multiples of it, so no vector slot
/// straddles two cache lines (split spills and reloads made harris run 2x slower). Returns
/// how many such stack accesses there are.
fn assert_vector_slots_aligned(asm: &str, register: &str, bytes: i64) -> usize {
    let mut functions: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in asm.lines().map(str::trim) {
        match line.strip_suffix(':') {
            Some(label) if !label.starts_with('.') => functions.push((label, Vec::new())),
            _ => {
                if let Some((_, body)) = functions.last_mut() {
                    body.push(line);
                }
            }
        }
    }
    let mut accesses = 0;
    for (function, body) in &functions {
        let offsets: Vec<i64> = body
            .iter()
            .filter(|l| l.contains(&format!("%{register}")))
            .filter_map(|l| rsp_offset(l))
            .collect();
        if offsets.is_empty() {
            continue;
        }
        accesses += offsets.len();
        let realigned = body.iter().any(|l| {
            l.strip_prefix("andq\t$-")
                .and_then(|rest| rest.strip_suffix(", %rsp"))
                .and_then(|n| n.parse::<i64>().ok())
                .is_some_and(|n| n % bytes == 0)
        });
        assert!(
            realigned,
            "{function} keeps {register} vectors on a stack it does not align to {bytes}:\n{asm}"
        );
        let misplaced: Vec<i64> = offsets.into_iter().filter(|o| o % bytes != 0).collect();
        assert!(
            misplaced.is_empty(),
            "{function} has {register} stack slots at offsets {misplaced:?}, not multiples of {bytes}"
        );
    }
    accesses
}

#[test]
fn vector_spill_slots_never_straddle_cache_lines() {
    let avx2 = Target::x86_64("haswell", "+avx,+avx2,+fma");
    let asm = corner_response_assembly("spills_avx2", &avx2, 16);
    assert!(
        assert_vector_slots_aligned(&asm, "ymm", 32) > 0,
        "no ymm register is spilled: the case no longer tests spills"
    );
    let avx512 = Target::x86_64("skylake-avx512", "+avx,+avx2,+fma,+avx512f,+avx512bw");
    let asm = corner_response_assembly("spills_avx512", &avx512, 32);
    assert!(
        assert_vector_slots_aligned(&asm, "zmm", 64) > 0,
        "no zmm register is spilled: the case no longer tests spills"
    );
}
