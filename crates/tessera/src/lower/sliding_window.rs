//! Sliding window (Halide §4.3): when a Func is stored outside a serial loop but computed at
//! each iteration of it, and the region each iteration needs moves monotonically along one
//! dimension, every iteration after the first computes only the part no earlier iteration
//! computed: `f.s0.y.min` becomes `select(v > v_min, max(min, previous_max + 1), min)` (or,
//! for a window moving backwards, `f.s0.y.max` becomes `min(max, previous_min - 1)`).

use std::collections::{HashMap, HashSet};

use super::bounds_inference::wrap_lets;
use super::names::region_max;
use super::names::region_min;
use super::realization_order::Environment;
use super::stage_loops::resolve_tail;
use crate::analysis::monotonic::{monotonicity, Monotonic};
use crate::ir::substitute::{free_vars, substitute, substitute_map, uses_var};
use crate::ir::{BinaryOp, Expr, ForKind, Stmt, StmtKind, Symbol, Type};
use crate::lang::function::Definition;
use crate::lang::schedule::{SplitDirective, StageSchedule, TailStrategy};

pub fn sliding_window(s: &Stmt, env: &Environment) -> Stmt {
    match s.kind() {
        StmtKind::Realize {
            func,
            types,
            bounds,
            body,
        } => {
            let body = sliding_window(body, env);
            let body = slide_inside(&body, *func, env);
            Stmt::new(StmtKind::Realize {
                func: *func,
                types: types.clone(),
                bounds: bounds.clone(),
                body,
            })
        }
        _ => s.map_children(|e| e.clone(), |c| sliding_window(c, env)),
    }
}

/// Looks for the serial loop at whose top `func` is computed, below its storage.
fn slide_inside(s: &Stmt, func: Symbol, env: &Environment) -> Stmt {
    match s.kind() {
        StmtKind::For {
            name,
            min,
            extent,
            kind: ForKind::Serial,
            body,
        } => {
            if let Some(new_body) = slide_loop(*name, min, body, func, env) {
                return Stmt::for_loop(
                    *name,
                    min.clone(),
                    extent.clone(),
                    ForKind::Serial,
                    new_body,
                );
            }
            s.map_children(|e| e.clone(), |c| slide_inside(c, func, env))
        }
        StmtKind::ProducerConsumer {
            name,
            is_producer: true,
            ..
        } if *name == func => s.clone(),
        _ => s.map_children(|e| e.clone(), |c| slide_inside(c, func, env)),
    }
}

