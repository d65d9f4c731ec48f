//! The Stmt interpreter on hand-built statements at both storage levels (Realize/Provide/Call
//! and Allocate/Store/Load), with vectors, folded storage and parallel loops, each compared
//! with plain Rust loops computing the same thing; plus its errors and statistics, and forks
//! whose sides interleave at semaphore waits.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tessera::eval::value::Value;
use tessera::interp::Interpreter;
use tessera::ir::{
    CallKind, Expr, ExprKind, ForKind, MessagePart, Range, Stmt, StmtKind, Symbol, Type,
};
use tessera::lang::function::Function;
use tessera::lang::image_param::ImageLink;
use tessera::prelude::*;
use tessera::testing::test_seed;

// ---- statement builders ----------------------------------------------------------------

fn sym(name: &str) -> Symbol {
    Symbol::new(name)
}
fn var(name: &str) -> Expr {
    Expr::var(name, Type::i32())
}
fn int(v: i32) -> Expr {
    Expr::i32(v)
}
/// The int32 parameter `buffer.field.dim` that binding a buffer defines.
fn field(buffer: &str, field: &str, dim: usize) -> Expr {
    Expr::new(
        Type::i32(),
        ExprKind::Param(sym(&format!("{buffer}.{field}.{dim}")), None),
    )
}
fn looped(kind: ForKind, name: &str, min: Expr, extent: Expr, body: Stmt) -> Stmt {
    Stmt::for_loop(sym(name), min, extent, kind, body)
}
fn serial(name: &str, min: Expr, extent: Expr, body: Stmt) -> Stmt {
    looped(ForKind::Serial, name, min, extent, body)
}
fn let_stmt(name: &str, value: Expr, body: Stmt) -> Stmt {
    Stmt::let_stmt(sym(name), value, body)
}
fn provide(func: &str, args: Vec<Expr>, values: Vec<Expr>) -> Stmt {
    Stmt::new(StmtKind::Provide {
        func: sym(func),
        args,
        values,
    })
}
fn realize(func: &str, types: Vec<Type>, bounds: Vec<(Expr, Expr)>, body: Stmt) -> Stmt {
    Stmt::new(StmtKind::Realize {
        func: sym(func),
        types,
        bounds: bounds
            .into_iter()
            .map(|(min, extent)| Range { min, extent })
            .collect(),
        body,
    })
}
fn allocate(buffer: &str, ty: Type, extents: Vec<Expr>, body: Stmt) -> Stmt {
    Stmt::allocate(sym(buffer), ty, extents, body)
}
fn store_if(buffer: &str, index: Expr, value: Expr, predicate: Option<Expr>) -> Stmt {
    Stmt::new(StmtKind::Store {
        buffer: sym(buffer),
        index,
        value,
        predicate,
    })
}
fn store(buffer: &str, index: Expr, value: Expr) -> Stmt {
    store_if(buffer, index, value, None)
}
fn load(ty: Type, buffer: &str, index: Expr) -> Expr {
    Expr::load(ty, sym(buffer), index)
}
fn load_if(ty: Type, buffer: &str, index: Expr, predicate: Expr) -> Expr {
    Expr::new(
        ty,
        ExprKind::Load {
            buffer: sym(buffer),
            index,
            predicate: Some(predicate),
        },
    )
}
fn image(name: &str, ty: Type, args: Vec<Expr>) -> Expr {
    let lanes = args.iter().map(|a| a.ty().lanes).max().unwrap_or(1);
    Expr::new(
        ty.with_lanes(lanes),
        ExprKind::Call {
            name: sym(name),
            kind: CallKind::Image(ImageLink::new()),
            args,
            value_index: 0,
        },
    )
}
fn call(f: &Function, ty: Type, args: Vec<Expr>, value_index: usize) -> Expr {
    let lanes = args.iter().map(|a| a.ty().lanes).max().unwrap_or(1);
    Expr::new(
        ty.with_lanes(lanes),
        ExprKind::Call {
            name: f.name(),
            kind: CallKind::Func(f.link()),
            args,
            value_index,
        },
    )
}
fn produce_consume(func: &str, produce: Stmt, consume: Stmt) -> Stmt {
    let region = |is_producer, body| {
        Stmt::new(StmtKind::ProducerConsumer {
            name: sym(func),
            is_producer,
            body,
        })
    };
    Stmt::block([region(true, produce), region(false, consume)])
}
/// The flat index of `coords` in a bound buffer, from its `min` and `stride` fields.
fn flat_index(buffer: &str, coords: Vec<Expr>) -> Expr {
    coords
        .into_iter()
        .enumerate()
        .map(|(d, c)| (c - field(buffer, "min", d)) * field(buffer, "stride", d))
        .reduce(|a, b| a + b)
        .expect("at least one dimension")
}

