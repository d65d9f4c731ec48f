//! The statement verifier (`lower::verify`) on statements built by hand: a well-formed one
//! passes, and each kind of ill-formed one is reported with the pass named, the problem, the
//! node and the loops around it. (That every pass of every test and app schedule makes
//! well-formed statements is checked by running the verifier in all of them: it is on by
//! default in tests.)

use tessera::codegen::signature::{BufferArgument, ScalarArgument, Signature};
use tessera::ir::{BinaryOp, Expr, ExprKind, ForKind, Range, Stmt, StmtKind, Symbol, Type};
use tessera::lang::image_param::{buffer_field, ImageParam};
use tessera::lower::verify::{Phase, Verifier};
use tessera::lower::LowerOptions;
use tessera::prelude::*;

/// A pipeline writing a 1-D u8 output `out` from a 1-D u8 image `input`, with an i32
/// parameter `k`.
fn verifier() -> Verifier {
    let buffer = |name: &str| BufferArgument {
        name: Symbol::new(name),
        ty: Type::u8(),
        dims: 1,
        nontemporal: false,
    };
    let signature = Signature {
        outputs: vec![buffer("out")],
        images: vec![buffer("input")],
        params: vec![ScalarArgument {
            name: Symbol::new("k"),
            ty: Type::i32(),
        }],
    };
    Verifier::new(Symbol::new("out"), &signature)
}

fn i32_var(name: &str) -> Expr {
    Expr::var(name, Type::i32())
}

fn field(buffer: &str, field: &str) -> Expr {
    Expr::var(buffer_field(Symbol::new(buffer), field, 0), Type::i32())
}

/// `for x in out's extent: body`, x counting from the output's min.
fn over_output(body: Stmt) -> Stmt {
    Stmt::for_loop(
        Symbol::new("x"),
        field("out", "min"),
        field("out", "extent"),
        ForKind::Serial,
        body,
    )
}

fn store(buffer: &str, index: Expr, value: Expr) -> Stmt {
    Stmt::new(StmtKind::Store {
        buffer: Symbol::new(buffer),
        index,
        value,
        predicate: None,
    })
}

/// `x - out.min.0`, the flat index of point x of the output.
fn output_index() -> Expr {
    Expr::binary(BinaryOp::Sub, i32_var("x"), field("out", "min"))
}

/// The error the verifier gives for `s` after a pass named `broken_pass`.
fn error(s: &Stmt, phase: Phase) -> String {
    match verifier().check("broken_pass", s, phase) {
        Ok(()) => panic!("the verifier accepts\n{s}"),
        Err(e) => e.to_string(),
    }
}

fn assert_mentions(message: &str, parts: &[&str]) {
    for part in parts {
        assert!(message.contains(part), "{part:?} is not in: {message}");
    }
}

#[test]
fn a_well_formed_flat_statement_passes() {
    // let t = k in allocate tmp[4] { tmp[0] = input[x - input.min.0]; out[x - out.min.0] = tmp[0] }
    let read_input = Expr::load(
        Type::u8(),
        Symbol::new("input"),
        Expr::binary(BinaryOp::Sub, i32_var("x"), field("input", "min")),
    );
    let body = Stmt::block([
        store("tmp", Expr::i32(0), read_input),
        store(
            "out",
            output_index(),
            Expr::load(Type::u8(), Symbol::new("tmp"), i32_var("t")),
        ),
        Stmt::new(StmtKind::Free {
            buffer: Symbol::new("tmp"),
        }),
    ]);
    let s = Stmt::let_stmt(
        Symbol::new("t"),
        Expr::new(Type::i32(), ExprKind::Param(Symbol::new("k"), None)),
        over_output(Stmt::allocate(
            Symbol::new("tmp"),
            Type::u8(),
            vec![Expr::i32(4)],
            body,
        )),
    );
    verifier()
        .check("a_pass", &s, Phase::Flattened)
        .unwrap_or_else(|e| panic!("{e}\n{s}"));
}

#[test]
fn an_unbound_variable_is_named_with_the_pass_and_the_loops_around_it() {
    let s = over_output(store("out", i32_var("y"), Expr::u64_const(Type::u8(), 1)));
    let message = error(&s, Phase::Flattened);
    assert_mentions(
        &message,
        &[
            "internal error",
            "lowering pass broken_pass",
            "y is not bound here",
            "at: y",
            "in: out[y] = ",
            "inside: for x",
        ],
    );
}

#[test]
fn a_variable_read_with_another_type_than_bound_is_reported() {
    let s = Stmt::let_stmt(
        Symbol::new("t"),
        Expr::int(3, 16),
        over_output(store("out", i32_var("t"), Expr::u64_const(Type::u8(), 1))),
    );
    assert_mentions(
        &error(&s, Phase::Flattened),
        &["t is read as i32 but bound to i16"],
    );
}

#[test]
fn operands_of_different_types_are_reported() {
    // Built directly: `Expr::binary` refuses it.
    let mixed = Expr::new(
        Type::i32(),
        ExprKind::Binary(BinaryOp::Add, i32_var("x"), Expr::int(1, 16)),
    );
    let s = over_output(store("out", mixed, Expr::u64_const(Type::u8(), 1)));
    assert_mentions(
        &error(&s, Phase::Flattened),
        &[
            "operands of + differ in type: i32 and i16",
            "at: x + (i16)1",
        ],
    );
}

