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
    // A narrowing in the middle of a chain that keeps the value by its bounds is no cast: a
    // 64-bit value in [0, 255] survives i32, a 64-bit value of unknown bounds may not.
    let wide_byte = cast(Type::i64(), u.clone());
    check(vec![(
        cast(Type::i64(), cast(Type::i32(), wide_byte.clone())),
        wide_byte,
    )]);
    // i16 -> u8 -> i32 zero-extends the low byte; it is not a single cast.
    unchanged(vec![
        cast(Type::i64(), cast(Type::i32(), var("w", Type::i64()))),
        cast(Type::i32(), cast(Type::u8(), s16.clone())),
        cast(Type::u8(), cast(Type::f32(), x())),
        saturating_cast(Type::u8(), x()),
    ]);
}

fn i32x(lanes: u16) -> Type {
    Type::i32().with_lanes(lanes)
}
/// `ramp(base, stride, 8)` with an i32 constant stride.
fn ramp8(base: Expr, stride: i32) -> Expr {
    Expr::ramp(base, Expr::i32(stride), 8)
}
fn x8(e: Expr) -> Expr {
    e.broadcast_to(8)
}

#[test]
fn broadcasts_lift_through_every_operation() {
    use BinaryOp::*;
    let (p, q) = (var("p", Type::bool_()), var("q", Type::bool_()));
    let mut cases: Vec<(Expr, Expr)> = [
        Add, Sub, Mul, Div, Mod, Min, Max, Lt, Le, Eq, Ne, BitAnd, BitOr, BitXor, Shl, Shr,
    ]
    .into_iter()
    .map(|op| (bin(op, x8(x()), x8(y())), x8(bin(op, x(), y()))))
    .collect();
    cases.extend([
        (bin(Gt, x8(x()), x8(y())), x8(y().lt(x()))),
        (bin(Ge, x8(x()), x8(y())), x8(y().le(x()))),
        (
            bin(And, x8(p.clone()), x8(q.clone())),
            x8(p.clone().and(q.clone())),
        ),
        (
            bin(Or, x8(p.clone()), x8(q.clone())),
            x8(p.clone().or(q.clone())),
        ),
        (
            select(x8(p.clone()), x8(x()), x8(y())),
            x8(select(p.clone(), x(), y())),
        ),
        (-x8(x()), x8(-x())),
        (!x8(p.clone()), x8(!p.clone())),
        (
            Expr::unary(tessera::ir::UnaryOp::BitNot, x8(x())),
            x8(Expr::unary(tessera::ir::UnaryOp::BitNot, x())),
        ),
        (
            cast(Type::i64().with_lanes(8), x8(x())),
            x8(cast(Type::i64(), x())),
        ),
        // The scalar operation is simplified in turn.
        (-(x8(x()) - x8(y())), x8(y() - x())),
        (bin(Sub, x8(x() + 3), x8(x())), x8(Expr::i32(3))),
    ]);
    check(cases);
}

#[test]
fn ramp_arithmetic() {
    use BinaryOp::*;
    let v = var("v", i32x(8));
    check(vec![
        (bin(Add, ramp8(x(), 1), x8(y())), ramp8(x() + y(), 1)),
        (bin(Add, x8(y()), ramp8(x(), 1)), ramp8(x() + y(), 1)),
        (bin(Sub, ramp8(x(), 1), x8(y())), ramp8(x() - y(), 1)),
        (bin(Sub, x8(y()), ramp8(x(), 1)), ramp8(y() - x(), -1)),
        (bin(Add, ramp8(x(), 1), ramp8(y(), 2)), ramp8(x() + y(), 3)),
        (bin(Sub, ramp8(x(), 2), ramp8(y(), 2)), x8(x() - y())),
        (bin(Sub, ramp8(x(), 1), ramp8(x(), 1)), c(i32x(8), 0)),
        (bin(Mul, ramp8(x(), 1), x8(Expr::i32(4))), ramp8(x() * 4, 4)),
        (
            bin(Mul, ramp8(x(), 2), x8(y())),
            Expr::ramp(x() * y(), y() * 2, 8),
        ),
        (-ramp8(x(), 2), ramp8(-x(), -2)),
        (ramp8(x(), 0), x8(x())),
        // In a sum with other vectors, the ramps, broadcasts and constants become one ramp.
        (
            bin(Sub, bin(Add, v.clone(), ramp8(x(), 1)), x8(y())),
            v.clone() + ramp8(x() - y(), 1),
        ),
        (
            bin(
                Sub,
                bin(
                    Mul,
                    bin(Add, ramp8(x(), 1), x8(Expr::i32(3))),
                    x8(Expr::i32(2)),
                ),
                x8(x() * 2),
            ),
            ramp8(Expr::i32(6), 2),
        ),
    ]);
}

