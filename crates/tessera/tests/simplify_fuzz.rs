//! The simplifier must never change a value: random expressions (several types, scalar and
//! vector) are evaluated lane by lane before and after simplification under random
//! assignments, and must agree bit for bit — except where the ORIGINAL expression overflows
//! signed 32/64-bit arithmetic, which the simplifier may assume never happens. Also measures
//! how often simplification changes an expression and whether it is idempotent. Vector index
//! arithmetic (ramps, broadcasts, and arithmetic on them, as vectorized loops produce) gets
//! its own tests, on expressions and on statements with vector lets and stores.
//!
//! Re-run a failing seed with `TESSERA_SEED=<seed> cargo test --test simplify_fuzz`; the default
//! seed is fixed (`TESSERA_SEED=random` opts into a fresh one).

use std::collections::HashMap;
use std::time::Instant;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tessera::eval::expr::{EvalContext, ExprEval};
use tessera::eval::value::Value;
use tessera::ir::{BinaryOp, Expr, ExprKind, ForKind, Stmt, StmtKind, Symbol, Type};
use tessera::prelude::{ExprOps, Var};
use tessera::simplify::{simplify, simplify_stmt};
use tessera::testing::{edge_values, random_assignment, random_expr_with, GenOptions};

const CASES: usize = 10_000;
const ASSIGNMENTS: usize = 4;
const TYPES: [Type; 7] = [
    Type::i32(),
    Type::u8(),
    Type::u16(),
    Type::i16(),
    Type::i64(),
    Type::f32(),
    Type::bool_(),
];

/// The seed of a run; a fixed default, so `cargo test` is deterministic
/// (`TESSERA_SEED=random` tries a fresh one).
const DEFAULT_SEED: u64 = 0x51_e9f0;

fn seed() -> u64 {
    tessera::testing::test_seed("simplify fuzz", DEFAULT_SEED)
}

/// One random case: a type, generator options and free variables.
fn case(rng: &mut SmallRng) -> (Type, GenOptions, Vec<(Symbol, Type)>) {
    let ty = TYPES[rng.random_range(0..TYPES.len())];
    let vectors = rng.random_bool(0.3);
    let lanes = if vectors {
        [2, 4, 8][rng.random_range(0..3)]
    } else {
        1
    };
    let homogeneous = rng.random_bool(0.5);
    let index_arithmetic = vectors && rng.random_bool(0.5);
    let (options, vars) = if homogeneous {
        // Mostly one type, so arithmetic on the same variables cancels and combines.
        let operand = if ty.is_bool() { Type::i32() } else { ty };
        let options = GenOptions {
            types: vec![operand, operand, Type::bool_()],
            index_arithmetic,
            ..GenOptions::default()
        };
        let vars = vec![
            (Symbol::new("x"), operand),
            (Symbol::new("y"), operand),
            (Symbol::new("z"), operand),
        ];
        (options, vars)
    } else {
        let vars = [
            ("x", Type::i32()),
            ("y", Type::i32()),
            ("a", Type::u8()),
            ("b", Type::i16()),
            ("c", Type::u16()),
            ("d", Type::i64()),
            ("f", Type::f32()),
            ("p", Type::bool_()),
        ]
        .map(|(n, t)| (Symbol::new(n), t))
        .to_vec();
        let options = GenOptions {
            index_arithmetic,
            ..GenOptions::default()
        };
        (options, vars)
    };
    (ty.with_lanes(lanes), options, vars)
}

/// Every lane of `e` under `env`, and whether signed 32/64-bit arithmetic overflowed.
fn evaluate(e: &Expr, env: &HashMap<Symbol, Value>) -> (Vec<Value>, bool) {
    let mut ctx = env.clone();
    let mut ev = ExprEval::new(&mut ctx);
    let lanes = ev
        .eval_lanes(e)
        .unwrap_or_else(|err| panic!("evaluating {e}: {err}"));
    (lanes, ev.signed_overflow)
}

