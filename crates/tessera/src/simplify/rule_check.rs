//! Every rule of every family, checked on its own: its pattern is instantiated many times with
//! random operands (variables, small expressions, edge-biased constants) of every type its
//! section admits (vectors of 2, 4 or 8 lanes where it mentions ramps or broadcasts), the
//! rule alone is applied, and the result must evaluate bit for bit like the instance under
//! random assignments (skipping those where the instance overflows signed 32/64-bit
//! arithmetic). Random whole expressions rarely contain a given rule's shape, so this is what
//! catches a rule that is wrong for some type or some edge value. The vector and cast
//! rewrites written as code are checked the same way.
//!
//! Re-run a failing seed with `TESSERA_SEED=<seed>`.

use std::collections::HashMap;

use rand::rngs::SmallRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

use super::info::Origin;
use super::rules::{Pat, Rule, Section};
use super::{cast, families, vector, Simplifier};
use crate::eval::expr::ExprEval;
use crate::eval::value::Value;
use crate::ir::{BinaryOp, Expr, Symbol, Type};
use crate::testing::{random_assignment, random_expr_with, random_value, GenOptions};

const INSTANCES_PER_RULE: usize = 300;
const ASSIGNMENTS: usize = 4;

const INT_TYPES: [Type; 8] = [
    Type::i32(),
    Type::i64(),
    Type::i16(),
    Type::i8(),
    Type::u8(),
    Type::u16(),
    Type::u32(),
    Type::u64(),
];

fn section_types(section: Section) -> Vec<Type> {
    match section {
        Section::Any => {
            let mut all = INT_TYPES.to_vec();
            all.extend([Type::f32(), Type::f64(), Type::bool_()]);
            all
        }
        Section::Int | Section::Exact => INT_TYPES.to_vec(),
        Section::Float => vec![Type::f32(), Type::f64()],
        Section::Bool => vec![Type::bool_()],
    }
}

fn mentions_vectors(p: &Pat) -> bool {
    match p {
        Pat::Ramp(..) | Pat::Broadcast(_) => true,
        Pat::Binary(_, a, b) => mentions_vectors(a) || mentions_vectors(b),
        Pat::Unary(_, a) | Pat::Fold(a) | Pat::Query(_, a) => mentions_vectors(a),
        Pat::Select(c, t, f) => mentions_vectors(c) || mentions_vectors(t) || mentions_vectors(f),
        Pat::Intrinsic(_, args) => args.iter().any(mentions_vectors),
        _ => false,
    }
}

/// Builds one random instance of a pattern.
struct Instantiator<'a> {
    rng: &'a mut SmallRng,
    /// The type of comparison operands.
    compared: Type,
    vars: Vec<(Symbol, Type)>,
    wild: HashMap<usize, Expr>,
    constants: HashMap<usize, Expr>,
}