/// If the lets at the top of `body` define `func`'s region and it slides monotonically with
/// the loop variable `v` in exactly one dimension, the body with that region shrunk.
fn slide_loop(
    v: Symbol,
    loop_min: &Expr,
    body: &Stmt,
    func: Symbol,
    env: &Environment,
) -> Option<Stmt> {
    let f = env.func(func).read();
    // The chain of lets at the top of the loop body, in order.
    let mut chain: Vec<(Symbol, Expr)> = Vec::new();
    let mut cur = body.clone();
    loop {
        cur = match cur.kind() {
            StmtKind::LetStmt { name, value, body } => {
                chain.push((*name, value.clone()));
                body.clone()
            }
            _ => match other_consumer_body(&cur) {
                Some(b) => b,
                None => break,
            },
        };
    }
    // How each let of the chain moves with `v`, read in order (the lets are never expanded
    // into one another: a cascade of Funcs each reading its consumer's region twice would
    // double the expression at every step).
    let mut moves: HashMap<Symbol, Monotonic> = HashMap::new();
    for (name, value) in &chain {
        let m = monotonicity(value, v, &moves);
        moves.insert(*name, m);
    }
    let mut sliding = None;
    let mut fixed = None;
    let mut backwards = false;
    for (d, &arg) in f.args.iter().enumerate() {
        let (min_name, max_name) = (region_min(func, 0, arg), region_max(func, 0, arg));
        let (min, max) = (*moves.get(&min_name)?, *moves.get(&max_name)?);
        if min == Monotonic::Constant && max == Monotonic::Constant {
            fixed.get_or_insert((d, arg));
            continue;
        }
        backwards = min.never_increases() && max.never_increases();
        if sliding.is_some() || !(backwards || min.never_decreases() && max.never_decreases()) {
            return None;
        }
        sliding = Some((d, arg));
    }
    // A region that does not move at all is computed in the first iteration only: sliding
    // along any dimension leaves the later iterations nothing to compute.
    let (d, arg) = sliding.or(fixed)?;
    // A window moving backwards (`g(100 - x)`) slides its max down instead of its min up;
    // only a Func of one stage with no split of that dimension does (no tail of a split
    // can then reach below the slid region).
    if backwards
        && (f.stage_count() > 1 || !split_tails(&f.stage(0)?.schedule, arg, false).is_empty())
    {
        return None;
    }
    let moves_along = |m: Monotonic| {
        if backwards {
            m.never_increases()
        } else {
            m.never_decreases()
        }
    };
    // Every stage slides along `arg`. An update may, when it writes this Func at the pure
    // `arg` in that dimension: each point then gets each stage once, in order, whichever
    // iteration first needs it.
    let mut windows = Vec::new();
    for stage in 0..f.stage_count() {
        let def = f.stage(stage)?;
        if stage > 0 && !updates_pointwise_along(def, d, arg) {
            return None;
        }
        // The points a stage computes must follow its region monotonically, or a region
        // that starts later (slid) could reach past the storage sized for the planned one:
        // no split rounds up, and none shifts inwards a loop whose extent was rounded up
        // (from a later start, its last whole step can end later). With updates, every
        // split must be guarded: a split shifted inwards would recompute points before the
        // slid region with the pure definition only, undoing the updates applied to them
        // in earlier iterations.
        let with_updates = f.stage_count() > 1;
        let breaks_sliding = |&(tail, constant_extent): &(TailStrategy, bool)| match tail {
            TailStrategy::GuardWithIf | TailStrategy::Predicate | TailStrategy::PredicateStores => {
                false
            }
            TailStrategy::RoundUp | TailStrategy::PredicateLoads => true,
            _ => with_updates || !constant_extent,
        };
        if split_tails(&def.schedule, arg, stage > 0)
            .iter()
            .any(breaks_sliding)
        {
            return None;
        }
        let (min_name, max_name) = (region_min(func, stage, arg), region_max(func, stage, arg));
        let (min, max) = (*moves.get(&min_name)?, *moves.get(&max_name)?);
        if !moves_along(min) || !moves_along(max) {
            return None;
        }
        // Its other dimensions stay put.
        let others_move = def.args.iter().filter_map(Expr::as_var).any(|other| {
            other != arg
                && [
                    region_min(func, stage, other),
                    region_max(func, stage, other),
                ]
                .iter()
                .any(|n| moves.get(n).is_some_and(|m| *m != Monotonic::Constant))
        });
        if others_move {
            return None;
        }
        windows.push((min_name, max_name));
    }
    // The regions and storage of Funcs computed inside this one's production follow this
    // one's region, but allocation bounds, computed before sliding, sized them from the
    // region as planned: such a nest does not slide (Halide sizes allocations after sliding).
    if !produced_inside(body, func).is_empty() {
        return None;
    }
    // Each stage's previous max, from lets recomputed for `v - 1`, placed before its min
    // (backwards: its previous min, placed before its max).
    let mut slides = Vec::new();
    for (min_name, max_name) in windows {
        let min_at = chain.iter().position(|(n, _)| *n == min_name)?;
        let max_at = chain.iter().position(|(n, _)| *n == max_name)?;
        if max_at < min_at {
            return None;
        }
        let (slid_at, slid_name, lets_before): (usize, Symbol, Vec<&(Symbol, Expr)>) = if backwards
        {
            (max_at, max_name, chain[..=min_at].iter().collect())
        } else {
            if chain[min_at..max_at]
                .iter()
                .any(|(n, _)| uses_var(&chain[max_at].1, *n))
            {
                return None;
            }
            let lets = chain[..min_at].iter().chain([&chain[max_at]]).collect();
            (min_at, min_name, lets)
        };
        let in_scope: HashSet<Symbol> = chain[..slid_at].iter().map(|(n, _)| *n).collect();
        let (previous_lets, previous_end) = previous_values(&lets_before, &in_scope, &moves, v);
        slides.push((slid_at, slid_name, previous_lets, previous_end));
    }
    // In chain order, so that previous values two stages share are defined once, before both.
    slides.sort_by_key(|(at, ..)| *at);
    let v_expr = Expr::var(v, Type::i32());
    let first = Expr::binary(BinaryOp::Le, v_expr, loop_min.clone());
    // Each region's min (backwards: max) as planned stays, named `<min>.unslid`, for
    // everything but this Func's production (the regions and storage of the Funcs this one
    // reads: they were computed to cover it, and slide on their own); the min itself starts
    // after the previous iteration's max (backwards: the max ends before its min).
    let mut defined: HashSet<Symbol> = HashSet::new();
    let mut body = body.clone();
    for (_, slid_name, previous_lets, previous_end) in slides {
        body = map_chain(&body, &mut |name, value, rest| {
            if name != slid_name {
                return None;
            }
            let unslid = name.dot("unslid");
            let planned = Expr::var(unslid, value.ty());
            let after_previous = if backwards {
                Expr::binary(
                    BinaryOp::Min,
                    planned.clone(),
                    Expr::binary(BinaryOp::Sub, previous_end.clone(), Expr::i32(1)),
                )
            } else {
                Expr::binary(
                    BinaryOp::Max,
                    planned.clone(),
                    Expr::binary(BinaryOp::Add, previous_end.clone(), Expr::i32(1)),
                )
            };
            let slid = Expr::select(first.clone(), planned.clone(), after_previous);
            let rest = substitute_outside_production(rest, func, name, &planned);
            let lets = previous_lets
                .iter()
                .filter(|(n, _)| defined.insert(*n))
                .cloned()
                .chain([(unslid, value.clone()), (name, slid)]);
            Some(wrap_lets(lets.collect(), rest))
        });
    }
    Some(body)
}

