//! Statements on the JIT against the interpreter: every kind of vector load and store (dense,
//! strided, gathered, broadcast, predicated tails, scatters with repeated indices), buffers
//! with mins and padded strides, parallel and nested parallel loops, allocations on the stack
//! and the heap (also inside parallel loops), bools in memory, failing assertions with their
//! messages, and the errors of bad calls.

mod llvm_common;

use llvm_common::*;
use tessera::codegen::{compile_jit, Target};
use tessera::eval::value::Value;
use tessera::ir::{BinaryOp, Expr, ExprKind, ForKind, MessagePart, Stmt, StmtKind, Type};
use tessera::lang::buffer::{AnyBuffer, Buffer, Dim};
use tessera::Error;

fn ramp(base: Expr, stride: i32, lanes: u16) -> Expr {
    Expr::ramp(base, int(stride), lanes)
}
fn sub(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Sub, a, b)
}
fn bcast(e: Expr, lanes: u16) -> Expr {
    e.broadcast_to(lanes)
}
fn f32s(n: i64) -> Buffer<f32> {
    Buffer::from_fn(&[0], &[n], |c| (c[0] as f32) * 0.5 - 7.0)
}
fn assert_stmt(condition: Expr, message: Vec<MessagePart>) -> Stmt {
    Stmt::new(StmtKind::Assert { condition, message })
}
fn text(t: &str) -> MessagePart {
    MessagePart::Text(t.into())
}

#[test]
fn dense_strided_gathered_and_broadcast_loads() {
    let f = Type::f32().with_lanes(16);
    let x16 = mul(var("x"), int(16));
    let out = |name: &str, value: Expr| {
        serial(
            "x",
            int(0),
            int(4),
            store(name, ramp(x16.clone(), 1, 16), value),
        )
    };
    let gathered_index = bin(
        BinaryOp::Mod,
        mul(ramp(x16.clone(), 1, 16), bcast(int(7), 16)),
        bcast(int(101), 16),
    );
    let s = Stmt::block([
        out(
            "dense",
            add(
                load(f, "in", ramp(x16.clone(), 1, 16)),
                load(f, "in", ramp(add(x16.clone(), int(1)), 1, 16)),
            ),
        ),
        out(
            "stride2",
            load(f, "in", ramp(mul(x16.clone(), int(2)), 2, 16)),
        ),
        out(
            "stride3",
            load(f, "in", ramp(mul(x16.clone(), int(3)), 3, 16)),
        ),
        out(
            "stride4",
            load(f, "in", ramp(mul(x16.clone(), int(2)), 4, 16)),
        ),
        serial(
            "x",
            int(0),
            int(8),
            store(
                "stride3_5lanes",
                ramp(mul(var("x"), int(5)), 1, 5),
                load(
                    Type::f32().with_lanes(5),
                    "in",
                    ramp(mul(var("x"), int(7)), 3, 5),
                ),
            ),
        ),
        out(
            "reversed",
            load(f, "in", ramp(add(x16.clone(), int(100)), -1, 16)),
        ),
        out("gathered", load(f, "in", gathered_index)),
        out("broadcast", load(f, "in", bcast(var("x"), 16))),
    ]);
    let mut case = Case::new(s).image("in", f32s(200));
    for name in [
        "dense",
        "stride2",
        "stride3",
        "stride4",
        "stride3_5lanes",
        "reversed",
        "gathered",
        "broadcast",
    ] {
        case = case.output(name, Buffer::<f32>::new(&[64]));
    }
    case.check();
}

#[test]
fn predicated_tails_and_scatters() {
    let n = 37;
    let i16x16 = Type::i16().with_lanes(16);
    let index = ramp(mul(var("x"), int(16)), 1, 16);
    let inside = lt(index.clone(), bcast(int(n), 16));
    let doubled = mul(
        load_if(i16x16, "in", index.clone(), inside.clone()),
        bcast(Expr::int(2, 16), 16),
    );
    // Lanes past the end neither load nor store; the scatter writes every other element.
    let s = Stmt::block([
        serial(
            "x",
            int(0),
            int(3),
            store_if(
                "dense",
                index.clone(),
                doubled.clone(),
                Some(inside.clone()),
            ),
        ),
        serial(
            "x",
            int(0),
            int(3),
            store_if(
                "scattered",
                mul(index.clone(), bcast(int(2), 16)),
                doubled,
                Some(inside),
            ),
        ),
        // Lanes 0..3 store to 0, 4..7 to 1, ...: the last lane of each group wins.
        serial(
            "x",
            int(0),
            int(2),
            store(
                "repeated",
                bin(BinaryOp::Div, index.clone(), bcast(int(4), 16)),
                load(i16x16, "in", index),
            ),
        ),
    ]);
    let input = Buffer::<i16>::from_fn(&[0], &[n as i64], |c| (c[0] * 1000 - 3000) as i16);
    Case::new(s)
        .image("in", input)
        .output("dense", Buffer::<i16>::new(&[n as i64]))
        .output("scattered", Buffer::<i16>::new(&[2 * n as i64]))
        .output("repeated", Buffer::<i16>::new(&[8]))
        .check();
}