// ---- running and checking ---------------------------------------------------------------

fn interpreter(buffers: Vec<(&str, AnyBuffer)>) -> Interpreter {
    let mut interp = Interpreter::new();
    for (name, b) in buffers {
        interp.bind_buffer(sym(name), b);
    }
    interp
}

fn take<T: Scalar>(interp: &mut Interpreter, name: &str) -> Buffer<T>
where
    Buffer<T>: TryFrom<AnyBuffer, Error = Error>,
{
    interp
        .take_buffer(sym(name))
        .expect("the buffer is bound")
        .try_into()
        .expect("the buffer has the expected type")
}

/// Same box, same element at every coordinate (layouts may differ).
fn assert_same<T: Scalar>(got: &Buffer<T>, want: &Buffer<T>) {
    assert_eq!(got.mins(), want.mins());
    assert_eq!(got.extents(), want.extents());
    want.for_each_coord(|c| assert_eq!(got.get(c), want.get(c), "at {c:?}"));
}

fn run_err(s: &Stmt, buffers: Vec<(&str, AnyBuffer)>) -> String {
    match interpreter(buffers).run(s) {
        Err(Error::Runtime(message)) => message,
        other => panic!("expected a runtime error, got {other:?}"),
    }
}

/// A deterministic, irregular test image value.
fn pixel(c: &[i64]) -> u16 {
    let h = c.iter().fold(0x9e37u64, |h, &v| {
        (h ^ v as u64).wrapping_mul(0x100_0000_01b3)
    });
    (h >> 20) as u16 & 0x3ff
}

// ---- (a), (b): a two-stage blur at both storage levels ----------------------------------

const OUT_MINS: [i64; 2] = [10, -4];
const OUT_EXTENTS: [i64; 2] = [9, 7];

/// The input covers exactly what the blur reads, rows padded to a stride of 16; the output
/// is column-major, so flat indices must really use the strides.
fn blur_buffers() -> (Buffer<u16>, Buffer<i32>) {
    let (w, h) = (OUT_EXTENTS[0] + 2, OUT_EXTENTS[1] + 2);
    let in_dims = vec![
        Dim {
            min: OUT_MINS[0] - 1,
            extent: w,
            stride: 1,
        },
        Dim {
            min: OUT_MINS[1] - 1,
            extent: h,
            stride: 16,
        },
    ];
    let mut input = Buffer::from_parts(vec![0u16; 16 * h as usize], in_dims).unwrap();
    let mut coords = Vec::new();
    input.for_each_coord(|c| coords.push(c.to_vec()));
    for c in coords {
        input.set(&c, pixel(&c));
    }
    let out_dims = vec![
        Dim {
            min: OUT_MINS[0],
            extent: OUT_EXTENTS[0],
            stride: OUT_EXTENTS[1],
        },
        Dim {
            min: OUT_MINS[1],
            extent: OUT_EXTENTS[1],
            stride: 1,
        },
    ];
    let output = Buffer::from_parts(vec![0i32; 63], out_dims).unwrap();
    (input, output)
}

fn blur_reference(input: &Buffer<u16>) -> Buffer<i32> {
    let blur_x =
        |x: i64, y: i64| -> i32 { (-1..=1).map(|dx| input.get(&[x + dx, y]) as i32).sum() };
    Buffer::from_fn(&OUT_MINS, &OUT_EXTENTS, |c| {
        (-1..=1).map(|dy| blur_x(c[0], c[1] + dy)).sum()
    })
}

fn blur_multi_dim(blur_x: &Function) -> Stmt {
    let (x, y) = (var("x"), var("y"));
    let (xmin, xext) = (field("out", "min", 0), field("out", "extent", 0));
    let (ymin, yext) = (field("out", "min", 1), field("out", "extent", 1));
    let input = |dx: i32| {
        cast(
            Type::i32(),
            image("in", Type::u16(), vec![x.clone() + dx, y.clone()]),
        )
    };
    let bx = |dy: i32| call(blur_x, Type::i32(), vec![x.clone(), y.clone() + dy], 0);
    let produce = serial(
        "y",
        ymin.clone() - 1,
        yext.clone() + 2,
        serial(
            "x",
            xmin.clone(),
            xext.clone(),
            provide(
                "blur_x",
                vec![x.clone(), y.clone()],
                vec![input(-1) + input(0) + input(1)],
            ),
        ),
    );
    let consume = serial(
        "y",
        ymin.clone(),
        yext.clone(),
        serial(
            "x",
            xmin.clone(),
            xext.clone(),
            provide(
                "out",
                vec![x.clone(), y.clone()],
                vec![bx(-1) + bx(0) + bx(1)],
            ),
        ),
    );
    realize(
        "blur_x",
        vec![Type::i32()],
        vec![(xmin, xext), (ymin - 1, yext + 2)],
        produce_consume("blur_x", produce, consume),
    )
}

