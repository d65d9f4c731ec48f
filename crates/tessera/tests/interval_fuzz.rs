//! Randomized check of interval analysis against the evaluator: for random expressions over
//! variables with random intervals (constant, half-open, unbounded, and symbolic in terms of
//! variables outside the scope, like `x in [y - 3, y + 10]`), every value the expression takes
//! at assignments sampled inside those intervals lies within the computed bounds, evaluated
//! under the same assignment.
//!
//! Samples are skipped (and counted) where the contract makes no promise: the expression
//! overflows signed 32/64-bit arithmetic, the bounds themselves do (bound expressions are
//! assumed not to), or some float subexpression is NaN (an interval says nothing about NaN).
//!
//! Reproduce a run with `TESSERA_SEED=<seed> cargo test --test interval_fuzz`.

use std::collections::HashMap;
use std::fmt::Write;

use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

use tessera::analysis::{bounds_of_expr, Interval, Scope};
use tessera::eval::expr::ExprEval;
use tessera::eval::value::Value;
use tessera::ir::substitute::substitute;
use tessera::ir::visit::visit_exprs;
use tessera::ir::{BinaryOp, Expr, ExprKind, Symbol, Type, TypeCode};
use tessera::testing::{random_expr_with, random_type, random_value, GenOptions};

const DEFAULT_SEED: u64 = 0x1e7e_5e4a;
const EXPRESSIONS: usize = 2500;
const SAMPLES_PER_EXPRESSION: usize = 12;

fn seed() -> u64 {
    match std::env::var("TESSERA_SEED") {
        Ok(s) => s
            .parse()
            .unwrap_or_else(|_| panic!("TESSERA_SEED must be a u64, not {s:?}")),
        Err(_) => DEFAULT_SEED,
    }
}

/// A variable's declared range: `None` ends are unbounded. Symbolic ends are expressions
/// over the variables that are not in the scope.
struct Declared {
    name: Symbol,
    ty: Type,
    interval: Option<Interval>,
}

#[derive(Default)]
struct Tally {
    expressions: usize,
    checked: usize,
    skipped_overflow: usize,
    skipped_bound_overflow: usize,
    skipped_nan: usize,
    skipped_empty: usize,
    both_bounded: usize,
    one_side: usize,
    unbounded: usize,
    constant_both: usize,
    /// Both ends bounded, but only by the limits of the expression's type.
    type_range_only: usize,
}

#[test]
fn sampled_values_lie_within_computed_bounds() {
    let seed = seed();
    let mut rng = SmallRng::seed_from_u64(seed);
    let start = std::time::Instant::now();
    let mut all = Tally::default();
    let mut index_math = Tally::default();
    for case in 0..EXPRESSIONS {
        // Every fourth case is int32 index arithmetic, the shape bounds inference sees most.
        let int_only = case % 4 == 0;
        let tally = if int_only { &mut index_math } else { &mut all };
        run_case(&mut rng, seed, case, int_only, tally);
    }
    let report = |name: &str, t: &Tally| {
        eprintln!(
            "{name}: {} expressions, {} samples checked; skipped {} overflowing, {} with \
             overflowing bounds, {} with NaN, {} with empty ranges; bounds: {:.1}% both sides \
             ({:.1}% constant, {:.1}% just the type's range), {:.1}% one side, {:.1}% unbounded",
            t.expressions,
            t.checked,
            t.skipped_overflow,
            t.skipped_bound_overflow,
            t.skipped_nan,
            t.skipped_empty,
            100.0 * t.both_bounded as f64 / t.expressions as f64,
            100.0 * t.constant_both as f64 / t.expressions as f64,
            100.0 * t.type_range_only as f64 / t.expressions as f64,
            100.0 * t.one_side as f64 / t.expressions as f64,
            100.0 * t.unbounded as f64 / t.expressions as f64,
        )
    };
    report("all types", &all);
    report("i32 index arithmetic", &index_math);
    eprintln!("seed {seed}, {:.2?}", start.elapsed());
    assert!(all.checked > EXPRESSIONS * 3 && index_math.checked > EXPRESSIONS);
}