#[test]
fn unsigned_indices_address_past_the_signed_range() {
    // u16 indices above 32767: a scalar, a dense vector and a gathered vector access.
    let u16t = Type::u16();
    let k = |v: i64| Expr::make_const(u16t, v);
    let base = add_u16(k(33000), Expr::cast(u16t, mul(var("x"), int(8))));
    let dense = Expr::ramp(base.clone(), k(1), 8);
    let gathered = bin(
        BinaryOp::Mul,
        Expr::ramp(Expr::cast(u16t, var("x")), k(1), 8),
        k(3900).broadcast_to(8),
    );
    let t = Type::u8().with_lanes(8);
    let s = serial(
        "x",
        int(0),
        int(4),
        Stmt::block([
            store(
                "out",
                dense.clone(),
                add(load(t, "in", dense), load(t, "in", gathered)),
            ),
            store("out", base.clone(), load(Type::u8(), "in", base)),
        ]),
    );
    let input = Buffer::<u8>::from_fn(&[0], &[40000], |c| (c[0] % 251) as u8);
    Case::new(s)
        .image("in", input)
        .output("out", Buffer::<u8>::new(&[40000]))
        .check();
}

fn add_u16(a: Expr, b: Expr) -> Expr {
    bin(BinaryOp::Add, a, b)
}

#[test]
fn odd_lane_counts() {
    for lanes in [2u16, 3, 5, 7, 32] {
        let t = Type::u8().with_lanes(lanes);
        let index = ramp(mul(var("x"), int(lanes as i32)), 1, lanes);
        let value = add(
            load(t, "in", index.clone()),
            bcast(Expr::make_const(Type::u8(), 200), lanes),
        );
        // A loop the vectorizer left behind runs serially.
        let s = looped(
            ForKind::Vectorized,
            "x",
            int(0),
            int(6),
            store("out", index, value),
        );
        let input = Buffer::<u8>::from_fn(&[0], &[6 * lanes as i64], |c| (c[0] * 37) as u8);
        Case::new(s)
            .image("in", input)
            .output("out", Buffer::<u8>::new(&[6 * lanes as i64]))
            .check();
    }
}

/// `out(x, y) = in(x, y) + in(x + 1, y)` over the output's box, addressed through the buffer
/// fields, vectorized by 8 with a predicated tail.
fn box_stmt() -> Stmt {
    let lanes = 8;
    let t = Type::i32().with_lanes(lanes);
    let x = add(field("out", "min", 0), mul(var("xo"), int(lanes as i32)));
    let xs = ramp(x, 1, lanes);
    let row = |buffer: &str, dx: i32| {
        let col = sub(
            add(xs.clone(), bcast(int(dx), lanes)),
            bcast(field(buffer, "min", 0), lanes),
        );
        let line = mul(
            sub(var("y"), field(buffer, "min", 1)),
            field(buffer, "stride", 1),
        );
        add(col, bcast(line, lanes))
    };
    let end = add(field("out", "min", 0), field("out", "extent", 0));
    let inside = lt(xs.clone(), bcast(end, lanes));
    let value = add(load(t, "in", row("in", 0)), load(t, "in", row("in", 1)));
    let chunks = bin(
        BinaryOp::Div,
        add(field("out", "extent", 0), int(lanes as i32 - 1)),
        int(lanes as i32),
    );
    parallel(
        "y",
        field("out", "min", 1),
        field("out", "extent", 1),
        serial(
            "xo",
            int(0),
            chunks,
            store_if("out", row("out", 0), value, Some(inside)),
        ),
    )
}

#[test]
fn buffers_with_mins_and_padded_strides() {
    let (w, h) = (21i64, 6i64);
    // The input covers x in [-3, 19), y in [5, 11), rows padded to 32 elements.
    let data: Vec<i32> = (0..32 * h as i32).map(|i| i * 3 - 50).collect();
    let input = Buffer::from_parts(
        data,
        vec![
            Dim {
                min: -3,
                extent: 22,
                stride: 1,
            },
            Dim {
                min: 5,
                extent: h,
                stride: 32,
            },
        ],
    )
    .expect("fits");
    let output = Buffer::<i32>::with_mins(&[-3, 5], &[w, h]);
    Case::new(box_stmt())
        .image("in", input)
        .output("out", output)
        .check();
}