impl<'a> Instantiator<'a> {
    fn new(rng: &'a mut SmallRng, compared: Type, vars: &[(Symbol, Type)]) -> Instantiator<'a> {
        Instantiator {
            rng,
            compared,
            vars: vars.to_vec(),
            wild: HashMap::new(),
            constants: HashMap::new(),
        }
    }

    fn operand(&mut self, want: Type) -> Expr {
        let depth = if self.rng.random_bool(0.6) { 0 } else { 1 };
        let options = GenOptions {
            types: vec![want.element()],
            lets: false,
            ..GenOptions::default()
        };
        random_expr_with(self.rng, want, depth, &self.vars, &options)
    }

    fn constant(&mut self, want: Type) -> Expr {
        let earlier: Vec<i128> = self
            .constants
            .values()
            .filter_map(|c| c.as_int_const())
            .collect();
        let v = if want.is_int_or_uint() && !earlier.is_empty() && self.rng.random_bool(0.3) {
            // A multiple of an earlier constant, for divisibility predicates.
            let base = *earlier.choose(self.rng).expect("nonempty");
            Expr::make_const(want.element(), (base * self.rng.random_range(1..=4)) as i64)
        } else if want.is_int_or_uint() && self.rng.random_bool(0.6) {
            // Small constants make divisibility and ordering predicates hold often.
            let small = self.rng.random_range(-8i64..=16);
            Expr::make_const(want.element(), small)
        } else {
            random_value(self.rng, want.element()).to_expr(want.element())
        };
        v.broadcast_to(want.lanes)
    }

    fn build(&mut self, p: &Pat, want: Type) -> Option<Expr> {
        let lanes = want.lanes;
        let e = match p {
            Pat::Wild(i) => match self.wild.get(i) {
                Some(e) => e.clone(),
                None => {
                    let e = self.operand(want);
                    self.wild.insert(*i, e.clone());
                    e
                }
            },
            Pat::Const(i) => match self.constants.get(i) {
                Some(e) => e.clone(),
                None => {
                    let e = self.constant(want);
                    self.constants.insert(*i, e.clone());
                    e
                }
            },
            Pat::Int(v) => {
                if want.is_bool() || (want.is_int_or_uint() && !want.can_represent_int(*v as i128))
                {
                    return None;
                }
                Expr::make_const(want, *v)
            }
            Pat::Bool(b) => Expr::bool_(*b).broadcast_to(lanes),
            Pat::Binary(op, a, b) => {
                let operand = if op.is_comparison() {
                    self.compared.with_lanes(lanes)
                } else {
                    want
                };
                let (a, b) = (self.build(a, operand)?, self.build(b, operand)?);
                if a.ty() != b.ty() {
                    return None;
                }
                Expr::binary(*op, a, b)
            }
            Pat::Unary(op, a) => Expr::unary(*op, self.build(a, want)?),
            Pat::Select(c, t, f) => {
                let c = self.build(c, Type::bool_().with_lanes(lanes))?;
                Expr::select(c, self.build(t, want)?, self.build(f, want)?)
            }
            Pat::Ramp(base, stride, _) if lanes > 1 => {
                let part = want.element();
                Expr::ramp(self.build(base, part)?, self.build(stride, part)?, lanes)
            }
            Pat::Broadcast(a) if lanes > 1 => self.build(a, want.element())?.broadcast_to(lanes),
            Pat::Intrinsic(op, args) => {
                let args = args
                    .iter()
                    .map(|a| self.build(a, want))
                    .collect::<Option<Vec<_>>>()?;
                Expr::intrinsic(want, *op, args)
            }
            _ => return None,
        };
        (e.ty() == want).then_some(e)
    }
}

fn evaluate(e: &Expr, env: &HashMap<Symbol, Value>) -> (Vec<Value>, bool) {
    let mut ctx = env.clone();
    let mut ev = ExprEval::new(&mut ctx);
    let lanes = ev
        .eval_lanes(e)
        .unwrap_or_else(|err| panic!("evaluating {e}: {err}"));
    (lanes, ev.signed_overflow)
}

/// Whether some signed arithmetic of `e` overflows under `env`, looking at every subexpression
/// (evaluating `e` itself skips the operands that `&&`, `||` and `select` do not need, but the
/// overflow contract covers every node of the input).
fn overflows_anywhere(e: &Expr, env: &HashMap<Symbol, Value>) -> bool {
    let mut found = evaluate(e, env).1;
    e.for_each_child(|c| found = found || overflows_anywhere(c, env));
    found
}

/// Checks one rule; returns how many instances it rewrote.
fn check_rule(rule: &Rule, rng: &mut SmallRng, seed: u64) -> usize {
    let types = section_types(rule.section);
    let vector_rule = mentions_vectors(&rule.lhs);
    let mut fired = 0;
    for _ in 0..INSTANCES_PER_RULE {
        let ty = *types.choose(rng).expect("sections admit some type");
        let compared = if ty.is_bool() && rule.section == Section::Bool {
            *[
                Type::i32(),
                Type::u8(),
                Type::i16(),
                Type::f32(),
                Type::bool_(),
            ]
            .choose(rng)
            .expect("nonempty")
        } else {
            ty
        };
        let lanes = if vector_rule || rng.random_bool(0.2) {
            random_lanes(rng)
        } else {
            1
        };
        let vars = variables(ty, compared);
        let mut inst = Instantiator::new(rng, compared, &vars);
        let want = rule.lhs.result_type(ty).with_lanes(lanes);
        let Some(e) = inst.build(&rule.lhs, want) else {
            continue;
        };
        let apply = |s: &mut Simplifier, n: &Expr| rule.apply(s, n);
        fired += check_instance(&e, &vars, apply, rng, seed, &rule.text) as usize;
    }
    fired
}

fn random_lanes(rng: &mut SmallRng) -> u16 {
    *[2, 4, 8].choose(rng).expect("nonempty")
}

/// The free variables of an instance: `x` and `y` of the section's type, a bool `p`, and
/// `k` of the type compared.
fn variables(ty: Type, compared: Type) -> Vec<(Symbol, Type)> {
    vec![
        (Symbol::new("x"), ty),
        (Symbol::new("y"), ty),
        (Symbol::new("p"), Type::bool_()),
        (Symbol::new("k"), compared),
    ]
}

/// Applies `rewrite` alone to instance `e` (its operands simplified first, as the simplifier
/// does) and, if it fires, checks that the result has the instance's value under random
/// assignments. Returns whether it fired.
fn check_instance(
    e: &Expr,
    vars: &[(Symbol, Type)],
    rewrite: impl FnOnce(&mut Simplifier, &Expr) -> Option<Expr>,
    rng: &mut SmallRng,
    seed: u64,
    what: &str,
) -> bool {
    let mut s = Simplifier::new();
    let n = e.map_children(|c| s.expr(c));
    s.record(&n, Origin::Input);
    let Some(r) = rewrite(&mut s, &n) else {
        return false;
    };
    assert_eq!(r.ty(), e.ty(), "{what}: {e} -> {r} changed the type");
    for _ in 0..ASSIGNMENTS {
        let env = random_assignment(rng, vars);
        if overflows_anywhere(e, &env) {
            continue;
        }
        let (before, _) = evaluate(e, &env);
        let (after, _) = evaluate(&r, &env);
        let same = before.iter().zip(&after).all(|(a, b)| a.bits_eq(*b));
        assert!(
            same,
            "rewrite changed a value (TESSERA_SEED={seed})\n  rule: {what}\n  instance: {e}\n  \
             operands simplified: {n}\n  rewritten: {r}\n  assignment: {env:?}\n  \
             before: {before:?}\n  after:  {after:?}"
        );
    }
    true
}

fn seed() -> u64 {
    match std::env::var("TESSERA_SEED") {
        Ok(s) => s.parse().expect("TESSERA_SEED must be an integer"),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0),
    }
}

