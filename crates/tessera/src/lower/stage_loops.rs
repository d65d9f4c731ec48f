//! The loop nest of one stage of a Func, from its definition and its `StageSchedule` (Halide's
//! ApplySplit): one loop per scheduled dimension, outermost first; the original variables
//! rebuilt from the split and fused loops as lets placed as soon as the loops they use are
//! open; `GuardWithIf` tails and RDom predicates as `if`s as far out as the variables they
//! test allow; `Predicate`, `PredicateLoads` and `PredicateStores` tails as guards of the
//! point's store and loads, both or one of them.

use std::collections::HashMap;

use super::names::{i32_var, region_max, region_min, stage_var};
use crate::ir::substitute::{free_vars, substitute_map};
use crate::ir::visit::{mutate_exprs, reads_memory};
use crate::ir::{
    BinaryOp, CallKind, Expr, ExprKind, ForKind, Stmt, StmtKind, Symbol, Type, UnaryOp,
};
use crate::lang::function::{Definition, FunctionContents};
use crate::lang::schedule::{SplitDirective, StageSchedule, TailStrategy};
use crate::simplify::{simplify_with_bounds, var_bound};

fn i32c(v: i32) -> Expr {
    Expr::i32(v)
}
fn add(a: Expr, b: Expr) -> Expr {
    Expr::binary(BinaryOp::Add, a, b)
}
fn sub(a: Expr, b: Expr) -> Expr {
    Expr::binary(BinaryOp::Sub, a, b)
}
fn mul(a: Expr, b: Expr) -> Expr {
    Expr::binary(BinaryOp::Mul, a, b)
}
fn div(a: Expr, b: Expr) -> Expr {
    Expr::binary(BinaryOp::Div, a, b)
}

/// `value` clamped to `[min, min + extent - 1]`.
fn clamp_to(value: Expr, min: Expr, extent: Expr) -> Expr {
    let max = sub(add(min.clone(), extent), i32c(1));
    Expr::binary(BinaryOp::Max, Expr::binary(BinaryOp::Min, value, max), min)
}

/// The effective tail strategy of a split (Halide's `Auto`: shift inwards in pure
/// definitions, guard in updates, where recomputing a point would apply the update twice;
/// the splits `Auto` rounds up are recorded as `RoundUp` when scheduled).
pub fn resolve_tail(tail: TailStrategy, is_update: bool) -> TailStrategy {
    match tail {
        TailStrategy::Auto if is_update => TailStrategy::GuardWithIf,
        TailStrategy::Auto => TailStrategy::ShiftInwards,
        other => other,
    }
}

/// The statement computing stage `stage` of `f` over its region `f.s<k>.<var>.min/max`:
/// its loop nest, or with specializations `if (c1) nest1 else if (c2) nest2 ... else nest`
/// (each nest itself specialized where its specialization is).
pub fn build_stage(f: &FunctionContents, stage: usize) -> Stmt {
    let def = f
        .stage(stage)
        .expect("internal error: building a stage that does not exist");
    build_structure(f, stage, def, &def.schedule, &[])
}

/// The nests of loop structure `schedule` and its specializations, where `facts` (conditions
/// with their truth values) hold.
fn build_structure(
    f: &FunctionContents,
    stage: usize,
    def: &Definition,
    schedule: &StageSchedule,
    facts: &[(&Expr, bool)],
) -> Stmt {
    // Each branch runs where the conditions before it failed (and its own holds): its
    // definition is specialized to that, so it reads only what it needs there.
    let specs = &schedule.specializations;
    let facts_for = |taken: Option<usize>| {
        let failed = specs[..taken.unwrap_or(specs.len())]
            .iter()
            .map(|s| (&s.condition, false));
        let holds = taken.map(|i| (&specs[i].condition, true));
        facts
            .iter()
            .copied()
            .chain(failed)
            .chain(holds)
            .collect::<Vec<_>>()
    };
    // A specialization the conditions before it decide is never taken, or always: then
    // the branches after it are unreachable (`specialize(p)` then `specialize(!p)` leaves
    // no default), and Funcs need to be computed only in the loops of those that remain.
    let mut taken = Vec::new();
    let mut always = None;
    for (i, spec) in specs.iter().enumerate() {
        let decided = Known::new(&facts_for(Some(i))[..facts.len() + i])
            .apply(&spec.condition)
            .as_int_const()
            .map(|truth| truth != 0);
        match decided {
            Some(false) => {}
            Some(true) => {
                always = Some(i);
                break;
            }
            None => taken.push(i),
        }
    }
    let branch = |i: usize| build_structure(f, stage, def, &specs[i].schedule, &facts_for(Some(i)));
    let last = match always {
        Some(i) => branch(i),
        None => build_loop_nest(f, stage, &assuming(def, &facts_for(None)), schedule),
    };
    taken.into_iter().rev().fold(last, |otherwise, i| {
        Stmt::new(StmtKind::IfThenElse {
            condition: specs[i].condition.clone(),
            then_case: branch(i),
            else_case: Some(otherwise),
        })
    })
}