#[test]
fn a_condition_that_is_not_a_bool_is_reported() {
    let s = over_output(Stmt::if_then(
        i32_var("x"),
        store("out", output_index(), Expr::u64_const(Type::u8(), 1)),
    ));
    assert_mentions(
        &error(&s, Phase::Flattened),
        &["the condition x is i32, not bool"],
    );
}

#[test]
fn a_loop_over_float_bounds_is_reported() {
    let s = Stmt::for_loop(
        Symbol::new("x"),
        Expr::f32(0.0),
        Expr::f32(4.0),
        ForKind::Serial,
        Stmt::empty(),
    );
    assert_mentions(
        &error(&s, Phase::Flattened),
        &["loop x runs from f32 over an extent of f32"],
    );
}

#[test]
fn a_vector_stored_at_a_scalar_index_is_reported() {
    let vector = Expr::u64_const(Type::u8().with_lanes(8), 1);
    let s = over_output(store("out", output_index(), vector));
    assert_mentions(
        &error(&s, Phase::Flattened),
        &["u8x8 values of out accessed at an index of type i32"],
    );
}

#[test]
fn a_store_to_an_unknown_buffer_is_reported() {
    let s = over_output(store(
        "nowhere",
        output_index(),
        Expr::u64_const(Type::u8(), 1),
    ));
    assert_mentions(
        &error(&s, Phase::Flattened),
        &["nowhere is accessed, but it is not allocated here nor a buffer of the pipeline"],
    );
}

#[test]
fn a_load_from_an_allocation_out_of_scope_is_reported() {
    let inside = Stmt::allocate(
        Symbol::new("tmp"),
        Type::u8(),
        vec![Expr::i32(4)],
        store("tmp", Expr::i32(0), Expr::u64_const(Type::u8(), 1)),
    );
    let after = store(
        "out",
        output_index(),
        Expr::load(Type::u8(), Symbol::new("tmp"), Expr::i32(0)),
    );
    let s = over_output(Stmt::block([inside, after]));
    assert_mentions(&error(&s, Phase::Flattened), &["tmp is accessed, but"]);

    let free_output = Stmt::new(StmtKind::Free {
        buffer: Symbol::new("out"),
    });
    assert_mentions(
        &error(&free_output, Phase::Flattened),
        &["out is freed, but it is not allocated here"],
    );
}

#[test]
fn a_value_of_another_type_than_the_buffer_holds_is_reported() {
    let s = over_output(store(
        "out",
        output_index(),
        Expr::u64_const(Type::u16(), 1),
    ));
    assert_mentions(
        &error(&s, Phase::Flattened),
        &["out holds u8 but is accessed as u16"],
    );
}

#[test]
fn multi_dimensional_storage_after_flattening_is_reported() {
    let provide = Stmt::new(StmtKind::Provide {
        func: Symbol::new("out"),
        args: vec![i32_var("x")],
        values: vec![Expr::u64_const(Type::u8(), 1)],
    });
    // Before flattening, the output is written as a Func.
    verifier()
        .check("a_pass", &over_output(provide.clone()), Phase::Bounded)
        .unwrap();
    assert_mentions(
        &error(&over_output(provide), Phase::Flattened),
        &["the store to out is still multi-dimensional after storage flattening"],
    );

    let input = ImageParam::new(Type::u8(), 1, "input");
    let read = input.at(Var::new("x"));
    let s = over_output(store("out", output_index(), read));
    assert_mentions(
        &error(&s, Phase::Flattened),
        &["the call to input is still multi-dimensional after storage flattening"],
    );

    let realize = Stmt::new(StmtKind::Realize {
        func: Symbol::new("g"),
        types: vec![Type::u8()],
        bounds: vec![Range {
            min: Expr::i32(0),
            extent: Expr::i32(4),
        }],
        body: Stmt::empty(),
    });
    assert_mentions(
        &error(&realize, Phase::Flattened),
        &["the realization of g is still multi-dimensional"],
    );
}

#[test]
fn a_func_given_the_wrong_number_of_coordinates_is_reported() {
    let provide = Stmt::new(StmtKind::Provide {
        func: Symbol::new("out"),
        args: vec![i32_var("x"), i32_var("x")],
        values: vec![Expr::u64_const(Type::u8(), 1)],
    });
    assert_mentions(
        &error(&over_output(provide), Phase::Bounded),
        &["out has 1 dimensions but is accessed at 2 coordinates"],
    );
}

#[test]
fn before_bounds_inference_only_region_and_storage_names_may_be_unbound() {
    let region = Stmt::for_loop(
        Symbol::new("out.s0.x"),
        i32_var("out.s0.x.min"),
        i32_var("out.s0.x.max"),
        ForKind::Serial,
        Stmt::empty(),
    );
    verifier()
        .check("schedule_functions", &region, Phase::Scheduled)
        .unwrap();
    assert_mentions(
        &error(&region, Phase::Bounded),
        &["out.s0.x.min is not bound here"],
    );
    let stray = over_output(store("out", i32_var("y"), Expr::u64_const(Type::u8(), 1)));
    assert_mentions(&error(&stray, Phase::Scheduled), &["y is not bound here"]);
}

#[test]
fn verification_is_on_by_default_in_tests() {
    let turned_off = std::env::var("TESSERA_VERIFY").as_deref() == Ok("0");
    assert_eq!(LowerOptions::default().verify, !turned_off);
}