#[test]
fn multi_dim_two_stage_pipeline_on_a_shifted_domain() {
    let blur_x = Function::new(sym("blur_x"));
    let (input, output) = blur_buffers();
    let want = blur_reference(&input);
    let mut interp = interpreter(vec![("in", input.into()), ("out", output.into())]);
    interp.run(&blur_multi_dim(&blur_x)).unwrap();
    assert_same(&take::<i32>(&mut interp, "out"), &want);
}

fn blur_flat() -> Stmt {
    let (x, y) = (var("x"), var("y"));
    let (xmin, xext) = (field("out", "min", 0), field("out", "extent", 0));
    let (ymin, yext) = (field("out", "min", 1), field("out", "extent", 1));
    let input = |dx: i32| {
        let index = flat_index("in", vec![x.clone() + dx, y.clone()]);
        cast(Type::i32(), load(Type::u16(), "in", index))
    };
    // blur_x is stored densely over [xmin, xmin + xext) x [ymin - 1, ymin + yext + 1).
    let bx_index =
        |dy: i32| (x.clone() - xmin.clone()) + (y.clone() + dy - (ymin.clone() - 1)) * xext.clone();
    let bx = |dy: i32| load(Type::i32(), "blur_x", bx_index(dy));
    let produce = serial(
        "y",
        ymin.clone() - 1,
        yext.clone() + 2,
        serial(
            "x",
            xmin.clone(),
            xext.clone(),
            store("blur_x", bx_index(0), input(-1) + input(0) + input(1)),
        ),
    );
    let out_index = flat_index("out", vec![x.clone(), y.clone()]);
    let consume = serial(
        "y",
        ymin.clone(),
        yext.clone(),
        serial(
            "x",
            xmin.clone(),
            xext.clone(),
            store("out", out_index, bx(-1) + bx(0) + bx(1)),
        ),
    );
    allocate(
        "blur_x",
        Type::i32(),
        vec![xext, yext + 2],
        produce_consume("blur_x", produce, consume),
    )
}

#[test]
fn flattened_pipeline_with_strided_buffers() {
    let (input, output) = blur_buffers();
    let want = blur_reference(&input);
    let mut interp = interpreter(vec![("in", input.into()), ("out", output.into())]);
    interp.run(&blur_flat()).unwrap();
    assert_same(&take::<i32>(&mut interp, "out"), &want);
}

#[test]
fn tuple_realizations_and_tuple_outputs() {
    // f(x) = {x * x, f32(x) / 2}; out(x) = {f(x)[1] + 1, f(x)[0] - x}, out bound as out.0/out.1.
    let f = Function::new(sym("f"));
    let x = var("x");
    let n = 12;
    let body = serial(
        "x",
        int(-3),
        int(n),
        provide(
            "f",
            vec![x.clone()],
            vec![x.clone() * x.clone(), cast(Type::f32(), x.clone()) / 2.0f32],
        ),
    );
    let consume = serial(
        "x",
        int(-3),
        int(n),
        provide(
            "out",
            vec![x.clone()],
            vec![
                call(&f, Type::f32(), vec![x.clone()], 1) + 1.0f32,
                call(&f, Type::i32(), vec![x.clone()], 0) - x.clone(),
            ],
        ),
    );
    let s = realize(
        "f",
        vec![Type::i32(), Type::f32()],
        vec![(int(-3), int(n))],
        produce_consume("f", body, consume),
    );
    let mut interp = interpreter(vec![
        ("out.0", Buffer::<f32>::with_mins(&[-3], &[n as i64]).into()),
        ("out.1", Buffer::<i32>::with_mins(&[-3], &[n as i64]).into()),
    ]);
    interp.run(&s).unwrap();
    let halves = take::<f32>(&mut interp, "out.0");
    let squares = take::<i32>(&mut interp, "out.1");
    for x in -3..(n as i64 - 3) {
        assert_eq!(halves.get(&[x]), x as f32 / 2.0 + 1.0);
        assert_eq!(squares.get(&[x]), (x * x - x) as i32);
    }
}

// ---- (c) vectors ------------------------------------------------------------------------

