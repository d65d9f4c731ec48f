//! Sliding window (Halide §4.3): when a Func is stored outside a serial loop but computed at
//! each iteration of it, and the region each iteration needs moves monotonically along one
//! dimension, every iteration after the first computes only the part no earlier iteration
//! computed: `f.s0.y.min` becomes `select(v > v_min, max(min, previous_max + 1), min)`.

use std::collections::{HashMap, HashSet};

use super::bounds_inference::wrap_lets;
use super::names::region_max;
use super::names::region_min;
use super::realization_order::Environment;
use crate::analysis::monotonic::{monotonicity, Monotonic};
use crate::ir::substitute::{substitute, substitute_map, uses_var};
use crate::ir::{BinaryOp, Expr, ForKind, Stmt, StmtKind, Symbol, Type};
use crate::lang::function::FunctionContents;
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
            let slidable = env.func(*func).read().updates.is_empty();
            let body = if slidable {
                slide_inside(&body, *func, env)
            } else {
                body
            };
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
    for &arg in &f.args {
        let (min_name, max_name) = (region_min(func, 0, arg), region_max(func, 0, arg));
        let (min, max) = (*moves.get(&min_name)?, *moves.get(&max_name)?);
        if min == Monotonic::Constant && max == Monotonic::Constant {
            continue;
        }
        if sliding.is_some()
            || !min.never_decreases()
            || !max.never_decreases()
            || rounds_up(&f.pure.as_ref()?.schedule, arg)
        {
            return None;
        }
        sliding = Some((min_name, max_name));
    }
    let (min_name, max_name) = sliding?;
    // A Func computed inside this one's production covers a region that follows this one's;
    // rounded up, a region that starts later can end later than the one planned, past what
    // the Funcs it reads were sized for.
    if produced_inside(body, func)
        .into_iter()
        .any(|g| rounds_up_anywhere(&env.func(g).read()))
    {
        return None;
    }
    // The previous iteration's max, from lets recomputed for `v - 1`, placed before the min.
    let min_at = chain.iter().position(|(n, _)| *n == min_name)?;
    let max_at = chain.iter().position(|(n, _)| *n == max_name)?;
    if max_at < min_at
        || chain[min_at..max_at]
            .iter()
            .any(|(n, _)| uses_var(&chain[max_at].1, *n))
    {
        return None;
    }
    let lets_before: Vec<&(Symbol, Expr)> =
        chain[..min_at].iter().chain([&chain[max_at]]).collect();
    let (previous_lets, previous_max) = previous_values(&lets_before, &moves, v);
    let v_expr = Expr::var(v, Type::i32());
    let first = Expr::binary(BinaryOp::Le, v_expr, loop_min.clone());
    // The region's min as planned stays, named `<min>.unslid`, for everything but this Func's
    // production (the regions and storage of the Funcs this one reads: they were computed to
    // cover it, and slide on their own); the min itself starts after the previous
    // iteration's max.
    let unslid = min_name.dot("unslid");
    Some(map_chain(body, &mut |name, value, rest| {
        if name != min_name {
            return None;
        }
        let old_min = Expr::var(unslid, value.ty());
        let after_previous = Expr::binary(
            BinaryOp::Max,
            old_min.clone(),
            Expr::binary(BinaryOp::Add, previous_max.clone(), Expr::i32(1)),
        );
        let slid = Expr::select(first.clone(), old_min.clone(), after_previous);
        let rest = substitute_outside_production(rest, func, min_name, &old_min);
        let lets = previous_lets
            .iter()
            .cloned()
            .chain([(unslid, value.clone()), (min_name, slid)]);
        Some(wrap_lets(lets.collect(), rest))
    }))
}

/// The lets recomputing, for the previous iteration of the loop over `v`, the value of the
/// last of `lets` (in order): of the lets it depends on, those that move with `v` get a
/// `<let>.previous` in terms of one another (so they stay as small as the lets themselves);
/// and that previous value.
fn previous_values(
    lets: &[&(Symbol, Expr)],
    moves: &HashMap<Symbol, Monotonic>,
    v: Symbol,
) -> (Vec<(Symbol, Expr)>, Expr) {
    let (last, _) = *lets.last().expect("at least the max is given");
    // The lets the last one depends on, through one another.
    let mut needed: HashSet<Symbol> = [*last].into_iter().collect();
    for (n, value) in lets.iter().rev() {
        if needed.contains(n) {
            needed.extend(lets.iter().map(|(m, _)| *m).filter(|m| uses_var(value, *m)));
        }
    }
    let mut renames: HashMap<Symbol, Expr> = HashMap::new();
    renames.insert(
        v,
        Expr::binary(BinaryOp::Sub, Expr::var(v, Type::i32()), Expr::i32(1)),
    );
    let mut previous_lets = Vec::new();
    for (n, value) in lets {
        if !needed.contains(n) || moves[n] == Monotonic::Constant {
            continue;
        }
        let previous = n.dot("previous");
        previous_lets.push((previous, substitute_map(value, &renames)));
        renames.insert(*n, Expr::var(previous, value.ty()));
    }
    let value = renames
        .get(last)
        .cloned()
        .unwrap_or_else(|| Expr::var(*last, Type::i32()));
    (previous_lets, value)
}

/// Whether a loop over dimension `arg` is split with `RoundUp`: it computes past the end of
/// its region, which the storage (sized for the region before sliding) covers only when the
/// region starts where it was planned to.
fn rounds_up(schedule: &StageSchedule, arg: Symbol) -> bool {
    let mut derived = vec![arg];
    for split in &schedule.splits {
        match split {
            SplitDirective::Split {
                old,
                outer,
                inner,
                tail,
                ..
            } if derived.contains(old) => {
                if *tail == TailStrategy::RoundUp {
                    return true;
                }
                derived.extend([*outer, *inner]);
            }
            SplitDirective::Fuse {
                inner,
                outer,
                fused,
            } if derived.contains(inner) || derived.contains(outer) => derived.push(*fused),
            _ => {}
        }
    }
    false
}

/// Whether any loop of any stage of `f` is split with `RoundUp`.
fn rounds_up_anywhere(f: &FunctionContents) -> bool {
    (0..f.stage_count()).any(|stage| {
        f.stage(stage).is_some_and(|def| {
            def.schedule.splits.iter().any(|split| {
                matches!(
                    split,
                    SplitDirective::Split {
                        tail: TailStrategy::RoundUp,
                        ..
                    }
                )
            })
        })
    })
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