#[test]
fn casts_of_ramps() {
    let u = var("u", Type::u8());
    let u8_ramp = |base: Expr| Expr::ramp(base, c(Type::u8(), 1), 8);
    check(vec![
        (
            cast(Type::i64().with_lanes(8), ramp8(x(), 1)),
            Expr::ramp(cast(Type::i64(), x()), c(Type::i64(), 1), 8),
        ),
        // Narrowing keeps every lane modulo 2^bits, wrapping or not.
        (
            cast(Type::u8().with_lanes(8), ramp8(x(), 1)),
            u8_ramp(cast(Type::u8(), x())),
        ),
        // Widening a u8 ramp whose lanes provably stay below 256.
        (
            cast(i32x(8), u8_ramp(u.clone() / c(Type::u8(), 2))),
            ramp8(cast(Type::i32(), u.clone() / c(Type::u8(), 2)), 1),
        ),
    ]);
    unchanged(vec![
        // u + 7 may wrap in u8: widened lanes would not.
        cast(i32x(8), u8_ramp(u.clone())),
        cast(Type::f32().with_lanes(8), ramp8(x(), 1)),
    ]);
}

#[test]
fn division_and_modulo_of_ramps() {
    use BinaryOp::*;
    let k = |v: i32| x8(Expr::i32(v));
    let u = var("u", Type::u8());
    check(vec![
        // Every lane in the block of 8 values x*8 starts: the quotient is uniform.
        (bin(Div, ramp8(x() * 8, 1), k(8)), x8(x())),
        (bin(Mod, ramp8(x() * 8, 1), k(8)), ramp8(Expr::i32(0), 1)),
        (
            bin(
                Div,
                Expr::ramp(x() * 8 + 3, Expr::i32(1), 4),
                Expr::i32(8).broadcast_to(4),
            ),
            x().broadcast_to(4),
        ),
        (
            bin(
                Mod,
                Expr::ramp(x() * 8 + 3, Expr::i32(1), 4),
                Expr::i32(8).broadcast_to(4),
            ),
            Expr::ramp(Expr::i32(3), Expr::i32(1), 4),
        ),
        (bin(Div, ramp8(x() * 8 + 7, -1), k(8)), x8(x())),
        (bin(Div, ramp8(x() * 8, 1), k(-8)), x8(-x())),
        (
            bin(Div, bin(Add, ramp8(x() * 8, 1), k(16)), k(8)),
            x8(x() + 2),
        ),
        // A stride the divisor divides.
        (bin(Div, ramp8(x(), 4), k(2)), ramp8(x() / 2, 2)),
        (bin(Mod, ramp8(x(), 4), k(2)), x8(x() % 2)),
    ]);
    unchanged(vec![
        // The lanes cross a multiple of 8, or may.
        bin(Div, ramp8(x() * 8 + 1, 1), k(8)),
        bin(Mod, ramp8(x() * 8 + 3, 1), k(-8)),
        bin(Div, ramp8(x(), 1), k(8)),
        // A u8 ramp may wrap (250, 254, 2, 6): its quotients by 4 are not a ramp.
        bin(
            Div,
            Expr::ramp(u.clone(), c(Type::u8(), 4), 4),
            c(Type::u8().with_lanes(4), 4),
        ),
    ]);
}