/// For an update of `func` whose one value leaves the point it writes unchanged where a
/// condition `c` fails — `select(c, e, f(lhs))`, or `f(lhs) op select(c, e, identity)` for an
/// integer `+`, `-`, `*`, `|`, `^` (exact no-ops; a float `+ 0` would turn -0 into +0), or
/// either with the select's arms swapped and `c` negated — the value where `c` holds, and `c`.
fn without_no_op(func: Symbol, def: &Definition) -> Option<(Expr, Expr)> {
    let [value] = def.values.as_slice() else {
        return None;
    };
    let is_self = |e: &Expr| {
        matches!(e.kind(), ExprKind::Call { name, kind: CallKind::Func(_), args, .. }
            if *name == func && *args == def.args)
    };
    // The arm of `select(c, a, b)` other than the one `unchanged` accepts, and the condition
    // choosing it.
    let changing_arm = |select: &Expr, unchanged: &dyn Fn(&Expr) -> bool| {
        let ExprKind::Select(c, a, b) = select.kind() else {
            return None;
        };
        if unchanged(b) {
            Some((a.clone(), c.clone()))
        } else if unchanged(a) {
            Some((b.clone(), Expr::unary(UnaryOp::Not, c.clone())))
        } else {
            None
        }
    };
    match value.kind() {
        ExprKind::Select(..) => changing_arm(value, &is_self),
        ExprKind::Binary(op, own, other) if is_self(own) && value.ty().is_int_or_uint() => {
            let neutral = match op {
                BinaryOp::Add | BinaryOp::Sub | BinaryOp::BitOr | BinaryOp::BitXor => 0,
                BinaryOp::Mul => 1,
                _ => return None,
            };
            let is_neutral = |e: &Expr| e.as_int_const() == Some(neutral);
            changing_arm(other, &is_neutral).map(|(e, c)| (Expr::binary(*op, own.clone(), e), c))
        }
        _ => None,
    }
}

/// What conditions with known truth values tell: the conditions themselves (and, of one
/// that holds, its conjuncts; of one that fails, its disjuncts), and the ranges of the
/// names they compare with constants.
struct Known {
    conditions: Vec<(Expr, bool)>,
    ranges: HashMap<Symbol, (i64, i64)>,
}

impl Known {
    fn new(facts: &[(&Expr, bool)]) -> Known {
        let mut conditions: Vec<(Expr, bool)> = Vec::new();
        for &(condition, truth) in facts {
            let split = if truth { BinaryOp::And } else { BinaryOp::Or };
            let mut pending = vec![condition.clone()];
            while let Some(c) = pending.pop() {
                if let ExprKind::Binary(op, a, b) = c.kind() {
                    if *op == split {
                        pending.extend([a.clone(), b.clone()]);
                    }
                }
                conditions.push((c, truth));
            }
        }
        let ranges = ranges_known(&conditions);
        Known { conditions, ranges }
    }

    /// `e` with the known conditions replaced by their truth values, simplified where that
    /// or the ranges change something.
    fn apply(&self, e: &Expr) -> Expr {
        let replaced = mutate_exprs(e, &mut |n| {
            self.conditions
                .iter()
                .find(|(c, _)| c == n)
                .map(|&(_, truth)| Expr::bool_(truth))
        });
        if replaced == *e
            && free_vars(e)
                .iter()
                .all(|name| !self.ranges.contains_key(name))
        {
            replaced
        } else {
            simplify_with_bounds(&replaced, &self.ranges)
        }
    }
}

