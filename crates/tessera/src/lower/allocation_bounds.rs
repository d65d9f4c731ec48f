//! Allocation bounds: each `Realize` gets lets sizing its storage, `f.<x>.min_realized` and
//! `f.<x>.extent_realized`: the union of every point its producer writes and reads (which
//! covers what its consumers read: the region bounds inference gives it) and of what its
//! consumers read in the arms of selects that region was narrowed by, with the loops
//! between the storage and the compute level ranging over all their iterations (so with
//! `store_root`, storage spans what all iterations of the sliding loop touch). Names the
//! interval analysis gives big bounds become lets `f.storage.<name>` before them.

use std::collections::HashMap;

use super::bounds_inference::{bounded, hoist_lets, union_boxes, wrap_lets, Lets};
use super::names::{realized_extent, realized_min};
use super::realization_order::Environment;
use crate::analysis::bounds::Scope;
use crate::analysis::boxes::{boxes_provided_stmt, boxes_required_stmt_by_producers, Box};
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
    match s.kind() {
        StmtKind::LetStmt { name, value, body } => {
            let outer = lets.insert(*name, Interval::single_point(value.clone()));
            let body = size_realizations(body, env, lets);
            match outer {
                Some(o) => lets.insert(*name, o),
                None => lets.remove(*name),
            };
            Ok(Stmt::let_stmt(*name, value.clone(), body?))
        }
        StmtKind::Realize { .. } => size_nest(s, env, lets),
        _ => s.try_map_stmts(|c| size_realizations(c, env, lets)),
    }
}

/// Sizes the realization `s` and those linked to it, with one analysis of the code inside
/// `s`: analysing it once per Func would make lowering quadratic in the depth of a pipeline
/// (a chain of Funcs computed at root nests each realization in the last one's consumption).
fn size_nest(s: &Stmt, env: &Environment, lets: &mut Scope) -> Result<Stmt> {
    let StmtKind::Realize { body, .. } = s.kind() else {
        unreachable!("a nest starts at a realization")
    };
    // What each Func's producer writes and reads covers what its consumers read (they read
    // inside the region bounds inference made it compute), but for the points outside their
    // own regions that consumers produced here compute (bounds inference), and the arms of
    // selects that region is narrowed by: the reads of the producers of every Func but the
    // outputs count, and any read in such an arm. Lets outside are looked through one step
    // (to their values in terms of the enclosing names), so that an extent cancels to a
    // constant where the region's ends are correlated (a tile and its halo).
    let provided = boxes_provided_stmt(body, lets);
    let required = boxes_required_stmt_by_producers(body, lets, &env.outputs);
    let touched = |func: &Symbol| {
        let of = |boxes: &HashMap<Symbol, Box>| boxes.get(func).map(|b| b.bounds.clone());
        union_boxes(of(&provided), of(&required))
    };
    size_linked(s, &touched, env, lets)
}

/// `s` with the realizations linked to the top of the nest sized from `touched`: those
/// reached through realizations, productions, consumptions and blocks alone. No name is
/// bound and no condition tested on the way to them, so the analysis of the nest's top sees
/// what each of them touches as the analysis of its own body would. Realizations below
/// anything else start nests of their own.
fn size_linked(
    s: &Stmt,
    touched: &impl Fn(&Symbol) -> Option<Vec<Interval>>,
    env: &Environment,
    lets: &mut Scope,
) -> Result<Stmt> {
    match s.kind() {
        StmtKind::Realize {
            func,
            types,
            bounds,
            body,
        } => {
            let sizes = storage_sizes(*func, touched(func), env)?;
            let realize = Stmt::new(StmtKind::Realize {
                func: *func,
                types: types.clone(),
                bounds: bounds.clone(),
                body: size_linked(body, touched, env, lets)?,
            });
            Ok(wrap_lets(sizes, realize))
        }
        StmtKind::ProducerConsumer { .. } | StmtKind::Block(_) => {
            s.try_map_stmts(|c| size_linked(c, touched, env, lets))
        }
        _ => size_realizations(s, env, lets),
    }
}

/// The lets sizing the storage of `func`, given the region it touches.
fn storage_sizes(func: Symbol, touched: Option<Vec<Interval>>, env: &Environment) -> Result<Lets> {
    let f = env.func(func).read();
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
        sizes.push((realized_min(func, *arg), min));
        sizes.push((realized_extent(func, *arg), extent));
    }
    Ok(sizes)
}