/// `out[x] = in[x] * 3 + in[0]` for x < out.extent, and `pairs[i] = in[2i] + in[2i + 1]` for
/// i < pairs.extent, both in vectors of `width` lanes with predicated tails, through vector
/// LetStmts.
fn vector_stmt(width: u16) -> Stmt {
    let w = width as i32;
    let base = var("base");
    let lanes = Type::i32().with_lanes(width);
    let idx = Expr::ramp(base.clone(), int(1), width);

    let n = field("out", "extent", 0);
    let in_tail = idx.clone().lt(n.clone());
    let v = Expr::var("v", lanes);
    let scaled = let_stmt(
        "v",
        load_if(lanes, "in", idx.clone(), in_tail.clone()),
        store_if(
            "out",
            idx.clone(),
            v * 3 + load(Type::i32(), "in", int(0)),
            Some(in_tail),
        ),
    );
    let scaled_loop = looped(
        ForKind::Unrolled,
        "xo",
        int(0),
        (n + (w - 1)) / w,
        let_stmt("base", var("xo") * w, scaled),
    );

    let m = field("pairs", "extent", 0);
    let pair_ok = idx.clone().lt(m.clone());
    let evens = Expr::ramp(base.clone() * 2, int(2), width);
    let odds = Expr::ramp(base.clone() * 2 + 1, int(2), width);
    let sum =
        load_if(lanes, "in", evens, pair_ok.clone()) + load_if(lanes, "in", odds, pair_ok.clone());
    let pairs_loop = looped(
        ForKind::Vectorized,
        "po",
        int(0),
        (m + (w - 1)) / w,
        let_stmt(
            "base",
            var("po") * w,
            let_stmt(
                "ok",
                pair_ok,
                store_if(
                    "pairs",
                    idx,
                    sum,
                    Some(Expr::var("ok", Type::bool_().with_lanes(width))),
                ),
            ),
        ),
    );
    Stmt::block([scaled_loop, pairs_loop])
}

#[test]
fn vector_loads_and_stores_with_ramps_broadcasts_and_predicated_tails() {
    let mut rng = SmallRng::seed_from_u64(test_seed("interp", 0x1a7e_9b3c));
    for case in 0..40 {
        let width = [2u16, 3, 4, 8, 16][rng.random_range(0..5)];
        let n = rng.random_range(1..70i64);
        let data: Vec<i32> = (0..n).map(|_| rng.random_range(-1000..1000)).collect();
        let mut interp = interpreter(vec![
            (
                "in",
                Buffer::from_fn(&[0], &[n], |c| data[c[0] as usize]).into(),
            ),
            ("out", Buffer::<i32>::new(&[n]).into()),
            ("pairs", Buffer::<i32>::new(&[n / 2]).into()),
        ]);
        interp
            .run(&vector_stmt(width))
            .unwrap_or_else(|e| panic!("case {case} (width {width}, n {n}): {e}"));
        let out = take::<i32>(&mut interp, "out");
        let pairs = take::<i32>(&mut interp, "pairs");
        for x in 0..n as usize {
            assert_eq!(out.data()[x], data[x] * 3 + data[0], "case {case} out[{x}]");
        }
        for i in 0..(n / 2) as usize {
            assert_eq!(
                pairs.data()[i],
                data[2 * i] + data[2 * i + 1],
                "case {case} pairs[{i}]"
            );
        }
        assert_eq!(
            interp.stats().stores[&sym("out")],
            n as u64,
            "only enabled lanes store"
        );
    }
}

#[test]
fn vector_provides_and_func_calls() {
    // f(x) = x * x over [0, 16) in vectors of 4; out(x) = f(15 - x) through descending ramps.
    let f = Function::new(sym("f"));
    let xo = var("xo");
    let up = Expr::ramp(xo.clone() * 4, int(1), 4);
    let down = Expr::ramp(int(15) - xo.clone() * 4, int(-1), 4);
    let s = realize(
        "f",
        vec![Type::i32()],
        vec![(int(0), int(16))],
        produce_consume(
            "f",
            serial(
                "xo",
                int(0),
                int(4),
                provide("f", vec![up.clone()], vec![up.clone() * up.clone()]),
            ),
            serial(
                "xo",
                int(0),
                int(4),
                provide("out", vec![up], vec![call(&f, Type::i32(), vec![down], 0)]),
            ),
        ),
    );
    let mut interp = interpreter(vec![("out", Buffer::<i32>::new(&[16]).into())]);
    interp.run(&s).unwrap();
    assert_eq!(interp.stats().provides[&sym("f")], 16);
    let out = take::<i32>(&mut interp, "out");
    for x in 0..16i64 {
        assert_eq!(out.get(&[x]), ((15 - x) * (15 - x)) as i32);
    }
}