/// Whether update `def` writes its Func at the pure Var `arg` in dimension `d` (where it
/// then also reads its Func only at `arg`: the language refuses any other self-read).
fn updates_pointwise_along(def: &Definition, d: usize, arg: Symbol) -> bool {
    def.args.get(d).and_then(Expr::as_var) == Some(arg)
}

/// The lets recomputing, for the previous iteration of the loop over `v`, the value of the
/// last of `lets` (in order): of the lets it depends on, those that move with `v` get a
/// `<let>.previous` in terms of one another (so they stay as small as the lets themselves),
/// except those `in_scope` already (defined for another Func's window: a cascade of Funcs
/// would otherwise repeat the chain of previous values once per Func); and that previous
/// value.
fn previous_values(
    lets: &[&(Symbol, Expr)],
    in_scope: &HashSet<Symbol>,
    moves: &HashMap<Symbol, Monotonic>,
    v: Symbol,
) -> (Vec<(Symbol, Expr)>, Expr) {
    let (last, _) = *lets.last().expect("at least the max is given");
    // The lets the last one depends on, through one another.
    let mut needed: HashSet<Symbol> = [*last].into_iter().collect();
    for (n, value) in lets.iter().rev() {
        if needed.contains(n) {
            needed.extend(free_vars(value));
        }
    }
    let mut renames: HashMap<Symbol, Expr> = HashMap::new();
    renames.insert(
        v,
        Expr::binary(BinaryOp::Sub, Expr::var(v, Type::i32()), Expr::i32(1)),
    );
    let mut previous_lets = Vec::new();
    for (n, value) in lets {
        // The last one always: it is defined after the min, where its previous value is used.
        if !needed.contains(n) || (moves[n] == Monotonic::Constant && n != last) {
            continue;
        }
        let previous = n.dot("previous");
        if !in_scope.contains(&previous) {
            previous_lets.push((previous, substitute_map(value, &renames)));
        }
        renames.insert(*n, Expr::var(previous, value.ty()));
    }
    let value = renames
        .get(last)
        .cloned()
        .unwrap_or_else(|| Expr::var(*last, Type::i32()));
    (previous_lets, value)
}