#[test]
fn simplification_preserves_values() {
    let seed = seed();
    let start = Instant::now();
    let mut rng = SmallRng::seed_from_u64(seed);
    let (mut compared, mut skipped, mut changed, mut idempotent) = (0usize, 0usize, 0usize, 0usize);
    let mut not_idempotent = Vec::new();
    for i in 0..CASES {
        let (ty, options, vars) = case(&mut rng);
        let depth = rng.random_range(2..=5);
        let e = random_expr_with(&mut rng, ty, depth, &vars, &options);
        let s = simplify(&e);
        assert_eq!(
            s.ty(),
            e.ty(),
            "seed {seed}, case {i}: type changed: {e} -> {s}"
        );
        changed += (s != e) as usize;
        let again = simplify(&s);
        if again == s {
            idempotent += 1;
        } else if not_idempotent.len() < 5 {
            not_idempotent.push(format!("{e}\n    -> {s}\n    -> {again}"));
        }
        for _ in 0..ASSIGNMENTS {
            let env = random_assignment(&mut rng, &vars);
            let (before, overflowed) = evaluate(&e, &env);
            if overflowed {
                skipped += 1;
                continue;
            }
            let (after, _) = evaluate(&s, &env);
            compared += 1;
            let same = before.len() == after.len()
                && before.iter().zip(&after).all(|(a, b)| a.bits_eq(*b));
            assert!(
                same,
                "simplification changed a value (TESSERA_SEED={seed}, case {i})\n  \
                 expression: {e}\n  simplified: {s}\n  assignment: {env:?}\n  \
                 before: {before:?}\n  after:  {after:?}"
            );
        }
    }
    println!(
        "seed {seed}: {CASES} expressions, {compared} evaluations compared, {skipped} skipped \
         (signed overflow), {:.1}% changed by simplification, {:.2}% idempotent, {:.2?}",
        100.0 * changed as f64 / CASES as f64,
        100.0 * idempotent as f64 / CASES as f64,
        start.elapsed()
    );
    for example in &not_idempotent {
        println!("not idempotent: {example}");
    }
    assert!(compared > CASES * ASSIGNMENTS / 2, "too many skipped cases");
    assert!(
        idempotent as f64 >= 0.99 * CASES as f64,
        "simplify is not idempotent often enough (seed {seed}): {idempotent}/{CASES}\n{}",
        not_idempotent.join("\n")
    );
}

/// Vector index arithmetic: ramps (with small constant strides over often aligned bases),
/// broadcasts, and sums, differences, products, quotients and remainders of them with
/// broadcasts, with vector lets, casts and selects around — in i32 (where the simplifier may
/// assume no overflow) and in the types that wrap. Compared lane by lane.
#[test]
fn vector_index_arithmetic_preserves_values() {
    const INDEX_TYPES: [Type; 7] = [
        Type::i32(),
        Type::i32(),
        Type::i64(),
        Type::i16(),
        Type::u8(),
        Type::u16(),
        Type::u32(),
    ];
    let seed = seed();
    let start = Instant::now();
    let mut rng = SmallRng::seed_from_u64(seed);
    let (mut compared, mut skipped, mut idempotent, mut affine_before, mut affine_after) =
        (0usize, 0usize, 0usize, 0usize, 0usize);
    let mut not_idempotent = Vec::new();
    for i in 0..CASES {
        let ty = INDEX_TYPES[rng.random_range(0..INDEX_TYPES.len())];
        let lanes = [2, 4, 8, 16][rng.random_range(0..4)];
        let options = GenOptions {
            types: vec![ty, ty, Type::i32(), Type::bool_()],
            index_arithmetic: true,
            intrinsics: false,
            ..GenOptions::default()
        };
        let vars = vec![
            (Symbol::new("x"), ty),
            (Symbol::new("y"), ty),
            (Symbol::new("i"), Type::i32()),
            (Symbol::new("p"), Type::bool_()),
        ];
        let depth = rng.random_range(2..=4);
        let e = random_expr_with(&mut rng, ty.with_lanes(lanes), depth, &vars, &options);
        let s = simplify(&e);
        assert_eq!(
            s.ty(),
            e.ty(),
            "seed {seed}, case {i}: type changed: {e} -> {s}"
        );
        affine_before += is_affine(&e) as usize;
        affine_after += is_affine(&s) as usize;
        let again = simplify(&s);
        if again == s {
            idempotent += 1;
        } else if not_idempotent.len() < 5 {
            not_idempotent.push(format!("{e}\n    -> {s}\n    -> {again}"));
        }
        for _ in 0..ASSIGNMENTS {
            let env = random_assignment(&mut rng, &vars);
            let (before, overflowed) = evaluate(&e, &env);
            if overflowed {
                skipped += 1;
                continue;
            }
            let (after, _) = evaluate(&s, &env);
            compared += 1;
            let same = before.iter().zip(&after).all(|(a, b)| a.bits_eq(*b));
            assert!(
                same,
                "simplification changed a value (TESSERA_SEED={seed}, case {i})\n  \
                 expression: {e}\n  simplified: {s}\n  assignment: {env:?}\n  \
                 before: {before:?}\n  after:  {after:?}"
            );
        }
    }
    println!(
        "seed {seed}: {CASES} vector expressions, {compared} evaluations compared lane by lane, \
         {skipped} skipped (signed overflow); a ramp or broadcast of scalars: {affine_before} \
         before, {affine_after} after; {:.2}% idempotent, {:.2?}",
        100.0 * idempotent as f64 / CASES as f64,
        start.elapsed()
    );
    for example in &not_idempotent {
        println!("not idempotent: {example}");
    }
    assert!(compared > CASES * ASSIGNMENTS / 2, "too many skipped cases");
    assert!(
        idempotent as f64 >= 0.99 * CASES as f64,
        "simplify is not idempotent often enough (seed {seed}): {idempotent}/{CASES}\n{}",
        not_idempotent.join("\n")
    );
}