// ---- (d) folded storage -----------------------------------------------------------------

/// `out(x, y) = f(x, y) + f(x, y + 1) + f(x, y + 2)` with `f(x, y) = 2 * in(x, y)`, computed
/// as a sliding window: each iteration of y computes one new row of f into storage folded
/// modulo `fold` rows, then one row of out.
fn sliding_window(fold: i32) -> Stmt {
    let (x, y) = (var("x"), var("y"));
    let (w, ymin, h) = (
        field("out", "extent", 0),
        field("out", "min", 1),
        field("out", "extent", 1),
    );
    let f = Function::new(sym("f"));
    let slot = |dy: i32| (y.clone() + dy) % fold;
    let f_row = |dy: i32| call(&f, Type::i32(), vec![x.clone(), slot(dy)], 0);
    let produce = serial(
        "x",
        int(0),
        w.clone(),
        provide(
            "f",
            vec![x.clone(), slot(0)],
            vec![image("in", Type::i32(), vec![x.clone(), y.clone()]) * 2],
        ),
    );
    let consume = Stmt::if_then(
        y.clone().ge(ymin.clone() + 2),
        serial(
            "x",
            int(0),
            w.clone(),
            provide(
                "out",
                vec![x.clone(), y.clone() - 2],
                vec![f_row(-2) + f_row(-1) + f_row(0)],
            ),
        ),
    );
    realize(
        "f",
        vec![Type::i32()],
        vec![(int(0), w), (int(0), int(fold))],
        serial("y", ymin, h + 2, produce_consume("f", produce, consume)),
    )
}

#[test]
fn folded_storage_as_a_sliding_window() {
    let (w, h, ymin) = (6i64, 9i64, -5i64);
    let input = Buffer::from_fn(&[0, ymin], &[w, h + 2], |c| pixel(c) as i32);
    let want = Buffer::from_fn(&[0, ymin], &[w, h], |c| {
        (0..3).map(|dy| 2 * input.get(&[c[0], c[1] + dy])).sum()
    });
    let buffers = || {
        vec![
            ("in", AnyBuffer::from(input.clone())),
            ("out", Buffer::<i32>::with_mins(&[0, ymin], &[w, h]).into()),
        ]
    };
    let mut interp = interpreter(buffers());
    interp.run(&sliding_window(4)).unwrap();
    let stats = interp.stats().clone();
    assert_same(&take::<i32>(&mut interp, "out"), &want);
    // Every row of f is computed once, into storage of 4 rows.
    assert_eq!(stats.provides[&sym("f")], (w * (h + 2)) as u64);
    assert_eq!(stats.allocation_elements[&sym("f")], (w * 4) as u64);
    assert_eq!(stats.allocations[&sym("f")], 1);

    // Folding by 2 keeps fewer rows than the window reads: no access leaves the realized box,
    // but rows are overwritten before they are read, and the result is wrong.
    let mut too_small = interpreter(buffers());
    too_small.run(&sliding_window(2)).unwrap();
    assert_ne!(take::<i32>(&mut too_small, "out"), want);
}

// ---- (e) parallel loops -----------------------------------------------------------------

#[test]
fn independent_parallel_iterations_give_the_same_result_for_every_seed() {
    let (w, h) = (5i64, 23i64);
    let input = Buffer::from_fn(&[0, 0], &[w, h], |c| pixel(c) as i32);
    let (x, y) = (var("x"), var("y"));
    let s = looped(
        ForKind::Parallel,
        "y",
        int(0),
        int(h as i32),
        serial(
            "x",
            int(0),
            int(w as i32),
            provide(
                "out",
                vec![x.clone(), y.clone()],
                vec![image("in", Type::i32(), vec![x, y.clone()]) * 3 + y],
            ),
        ),
    );
    let want = Buffer::from_fn(&[0, 0], &[w, h], |c| input.get(c) * 3 + c[1] as i32);
    for seed in 0..8 {
        let mut interp = interpreter(vec![
            ("in", input.clone().into()),
            ("out", Buffer::<i32>::new(&[w, h]).into()),
        ])
        .with_parallel_seed(seed);
        interp.run(&s).unwrap();
        assert_same(&take::<i32>(&mut interp, "out"), &want);
    }
}

