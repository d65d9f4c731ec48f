//! Sliding window (Halide §4.3): when a Func is stored outside a serial loop but computed at
//! each iteration of it, and the region each iteration needs moves monotonically along one
//! dimension, every iteration after the first computes only the part no earlier iteration
//! computed: `f.s0.y.min` becomes `select(v > v_min, max(min, previous_max + 1), min)`.

use super::names::region_max;
use super::names::region_min;
use super::realization_order::Environment;
use crate::ir::substitute::{substitute, uses_var};
use crate::ir::{BinaryOp, Expr, ForKind, Stmt, StmtKind, Symbol, Type};
use crate::lang::schedule::{SplitDirective, StageSchedule, TailStrategy};
use crate::simplify::can_prove;

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
    let expanded = |name: Symbol| -> Option<Expr> {
        let i = chain.iter().position(|(n, _)| *n == name)?;
        let mut e = chain[i].1.clone();
        for (n, value) in chain[..i].iter().rev() {
            e = substitute(&e, *n, value);
        }
        Some(e)
    };
    let v_expr = Expr::var(v, Type::i32());
    let previous = |e: &Expr| {
        substitute(
            e,
            v,
            &Expr::binary(BinaryOp::Sub, v_expr.clone(), Expr::i32(1)),
        )
    };
    let mut sliding = None;
    for &arg in &f.args {
        let (min_name, max_name) = (region_min(func, 0, arg), region_max(func, 0, arg));
        let (min, max) = (expanded(min_name)?, expanded(max_name)?);
        if !uses_var(&min, v) && !uses_var(&max, v) {
            continue;
        }
        let non_decreasing =
            |e: &Expr| can_prove(&Expr::binary(BinaryOp::Ge, e.clone(), previous(e)));
        if sliding.is_some()
            || !non_decreasing(&min)
            || !non_decreasing(&max)
            || rounds_up(&f.pure.as_ref()?.schedule, arg)
        {
            return None;
        }
        sliding = Some((min_name, max));
    }
    let (min_name, max) = sliding?;
    Some(replace_let(body, min_name, &|old_min| {
        let first = Expr::binary(BinaryOp::Le, v_expr.clone(), loop_min.clone());
        let after_previous = Expr::binary(
            BinaryOp::Max,
            old_min.clone(),
            Expr::binary(BinaryOp::Add, previous(&max), Expr::i32(1)),
        );
        Expr::select(first, old_min.clone(), after_previous)
    }))
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

/// The let chain (as `slide_loop` walks it) with the value of `name` replaced by
/// `new(old value)`. The lets after it (the regions of Funcs this one consumes) keep using
/// the old value: they were computed to cover it, and slide on their own.
fn replace_let(s: &Stmt, name: Symbol, new: &dyn Fn(&Expr) -> Expr) -> Stmt {
    rewrite_chain(s, &mut |n, value| {
        if n == name {
            let old = value.clone();
            (new(&old), Some(old))
        } else {
            (value.clone(), None)
        }
    })
}

/// A rewrite of the lets of a chain: `(name, value)` to `(new value, replaced old value)`.
type ChainRewrite<'a> = dyn FnMut(Symbol, &Expr) -> (Expr, Option<Expr>) + 'a;

/// The let chain with each value rewritten by `rewrite(name, value)`, which returns the new
/// value and, once, the old value of the let it replaced; later lets get that old value for
/// its name.
fn rewrite_chain(s: &Stmt, rewrite: &mut ChainRewrite) -> Stmt {
    match s.kind() {
        StmtKind::LetStmt { name, value, body } => {
            let (value, replaced) = rewrite(*name, value);
            let body = match replaced {
                Some(old) => {
                    let replaced_name = *name;
                    rewrite_chain(body, &mut |_, v| (substitute(v, replaced_name, &old), None))
                }
                None => rewrite_chain(body, rewrite),
            };
            Stmt::let_stmt(*name, value, body)
        }
        StmtKind::Block(stmts) if other_consumer_body(s).is_some() => {
            let StmtKind::ProducerConsumer { name: g, body, .. } = stmts[1].kind() else {
                unreachable!()
            };
            let consume = Stmt::new(StmtKind::ProducerConsumer {
                name: *g,
                is_producer: false,
                body: rewrite_chain(body, rewrite),
            });
            Stmt::new(StmtKind::Block(vec![stmts[0].clone(), consume]))
        }
        _ => s.clone(),
    }
}
