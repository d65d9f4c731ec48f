//! `hoist_storage` (Halide's): a Func's flat allocation moves out of the loops between its
//! store level and the loop level the schedule hoists it to, sized for the largest of the
//! iterations it now serves. Everything else (what is computed, the realized box each
//! iteration addresses, folding) stays as at the store level, so one allocation is made per
//! iteration of the hoist loop instead of one per iteration of the loops inside it.
//!
//! Runs after storage flattening, on `Allocate` nodes: the size (the product of the
//! allocation's extents) is bounded by interval analysis over the ranges of the loops it
//! leaves, with the lets in between substituted. A parallel loop in between would make its
//! iterations share the storage, so it is refused, as is a size interval analysis cannot bound.

use std::collections::HashMap;

use super::realization_order::Environment;
use super::schedule_functions::level_loops;
use crate::analysis::bounds::{bounds_of_expr, Scope};
use crate::analysis::interval::Interval;
use crate::error::{Error, Result};
use crate::ir::substitute::substitute_map;
use crate::ir::{BinaryOp, Expr, ForKind, MemoryType, Stmt, StmtKind, Symbol, Type};
use crate::lang::image_param::value_buffer;
use crate::lang::schedule::LoopLevel;
use crate::simplify::simplify;

pub fn hoist_storage(s: &Stmt, env: &Environment) -> Result<Stmt> {
    let mut out = s.clone();
    for &name in &env.order {
        let f = env.func(name).read();
        let Some(level) = f.schedule.hoist_level.clone() else {
            continue;
        };
        let err = |why: String| {
            Error::schedule(format!("{name}.hoist_storage({}): {why}", level.describe()))
        };
        let hoist_loops = match &level {
            LoopLevel::Root => None,
            LoopLevel::At {
                func, stage, var, ..
            } => {
                let consumer = env
                    .funcs
                    .get(func)
                    .ok_or_else(|| err(format!("{func} is not part of this pipeline")))?
                    .read();
                let candidates = level_loops(&consumer, *stage, *var);
                let names: Vec<Symbol> = candidates.iter().flatten().copied().collect();
                if names.is_empty() {
                    let why = candidates.into_iter().find_map(|c| c.err());
                    return Err(err(
                        why.unwrap_or_else(|| format!("{func} has no loop {var}"))
                    ));
                }
                Some(names)
            }
            LoopLevel::Inlined => return Err(err("storage cannot be hoisted inline".into())),
        };
        for i in 0..f.output_types.len() {
            let buffer = value_buffer(name, i, f.output_types.len());
            let mut moved = false;
            out = hoist(&out, buffer, hoist_loops.as_deref(), &mut moved, &err)?;
            // A Func the pipeline never computes (all its uses were proven empty) has no
            // allocation left to hoist.
            if !moved && allocates(&out, buffer) {
                return Err(err(format!(
                    "that loop level is not outside where {name} is stored ({})",
                    f.schedule.store_level().describe()
                )));
            }
        }
    }
    Ok(out)
}

fn allocates(s: &Stmt, buffer: Symbol) -> bool {
    if matches!(s.kind(), StmtKind::Allocate { buffer: b, .. } if *b == buffer) {
        return true;
    }
    let mut found = false;
    s.for_each_child(|_| {}, |c| found = found || allocates(c, buffer));
    found
}

/// One step from the hoist level down to the allocation: a loop or a let.
enum Step {
    Loop {
        name: Symbol,
        kind: ForKind,
        min: Expr,
        extent: Expr,
    },
    Let(Symbol, Expr),
}

/// The allocation found below the hoist level: its element type and its largest size.
struct Found {
    ty: Type,
    size: Expr,
    memory: MemoryType,
}