#[test]
fn dependent_parallel_iterations_differ_across_seeds() {
    // out(0) = 1; parallel for x in [1, n): out(x) = out(x - 1) + 1. In order this is x + 1.
    let n = 16;
    let out = Function::new(sym("out"));
    let x = var("x");
    let s = Stmt::block([
        provide("out", vec![int(0)], vec![int(1)]),
        looped(
            ForKind::Parallel,
            "x",
            int(1),
            int(n - 1),
            provide(
                "out",
                vec![x.clone()],
                vec![call(&out, Type::i32(), vec![x - 1], 0) + 1],
            ),
        ),
    ]);
    let in_order: Vec<i32> = (1..=n).collect();
    let run = |seed| {
        let mut interp = interpreter(vec![("out", Buffer::<i32>::new(&[n as i64]).into())])
            .with_parallel_seed(seed);
        interp.run(&s).unwrap();
        take::<i32>(&mut interp, "out").data().to_vec()
    };
    let results: Vec<Vec<i32>> = (0..8).map(run).collect();
    assert!(results.iter().all(|r| *r != in_order), "{results:?}");
    assert!(results.iter().any(|r| *r != results[0]), "{results:?}");
    assert_eq!(run(3), results[3], "a seed always gives the same order");
    // The same loop run serially is the plain-loop result.
    let serial_stmt = Stmt::block([
        provide("out", vec![int(0)], vec![int(1)]),
        serial(
            "x",
            int(1),
            int(n - 1),
            provide(
                "out",
                vec![var("x")],
                vec![call(&out, Type::i32(), vec![var("x") - 1], 0) + 1],
            ),
        ),
    ]);
    let mut interp = interpreter(vec![("out", Buffer::<i32>::new(&[n as i64]).into())]);
    interp.run(&serial_stmt).unwrap();
    assert_eq!(take::<i32>(&mut interp, "out").data(), in_order.as_slice());
}

// ---- (f) errors -------------------------------------------------------------------------

#[test]
fn provide_outside_the_realized_box_names_func_coordinate_and_box() {
    let x = var("x");
    let s = realize(
        "f",
        vec![Type::i32()],
        vec![(int(0), int(4)), (int(-2), int(3))],
        serial(
            "x",
            int(0),
            int(5),
            provide("f", vec![x.clone(), int(-1)], vec![x]),
        ),
    );
    let message = run_err(&s, vec![]);
    assert!(
        message.contains("Provide to Func f at (4, -1)"),
        "{message}"
    );
    assert!(message.contains("[0, 4) x [-2, 1)"), "{message}");
}

#[test]
fn reading_a_func_outside_its_realization_is_an_error() {
    let f = Function::new(sym("f"));
    let s = realize(
        "f",
        vec![Type::i32()],
        vec![(int(0), int(4))],
        Stmt::block([
            serial(
                "x",
                int(0),
                int(4),
                provide("f", vec![var("x")], vec![var("x")]),
            ),
            provide(
                "out",
                vec![int(0)],
                vec![call(&f, Type::i32(), vec![int(-1)], 0)],
            ),
        ]),
    );
    let message = run_err(&s, vec![("out", Buffer::<i32>::new(&[1]).into())]);
    assert!(message.contains("call to Func f at (-1)"), "{message}");
    assert!(message.contains("[0, 4)"), "{message}");
}

#[test]
fn out_of_range_flat_accesses_are_errors() {
    let copy_from = |index: Expr| {
        allocate(
            "tmp",
            Type::i32(),
            vec![int(4)],
            store("out", int(0), load(Type::i32(), "tmp", index)),
        )
    };
    let out = || vec![("out", AnyBuffer::from(Buffer::<i32>::new(&[1])))];
    let message = run_err(&copy_from(int(4)), out());
    assert!(message.contains("Load from tmp[4]"), "{message}");
    assert!(message.contains("4 elements"), "{message}");
    assert!(run_err(&copy_from(int(-1)), out()).contains("tmp[-1]"));

    // Index 3 of a 3-wide row padded to a stride of 4 is padding, not an element.
    let padded = Buffer::from_parts(
        vec![0u8; 8],
        vec![
            Dim {
                min: 0,
                extent: 3,
                stride: 1,
            },
            Dim {
                min: 0,
                extent: 2,
                stride: 4,
            },
        ],
    )
    .unwrap();
    let s = store("padded", int(3), Expr::make_const(Type::u8(), 1));
    let message = run_err(&s, vec![("padded", padded.into())]);
    assert!(
        message.contains("Store to padded[3] is out of range"),
        "{message}"
    );
    assert!(message.contains("strides 1, 4"), "{message}");

    // A vector store without a tail predicate runs off the end.
    let s = store(
        "out",
        Expr::ramp(int(0), int(1), 4),
        Expr::i32(7).broadcast_to(4),
    );
    assert!(run_err(&s, out()).contains("out[1]"));
}

