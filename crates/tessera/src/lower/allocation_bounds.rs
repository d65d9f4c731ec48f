//! Allocation bounds: each `Realize` gets lets sizing its storage, `f.<x>.min_realized` and
//! `f.<x>.extent_realized`: the union of every point its producer writes and reads (which
//! covers what its consumers read: the region bounds inference gives it), with the loops
//! between the storage and the compute level ranging over all their iterations (so with
//! `store_root`, storage spans what all iterations of the sliding loop touch). Names the
//! interval analysis gives big bounds become lets `f.storage.<name>` before them.

use super::bounds_inference::{bounded, func_box_in, hoist_lets, union_boxes, wrap_lets, Lets};
use super::names::{realized_extent, realized_min};
use super::realization_order::Environment;
use crate::analysis::bounds::Scope;
use crate::analysis::interval::Interval;
use crate::error::Result;
use crate::ir::{BinaryOp, Expr, Stmt, StmtKind, Symbol};
use crate::simplify::simplify;

pub fn allocation_bounds(s: &Stmt, env: &Environment) -> Result<Stmt> {
    size_realizations(s, env, &mut Scope::new())
}

/// `s` with its realizations sized; `lets` holds the lets enclosing `s`, each as the single
/// value it has there.
fn size_realizations(s: &Stmt, env: &Environment, lets: &mut Scope) -> Result<Stmt> {
    if let StmtKind::LetStmt { name, value, body } = s.kind() {
        let outer = lets.insert(*name, Interval::single_point(value.clone()));
        let body = size_realizations(body, env, lets);
        match outer {
            Some(o) => lets.insert(*name, o),
            None => lets.remove(*name),
        };
        return Ok(Stmt::let_stmt(*name, value.clone(), body?));
    }
    let mut error = None;
    let s = s.map_children(
        |e| e.clone(),
        |c| {
            size_realizations(c, env, lets).unwrap_or_else(|e| {
                error.get_or_insert(e);
                c.clone()
            })
        },
    );
    if let Some(e) = error {
        return Err(e);
    }
    let StmtKind::Realize { func, body, .. } = s.kind() else {
        return Ok(s);
    };
    let f = env.func(*func).read();
    // Its consumers read inside the region bounds inference made it compute, so what its
    // producer touches covers them, but for the points outside their own regions that
    // consumers produced here compute (bounds inference): their reads are added. The region
    // is a let outside the realization; looking one step through it (to its value in terms
    // of the enclosing names) lets an extent cancel to a constant where the region's ends are
    // correlated (a tile and its halo).
    let producer = without_consumers(body, *func);
    let touched = union_boxes(
        func_box_in(&producer, *func, true, lets),
        func_box_in(&producer, *func, false, lets),
    );
    let touched = match consumers_produced(body, *func, env) {
        Some(consumers) => union_boxes(touched, func_box_in(&consumers, *func, false, lets)),
        None => touched,
    };
    let mut sizes = Lets::new();
    for (d, arg) in f.args.iter().enumerate() {
        // Nothing touched (its producer never runs: nothing of it is needed): no storage.
        let (min, max) = match &touched {
            Some(touched) => bounded(&touched[d], || {
                format!("the storage of {func} in dimension {d} ({arg})")
            })?,
            None => (Expr::i32(0), Expr::i32(-1)),
        };
        // The region is empty (max < min) where everything touching it is guarded off in
        // this instance (a GuardWithIf tail past the end): nothing is stored then.
        let extent = simplify(&Expr::binary(
            BinaryOp::Max,
            Expr::binary(
                BinaryOp::Add,
                Expr::binary(BinaryOp::Sub, max, min.clone()),
                Expr::i32(1),
            ),
            Expr::i32(0),
        ));
        // Named apart from the names hoisted for its region.
        let owner = func.dot("storage");
        let min = hoist_lets(&min, owner, &mut sizes);
        let extent = hoist_lets(&extent, owner, &mut sizes);
        sizes.push((realized_min(*func, *arg), min));
        sizes.push((realized_extent(*func, *arg), extent));
    }
    Ok(wrap_lets(sizes, s))
}

/// The producers in `s` of Funcs other than `func` and the output, with the loops and lets
/// around them (the code whose reads bounds inference restricts to their regions), or `None`
/// if there are none.
fn consumers_produced(s: &Stmt, func: Symbol, env: &Environment) -> Option<Stmt> {
    match s.kind() {
        StmtKind::ProducerConsumer {
            name,
            is_producer: true,
            ..
        } if *name != func && *name != env.output => Some(s.clone()),
        StmtKind::Provide { .. } | StmtKind::Store { .. } => None,
        _ => {
            let mut found = false;
            let s = s.map_children(
                |e| e.clone(),
                |c| match consumers_produced(c, func, env) {
                    Some(c) => {
                        found = true;
                        c
                    }
                    None => Stmt::empty(),
                },
            );
            found.then_some(s)
        }
    }
}

/// `s` without what consumes `func`.
fn without_consumers(s: &Stmt, func: Symbol) -> Stmt {
    match s.kind() {
        StmtKind::ProducerConsumer {
            name,
            is_producer: false,
            ..
        } if *name == func => Stmt::empty(),
        _ => s.map_children(|e| e.clone(), |c| without_consumers(c, func)),
    }
}