/// `s` with the allocation of `buffer` moved to the top of the hoist loop (one of `loops`;
/// outside everything for `None`); `moved` tells whether it was found there.
fn hoist(
    s: &Stmt,
    buffer: Symbol,
    loops: Option<&[Symbol]>,
    moved: &mut bool,
    err: &dyn Fn(String) -> Error,
) -> Result<Stmt> {
    let hoisted = |body: &Stmt, moved: &mut bool| -> Result<Stmt> {
        let mut found = None;
        let body = remove_allocation(body, buffer, &mut Vec::new(), &mut found, err)?;
        Ok(match found {
            Some(Found { ty, size, memory }) => {
                *moved = true;
                Stmt::new(StmtKind::Allocate {
                    buffer,
                    ty,
                    extents: vec![size],
                    memory,
                    body,
                })
            }
            None => body,
        })
    };
    let Some(loops) = loops else {
        return hoisted(s, moved);
    };
    match s.kind() {
        StmtKind::For {
            name,
            min,
            extent,
            kind,
            body,
        } if loops.contains(name) => Ok(Stmt::for_loop(
            *name,
            min.clone(),
            extent.clone(),
            *kind,
            hoisted(body, moved)?,
        )),
        _ => s.try_map_stmts(|c| hoist(c, buffer, Some(loops), moved, err)),
    }
}

/// `s` without the allocation of `buffer` (its body in its place); `found` gets the size
/// bound over the steps from the hoist level.
fn remove_allocation(
    s: &Stmt,
    buffer: Symbol,
    path: &mut Vec<Step>,
    found: &mut Option<Found>,
    err: &dyn Fn(String) -> Error,
) -> Result<Stmt> {
    match s.kind() {
        StmtKind::Allocate {
            buffer: b,
            ty,
            extents,
            memory,
            body,
        } if *b == buffer => {
            *found = Some(Found {
                ty: *ty,
                size: size_bound(extents, path, err)?,
                memory: *memory,
            });
            Ok(body.clone())
        }
        StmtKind::For {
            name,
            min,
            extent,
            kind,
            body,
        } => {
            path.push(Step::Loop {
                name: *name,
                kind: *kind,
                min: min.clone(),
                extent: extent.clone(),
            });
            let b = remove_allocation(body, buffer, path, found, err);
            path.pop();
            Ok(Stmt::for_loop(
                *name,
                min.clone(),
                extent.clone(),
                *kind,
                b?,
            ))
        }
        StmtKind::LetStmt { name, value, body } => {
            path.push(Step::Let(*name, value.clone()));
            let b = remove_allocation(body, buffer, path, found, err);
            path.pop();
            Ok(Stmt::let_stmt(*name, value.clone(), b?))
        }
        _ => s.try_map_stmts(|c| remove_allocation(c, buffer, path, found, err)),
    }
}

/// The largest element count the allocation with `extents` takes over every iteration of the
/// loops in `path`.
fn size_bound(extents: &[Expr], path: &[Step], err: &dyn Fn(String) -> Error) -> Result<Expr> {
    let mut size = extents
        .iter()
        .cloned()
        .reduce(|a, b| Expr::binary(BinaryOp::Mul, a, b))
        .unwrap_or_else(|| Expr::i32(1));
    // Innermost first: substitute each let, and bound over each loop's range right away, so
    // that the lets outside a loop reach the bounds of its range too.
    for step in path.iter().rev() {
        match step {
            Step::Let(name, value) => {
                size = substitute_map(&size, &HashMap::from([(*name, value.clone())]));
            }
            Step::Loop {
                name,
                kind,
                min,
                extent,
            } => {
                if *kind == ForKind::Parallel {
                    return Err(err(format!(
                        "the parallel loop {name} lies between, and its iterations would share the storage"
                    )));
                }
                let last = Expr::binary(
                    BinaryOp::Sub,
                    Expr::binary(BinaryOp::Add, min.clone(), extent.clone()),
                    Expr::i32(1),
                );
                let mut scope = Scope::new();
                scope.insert(
                    *name,
                    Interval {
                        min: Some(min.clone()),
                        max: Some(last),
                    },
                );
                size = bounds_of_expr(&size, &scope).max.ok_or_else(|| {
                    err(format!(
                        "the size of its storage, {size}, has no upper bound over the loop {name}"
                    ))
                })?;
            }
        }
    }
    Ok(simplify(&Expr::binary(
        BinaryOp::Max,
        size,
        Expr::zero(Type::i32()),
    )))
}