#[test]
fn failing_assertion_reports_its_message_with_values() {
    let x = var("x");
    let s = serial(
        "x",
        int(0),
        int(10),
        Stmt::new(StmtKind::Assert {
            condition: x.clone().lt(3),
            message: vec![
                MessagePart::Text("x is ".into()),
                MessagePart::Value(x.clone()),
                MessagePart::Text(" but must stay below ".into()),
                MessagePart::Value(int(3)),
            ],
        }),
    );
    assert_eq!(
        interpreter(vec![]).run(&s),
        Err(Error::Runtime("x is 3 but must stay below 3".into()))
    );
}

#[test]
fn missing_buffers_and_unbound_names_are_errors() {
    let call_missing = provide(
        "out",
        vec![int(0)],
        vec![image("missing", Type::i32(), vec![int(0)])],
    );
    let out = || vec![("out", AnyBuffer::from(Buffer::<i32>::new(&[1])))];
    let message = run_err(&call_missing, out());
    assert!(message.contains("input image missing"), "{message}");
    let load_missing = store("out", int(0), load(Type::i32(), "missing", int(0)));
    assert!(run_err(&load_missing, out()).contains("missing"));
    let unbound_output = provide("nowhere", vec![int(0)], vec![int(0)]);
    assert!(run_err(&unbound_output, vec![]).contains("nowhere"));
    let unbound_param = store("out", int(0), field("missing", "min", 0));
    assert!(run_err(&unbound_param, out()).contains("missing.min.0"));
    // Taking a buffer unbinds its fields too.
    let mut interp = interpreter(out());
    interp.take_buffer(sym("out"));
    assert!(interp
        .run(&store("out", int(0), field("out", "min", 0)))
        .is_err());
}

// ---- (g) statistics and garbage ---------------------------------------------------------

#[test]
fn stats_count_provides_stores_and_allocations() {
    // out(x) = 0; out(x) = out(x) + x (two stages), then for y in [0, 3) a fresh tmp of y + 1
    // elements filled by one predicated 4-lane store.
    let out = Function::new(sym("out"));
    let (x, y) = (var("x"), var("y"));
    let lanes = Expr::ramp(int(0), int(1), 4);
    let s = Stmt::block([
        serial(
            "x",
            int(0),
            int(10),
            provide("out", vec![x.clone()], vec![int(0)]),
        ),
        serial(
            "x",
            int(0),
            int(10),
            provide(
                "out",
                vec![x.clone()],
                vec![call(&out, Type::i32(), vec![x.clone()], 0) + x],
            ),
        ),
        serial(
            "y",
            int(0),
            int(3),
            allocate(
                "tmp",
                Type::i32(),
                vec![y.clone() + 1],
                store_if("tmp", lanes.clone(), lanes.clone(), Some(lanes.lt(y + 1))),
            ),
        ),
    ]);
    let mut interp = interpreter(vec![("out", Buffer::<i32>::new(&[10]).into())]);
    interp.run(&s).unwrap();
    let stats = interp.stats();
    assert_eq!(stats.provides[&sym("out")], 20);
    assert_eq!(stats.stores[&sym("tmp")], 1 + 2 + 3);
    assert_eq!(stats.allocations[&sym("tmp")], 3);
    assert_eq!(stats.allocation_elements[&sym("tmp")], 3);
    assert!(!stats.provides.contains_key(&sym("tmp")));
    let want: Vec<i32> = (0..10).collect();
    assert_eq!(take::<i32>(&mut interp, "out").data(), want.as_slice());
    // A second run starts counting afresh.
    interp.bind_buffer(sym("out"), Buffer::<i32>::new(&[10]).into());
    interp.run(&s).unwrap();
    assert_eq!(interp.stats().provides[&sym("out")], 20);
}