fn run_case(rng: &mut SmallRng, seed: u64, case: usize, int_only: bool, tally: &mut Tally) {
    let options = if int_only {
        GenOptions {
            types: vec![Type::i32()],
            intrinsics: false,
            ..GenOptions::default()
        }
    } else {
        GenOptions {
            vectors: true,
            ..GenOptions::default()
        }
    };
    let var_types: &[Type] = if int_only {
        &[Type::i32()]
    } else {
        &[
            Type::i32(),
            Type::i32(),
            Type::u8(),
            Type::u16(),
            Type::i16(),
            Type::i64(),
            Type::u32(),
            Type::f32(),
            Type::f64(),
            Type::bool_(),
        ]
    };
    let names = ["x", "y", "z", "w", "v"];
    let vars: Vec<(Symbol, Type)> = names
        .iter()
        .map(|n| (Symbol::new(n), *var_types.choose(rng).unwrap()))
        .collect();
    let declared = declare_ranges(rng, &vars);
    let scope: Scope = declared
        .iter()
        .filter_map(|d| d.interval.clone().map(|i| (d.name, i)))
        .collect();
    let ty = if int_only {
        Type::i32()
    } else {
        random_type(rng, &options)
    };
    let depth = rng.random_range(1..=4);
    let e = random_expr_with(rng, ty, depth, &vars, &options);
    let bounds = bounds_of_expr(&e, &scope);
    tally.expressions += 1;
    match (&bounds.min, &bounds.max) {
        (Some(a), Some(b)) => {
            tally.both_bounded += 1;
            if a.is_const() && b.is_const() {
                tally.constant_both += 1;
            }
            if bounds == Interval::type_range(e.ty()) {
                tally.type_range_only += 1;
            }
        }
        (None, None) => tally.unbounded += 1,
        _ => tally.one_side += 1,
    }
    let inlined = inline_lets(&e);
    for _ in 0..SAMPLES_PER_EXPRESSION {
        let Some(mut env) = sample(rng, &declared, tally) else {
            continue;
        };
        let mut eval = ExprEval::new(&mut env);
        let lanes = eval
            .eval_lanes(&e)
            .unwrap_or_else(|err| panic!("internal error: evaluating {e}: {err}"));
        if eval.signed_overflow {
            tally.skipped_overflow += 1;
            continue;
        }
        if has_nan_subexpression(&inlined, &mut env) {
            tally.skipped_nan += 1;
            continue;
        }
        let mut bound_eval = ExprEval::new(&mut env);
        let lo = bounds.min.as_ref().map(|b| bound_eval.eval(b, 0).unwrap());
        let hi = bounds.max.as_ref().map(|b| bound_eval.eval(b, 0).unwrap());
        if bound_eval.signed_overflow {
            tally.skipped_bound_overflow += 1;
            continue;
        }
        tally.checked += 1;
        for v in lanes {
            let below = lo.is_some_and(|lo| !le(lo, v));
            let above = hi.is_some_and(|hi| !le(v, hi));
            if below || above {
                let mut msg = String::new();
                writeln!(msg, "seed {seed}, case {case}: {v:?} escapes {bounds}").unwrap();
                writeln!(msg, "  expression: {e}").unwrap();
                writeln!(msg, "  bounds evaluate to [{lo:?}, {hi:?}]").unwrap();
                for d in &declared {
                    let range = d.interval.as_ref().map_or("free".into(), |i| i.to_string());
                    writeln!(
                        msg,
                        "  {}: {} in {range} = {:?}",
                        d.name, d.ty, env[&d.name]
                    )
                    .unwrap();
                }
                panic!("{msg}");
            }
        }
    }
}

/// Random ranges for the variables: some stay free (single points), the others get a
/// constant, half-open, unbounded or symbolic interval.
fn declare_ranges(rng: &mut SmallRng, vars: &[(Symbol, Type)]) -> Vec<Declared> {
    let mut declared: Vec<Declared> = vars
        .iter()
        .map(|&(name, ty)| Declared {
            name,
            ty,
            interval: None,
        })
        .collect();
    // Decide the free ones first: symbolic ranges may only mention free variables.
    let scoped: Vec<bool> = vars.iter().map(|_| rng.random_bool(0.7)).collect();
    for i in 0..vars.len() {
        if !scoped[i] {
            continue;
        }
        let ty = vars[i].1;
        let free_same_type: Vec<Symbol> = vars
            .iter()
            .zip(&scoped)
            .filter(|((_, t), s)| *t == ty && !**s)
            .map(|((n, _), _)| *n)
            .collect();
        let symbolic_allowed = (ty.is_int() && ty.bits >= 32) || ty.is_float();
        declared[i].interval = Some(match rng.random_range(0..10) {
            0..=1 if symbolic_allowed && !free_same_type.is_empty() => {
                let base = Expr::var(*free_same_type.choose(rng).unwrap(), ty);
                let lo = rng.random_range(-8..=0);
                let hi = rng.random_range(0..=16);
                let offset =
                    |k: i64| Expr::binary(BinaryOp::Add, base.clone(), Expr::make_const(ty, k));
                Interval::new(offset(lo), offset(hi))
            }
            2 => Interval::everything(),
            3 => Interval {
                min: Some(constant_end(rng, ty)),
                max: None,
            },
            4 => Interval {
                min: None,
                max: Some(constant_end(rng, ty)),
            },
            _ => {
                let (a, b) = (constant_end(rng, ty), constant_end(rng, ty));
                if le(value_of(&a), value_of(&b)) {
                    Interval::new(a, b)
                } else {
                    Interval::new(b, a)
                }
            }
        });
    }
    declared
}