#[test]
fn runs_concurrently_from_many_threads() {
    let input = Buffer::<i32>::from_fn(&[0, 0], &[65, 40], |c| (c[0] * 7 + c[1] * 13) as i32);
    let case = Case::new(box_stmt())
        .image("in", input)
        .output("out", Buffer::<i32>::new(&[64, 40]));
    let expected = case.interpret().expect("runs");
    // SAFETY: the statement stays inside its buffers (the interpreter, which checks every
    // access, runs it too).
    let compiled =
        unsafe { compile_jit(&case.stmt, &case.signature(), &Target::host()) }.expect("compiles");
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                for _ in 0..20 {
                    let mut out = case.outputs[0].1.clone();
                    let images = [(case.images[0].0, &case.images[0].1)];
                    compiled.run(&mut [&mut out], &images, &[]).expect("runs");
                    assert_same(case.outputs[0].0, &expected[0], &out, &case.stmt);
                }
            });
        }
    });
}

#[test]
fn parallel_tasks_capture_vectors_and_lets() {
    // A 16-lane f32 (64-byte aligned) and an i8 let captured by a parallel loop's closure.
    let f16 = Type::f32().with_lanes(16);
    let weights = Expr::ramp(Expr::f32(0.5), Expr::f32(0.25), 16);
    let body = store(
        "out",
        ramp(mul(var("y"), int(16)), 1, 16),
        add(
            mul(
                load(f16, "in", ramp(mul(var("y"), int(16)), 1, 16)),
                Expr::var("w", f16),
            ),
            Expr::cast(f16, Expr::var("k", Type::i8()).broadcast_to(16)),
        ),
    );
    let s = let_stmt(
        "w",
        weights,
        let_stmt("k", Expr::int(-3, 8), parallel("y", int(0), int(8), body)),
    );
    Case::new(s)
        .image("in", f32s(128))
        .output("out", Buffer::<f32>::new(&[128]))
        .check();
}

#[test]
fn compiles_concurrently_from_many_threads() {
    let input = Buffer::<i32>::from_fn(&[0, 0], &[33, 9], |c| (c[0] * 5 - c[1]) as i32);
    let case = Case::new(box_stmt())
        .image("in", input)
        .output("out", Buffer::<i32>::new(&[32, 9]));
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                for _ in 0..3 {
                    case.check();
                }
            });
        }
    });
}

#[test]
fn nested_parallel_loops_with_allocations() {
    // parallel y { allocate row[W] on the stack; parallel x { row[x] = in(x, y) * 3 };
    //   allocate big[n] on the heap (n a parameter); for x { big[x] = row[x] + 1 };
    //   for x { out(x, y) = big[x] + big[W - 1 - x] } }
    let w = 50;
    let at = |x: Expr| add(x, mul(var("y"), int(w)));
    let fill_row = parallel(
        "x",
        int(0),
        int(w),
        store(
            "row",
            var("x"),
            mul(load(Type::i32(), "in", at(var("x"))), int(3)),
        ),
    );
    let fill_big = serial(
        "x",
        int(0),
        int(w),
        store(
            "big",
            var("x"),
            add(load(Type::i32(), "row", var("x")), int(1)),
        ),
    );
    let use_big = serial(
        "x",
        int(0),
        int(w),
        store(
            "out",
            at(var("x")),
            add(
                load(Type::i32(), "big", var("x")),
                load(Type::i32(), "big", sub(int(w - 1), var("x"))),
            ),
        ),
    );
    let n = Expr::new(Type::i32(), ExprKind::Param(sym("n"), None));
    let body = allocate(
        "row",
        Type::i32(),
        vec![int(w)],
        Stmt::block([
            fill_row,
            allocate(
                "big",
                Type::i32(),
                vec![n, int(1)],
                Stmt::block([fill_big, use_big]),
            ),
        ]),
    );
    let input = Buffer::<i32>::from_fn(&[0], &[w as i64 * 30], |c| c[0] as i32 - 700);
    let case = Case::new(parallel("y", int(0), int(30), body))
        .image("in", input)
        .output("out", Buffer::<i32>::new(&[w as i64 * 30]))
        .param("n", Type::i32(), Value::Int(100_000));
    case.check();
    // A large constant-size allocation goes on the heap too.
    let big = allocate(
        "tmp",
        Type::f64(),
        vec![int(4096), int(4)],
        Stmt::block([
            serial(
                "x",
                int(0),
                int(10),
                store("tmp", mul(var("x"), int(1000)), Expr::f64(2.5)),
            ),
            serial(
                "x",
                int(0),
                int(10),
                store(
                    "out",
                    var("x"),
                    load(Type::f64(), "tmp", mul(var("x"), int(1000))),
                ),
            ),
        ]),
    );
    Case::new(big)
        .output("out", Buffer::<f64>::new(&[10]))
        .check();
}

