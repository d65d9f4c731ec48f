//! Benchmark of the LLVM backend on a hand-written, vectorized 3×3 box blur of a 2048×2048
//! u16 image (Halide's blur: a horizontal then a vertical 3-tap average, computed per strip
//! of 32 rows into a scratch buffer, strips in parallel), against a plain Rust loop doing the
//! same arithmetic. Run with `cargo run --release --example llvm_blur`.

use std::time::Instant;

use tessera::codegen::{compile_jit, BufferArgument, Signature, Target};
use tessera::ir::{BinaryOp, Expr, ExprKind, ForKind, Stmt, StmtKind, Symbol, Type};
use tessera::lang::buffer::{AnyBuffer, Buffer};

const W: i32 = 2048;
const H: i32 = 2048;
const STRIP: i32 = 32;
const LANES: u16 = 32;

fn var(name: &str) -> Expr {
    Expr::var(name, Type::i32())
}
fn int(v: i32) -> Expr {
    Expr::i32(v)
}
fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    Expr::binary(op, a, b)
}
fn add(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Add, a, b)
}
fn mul(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Mul, a, b)
}
fn for_loop(kind: ForKind, name: &str, extent: i32, body: Stmt) -> Stmt {
    Stmt::for_loop(Symbol::new(name), int(0), int(extent), kind, body)
}
/// Stores a vector at `LANES` consecutive elements from `index`.
fn store(buffer: &str, index: Expr, value: Expr) -> Stmt {
    let index = Expr::ramp(index, int(1), LANES);
    Stmt::new(StmtKind::Store {
        buffer: Symbol::new(buffer),
        index,
        value,
        predicate: None,
    })
}

/// The average of three u16x32 vectors loaded from `buffer` at `index + k * step`.
fn three_tap(buffer: &str, index: Expr, step: Expr) -> Expr {
    let t = Type::u16().with_lanes(LANES);
    let at = |k: i32| {
        let base = add(index.clone(), mul(step.clone(), int(k)));
        Expr::load(t, Symbol::new(buffer), Expr::ramp(base, int(1), LANES))
    };
    let three = Expr::make_const(Type::u16(), 3).broadcast_to(LANES);
    bin(BinaryOp::Div, add(add(at(0), at(1)), at(2)), three)
}

fn blur_stmt() -> Stmt {
    let in_stride = Expr::new(Type::i32(), ExprKind::Param(Symbol::new("input.stride.1")));
    let y0 = mul(var("strip"), int(STRIP));
    let x = mul(var("xo"), int(LANES as i32));
    // blur_x(x, y) for the strip's rows y0 .. y0 + STRIP + 2.
    let blur_x = for_loop(
        ForKind::Serial,
        "y",
        STRIP + 2,
        for_loop(
            ForKind::Serial,
            "xo",
            W / LANES as i32,
            store(
                "blur_x",
                add(mul(var("y"), int(W)), x.clone()),
                three_tap(
                    "input",
                    add(mul(add(y0.clone(), var("y")), in_stride), x.clone()),
                    int(1),
                ),
            ),
        ),
    );
    let out_stride = Expr::new(Type::i32(), ExprKind::Param(Symbol::new("output.stride.1")));
    let blur_y = for_loop(
        ForKind::Serial,
        "y",
        STRIP,
        for_loop(
            ForKind::Serial,
            "xo",
            W / LANES as i32,
            store(
                "output",
                add(mul(add(y0, var("y")), out_stride), x.clone()),
                three_tap("blur_x", add(mul(var("y"), int(W)), x), int(W)),
            ),
        ),
    );
    let strip = Stmt::new(StmtKind::Allocate {
        buffer: Symbol::new("blur_x"),
        ty: Type::u16(),
        extents: vec![int(W), int(STRIP + 2)],
        body: Stmt::block([blur_x, blur_y]),
    });
    for_loop(ForKind::Parallel, "strip", H / STRIP, strip)
}

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

fn main() {
    let input = Buffer::<u16>::from_fn(&[0, 0], &[W as i64 + 2, H as i64 + 2], |c| {
        ((c[0] * 37 + c[1] * 101) % 20000) as u16
    });
    let signature = Signature {
        outputs: vec![BufferArgument {
            name: Symbol::new("output"),
            ty: Type::u16(),
            dims: 2,
        }],
        images: vec![BufferArgument {
            name: Symbol::new("input"),
            ty: Type::u16(),
            dims: 2,
        }],
        params: vec![],
    };
    let stmt = blur_stmt();
    let target = Target::host();
    let first = compile_jit(&stmt, &signature, &target).expect("compiles");
    let mut compiled = compile_jit(&stmt, &signature, &target).expect("compiles");
    println!(
        "target {target}; compile {:.1} ms; again {:.3} ms (from the JIT cache: {})",
        first.compile_ms(),
        compiled.compile_ms(),
        compiled.from_cache()
    );

    let input_any = AnyBuffer::from(input.clone());
    let images = [(Symbol::new("input"), &input_any)];
    let mut out = AnyBuffer::from(Buffer::<u16>::new(&[W as i64, H as i64]));
    let mut expected = Buffer::<u16>::new(&[W as i64, H as i64]);
    reference(&input, &mut expected);
    compiled.run(&mut [&mut out], &images, &[]).expect("runs");
    assert_eq!(
        out,
        AnyBuffer::from(expected.clone()),
        "the JIT and the reference differ"
    );

    for threads in [1, 2] {
        compiled.set_threads(threads).expect("a pool");
        let ms = best_ms(20, || {
            compiled.run(&mut [&mut out], &images, &[]).expect("runs")
        });
        println!("JIT, {threads} thread(s): {ms:.2} ms");
    }
    let ms = best_ms(10, || reference(&input, &mut expected));
    println!("plain Rust loop, 1 thread: {ms:.2} ms");
}
