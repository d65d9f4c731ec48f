//! Skipping stages (Halide's skip_stages): a Func whose consumers use its values only under a
//! condition they can evaluate before it is computed (an arm of a `select` or a branch of an
//! `if`, on parameters or the variables of loops outside it) is computed only when that
//! condition holds. Only Funcs stored where they are computed are skipped: one stored
//! outside (sliding, folding) or sharing loops with another (`compute_with`) has later
//! iterations that rely on what it computed. A condition varying with a vectorized loop's
//! variable is not used (the production would differ between lanes).

use super::realization_order::Environment;
use crate::analysis::values_needed::values_needed;
use crate::ir::substitute::free_vars;
use crate::ir::{ForKind, Stmt, StmtKind, Symbol};
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
    let own_storage = f.schedule.store_level() == &f.schedule.compute_level
        && f.schedule.compute_with.is_none()
        && f.schedule.folds.is_empty();
    if !own_storage {
        return None;
    }
    let needed = simplify(&values_needed(consumers, *name)?);
    if free_vars(&needed).iter().any(|v| vector_loops.contains(v)) {
        return None;
    }
    Some(Stmt::new(StmtKind::ProducerConsumer {
        name: *name,
        is_producer: true,
        body: Stmt::if_then(needed, body.clone()),
    }))
}