#[test]
fn bools_in_memory_and_vector_lets() {
    let lanes = 8;
    let t = Type::u8().with_lanes(lanes);
    let index = ramp(mul(var("x"), int(lanes as i32)), 1, lanes);
    let value = load(t, "in", index.clone());
    let is_big = bin(
        BinaryOp::Gt,
        value.clone(),
        bcast(Expr::make_const(Type::u8(), 100), lanes),
    );
    let bools = Type::bool_().with_lanes(lanes);
    let s = serial(
        "x",
        int(0),
        int(4),
        allocate(
            "flags",
            Type::bool_(),
            vec![int(lanes as i32)],
            Stmt::block([
                store("flags", ramp(int(0), 1, lanes), is_big),
                let_stmt(
                    "v",
                    value,
                    Stmt::block([
                        store(
                            "big",
                            index.clone(),
                            load(bools, "flags", ramp(int(0), 1, lanes)),
                        ),
                        store(
                            "picked",
                            index.clone(),
                            Expr::select(
                                load(bools, "flags", ramp(int(lanes as i32 - 1), -1, lanes)),
                                Expr::var("v", t),
                                bcast(Expr::make_const(Type::u8(), 7), lanes),
                            ),
                        ),
                    ]),
                ),
            ]),
        ),
    );
    let input = Buffer::<u8>::from_fn(&[0], &[32], |c| (c[0] * 41 % 256) as u8);
    Case::new(s)
        .image("in", input)
        .output("big", Buffer::<bool>::new(&[32]))
        .output("picked", Buffer::<u8>::new(&[32]))
        .check();
}

#[test]
fn control_flow_and_scalar_params() {
    let k = Expr::new(Type::f32(), ExprKind::Param(sym("k"), None));
    let on = Expr::new(Type::bool_(), ExprKind::Param(sym("on"), None));
    let x = var("x");
    let s = serial(
        "x",
        int(-5),
        int(20),
        Stmt::new(StmtKind::IfThenElse {
            condition: bin(BinaryOp::And, on, lt(x.clone(), int(3))),
            then_case: store(
                "out",
                add(x.clone(), int(5)),
                mul(Expr::cast(Type::f32(), x.clone()), k),
            ),
            else_case: Some(store(
                "out",
                add(x.clone(), int(5)),
                Expr::let_in(sym("t"), Expr::f32(1.5), Expr::var("t", Type::f32())),
            )),
        }),
    );
    for on in [false, true] {
        Case::new(s.clone())
            .output("out", Buffer::<f32>::new(&[20]))
            .param("k", Type::f32(), Value::F32(-0.75))
            .param("on", Type::bool_(), Value::Bool(on))
            .check();
    }
}

#[test]
fn failing_assertions_report_the_interpreters_message() {
    let limit = Expr::new(Type::i32(), ExprKind::Param(sym("limit"), None));
    let message = vec![
        text("x = "),
        MessagePart::Value(var("x")),
        text(" reached the limit "),
        MessagePart::Value(limit.clone()),
        text(", lanes "),
        MessagePart::Value(Expr::ramp(Expr::f32(0.5), Expr::f32(0.25), 3)),
    ];
    let check = assert_stmt(lt(var("x"), limit), message);
    // Serially, and inside a parallel loop holding a heap allocation (freed on the way out).
    let serial_case = Case::new(serial(
        "x",
        int(0),
        int(10),
        Stmt::block([check.clone(), store("out", var("x"), var("x"))]),
    ));
    let in_parallel = Case::new(parallel(
        "y",
        int(0),
        int(4),
        allocate(
            "tmp",
            Type::i32(),
            vec![
                Expr::new(Type::i32(), ExprKind::Param(sym("limit"), None)),
                int(10000),
            ],
            serial(
                "x",
                int(0),
                int(10),
                Stmt::block([check, store("out", var("x"), var("x"))]),
            ),
        ),
    ));
    for case in [serial_case, in_parallel] {
        let case = case.output("out", Buffer::<i32>::new(&[10])).param(
            "limit",
            Type::i32(),
            Value::Int(6),
        );
        let expected = case.interpret().expect_err("the assertion fails");
        let got = case.jit().expect_err("the assertion fails");
        assert_eq!(got, expected);
        assert_eq!(
            got,
            Error::Runtime("x = 6 reached the limit 6, lanes [0.5, 0.75, 1]".into())
        );
    }
    // A negative allocation extent is an error too.
    let case = Case::new(allocate(
        "tmp",
        Type::u8(),
        vec![
            int(4),
            Expr::new(Type::i32(), ExprKind::Param(sym("limit"), None)),
        ],
        Stmt::empty(),
    ))
    .param("limit", Type::i32(), Value::Int(-3));
    let Err(Error::Runtime(message)) = case.jit() else {
        panic!("a negative extent fails")
    };
    assert!(message.contains("extent -3 in dimension 1"), "{message}");
}