#[test]
fn every_rule_preserves_values() {
    let seed = seed();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut never = Vec::new();
    let mut total = 0;
    for (family, rules) in families() {
        for rule in &rules.rules {
            total += 1;
            // Rules with narrow predicates get more tries before counting as unreachable.
            let fired = (0..3).any(|_| check_rule(rule, &mut rng, seed) > 0);
            if !fired {
                never.push(format!("{family}: {}", rule.text));
            }
        }
    }
    println!(
        "{} of {total} rules fired on random instances",
        total - never.len()
    );
    for r in &never {
        println!("never fired: {r}");
    }
    // A rule that never fires is untested; every rule should be reachable.
    assert!(
        never.is_empty(),
        "rules that never fired:\n{}",
        never.join("\n")
    );
}

/// A rewrite written as code, by the shape of its instances.
#[derive(Clone, Copy, Debug)]
enum CodeRewrite {
    /// `cast(ramp(x, y))` to any integer type (`cast.rs`).
    CastOfRamp,
    /// `cast(broadcast(x))` to any type (`cast.rs`).
    CastOfBroadcast,
    /// `broadcast(x) op broadcast(y)`, for one operator (`vector.rs`).
    Lift(BinaryOp),
}

impl CodeRewrite {
    fn all() -> Vec<CodeRewrite> {
        use BinaryOp::*;
        let ops = [
            Add, Sub, Mul, Div, Mod, Min, Max, Eq, Ne, Lt, Le, Gt, Ge, And, Or, BitAnd, BitOr,
            BitXor, Shl, Shr,
        ];
        let mut all = vec![CodeRewrite::CastOfRamp, CodeRewrite::CastOfBroadcast];
        all.extend(ops.map(CodeRewrite::Lift));
        all
    }