#[test]
fn fresh_storage_holds_deterministic_garbage() {
    // Copies 16 never-written elements of an allocation and of a realization to outputs.
    let f = Function::new(sym("f"));
    let x = var("x");
    let s = Stmt::block([
        allocate(
            "tmp",
            Type::i32(),
            vec![int(16)],
            serial(
                "x",
                int(0),
                int(16),
                store("flat", x.clone(), load(Type::i32(), "tmp", x.clone())),
            ),
        ),
        realize(
            "f",
            vec![Type::u8()],
            vec![(int(0), int(16))],
            serial(
                "x",
                int(0),
                int(16),
                provide(
                    "multi",
                    vec![x.clone()],
                    vec![call(&f, Type::u8(), vec![x], 0)],
                ),
            ),
        ),
    ]);
    let run = || {
        let mut interp = interpreter(vec![
            ("flat", Buffer::<i32>::new(&[16]).into()),
            ("multi", Buffer::<u8>::new(&[16]).into()),
        ]);
        interp.run(&s).unwrap();
        (
            take::<i32>(&mut interp, "flat").data().to_vec(),
            take::<u8>(&mut interp, "multi").data().to_vec(),
        )
    };
    let (flat, multi) = run();
    assert!(flat.iter().filter(|&&v| v == 0).count() <= 1, "{flat:?}");
    assert!(multi.iter().filter(|&&v| v == 0).count() <= 2, "{multi:?}");
    assert_eq!(run(), (flat, multi), "the garbage is the same on every run");
}

#[test]
fn vector_let_bindings_are_read_per_lane_and_params_bind() {
    // let v = ramp(k, 10, 4) in out[ramp(0, 1, 4)] = v + broadcast(k) with k a bound param.
    let lanes = Type::i32().with_lanes(4);
    let k = Expr::new(Type::i32(), ExprKind::Param(sym("k"), None));
    let s = let_stmt(
        "v",
        Expr::ramp(k.clone(), int(10), 4),
        store(
            "out",
            Expr::ramp(int(0), int(1), 4),
            Expr::var("v", lanes) + k.broadcast_to(4),
        ),
    );
    let mut interp = interpreter(vec![("out", Buffer::<i32>::new(&[4]).into())]);
    interp.bind_param(sym("k"), Value::Int(5));
    interp.run(&s).unwrap();
    assert_eq!(
        interp.buffer(sym("out")).unwrap().get_flat(3),
        Some(Value::Int(40))
    );
    assert_eq!(take::<i32>(&mut interp, "out").data(), &[10, 20, 30, 40]);
}

// ---- forks and semaphores -------------------------------------------------------------

fn semaphore(name: &str, initial: i32, body: Stmt) -> Stmt {
    Stmt::new(StmtKind::Semaphore {
        name: sym(name),
        initial: int(initial),
        body,
    })
}
fn acquire(semaphore: &str) -> Stmt {
    Stmt::new(StmtKind::Acquire {
        semaphore: sym(semaphore),
        count: int(1),
    })
}
fn release(semaphore: &str) -> Stmt {
    Stmt::new(StmtKind::Release {
        semaphore: sym(semaphore),
        count: int(1),
    })
}
fn fork(first: Stmt, rest: Stmt) -> Stmt {
    Stmt::new(StmtKind::Fork { first, rest })
}

#[test]
fn the_sides_of_a_fork_interleave_at_semaphore_waits() {
    // Ping-pong: each side waits for the other every iteration, which neither order of
    // running one side to its end could satisfy.
    let i = var("i");
    let producer = serial(
        "i",
        int(0),
        int(3),
        Stmt::block([
            store("out", i.clone() * 2, i.clone() * 10),
            release("produced"),
            acquire("consumed"),
        ]),
    );
    let consumer = serial(
        "i",
        int(0),
        int(3),
        Stmt::block([
            acquire("produced"),
            store(
                "out",
                i.clone() * 2 + 1,
                load(Type::i32(), "out", i.clone() * 2) + 1,
            ),
            release("consumed"),
        ]),
    );
    let s = semaphore(
        "produced",
        0,
        semaphore("consumed", 0, fork(producer, consumer)),
    );
    let mut interp = interpreter(vec![("out", Buffer::<i32>::new(&[6]).into())]);
    interp.run(&s).unwrap();
    assert_eq!(
        take::<i32>(&mut interp, "out").data(),
        &[0, 1, 10, 11, 20, 21]
    );
    assert_eq!(interp.stats().stores[&sym("out")], 6);
}

#[test]
fn a_fork_whose_sides_wait_for_what_no_side_releases_is_a_deadlock_error() {
    let s = semaphore("never", 0, fork(acquire("never"), acquire("never")));
    let e = interpreter(vec![]).run(&s).unwrap_err().to_string();
    assert!(e.contains("deadlock"), "{e}");
}

#[test]
fn a_failing_side_ends_the_fork_with_its_error_while_the_other_waits() {
    let fail = Stmt::new(StmtKind::Assert {
        condition: Expr::bool_(false),
        message: vec![MessagePart::Text("the producer failed".into())],
    });
    let s = semaphore("produced", 0, fork(fail, acquire("produced")));
    let e = interpreter(vec![]).run(&s).unwrap_err().to_string();
    assert!(e.contains("the producer failed"), "{e}");
}