/// `start` plus a random linear combination of a few atoms over `x` and `y` (plain
/// variables, quotients, minima), with small coefficients and constants: the shapes the
/// linear-form reasoning (canonical sums, exact differences, division splitting) works on.
fn linear_combination(rng: &mut SmallRng, x: &Expr, y: &Expr, start: Option<Expr>) -> Expr {
    let ty = x.ty();
    let k = |rng: &mut SmallRng, lo: i64, hi: i64| Expr::make_const(ty, rng.random_range(lo..=hi));
    let atoms = [
        x.clone(),
        y.clone(),
        Expr::binary(BinaryOp::Div, x.clone(), Expr::make_const(ty, 3)),
        Expr::binary(BinaryOp::Min, x.clone(), y.clone()),
    ];
    let mut e = start.unwrap_or_else(|| k(rng, 0, 9));
    for _ in 0..rng.random_range(1..=3) {
        let atom = atoms[rng.random_range(0..atoms.len())].clone();
        let term = Expr::binary(BinaryOp::Mul, atom, k(rng, 1, 4));
        let op = if rng.random_bool(0.5) {
            BinaryOp::Add
        } else {
            BinaryOp::Sub
        };
        e = if rng.random_bool(0.5) {
            Expr::binary(op, e, term)
        } else {
            Expr::binary(op, term, e)
        };
    }
    e
}

/// A value near the interesting boundaries: small, or an edge of the type.
fn boundary_value(rng: &mut SmallRng, ty: Type) -> Value {
    if rng.random_bool(0.8) {
        let v = Expr::make_const(ty, rng.random_range(-12..=12));
        Value::from_const(&v).expect("constant")
    } else {
        let edges = edge_values(ty);
        edges[rng.random_range(0..edges.len())]
    }
}