#[test]
fn vector_lets_are_split_and_substituted() {
    use BinaryOp::*;
    let t = Symbol::new("t");
    let tv = Expr::var(t, i32x(8));
    let base = Expr::var(Symbol::new("t.base"), Type::i32());
    let product = bin(Mul, ramp8(x(), 1), ramp8(y(), 1));
    check(vec![
        // A ramp of a non-trivial scalar: the scalar gets a let, the ramp is substituted.
        (
            Expr::let_in(
                t,
                ramp8(x() + y(), 1),
                bin(Sub, bin(Add, tv.clone(), x8(Expr::i32(3))), x8(y())),
            ),
            Expr::let_in(
                Symbol::new("t.base"),
                x() + y(),
                ramp8((base.clone() - y()) + 3, 1),
            ),
        ),
        (
            Expr::let_in(t, x8(x() * y()), bin(Add, tv.clone(), tv.clone())),
            Expr::let_in(Symbol::new("t.base"), x() * y(), x8(base.clone() * 2)),
        ),
        // A ramp of a variable is substituted whole.
        (
            Expr::let_in(t, ramp8(x(), 1), bin(Mul, tv.clone(), x8(Expr::i32(2)))),
            ramp8(x() * 2, 2),
        ),
        // Another vector is substituted when used once.
        (
            Expr::let_in(t, product.clone(), bin(Add, tv.clone(), x8(Expr::i32(1)))),
            bin(Add, product.clone(), x8(Expr::i32(1))),
        ),
    ]);
    unchanged(vec![Expr::let_in(t, product, bin(Mul, tv.clone(), tv))]);
}

/// The index arithmetic of the vectorized blur (`blur_y.vectorize(x, 8)`, `blur_x` computed
/// per row into 4 folded rows), as vectorization leaves it.
struct BlurIndices {
    v: Symbol,
    /// The vectorized variable's value is `ramp(base, 1, 8)`, with this base:
    /// `min + min(max - min - 7, xo * 8)`.
    base: Expr,
    /// `blur_x[((v + x8(extent * (y % 4))) - x8(min_realized))]`
    load_index: Expr,
    /// `blur_y[(((v - x8(min0)) * x8(stride0)) + x8(stride1 * (y - min1)))]`
    store_index: Expr,
}

fn blur_indices() -> BlurIndices {
    use BinaryOp::*;
    let int = |name: &str| var(name, Type::i32());
    let v = Symbol::new("blur_y.s0.x");
    let vv = Expr::var(v, i32x(8));
    let (min0, xmax, xo) = (
        int("blur_y.min.0"),
        int("blur_y.s0.x.max"),
        int("blur_y.s0.x.x"),
    );
    let y = int("blur_y.s0.y");
    // In canonical form: a constant offset is added (`+ -7`, printed `- 7`).
    let base = min0.clone() + min((xmax - min0.clone()) + (-7), xo * 8);
    let load_index = bin(
        Sub,
        bin(
            Add,
            vv.clone(),
            x8(int("blur_x.x.extent_realized") * (y.clone() % 4)),
        ),
        x8(int("blur_x.x.min_realized")),
    );
    let store_index = bin(
        Add,
        bin(Mul, bin(Sub, vv, x8(min0)), x8(int("blur_y.stride.0"))),
        x8(int("blur_y.stride.1") * (y - int("blur_y.min.1"))),
    );
    BlurIndices {
        v,
        base,
        load_index,
        store_index,
    }
}

/// The base and stride of `e` if it is a ramp with a scalar base.
fn as_ramp(e: &Expr) -> Option<(Expr, Expr)> {
    match e.kind() {
        tessera::ir::ExprKind::Ramp(base, stride) if base.ty().is_scalar() => {
            Some((base.clone(), stride.clone()))
        }
        _ => None,
    }
}