#[test]
fn errors_under_the_same_heap_allocations_keep_their_own_messages() {
    // Errors share one exit per set of live heap allocations (which frees them): assertions
    // under one and under two allocations, two of them under the same ones; whichever
    // fails, its own message comes out, as in the interpreter, and a run without a failure
    // stores its value.
    let which = || Expr::new(Type::i32(), ExprKind::Param(sym("which"), None));
    let check = |k: i32| {
        assert_stmt(
            bin(BinaryOp::Ne, which(), int(k)),
            vec![
                text(&format!("assertion {k} failed at which = ")),
                MessagePart::Value(which()),
            ],
        )
    };
    let on_heap = |buffer: &str, body: Stmt| {
        allocate(buffer, Type::i32(), vec![add(which(), int(100_000))], body)
    };
    let stmt = on_heap(
        "a",
        Stmt::block([
            check(1),
            on_heap(
                "b",
                Stmt::block([check(2), store("out", int(0), int(7)), check(3)]),
            ),
            check(4),
        ]),
    );
    for k in 0..=4 {
        let case = Case::new(stmt.clone())
            .output("out", Buffer::<i32>::new(&[1]))
            .param("which", Type::i32(), Value::Int(k.into()));
        if k == 0 {
            case.check();
            continue;
        }
        let expected = case.interpret().expect_err("the assertion fails");
        let got = case.jit().expect_err("the assertion fails");
        assert_eq!(got, expected);
        assert_eq!(
            got,
            Error::Runtime(format!("assertion {k} failed at which = {k}"))
        );
    }
}

#[test]
fn bad_arguments_and_unsupported_statements_are_errors() {
    let s = serial(
        "x",
        int(0),
        int(4),
        store("out", var("x"), load(Type::u8(), "in", var("x"))),
    );
    let case = Case::new(s)
        .image("in", Buffer::<u8>::new(&[4]))
        .output("out", Buffer::<u8>::new(&[4]));
    // SAFETY: the statement stays inside its buffers (the interpreter, which checks every
    // access, runs it too).
    let compiled =
        unsafe { compile_jit(&case.stmt, &case.signature(), &Target::host()) }.expect("compiles");
    let wrong: AnyBuffer = Buffer::<u16>::new(&[4]).into();
    let mut out = case.outputs[0].1.clone();
    let err = compiled.run(&mut [&mut out], &[(sym("in"), &wrong)], &[]);
    assert!(matches!(err, Err(Error::Buffer(m)) if m.contains("image in is u8")));
    let err = compiled.run(&mut [&mut out], &[], &[]);
    assert!(matches!(err, Err(Error::Buffer(m)) if m.contains("no buffer was given")));
    // An undefined name and a type mismatch fail at compile time.
    let undefined = Case::new(store(
        "out",
        var("nowhere"),
        Expr::make_const(Type::u8(), 1),
    ))
    .output("out", Buffer::<u8>::new(&[4]));
    assert!(matches!(undefined.jit(), Err(Error::Codegen(m)) if m.contains("nowhere")));
    let mismatch =
        Case::new(store("out", int(0), Expr::f32(1.0))).output("out", Buffer::<u8>::new(&[4]));
    assert!(matches!(mismatch.jit(), Err(Error::Codegen(m)) if m.contains("holds u8")));
    let lanes = Case::new(store(
        "out",
        int(0),
        Expr::make_const(Type::u8(), 1).broadcast_to(4),
    ))
    .output("out", Buffer::<u8>::new(&[4]));
    assert!(matches!(lanes.jit(), Err(Error::Codegen(m)) if m.contains("of 1 lanes")));
}