#[test]
fn linear_reasoning_preserves_values() {
    let seed = seed();
    let mut rng = SmallRng::seed_from_u64(seed);
    let (x, y) = (Symbol::new("x"), Symbol::new("y"));
    let types = [
        Type::i32(),
        Type::i64(),
        Type::i16(),
        Type::u8(),
        Type::u32(),
    ];
    let ops = [
        BinaryOp::Lt,
        BinaryOp::Le,
        BinaryOp::Gt,
        BinaryOp::Ge,
        BinaryOp::Eq,
        BinaryOp::Ne,
        BinaryOp::Min,
        BinaryOp::Max,
        BinaryOp::Sub,
        BinaryOp::Div,
        BinaryOp::Mod,
    ];
    let mut compared = 0;
    for i in 0..CASES {
        let ty = types[rng.random_range(0..types.len())];
        let (xe, ye) = (Expr::var(x, ty), Expr::var(y, ty));
        let a = linear_combination(&mut rng, &xe, &ye, None);
        let op = ops[rng.random_range(0..ops.len())];
        let b = if matches!(op, BinaryOp::Div | BinaryOp::Mod) {
            Expr::make_const(ty, [2, 3, 4, 8, -4][rng.random_range(0..5)])
        } else {
            // Often the other side shares terms, so the difference is short.
            let start = rng.random_bool(0.5).then(|| a.clone());
            linear_combination(&mut rng, &xe, &ye, start)
        };
        let e = Expr::binary(op, a, b);
        let s = simplify(&e);
        for _ in 0..ASSIGNMENTS * 4 {
            let env = HashMap::from([
                (x, boundary_value(&mut rng, ty)),
                (y, boundary_value(&mut rng, ty)),
            ]);
            let (before, overflowed) = evaluate(&e, &env);
            if overflowed {
                continue;
            }
            let (after, _) = evaluate(&s, &env);
            compared += 1;
            assert!(
                before[0].bits_eq(after[0]),
                "simplification changed a value (TESSERA_SEED={seed}, case {i})\n  \
                 expression: {e}\n  simplified: {s}\n  assignment: {env:?}\n  \
                 before: {before:?}\n  after:  {after:?}"
            );
        }
    }
    assert!(compared > CASES * ASSIGNMENTS, "too many skipped cases");
}

/// Variable values for statement runs, one per lane (a scalar has one).
#[derive(Clone, Debug, Default)]
struct Lanes(HashMap<Symbol, Vec<Value>>);

impl EvalContext for Lanes {
    fn lookup(&self, name: Symbol, lane: usize) -> Option<Value> {
        let values = self.0.get(&name)?;
        Some(values[lane % values.len()])
    }
}

impl Lanes {
    /// Binds `name` to `values` and returns what it was bound to.
    fn bind(&mut self, name: Symbol, values: Vec<Value>) -> Option<Vec<Value>> {
        self.0.insert(name, values)
    }

    fn restore(&mut self, name: Symbol, outer: Option<Vec<Value>>) {
        match outer {
            Some(v) => self.0.insert(name, v),
            None => self.0.remove(&name),
        };
    }
}

/// A statement run's record: every store, lane by lane, in order.
struct Run {
    trace: Vec<(i64, Value)>,
    /// Whether to stop (returning `None`) when signed 32/64-bit arithmetic overflows.
    stop_on_overflow: bool,
}

/// Runs a statement (loops, ifs, lets, blocks and stores into `out`).
fn run(s: &Stmt, env: &mut Lanes, r: &mut Run) -> Option<()> {
    let stop = r.stop_on_overflow;
    let eval = |e: &Expr, env: &Lanes| {
        let mut ctx = env.clone();
        let mut ev = ExprEval::new(&mut ctx);
        let lanes = ev
            .eval_lanes(e)
            .unwrap_or_else(|err| panic!("evaluating {e}: {err}"));
        (!(stop && ev.signed_overflow)).then_some(lanes)
    };
    match s.kind() {
        StmtKind::Block(stmts) => stmts.iter().try_for_each(|c| run(c, env, r)),
        StmtKind::For {
            name,
            min,
            extent,
            body,
            ..
        } => {
            let lo = eval(min, env)?[0].as_i128()? as i64;
            let n = eval(extent, env)?[0].as_i128()? as i64;
            // A loop variable past the i32 range overflows like `min + extent` would.
            if stop && lo.saturating_add(n - 1) > i32::MAX as i64 {
                return None;
            }
            let outer = env.0.get(name).cloned();
            for v in lo..lo + n {
                env.bind(*name, vec![Value::Int(v)]);
                run(body, env, r)?;
            }
            env.restore(*name, outer);
            Some(())
        }
        StmtKind::IfThenElse {
            condition,
            then_case,
            else_case,
        } => {
            if eval(condition, env)?[0].is_true() {
                run(then_case, env, r)
            } else {
                else_case.as_ref().map_or(Some(()), |e| run(e, env, r))
            }
        }
        StmtKind::LetStmt { name, value, body } => {
            let v = eval(value, env)?;
            let outer = env.bind(*name, v);
            let result = run(body, env, r);
            env.restore(*name, outer);
            result
        }
        StmtKind::Store { index, value, .. } => {
            let (indices, values) = (eval(index, env)?, eval(value, env)?);
            for (i, v) in indices.iter().zip(values) {
                r.trace.push((i.as_i128()? as i64, v));
            }
            Some(())
        }
        other => panic!("the statement fuzzer does not generate {other:?}"),
    }
}