/// The tail strategies (as resolved) of the splits of dimension `arg` and of the loops made
/// from it, in the stage's loop structure and in its specializations', each with whether
/// the loop it splits has a constant extent (`arg` itself, or the inner loop of a split)
/// rather than a rounded-up one (an outer or fused loop).
fn split_tails(
    schedule: &StageSchedule,
    arg: Symbol,
    is_update: bool,
) -> Vec<(TailStrategy, bool)> {
    let mut tails = Vec::new();
    for structure in schedule.structures() {
        // The loops made from `arg`, with whether each has a constant extent.
        let mut derived = vec![(arg, true)];
        for split in &structure.splits {
            let from = |n: &Symbol| derived.iter().find(|(d, _)| d == n).map(|&(_, c)| c);
            match split {
                SplitDirective::Split {
                    old,
                    outer,
                    inner,
                    tail,
                    ..
                } => {
                    if let Some(constant) = from(old) {
                        tails.push((resolve_tail(*tail, is_update), constant));
                        derived.extend([(*outer, false), (*inner, true)]);
                    }
                }
                SplitDirective::Fuse {
                    inner,
                    outer,
                    fused,
                } => {
                    if from(inner).is_some() || from(outer).is_some() {
                        derived.push((*fused, false));
                    }
                }
            }
        }
    }
    tails
}

/// The Funcs produced inside the production of `func` in `s`.
fn produced_inside(s: &Stmt, func: Symbol) -> Vec<Symbol> {
    fn producers(s: &Stmt, func: Symbol, inside: bool, found: &mut Vec<Symbol>) {
        let inside = match s.kind() {
            StmtKind::ProducerConsumer {
                name,
                is_producer: true,
                ..
            } => {
                if inside && !found.contains(name) {
                    found.push(*name);
                }
                inside || *name == func
            }
            _ => inside,
        };
        s.for_each_child(|_| {}, |c| producers(c, func, inside, found));
    }
    let mut found = Vec::new();
    producers(s, func, false, &mut found);
    found
}

/// The consume part of a `produce g; consume g` pair (another Func computed at the same loop,
/// whose consumers include our Func's lets).
fn other_consumer_body(s: &Stmt) -> Option<Stmt> {
    let StmtKind::Block(stmts) = s.kind() else {
        return None;
    };
    match stmts.as_slice() {
        [produce, consume] => match (produce.kind(), consume.kind()) {
            (
                StmtKind::ProducerConsumer {
                    is_producer: true, ..
                },
                StmtKind::ProducerConsumer {
                    is_producer: false,
                    body,
                    ..
                },
            ) => Some(body.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// `s` with `name` (the region's min) replaced by `to` (its unslid value) everywhere but in
/// the production of `func`: the regions and storage of other Funcs were planned around the
/// unslid region, in lets of the chain and in allocations nested deeper alike.
fn substitute_outside_production(s: &Stmt, func: Symbol, name: Symbol, to: &Expr) -> Stmt {
    match s.kind() {
        StmtKind::ProducerConsumer {
            name: g,
            is_producer: true,
            ..
        } if *g == func => s.clone(),
        _ => s.map_children(
            |e| substitute(e, name, to),
            |c| substitute_outside_production(c, func, name, to),
        ),
    }
}

/// The let chain (as `slide_loop` walks it) with each let `name = value` whose rewrite
/// `f(name, value, rest of the chain)` gives a statement replaced by it (which must hold the
/// rest); the others kept.
fn map_chain(s: &Stmt, f: &mut dyn FnMut(Symbol, &Expr, &Stmt) -> Option<Stmt>) -> Stmt {
    match s.kind() {
        StmtKind::LetStmt { name, value, body } => match f(*name, value, body) {
            Some(replaced) => replaced,
            None => Stmt::let_stmt(*name, value.clone(), map_chain(body, f)),
        },
        StmtKind::Block(stmts) if other_consumer_body(s).is_some() => {
            let StmtKind::ProducerConsumer { name: g, body, .. } = stmts[1].kind() else {
                unreachable!()
            };
            let consume = Stmt::new(StmtKind::ProducerConsumer {
                name: *g,
                is_producer: false,
                body: map_chain(body, f),
            });
            Stmt::new(StmtKind::Block(vec![stmts[0].clone(), consume]))
        }
        _ => s.clone(),
    }
}