#[test]
fn blur_indices_become_single_ramps() {
    let blur = blur_indices();
    let base = Symbol::new("blur_y.s0.x.base");
    let bv = var("blur_y.s0.x.base", Type::i32());
    let int = |name: &str| var(name, Type::i32());
    let y = int("blur_y.s0.y");
    let ramp = ramp8(blur.base.clone(), 1);
    let dense = ramp8(
        (bv.clone() + int("blur_x.x.extent_realized") * (y.clone() % 4))
            - int("blur_x.x.min_realized"),
        1,
    );
    check(vec![(
        Expr::let_in(blur.v, ramp.clone(), blur.load_index.clone()),
        Expr::let_in(base, blur.base.clone(), dense),
    )]);
    // The store's stride is the output's (unknown) stride in x.
    let store = simplify(&Expr::let_in(blur.v, ramp, blur.store_index.clone()));
    let tessera::ir::ExprKind::Let(name, value, body) = store.kind() else {
        panic!("expected a let of the ramp's base, got {store}")
    };
    assert_eq!((*name, value), (base, &blur.base));
    let (_, stride) = as_ramp(body).unwrap_or_else(|| panic!("not a ramp: {body}"));
    assert_eq!(stride, int("blur_y.stride.0"), "{store}");
}

#[test]
fn blur_statement_gets_dense_and_strided_accesses() {
    let blur = blur_indices();
    let stride0 = Symbol::new("blur_y.stride.0");
    let value = Expr::load(
        Type::u16().with_lanes(8),
        Symbol::new("blur_x"),
        blur.load_index,
    );
    let store = Stmt::new(tessera::ir::StmtKind::Store {
        buffer: Symbol::new("blur_y"),
        index: blur.store_index,
        value,
        predicate: None,
    });
    let lowered = Stmt::let_stmt(blur.v, ramp8(blur.base, 1), store);
    // Every access's index, with its stride, after simplification.
    let strides = |s: &Stmt| {
        let mut found = Vec::new();
        tessera::ir::visit::visit_stmt_exprs(s, &mut |e| {
            if let tessera::ir::ExprKind::Load { index, .. } = e.kind() {
                found.push(("load", index.clone()));
            }
            true
        });
        let mut stores = Vec::new();
        collect_store_indices(s, &mut stores);
        found.extend(stores.into_iter().map(|i| ("store", i)));
        found
            .into_iter()
            .map(|(what, i)| {
                let (_, stride) =
                    as_ramp(&i).unwrap_or_else(|| panic!("{what} index {i} is not a ramp"));
                (what, stride)
            })
            .collect::<Vec<_>>()
    };
    let one = Expr::i32(1);
    let stride_var = var("blur_y.stride.0", Type::i32());
    assert_eq!(
        strides(&simplify_stmt(&lowered)),
        vec![("load", one.clone()), ("store", stride_var)]
    );
    // With a dense output (stride 1 in x), the store is dense too.
    let dense_output = Stmt::let_stmt(stride0, Expr::i32(1), lowered);
    assert_eq!(
        strides(&simplify_stmt(&dense_output)),
        vec![("load", one.clone()), ("store", one)]
    );
}

fn collect_store_indices(s: &Stmt, out: &mut Vec<Expr>) {
    if let tessera::ir::StmtKind::Store { index, .. } = s.kind() {
        out.push(index.clone());
    }
    s.for_each_child(|_| {}, |c| collect_store_indices(c, out));
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

#[test]
fn load_predicates_known_on_every_lane() {
    let lanes8 = Type::i32().with_lanes(8);
    let index = Expr::ramp(x(), Expr::i32(1), 8);
    let load = |predicate: Option<Expr>| {
        Expr::new(
            lanes8,
            tessera::ir::ExprKind::Load {
                buffer: Symbol::new("b"),
                index: index.clone(),
                predicate,
            },
        )
    };
    let always = bin(BinaryOp::Lt, c(lanes8, 0), c(lanes8, 1));
    let never = bin(BinaryOp::Lt, c(lanes8, 1), c(lanes8, 0));
    let sometimes = bin(BinaryOp::Lt, index.clone(), y().broadcast_to(8));
    check(vec![
        // True on every lane: a plain load.
        (load(Some(always)), load(None)),
        // False on every lane: nothing is read, and a masked-off lane reads zero.
        (load(Some(never)), c(lanes8, 0)),
        // Unknown: kept.
        (load(Some(sometimes.clone())), load(Some(sometimes))),
    ]);
}