/// A random loop nest over i32 variables, with ifs on conditions involving the loop
/// variables, lets and stores. With `lanes` > 1, as in a vectorized loop, stores are of
/// `lanes`-wide vectors and there are vector lets: ramps (with small constant strides) and
/// broadcasts of scalars, and other vectors.
fn random_stmt(rng: &mut SmallRng, depth: u32, vars: &mut Vec<(Symbol, Type)>, lanes: u16) -> Stmt {
    let options = GenOptions {
        types: vec![Type::i32(), Type::i32(), Type::bool_()],
        intrinsics: false,
        ..GenOptions::default()
    };
    let vector_options = GenOptions {
        index_arithmetic: true,
        ..options.clone()
    };
    let int = |rng: &mut SmallRng, vars: &[(Symbol, Type)], d: u32| {
        random_expr_with(rng, Type::i32(), d, vars, &options)
    };
    let vector = |rng: &mut SmallRng, vars: &[(Symbol, Type)], d: u32| {
        random_expr_with(rng, Type::i32().with_lanes(lanes), d, vars, &vector_options)
    };
    let shapes = if lanes > 1 { 6 } else { 5 };
    let choice = if depth == 0 {
        4
    } else {
        rng.random_range(0..shapes)
    };
    match choice {
        0 => {
            let name = Symbol::new(&format!("i{}", vars.len()));
            let min = if rng.random_bool(0.5) {
                Expr::i32(rng.random_range(-3..3))
            } else {
                int(rng, vars, 1)
            };
            let extent = Expr::i32(rng.random_range(-1..4));
            vars.push((name, Type::i32()));
            let body = random_stmt(rng, depth - 1, vars, lanes);
            vars.pop();
            Stmt::for_loop(name, min, extent, ForKind::Serial, body)
        }
        1 => {
            // Conditions mostly compare variables with small constants, which the
            // simplifier turns into bounds.
            let scalars: Vec<Symbol> = vars
                .iter()
                .filter(|(_, t)| t.is_scalar())
                .map(|(n, _)| *n)
                .collect();
            let v = scalars[rng.random_range(0..scalars.len())];
            let k = Expr::i32(rng.random_range(-3..4));
            let condition = match rng.random_range(0..4) {
                0 => Var::new(v.as_str()).expr().lt(k),
                1 => k.le(Var::new(v.as_str()).expr()),
                2 => Var::new(v.as_str()).expr().eq_(k),
                _ => random_expr_with(rng, Type::bool_(), 2, vars, &options),
            };
            let then_case = random_stmt(rng, depth - 1, vars, lanes);
            let else_case = rng
                .random_bool(0.5)
                .then(|| random_stmt(rng, depth - 1, vars, lanes));
            Stmt::new(StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            })
        }
        2 => {
            let name = Symbol::new(&format!("t{}", vars.len()));
            let value_depth = rng.random_range(0..3);
            let value = int(rng, vars, value_depth);
            vars.push((name, Type::i32()));
            let body = random_stmt(rng, depth - 1, vars, lanes);
            vars.pop();
            Stmt::let_stmt(name, value, body)
        }
        3 => Stmt::block(vec![
            random_stmt(rng, depth - 1, vars, lanes),
            random_stmt(rng, depth - 1, vars, lanes),
        ]),
        4 if lanes > 1 => Stmt::new(StmtKind::Store {
            buffer: Symbol::new("out"),
            index: vector(rng, vars, 2),
            value: vector(rng, vars, 2),
            predicate: None,
        }),
        4 => Stmt::new(StmtKind::Store {
            buffer: Symbol::new("out"),
            index: int(rng, vars, 1),
            value: int(rng, vars, 3),
            predicate: None,
        }),
        _ => {
            let name = Symbol::new(&format!("v{}", vars.len()));
            let value = match rng.random_range(0..4) {
                0 | 1 => {
                    let stride = [1, 1, 2, 3, -1, 0][rng.random_range(0..6)];
                    Expr::ramp(int(rng, vars, 2), Expr::i32(stride), lanes)
                }
                2 => int(rng, vars, 2).broadcast_to(lanes),
                _ => vector(rng, vars, 2),
            };
            vars.push((name, value.ty()));
            let body = random_stmt(rng, depth - 1, vars, lanes);
            vars.pop();
            Stmt::let_stmt(name, value, body)
        }
    }
}

