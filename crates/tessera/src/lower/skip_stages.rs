//! Skipping stages (Halide's skip_stages): a Func whose consumers use its values only under a
//! condition they can evaluate before it is computed (an arm of a `select` or a branch of an
//! `if`, on parameters or the variables of loops outside it) is computed only when that
//! condition holds. A Func stored outside the loop it is computed in (sliding, folding), or
//! whose production computes another stored outside it, is skipped only on a condition of
//! parameters alone, which holds in all iterations or in none: otherwise later iterations
//! could rely on what a skipped one did not compute. One
//! sharing loops with another (`compute_with`) is not skipped. A condition varying with a vectorized loop's
//! variable is not used (the production would differ between lanes).

use super::realization_order::Environment;
use crate::analysis::values_needed::values_needed;
use crate::ir::substitute::free_vars;
use crate::ir::visit::{any_node, visit_stmts};
use crate::ir::{Expr, ExprKind, ForKind, Stmt, StmtKind, Symbol};
use crate::simplify::simplify;

pub fn skip_stages(s: &Stmt, env: &Environment) -> Stmt {
    skip_inside(s, env, &mut Vec::new())
}

/// `s` with its productions skipped where not needed; `vector_loops` are the variables of
/// the vectorized loops around `s` and the lets varying with them.
fn skip_inside(s: &Stmt, env: &Environment, vector_loops: &mut Vec<Symbol>) -> Stmt {
    match s.kind() {
        StmtKind::For { name, kind, .. } => {
            let vectorized = *kind == ForKind::Vectorized;
            if vectorized {
                vector_loops.push(*name);
            }
            let s = s.map_children(|e| e.clone(), |c| skip_inside(c, env, vector_loops));
            if vectorized {
                vector_loops.pop();
            }
            s
        }
        StmtKind::LetStmt { name, value, .. } => {
            let varying = free_vars(value).iter().any(|v| vector_loops.contains(v));
            if varying {
                vector_loops.push(*name);
            }
            let s = s.map_children(|e| e.clone(), |c| skip_inside(c, env, vector_loops));
            if varying {
                vector_loops.pop();
            }
            s
        }
        StmtKind::Block(stmts) => {
            let mut stmts: Vec<Stmt> = stmts
                .iter()
                .map(|c| skip_inside(c, env, vector_loops))
                .collect();
            for i in 1..stmts.len() {
                if let Some(guarded) =
                    guarded_production(&stmts[i - 1], &stmts[i], env, vector_loops)
                {
                    stmts[i - 1] = guarded;
                }
            }
            Stmt::new(StmtKind::Block(stmts))
        }
        _ => s.map_children(|e| e.clone(), |c| skip_inside(c, env, vector_loops)),
    }
}

/// `produce f { if (needed) { ... } }` for a `produce f; consume f` pair whose consumers need
/// f's values only when `needed` holds.
fn guarded_production(
    produce: &Stmt,
    consume: &Stmt,
    env: &Environment,
    vector_loops: &[Symbol],
) -> Option<Stmt> {
    let StmtKind::ProducerConsumer {
        name,
        is_producer: true,
        body,
    } = produce.kind()
    else {
        return None;
    };
    let StmtKind::ProducerConsumer {
        name: consumed,
        is_producer: false,
        body: consumers,
    } = consume.kind()
    else {
        return None;
    };
    if consumed != name || *name == env.output {
        return None;
    }
    let f = env.func(*name).read();
    if !f.schedule.compute_with.is_empty() {
        return None;
    }
    let needed = simplify(&values_needed(consumers, *name)?);
    if free_vars(&needed).iter().any(|v| vector_loops.contains(v)) {
        return None;
    }
    // A condition on parameters only holds in every iteration or in none, so even storage
    // kept across iterations is all computed or all skipped.
    let own_storage = f.schedule.store_level() == &f.schedule.compute_level
        && f.schedule.folds.is_empty()
        && stored_inside(body);
    if !own_storage && !on_parameters_only(&needed) {
        return None;
    }
    Some(Stmt::new(StmtKind::ProducerConsumer {
        name: *name,
        is_producer: true,
        body: Stmt::if_then(needed, body.clone()),
    }))
}

/// Whether `e` names no variable: only parameters and constants.
fn on_parameters_only(e: &Expr) -> bool {
    !any_node(e, |n| {
        matches!(n.kind(), ExprKind::Var(_) | ExprKind::RVar(..))
    })
}

/// Whether every Func produced in `s` is also stored in it (none keeps what it computed
/// across the productions of the Func `s` produces: one sliding over them would miss the
/// points a skipped production did not compute).
fn stored_inside(s: &Stmt) -> bool {
    let (mut produced, mut stored) = (Vec::new(), Vec::new());
    visit_stmts(s, &mut |c| {
        match c.kind() {
            StmtKind::ProducerConsumer {
                name,
                is_producer: true,
                ..
            } => produced.push(*name),
            StmtKind::Realize { func, .. } => stored.push(*func),
            _ => {}
        }
        true
    });
    produced.iter().all(|p| stored.contains(p))
}