    /// A random instance of `lanes` lanes over `x` and `y` of type `ty` (and `p`), or `None`
    /// if the shape has none of that type.
    fn instance(self, inst: &mut Instantiator, ty: Type, lanes: u16) -> Option<Expr> {
        let all_types = || {
            let mut all = INT_TYPES.to_vec();
            all.extend([Type::f32(), Type::f64(), Type::bool_()]);
            all
        };
        Some(match self {
            CodeRewrite::CastOfRamp => {
                let to = *INT_TYPES.choose(inst.rng).expect("nonempty");
                let ramp = Expr::ramp(inst.operand(ty), inst.operand(ty), lanes);
                Expr::cast(to.with_lanes(lanes), ramp)
            }
            CodeRewrite::CastOfBroadcast => {
                let to = *all_types().choose(inst.rng).expect("nonempty");
                Expr::cast(to.with_lanes(lanes), inst.operand(ty).broadcast_to(lanes))
            }
            CodeRewrite::Lift(op) => {
                let logical = matches!(op, BinaryOp::And | BinaryOp::Or);
                if logical != ty.is_bool() || (ty.is_float() && !float_operator(op)) {
                    return None;
                }
                let (a, b) = (inst.operand(ty), inst.operand(ty));
                Expr::binary(op, a.broadcast_to(lanes), b.broadcast_to(lanes))
            }
        })
    }

    fn apply(self, s: &mut Simplifier, e: &Expr) -> Option<Expr> {
        match self {
            CodeRewrite::CastOfRamp | CodeRewrite::CastOfBroadcast => cast::simplify(s, e),
            CodeRewrite::Lift(_) => vector::lift_broadcasts(s, e),
        }
    }
}

fn float_operator(op: BinaryOp) -> bool {
    use BinaryOp::*;
    !matches!(op, BitAnd | BitOr | BitXor | Shl | Shr | And | Or)
}

#[test]
fn code_rewrites_preserve_values() {
    let seed = seed();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut never = Vec::new();
    for rewrite in CodeRewrite::all() {
        let what = format!("{rewrite:?}");
        let mut fired = 0;
        for _ in 0..INSTANCES_PER_RULE {
            let ty = *section_types(Section::Any)
                .choose(&mut rng)
                .expect("nonempty");
            let ty = match rewrite {
                CodeRewrite::CastOfRamp if !ty.is_int_or_uint() => Type::i32(),
                _ => ty,
            };
            let lanes = random_lanes(&mut rng);
            let vars = variables(ty, ty);
            let mut inst = Instantiator::new(&mut rng, ty, &vars);
            let Some(e) = rewrite.instance(&mut inst, ty, lanes) else {
                continue;
            };
            let apply = |s: &mut Simplifier, n: &Expr| rewrite.apply(s, n);
            fired += check_instance(&e, &vars, apply, &mut rng, seed, &what) as usize;
        }
        if fired == 0 {
            never.push(what);
        }
    }
    assert!(
        never.is_empty(),
        "rewrites that never fired (TESSERA_SEED={seed}): {never:?}"
    );
}