/// What statement runs compared.
#[derive(Default)]
struct StatementTally {
    compared: usize,
    stores: usize,
    /// Stores whose index was a ramp or broadcast of scalars, before and after simplification.
    affine_before: usize,
    affine_after: usize,
}

/// Whether `e` is a ramp or broadcast of scalars (what code generation turns into a dense,
/// strided or uniform access).
fn is_affine(e: &Expr) -> bool {
    match e.kind() {
        ExprKind::Ramp(base, _) | ExprKind::Broadcast(base) => base.ty().is_scalar(),
        _ => false,
    }
}

/// Counts the stores in `s` into `stores`; returns how many have a ramp or broadcast index.
fn count_affine_stores(s: &Stmt, stores: &mut usize) -> usize {
    let mut affine = 0;
    if let StmtKind::Store { index, .. } = s.kind() {
        *stores += 1;
        affine += is_affine(index) as usize;
    }
    s.for_each_child(|_| {}, |c| affine += count_affine_stores(c, stores));
    affine
}

/// Random statements with `lanes`-wide stores (1: scalar), simplified, run before and after
/// from random boundary values of `x` and `y`: the stores must be the same.
fn check_statements(seed: u64, lanes: &[u16]) -> StatementTally {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut tally = StatementTally::default();
    for i in 0..CASES / 4 {
        let width = lanes[rng.random_range(0..lanes.len())];
        let mut vars = vec![
            (Symbol::new("x"), Type::i32()),
            (Symbol::new("y"), Type::i32()),
        ];
        let s = random_stmt(&mut rng, 4, &mut vars, width);
        let simplified = simplify_stmt(&s);
        let mut stores = 0;
        tally.affine_before += count_affine_stores(&s, &mut stores);
        tally.stores += stores;
        tally.affine_after += count_affine_stores(&simplified, &mut 0);
        for _ in 0..ASSIGNMENTS {
            let mut env = Lanes::default();
            env.bind(
                Symbol::new("x"),
                vec![boundary_value(&mut rng, Type::i32())],
            );
            env.bind(
                Symbol::new("y"),
                vec![boundary_value(&mut rng, Type::i32())],
            );
            let mut before = Run {
                trace: Vec::new(),
                stop_on_overflow: true,
            };
            if run(&s, &mut env.clone(), &mut before).is_none() {
                continue;
            }
            // The simplified statement may overflow where the original did not (reassociated
            // sums): its values must still be the same.
            let mut after = Run {
                trace: Vec::new(),
                stop_on_overflow: false,
            };
            run(&simplified, &mut env.clone(), &mut after);
            let (before, after) = (before.trace, after.trace);
            tally.compared += 1;
            let same = before.len() == after.len()
                && before
                    .iter()
                    .zip(&after)
                    .all(|(a, b)| a.0 == b.0 && a.1.bits_eq(b.1));
            assert!(
                same,
                "statement simplification changed the stores (TESSERA_SEED={seed}, case {i})\n\
                 statement:\n{s}\nsimplified:\n{simplified}\nassignment: {env:?}\n\
                 before: {before:?}\nafter:  {after:?}"
            );
        }
    }
    tally
}

#[test]
fn statement_simplification_preserves_stores() {
    let tally = check_statements(seed(), &[1]);
    assert!(tally.compared > CASES / 4, "too many skipped cases");
}

#[test]
fn vector_statement_simplification_preserves_stores() {
    let seed = seed();
    let tally = check_statements(seed, &[2, 4, 8]);
    println!(
        "seed {seed}: {} vector statement runs compared; {} stores, {} with a ramp or \
         broadcast index before simplification, {} after",
        tally.compared, tally.stores, tally.affine_before, tally.affine_after
    );
    assert!(tally.compared > CASES / 4, "too many skipped cases");
}