/// A finite random constant of type `ty`, usually small.
fn constant_end(rng: &mut SmallRng, ty: Type) -> Expr {
    loop {
        let v = random_value(rng, ty);
        if !v.as_f64().is_nan() {
            return v.to_expr(ty);
        }
    }
}

fn value_of(e: &Expr) -> Value {
    Value::from_const(e).expect("internal error: not a constant")
}

/// Values for every variable: free ones at random, scoped ones inside their (evaluated)
/// ranges. `None` when a range turns out empty or its ends overflow.
fn sample(
    rng: &mut SmallRng,
    declared: &[Declared],
    tally: &mut Tally,
) -> Option<HashMap<Symbol, Value>> {
    let mut env: HashMap<Symbol, Value> = declared
        .iter()
        .filter(|d| d.interval.is_none())
        .map(|d| (d.name, random_value(rng, d.ty)))
        .collect();
    for d in declared {
        let Some(interval) = &d.interval else {
            continue;
        };
        let mut eval = ExprEval::new(&mut env);
        let lo = interval.min.as_ref().map(|e| eval.eval(e, 0).unwrap());
        let hi = interval.max.as_ref().map(|e| eval.eval(e, 0).unwrap());
        let overflowed = eval.signed_overflow;
        let nan = [lo, hi].iter().flatten().any(|v| v.as_f64().is_nan());
        if overflowed || nan || lo.zip(hi).is_some_and(|(l, h)| !le(l, h)) {
            tally.skipped_empty += 1;
            return None;
        }
        let v = value_inside(rng, d.ty, lo, hi)?;
        env.insert(d.name, v);
    }
    Some(env)
}

/// A value of `ty` in `[lo, hi]` (ends inclusive, `None` unbounded): often an end, else a
/// random value when one falls inside, else one drawn between the ends.
fn value_inside(
    rng: &mut SmallRng,
    ty: Type,
    lo: Option<Value>,
    hi: Option<Value>,
) -> Option<Value> {
    let inside = |v: Value| {
        !v.as_f64().is_nan() && lo.is_none_or(|lo| le(lo, v)) && hi.is_none_or(|hi| le(v, hi))
    };
    let roll = rng.random_range(0..10);
    if roll < 2 {
        if let Some(end) = if roll == 0 { lo } else { hi } {
            return Some(end);
        }
    }
    for _ in 0..8 {
        let v = random_value(rng, ty);
        if inside(v) {
            return Some(v);
        }
    }
    match (lo, hi) {
        (Some(l), Some(h)) => Some(between(rng, ty, l, h)),
        (Some(end), None) | (None, Some(end)) => Some(end),
        (None, None) => None,
    }
}

fn between(rng: &mut SmallRng, ty: Type, lo: Value, hi: Value) -> Value {
    match (lo.as_i128(), hi.as_i128()) {
        (Some(l), Some(h)) => {
            let v = rng.random_range(l..=h);
            match ty.code {
                TypeCode::Bool => Value::Bool(v != 0),
                TypeCode::Int => Value::Int(v as i64),
                _ => Value::UInt(v as u64),
            }
        }
        _ => {
            let (l, h) = (lo.as_f64(), hi.as_f64());
            let v = l + (h - l) * rng.random::<f64>();
            let v = if v.is_finite() { v.clamp(l, h) } else { l };
            if ty.bits == 32 {
                // Rounding to f32 may step outside; the ends themselves are f32 values.
                Value::F32((v as f32).clamp(l as f32, h as f32))
            } else {
                Value::F64(v)
            }
        }
    }
}

/// `a <= b` for two values of one type (bools as 0 and 1, integers exactly).
fn le(a: Value, b: Value) -> bool {
    match (a.as_i128(), b.as_i128()) {
        (Some(x), Some(y)) => x <= y,
        _ => a.as_f64() <= b.as_f64(),
    }
}

/// `e` with every let replaced by its value (so each subexpression can be evaluated alone).
fn inline_lets(e: &Expr) -> Expr {
    match e.kind() {
        ExprKind::Let(name, value, body) => {
            substitute(&inline_lets(body), *name, &inline_lets(value))
        }
        _ => e.map_children(inline_lets),
    }
}

/// Whether some float subexpression of the (let-free) `e` is NaN in some lane.
fn has_nan_subexpression(e: &Expr, env: &mut HashMap<Symbol, Value>) -> bool {
    let mut floats = Vec::new();
    visit_exprs(e, &mut |n| {
        if n.ty().is_float() {
            floats.push(n.clone());
        }
        true
    });
    floats.iter().any(|f| {
        ExprEval::new(env)
            .eval_lanes(f)
            .unwrap()
            .iter()
            .any(|v| v.as_f64().is_nan())
    })
}
