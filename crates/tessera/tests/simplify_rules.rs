//! Expected simplifications, one table row each: what bounds inference and lowering rely on
//! (differences of expressions that differ by a constant fold), and what must NOT happen
//! (rules that are wrong for wrapping types, Euclidean division, or floats).

use std::collections::HashMap;

use tessera::ir::{BinaryOp, Expr, ForKind, Intrinsic, Stmt, Symbol, Type};
use tessera::prelude::*;
use tessera::simplify::{can_prove, simplify, simplify_stmt, simplify_with_bounds};

fn x() -> Expr {
    Var::new("x").expr()
}
fn y() -> Expr {
    Var::new("y").expr()
}
fn var(name: &str, ty: Type) -> Expr {
    Expr::var(Symbol::new(name), ty)
}
fn c(ty: Type, v: i64) -> Expr {
    Expr::make_const(ty, v)
}
fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
    Expr::binary(op, a, b)
}

/// Each case: input, expected output (compared structurally, printed on failure).
fn check(cases: Vec<(Expr, Expr)>) {
    let mut failures = Vec::new();
    for (input, expected) in cases {
        let got = simplify(&input);
        if got != expected {
            failures.push(format!(
                "{input}\n    gave     {got}\n    expected {expected}"
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// Each case: an input that must be left exactly as it is.
fn unchanged(cases: Vec<Expr>) {
    check(cases.into_iter().map(|e| (e.clone(), e)).collect());
}

#[test]
fn differences_of_offset_expressions_fold() {
    check(vec![
        ((x() + 10) - (x() + 3), Expr::i32(7)),
        (min(x() + 3, x() + 10) - x(), Expr::i32(3)),
        (max(x() + 3, x() + 10) - x(), Expr::i32(10)),
        ((x() * 2 + 1) - x() * 2, Expr::i32(1)),
        (x() - x(), Expr::i32(0)),
        ((x() + y()) - (y() + x()), Expr::i32(0)),
        (
            (x() + y() * 3 + 5) - (y() * 2 + x() + y() - 2),
            Expr::i32(7),
        ),
        (x() * 4 + x() * 4 - x() * 8, Expr::i32(0)),
        ((x() + 1) * 3 - x() * 3, Expr::i32(3)),
        (-(x() - 5) + x(), Expr::i32(5)),
        (
            select(x().lt(y()), x() + 1, x() + 2) - x(),
            select(x().lt(y()), 1, 2),
        ),
        (max(x(), x()), x()),
        (min(x(), x()), x()),
        (select(x().lt(3), y(), y()), y()),
        ((x() + 10) - (x() + 3) + y(), y() + 7),
    ]);
    // Rounding up to a multiple is not a constant offset.
    unchanged(vec![((x() + 7) / 8) * 8 - x()]);
}

#[test]
fn sums_are_canonical() {
    check(vec![
        (3 + x(), x() + 3),
        (y() + x(), x() + y()),
        ((x() + 1) + (y() + 2), x() + y() + 3),
        (x() * 3 + x(), x() * 4),
        (x() - (y() - x()), x() * 2 - y()),
        (10 - (x() + 3), 7 - x()),
        (bin(BinaryOp::Mul, x(), Expr::i32(0)) + y(), y()),
        (x() * 1, x()),
        ((x() / 4) * 4 + x() % 4, x()),
    ]);
}

#[test]
fn lets_of_constants_and_variables_are_substituted() {
    let t = Symbol::new("t");
    let tv = Expr::var(t, Type::i32());
    check(vec![
        (Expr::let_in(t, Expr::i32(5), tv.clone() + x()), x() + 5),
        (Expr::let_in(t, y(), tv.clone() - y()), Expr::i32(0)),
        // Unused after simplification: dropped.
        (Expr::let_in(t, x() * y(), x() + 1), x() + 1),
        (
            Expr::let_in(t, x() * y(), tv.clone() + 1),
            Expr::let_in(t, x() * y(), tv.clone() + 1),
        ),
    ]);
    // `let t = y in let y = 3 in t + y` must keep meaning the outer y.
    let inner = Expr::let_in(Symbol::new("y"), Expr::i32(3), tv.clone() + y());
    let e = Expr::let_in(t, y(), inner);
    let got = simplify(&e);
    let mut env = HashMap::from([(Symbol::new("y"), tessera::eval::value::Value::Int(10))]);
    let v = tessera::eval::expr::eval_scalar(&got, &mut env).unwrap();
    assert_eq!(v, tessera::eval::value::Value::Int(13), "{got}");
}

#[test]
fn euclidean_division_and_alignment() {
    check(vec![
        ((x() * 4 + 3) / 4, x()),
        ((x() * 4) % 4, Expr::i32(0)),
        ((x() * 4 + 3) % 4, Expr::i32(3)),
        ((x() * 8 + y() + 16) / 8, x() + y() / 8 + 2),
        ((x() * 6) / 3, x() * 2),
        ((x() / 2) / 3, x() / 6),
        (x() / 1, x()),
        (bin(BinaryOp::Mod, x(), Expr::i32(1)), Expr::i32(0)),
        (x() % x(), Expr::i32(0)),
        ((x() * 8 + y()) % 4, y() % 4),
        ((x() % 8) % 4, x() % 4),
        (x() / 0, Expr::i32(0)),
        (Expr::i32(-7) / 2, Expr::i32(-4)),
        (Expr::i32(-7) % 2, Expr::i32(1)),
        (x() % 4 / 4, Expr::i32(0)),
        ((x() % 4).lt(4), Expr::bool_(true)),
    ]);
    // x / x is 0 when x is 0.
    unchanged(vec![x() / x(), (x() + 1) / 2]);
}

#[test]
fn comparisons_decided_by_bounds_and_linear_differences() {
    check(vec![
        ((x() + 1).gt(x()), Expr::bool_(true)),
        ((x() + 3).lt(x() + 10), Expr::bool_(true)),
        ((x() * 2).eq_(7), Expr::bool_(false)),
        ((x() + 3).lt(10), x().lt(7)),
        ((x() * 2).le(9), x().le(4)),
        (Expr::i32(10).lt(x() + 3), Expr::i32(7).lt(x())),
        ((x() + 5).lt(y() + 5), x().lt(y())),
        (x().ge(y()), y().le(x())),
        (x().eq_(x()), Expr::bool_(true)),
        (min(x(), 3).lt(5), Expr::bool_(true)),
        (max(x(), 7).lt(5), Expr::bool_(false)),
        (min(x(), y()).le(x()), Expr::bool_(true)),
        ((x() / 4).lt(3), x().lt(12)),
        ((x() % 3).ge(0), Expr::bool_(true)),
        (!(x().lt(y())), y().le(x())),
        (x().lt(3).and(x().lt(5)), x().lt(3)),
        (x().lt(y()).and(Expr::bool_(true)), x().lt(y())),
        (x().lt(y()).or(!(x().lt(y()))), Expr::bool_(true)),
    ]);
}

#[test]
fn min_max_and_select() {
    check(vec![
        (min(x(), y()) + max(x(), y()), x() + y()),
        (min(min(x(), y()), x()), min(x(), y())),
        (max(min(x(), y()), x()), x()),
        (min(min(x(), 3), 5), min(x(), 3)),
        (min(max(x(), 0), 10), max(min(x(), 10), 0)),
        (max(min(x(), 10), 20), Expr::i32(20)),
        (min(x() + 2, y() + 2), min(x(), y()) + 2),
        (min(x() / 2, y() / 2), min(x(), y()) / 2),
        (select(Expr::bool_(true), x(), y()), x()),
        (select(!(x().lt(y())), x(), y()), max(x(), y())),
        (select(x().lt(y()), x(), y()), min(x(), y())),
        (
            select(x().lt(3), x() + y(), x() + 1),
            x() + select(x().lt(3), y(), 1),
        ),
        (
            select(x().lt(3), Expr::bool_(true), Expr::bool_(false)),
            x().lt(3),
        ),
    ]);
}

#[test]
fn wrapping_types_get_no_overflow_rules() {
    let u = var("u", Type::u8());
    let s8 = var("s", Type::i16());
    unchanged(vec![
        bin(BinaryOp::Lt, u.clone(), u.clone() + c(Type::u8(), 1)),
        bin(BinaryOp::Lt, s8.clone(), s8.clone() + c(Type::i16(), 1)),
        bin(
            BinaryOp::Div,
            u.clone() * c(Type::u8(), 4) + c(Type::u8(), 3),
            c(Type::u8(), 4),
        ),
        bin(BinaryOp::Min, u.clone(), u.clone() + c(Type::u8(), 1)),
    ]);
    // Ring identities hold for every width, wrapping or not.
    check(vec![
        (
            (u.clone() + c(Type::u8(), 200)) + c(Type::u8(), 100),
            u.clone() + c(Type::u8(), 44),
        ),
        (u.clone() - u.clone(), c(Type::u8(), 0)),
        (
            (u.clone() + c(Type::u8(), 10)) - (u.clone() + c(Type::u8(), 3)),
            c(Type::u8(), 7),
        ),
        // Small enough not to wrap: the bounds prove it.
        (
            bin(
                BinaryOp::Lt,
                u.clone() / c(Type::u8(), 2),
                u.clone() / c(Type::u8(), 2) + c(Type::u8(), 1),
            ),
            Expr::bool_(true),
        ),
        (
            bin(
                BinaryOp::Mod,
                u.clone() * c(Type::u8(), 4),
                c(Type::u8(), 4),
            ),
            c(Type::u8(), 0),
        ),
    ]);
}

#[test]
fn floats_get_only_exact_rules() {
    let f = var("f", Type::f32());
    let g = var("g", Type::f32());
    check(vec![
        (f.clone() * 1.0f32, f.clone()),
        (f.clone() - 0.0f32, f.clone()),
        (f.clone() / 1.0f32, f.clone()),
        (-(-f.clone()), f.clone()),
        (max(f.clone(), f.clone()), f.clone()),
        (
            select(f.clone().lt(g.clone()), f.clone(), g.clone()),
            min(f.clone(), g.clone()),
        ),
        (f.clone().lt(f.clone()), Expr::bool_(false)),
        (floor(floor(f.clone())), floor(f.clone())),
        (Expr::f32(1.5) + Expr::f32(2.25), Expr::f32(3.75)),
    ]);
    unchanged(vec![
        f.clone() + 0.0f32,
        f.clone() * 0.0f32,
        f.clone() - f.clone(),
        f.clone().eq_(f.clone()),
        (f.clone() + 1.0f32) - 1.0f32,
        min(f.clone(), g.clone()),
        f.clone().le(f.clone()),
    ]);
    // Float min is not commutative: it keeps its operand order.
    assert_eq!(simplify(&min(g.clone(), f.clone())), min(g, f));
}

#[test]
fn casts_and_intrinsics() {
    let u = var("u", Type::u8());
    let s16 = var("s", Type::i16());
    check(vec![
        (cast(Type::u8(), cast(Type::i32(), u.clone())), u.clone()),
        (
            cast(Type::i16(), cast(Type::i64(), x())),
            cast(Type::i16(), x()),
        ),
        (cast(Type::u8(), Expr::i32(300)), c(Type::u8(), 44)),
        (cast(Type::i32(), cast(Type::f64(), x())), x()),
        (
            saturating_cast(Type::i32(), u.clone()),
            cast(Type::i32(), u.clone()),
        ),
        (abs(u.clone()), u.clone()),
        (
            Expr::intrinsic(
                Type::u16(),
                Intrinsic::Abs,
                vec![cast(Type::i16(), u.clone())],
            ),
            cast(Type::u16(), u.clone()),
        ),
        (floor(cast(Type::f32(), x())), cast(Type::f32(), x())),
    ]);
    // i16 -> u8 -> i32 zero-extends the low byte; it is not a single cast.
    unchanged(vec![
        cast(Type::i32(), cast(Type::u8(), s16.clone())),
        cast(Type::u8(), cast(Type::f32(), x())),
        saturating_cast(Type::u8(), x()),
    ]);
}

#[test]
fn vectors() {
    let r = Expr::ramp(x(), Expr::i32(1), 4);
    let b = |e: Expr| e.broadcast_to(4);
    check(vec![
        (
            bin(BinaryOp::Add, r.clone(), b(y())),
            Expr::ramp(x() + y(), Expr::i32(1), 4),
        ),
        (bin(BinaryOp::Add, b(x()), b(y())), b(x() + y())),
        (
            bin(BinaryOp::Sub, r.clone(), r.clone()),
            c(Type::i32().with_lanes(4), 0),
        ),
        (Expr::ramp(x(), Expr::i32(0), 4), b(x())),
        (
            bin(BinaryOp::Mul, r.clone(), b(Expr::i32(2))),
            Expr::ramp(x() * 2, Expr::i32(2), 4),
        ),
    ]);
}

#[test]
fn known_bounds_decide_comparisons_and_min_max() {
    let bounds = HashMap::from([(Symbol::new("x"), (0i64, 15i64))]);
    let s = |e: Expr| simplify_with_bounds(&e, &bounds);
    assert_eq!(s(x().lt(16)), Expr::bool_(true));
    assert_eq!(s(min(x(), 20)), x());
    assert_eq!(s(x() / 16), Expr::i32(0));
    assert_eq!(s(x() % 16), x());
    assert_eq!(s(max(x() * 2, 31) - 31), Expr::i32(0));
    assert_eq!(s(x().lt(15)), x().lt(15));
}

#[test]
fn can_prove_only_what_holds() {
    assert!(can_prove(&(x() + 1).gt(x())));
    assert!(can_prove(&(min(x(), y())).le(max(x(), y()))));
    assert!(can_prove(&((x() * 4) % 2).eq_(0)));
    assert!(!can_prove(&x().lt(y())));
    assert!(!can_prove(&x().eq_(x() + 1)));
    let u = var("u", Type::u8());
    assert!(!can_prove(&bin(
        BinaryOp::Gt,
        u.clone() + c(Type::u8(), 1),
        u
    )));
}

#[test]
fn statements() {
    let xs = Symbol::new("x");
    let store = |v: Expr| {
        Stmt::new(tessera::ir::StmtKind::Store {
            buffer: Symbol::new("out"),
            index: x(),
            value: v,
            predicate: None,
        })
    };
    // A loop that never runs disappears; an empty block too.
    let dead = Stmt::for_loop(xs, Expr::i32(0), Expr::i32(0), ForKind::Serial, store(x()));
    assert!(simplify_stmt(&Stmt::block(vec![dead, Stmt::empty()])).is_empty());
    // The loop bounds decide the condition inside.
    let guarded = Stmt::if_then(x().lt(10), store(x() + 0));
    let l = Stmt::for_loop(xs, Expr::i32(0), Expr::i32(10), ForKind::Serial, guarded);
    let want = Stmt::for_loop(xs, Expr::i32(0), Expr::i32(10), ForKind::Serial, store(x()));
    assert_eq!(simplify_stmt(&l), want);
    // An enclosing condition is known inside its branches.
    let inner = Stmt::if_then(x().lt(5), store(Expr::i32(1)));
    let outer = Stmt::new(tessera::ir::StmtKind::IfThenElse {
        condition: x().lt(3),
        then_case: inner,
        else_case: Some(store(min(x(), 2))),
    });
    let want = Stmt::new(tessera::ir::StmtKind::IfThenElse {
        condition: x().lt(3),
        then_case: store(Expr::i32(1)),
        else_case: Some(store(Expr::i32(2))),
    });
    assert_eq!(simplify_stmt(&outer), want);
    // A loop rebinding `x` inside `if (x < 3)` gets nothing from the condition.
    let inner_loop = Stmt::for_loop(
        xs,
        Expr::i32(0),
        Expr::i32(10),
        ForKind::Serial,
        store(select(x().lt(3), 1, 2)),
    );
    let shadowed = Stmt::if_then(x().lt(3), inner_loop.clone());
    assert_eq!(simplify_stmt(&shadowed), shadowed);
    // Lets: constants substituted, unused ones dropped.
    let t = Symbol::new("t");
    let l = Stmt::let_stmt(t, Expr::i32(4), store(Expr::var(t, Type::i32()) * 2));
    assert_eq!(simplify_stmt(&l), store(Expr::i32(8)));
    let unused = Stmt::let_stmt(t, x() * y(), store(x()));
    assert_eq!(simplify_stmt(&unused), store(x()));
    // A constant condition picks its branch.
    let pick = Stmt::new(tessera::ir::StmtKind::IfThenElse {
        condition: Expr::i32(1).lt(2),
        then_case: store(Expr::i32(5)),
        else_case: Some(store(Expr::i32(6))),
    });
    assert_eq!(simplify_stmt(&pick), store(Expr::i32(5)));
}