/// `def` where each condition has the truth value given: the known conditions are replaced
/// in each of its expressions by constants, and what changes is simplified (a value
/// `select(c, a, b)` specialized on `c` reads only `a`).
fn assuming(def: &Definition, facts: &[(&Expr, bool)]) -> Definition {
    let known = Known::new(facts);
    let mut def = def.clone();
    def.map_exprs(|e| known.apply(e));
    def
}

/// The ranges of scalar integer names that the known conditions compare with constants
/// (`p > 73` holding puts `p` in [74, ∞)), so that a definition specialized on one condition
/// also decides the conditions it implies (`p > 50`).
fn ranges_known(known: &[(Expr, bool)]) -> HashMap<Symbol, (i64, i64)> {
    let mut ranges: HashMap<Symbol, (i64, i64)> = HashMap::new();
    for (name, lo, hi) in known.iter().filter_map(|(c, truth)| var_bound(c, *truth)) {
        let clamp = |v: i128| v.clamp(i64::MIN.into(), i64::MAX.into()) as i64;
        let entry = ranges.entry(name).or_insert((i64::MIN, i64::MAX));
        *entry = (entry.0.max(clamp(lo)), entry.1.min(clamp(hi)));
    }
    ranges
}

/// The tail guards of `Predicate`, `PredicateLoads` and `PredicateStores` splits, which stay
/// at the point computed (vectorization turns them into masks on its loads and stores)
/// rather than around loops as `GuardWithIf`'s do.
#[derive(Default)]
struct AccessGuards {
    /// Guarding the store and the loads.
    both: Vec<Expr>,
    /// Guarding the loads only: the store is made either way.
    loads: Vec<Expr>,
    /// Guarding the store only: the loads are made either way.
    stores: Vec<Expr>,
}

impl AccessGuards {
    /// The statement storing `values` at `args` of `func` under these guards:
    /// `if (both) { if (loads) store(values) else store(zeros) }`, where with store guards
    /// each store is `let v = values in if (stores) store(v)`. Past the end of a
    /// `PredicateLoads` split, the zeros stored are never read: they fill the rounded-up
    /// region without reading anything.
    fn guard(&self, func: Symbol, args: Vec<Expr>, values: Vec<Expr>) -> Stmt {
        let all = |conditions: &[Expr]| {
            conditions
                .iter()
                .cloned()
                .reduce(|a, b| Expr::binary(BinaryOp::And, a, b))
        };
        let store = |values: Vec<Expr>| {
            let Some(stores_ok) = all(&self.stores) else {
                return Stmt::new(StmtKind::Provide {
                    func,
                    args: args.clone(),
                    values,
                });
            };
            let names: Vec<Symbol> = (0..values.len())
                .map(|i| func.dot(&format!("value{i}")))
                .collect();
            let provide = Stmt::new(StmtKind::Provide {
                func,
                args: args.clone(),
                values: names
                    .iter()
                    .zip(&values)
                    .map(|(&n, v)| Expr::var(n, v.ty()))
                    .collect(),
            });
            names
                .into_iter()
                .zip(values)
                .rev()
                .fold(Stmt::if_then(stores_ok, provide), |body, (n, v)| {
                    Stmt::let_stmt(n, v, body)
                })
        };
        let zeros: Vec<Expr> = values.iter().map(|v| Expr::zero(v.ty())).collect();
        let body = match all(&self.loads) {
            Some(loads_ok) => Stmt::new(StmtKind::IfThenElse {
                condition: loads_ok,
                then_case: store(values),
                else_case: Some(store(zeros)),
            }),
            None => store(values),
        };
        match all(&self.both) {
            Some(in_range) => Stmt::if_then(in_range, body),
            None => body,
        }
    }
}

/// The loop nest of one definition of `f` under the loop structure `schedule`.
fn build_loop_nest(
    f: &FunctionContents,
    stage: usize,
    def: &Definition,
    schedule: &StageSchedule,
) -> Stmt {
    let name = f.name;
    let var_of = |dim: Symbol| i32_var(stage_var(name, stage, dim));

    // Original dimensions: the pure Vars and the RVars, with their bounds.
    let mut bounds: HashMap<Symbol, (Expr, Expr)> = HashMap::new();
    let mut renames: HashMap<Symbol, Expr> = HashMap::new();
    for a in &def.args {
        if let Some(v) = a.as_var() {
            let (min, max) = (
                i32_var(region_min(name, stage, v)),
                i32_var(region_max(name, stage, v)),
            );
            bounds.insert(v, (min.clone(), add(sub(max, min), i32c(1))));
            renames.insert(v, var_of(v));
        }
    }
    if stage == 0 {
        for &v in &f.args {
            renames.entry(v).or_insert_with(|| var_of(v));
        }
    }
    let mut conditions = Vec::new();
    if let Some(rdom) = &def.rdom {
        for rv in &rdom.vars {
            bounds.insert(rv.name, (rv.min.clone(), rv.extent.clone()));
            renames.insert(rv.name, var_of(rv.name));
        }
        conditions.extend(rdom.predicates.iter().map(|p| substitute_map(p, &renames)));
    }

    // Replay the splits: bounds of the new loops, lets rebuilding the old variables, guards.
    let mut derived: Vec<(Symbol, Expr)> = Vec::new();
    let mut access_guards = AccessGuards::default();
    for split in &schedule.splits {
        match split {
            SplitDirective::Split {
                old,
                outer,
                inner,
                factor,
                tail,
                ..
            } => {
                let (old_min, old_extent) = bounds[old].clone();
                let factor = crate::lang::math::cast(Type::i32(), factor.clone());
                let outer_extent = div(
                    add(old_extent.clone(), sub(factor.clone(), i32c(1))),
                    factor.clone(),
                );
                bounds.insert(*inner, (i32c(0), factor.clone()));
                bounds.insert(*outer, (i32c(0), outer_extent));
                let base = add(old_min.clone(), mul(var_of(*outer), factor.clone()));
                let base = match resolve_tail(*tail, stage > 0) {
                    // Shifted to end at the old variable's last point (`min + extent -
                    // factor` simplifies to `max + 1 - factor`): bounds inference then
                    // bounds it by its region's `max` even where that `max` and the `min` are
                    // only known to lie in intervals (Halide's form). Every iteration but the
                    // last takes the unshifted base, so partitioning the innermost loop gives
                    // its steady iterations code without the clamp.
                    TailStrategy::ShiftInwards => Expr::binary(
                        BinaryOp::Min,
                        crate::lang::math::likely_if_innermost(base),
                        sub(add(old_min.clone(), old_extent.clone()), factor),
                    ),
                    // Likely: every iteration but the last passes the guard, so loop
                    // partitioning gives the steady iterations code without it.
                    guarded @ (TailStrategy::GuardWithIf
                    | TailStrategy::Predicate
                    | TailStrategy::PredicateLoads
                    | TailStrategy::PredicateStores) => {
                        let in_range = crate::lang::math::likely(Expr::binary(
                            BinaryOp::Lt,
                            var_of(*old),
                            add(old_min.clone(), old_extent.clone()),
                        ));
                        match guarded {
                            TailStrategy::GuardWithIf => conditions.push(in_range),
                            TailStrategy::Predicate => access_guards.both.push(in_range),
                            TailStrategy::PredicateLoads => access_guards.loads.push(in_range),
                            _ => access_guards.stores.push(in_range),
                        }
                        base
                    }
                    TailStrategy::RoundUp | TailStrategy::Auto => base,
                };
                derived.push((*old, add(base, var_of(*inner))));
            }
            SplitDirective::Fuse {
                inner,
                outer,
                fused,
            } => {
                let (inner_min, inner_extent) = bounds[inner].clone();
                let (outer_min, outer_extent) = bounds[outer].clone();
                bounds.insert(
                    *fused,
                    (i32c(0), mul(inner_extent.clone(), outer_extent.clone())),
                );
                let f = var_of(*fused);
                let inner_value = add(
                    inner_min.clone(),
                    Expr::binary(BinaryOp::Mod, f.clone(), inner_extent.clone()),
                );
                let outer_value = add(outer_min.clone(), div(f, inner_extent.clone()));
                // The clamps never change a value, but they tell bounds inference each
                // dimension's own range: dividing by an extent of unknown sign would not.
                derived.push((*inner, clamp_to(inner_value, inner_min, inner_extent)));
                derived.push((*outer, clamp_to(outer_value, outer_min, outer_extent)));
            }
        }
    }

    let args: Vec<Expr> = def
        .args
        .iter()
        .map(|a| substitute_map(a, &renames))
        .collect();
    // An update that leaves its point unchanged where a condition fails runs only where it
    // holds (Halide's trimming of no-ops): what its value reads is read only there.
    // Not in an atomic update: the condition would read the point outside its atomic store.
    let trims = stage > 0 && !schedule.atomic;
    let (values, no_op_unless) = match trims.then(|| without_no_op(name, def)).flatten() {
        Some((value, condition)) => (vec![value], Some(condition)),
        None => (def.values.clone(), None),
    };
    conditions.extend(no_op_unless.map(|c| substitute_map(&c, &renames)));
    // A select with an undef arm stores only where the other arm is chosen.
    conditions.extend(def.guard.iter().map(|g| substitute_map(g, &renames)));
    let values: Vec<Expr> = values.iter().map(|v| substitute_map(v, &renames)).collect();
    let mut body = access_guards.guard(name, args, values);
    if schedule.atomic {
        body = Stmt::new(StmtKind::Atomic { body });
    }

    // Loops outermost first; each derived let goes right inside the innermost loop it uses,
    // and each guard right inside the innermost loop or let it uses (as Halide places them):
    // what is computed inside the guarded loops — Funcs computed at them — is then computed
    // only for the points the guard admits, and bounds inference sees the guard narrowing
    // the loop variables.
    let loops: Vec<_> = schedule.dims.iter().rev().collect();
    let depth_of_loop: HashMap<Symbol, usize> = loops
        .iter()
        .enumerate()
        .map(|(i, d)| (stage_var(name, stage, d.name), i + 1))
        .collect();
    let lets: Vec<(Symbol, Expr)> = derived
        .into_iter()
        .map(|(v, e)| (stage_var(name, stage, v), e))
        .collect();
    let mut depth: HashMap<Symbol, usize> = HashMap::new();
    // The number of loops that must be open for `e` to be defined.
    let depth_needed = |e: &Expr, depth: &HashMap<Symbol, usize>| {
        free_vars(e)
            .iter()
            .map(|u| depth_of_loop.get(u).or(depth.get(u)).copied().unwrap_or(0))
            .max()
            .unwrap_or(0)
    };
    for (v, e) in lets.iter().rev() {
        let d = depth_needed(e, &depth);
        depth.insert(*v, d);
    }
    // Inside a vectorized loop a guard stays around the store, where vectorization turns it
    // into a predicate; vectorization cannot take a guard around an inner loop.
    let vector_depth = loops
        .iter()
        .position(|d| d.kind == ForKind::Vectorized)
        .map(|i| i + 1);
    // A guard reading memory (a Func, the Func being updated itself, an image) stays around
    // the store: what it reads may change from one iteration to the next, or be produced
    // inside the loops it would otherwise enclose.
    let guards: Vec<(usize, Expr)> = conditions
        .into_iter()
        .map(|c| {
            let d = depth_needed(&c, &depth);
            let inside_vector = vector_depth.is_some_and(|v| d >= v);
            let innermost = inside_vector || reads_memory(&c);
            (if innermost { loops.len() } else { d }, c)
        })
        .collect();
    // Lets are defined from the last split backwards (a split's inner variable is rebuilt
    // before the variable it was split from); wrap them innermost-first.
    for level in (0..=loops.len()).rev() {
        if let Some(cond) = guards
            .iter()
            .filter(|(d, _)| *d == level)
            .map(|(_, c)| c.clone())
            .reduce(|a, b| Expr::binary(BinaryOp::And, a, b))
        {
            body = Stmt::if_then(cond, body);
        }
        for (v, e) in lets.iter().filter(|(v, _)| depth[v] == level) {
            body = Stmt::let_stmt(*v, e.clone(), body);
        }
        if level > 0 {
            let d = loops[level - 1];
            let (min, extent) = bounds[&d.name].clone();
            body = Stmt::for_loop(stage_var(name, stage, d.name), min, extent, d.kind, body);
        }
    }
    body
}
