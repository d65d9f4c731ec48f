//! Storage folding (Halide §4.3): when every access to a Func happens inside one serial loop,
//! each iteration touches a window of constant extent E in some dimension, and that window
//! only moves forward, the storage in that dimension is folded to F (the power of two ≥ E,
//! or the factor `fold_storage` asks for): coordinate c is stored at c mod F. Sliding-window
//! schedules thereby keep just a few rows. A fold the schedule asks for that cannot be proven
//! valid is an error naming the Func.

use super::bounds_inference::{func_box, touching, union_boxes};
use super::realization_order::Environment;
use crate::error::{Error, Result};
use crate::ir::substitute::substitute;
use crate::ir::visit::mutate_exprs;
use crate::ir::{BinaryOp, CallKind, Expr, ExprKind, ForKind, Range, Stmt, StmtKind, Symbol, Type};
use crate::simplify::{can_prove, simplify};

pub fn storage_folding(s: &Stmt, env: &Environment) -> Result<Stmt> {
    match s.kind() {
        StmtKind::Realize {
            func,
            types,
            bounds,
            body,
        } => {
            let mut body = storage_folding(body, env)?;
            let mut bounds = bounds.clone();
            let contents = env.func(*func).read();
            let asked = |d: usize| {
                let var = contents.args.get(d)?;
                let fold = contents.schedule.folds.iter().find(|f| f.var == *var)?;
                Some((*var, fold.factor))
            };
            let serial_loop = find_serial_loop(&body, *func);
            for (d, bound) in bounds.iter_mut().enumerate() {
                let factor = match (&serial_loop, asked(d)) {
                    (Some(l), None) => automatic_factor(l, *func, d),
                    (Some(l), Some((var, factor))) => {
                        let refuse = |why: String| {
                            Error::Schedule(format!(
                                "{func}.fold_storage({var}, {factor}): {why}"
                            ))
                        };
                        let extent = window_extent(l, *func, d).map_err(refuse)?;
                        if extent > i64::from(factor) {
                            return Err(refuse(format!(
                                "each iteration of the loop {} uses {extent} coordinates of {var}, more than {factor}",
                                loop_name(l)
                            )));
                        }
                        Some(factor)
                    }
                    (None, Some((var, factor))) => {
                        return Err(Error::Schedule(format!(
                            "{func}.fold_storage({var}, {factor}): {func} is not computed inside a serial loop within its storage, so there is nothing to fold along; store it at an outer loop than it is computed at"
                        )))
                    }
                    (None, None) => None,
                };
                if let Some(factor) = factor {
                    body = fold_accesses(&body, *func, d, factor);
                    *bound = Range {
                        min: Expr::i32(0),
                        extent: Expr::i32(factor),
                    };
                }
            }
            Ok(Stmt::new(StmtKind::Realize {
                func: *func,
                types: types.clone(),
                bounds,
                body,
            }))
        }
        _ => s.try_map_stmts(|c| storage_folding(c, env)),
    }
}

fn loop_name(l: &Stmt) -> Symbol {
    match l.kind() {
        StmtKind::For { name, .. } => *name,
        _ => unreachable!("find_serial_loop finds loops"),
    }
}

/// The serial loop, reached through lets, produce/consume nodes, the realizations of other
/// Funcs stored at the same level and blocks only, that contains every access to `func` in `s`.
fn find_serial_loop(s: &Stmt, func: Symbol) -> Option<Stmt> {
    match s.kind() {
        StmtKind::For {
            kind: ForKind::Serial,
            ..
        } => Some(s.clone()),
        StmtKind::LetStmt { body, .. }
        | StmtKind::ProducerConsumer { body, .. }
        | StmtKind::Realize { body, .. } => find_serial_loop(body, func),
        StmtKind::Block(stmts) => {
            let touching: Vec<&Stmt> = stmts.iter().filter(|c| touches(c, func)).collect();
            match touching.as_slice() {
                [only] => find_serial_loop(only, func),
                _ => None,
            }
        }
        _ => None,
    }
}

fn touches(s: &Stmt, func: Symbol) -> bool {
    touching(s, func).is_some()
}

/// The extent of the window of dimension `d` of `func` that one iteration of serial loop `l`
/// uses, when it is a constant and only moves forward; otherwise why not.
fn window_extent(l: &Stmt, func: Symbol, d: usize) -> std::result::Result<i64, String> {
    let StmtKind::For { name: v, body, .. } = l.kind() else {
        unreachable!("find_serial_loop finds loops")
    };
    let window = union_boxes(func_box(body, func, true), func_box(body, func, false))
        .ok_or_else(|| format!("its region in one iteration of {v} is not known"))?;
    let unbounded = || format!("its region in one iteration of {v} is not bounded");
    let (min, max) = (
        window[d].min.clone().ok_or_else(unbounded)?,
        window[d].max.clone().ok_or_else(unbounded)?,
    );
    let extent = simplify(&Expr::binary(
        BinaryOp::Add,
        Expr::binary(BinaryOp::Sub, max.clone(), min.clone()),
        Expr::i32(1),
    ));
    let e = extent.as_int_const().ok_or_else(|| {
        format!("the extent of its region in one iteration of {v}, {extent}, is not a constant")
    })? as i64;
    let v_expr = Expr::var(*v, Type::i32());
    let next = |x: &Expr| {
        substitute(
            x,
            *v,
            &Expr::binary(BinaryOp::Add, v_expr.clone(), Expr::i32(1)),
        )
    };
    let moves_forward = |x: &Expr| can_prove(&Expr::binary(BinaryOp::Ge, next(x), x.clone()));
    if !(1..=1 << 20).contains(&e) {
        return Err(format!("its region in one iteration of {v} has extent {e}"));
    }
    if !moves_forward(&min) || !moves_forward(&max) {
        return Err(format!(
            "its region is not proven to move only forward as {v} increases"
        ));
    }
    Ok(e)
}

/// The fold factor for dimension `d` of `func` in serial loop `l` when the schedule does not
/// choose one: the power of two covering the window, if folding is valid and saves memory.
fn automatic_factor(l: &Stmt, func: Symbol, d: usize) -> Option<i32> {
    let e = window_extent(l, func, d).ok()?;
    let factor = (e as u32).next_power_of_two() as i32;
    let whole = union_boxes(func_box(l, func, true), func_box(l, func, false))?;
    let whole_extent = simplify(&Expr::binary(
        BinaryOp::Add,
        Expr::binary(BinaryOp::Sub, whole[d].max.clone()?, whole[d].min.clone()?),
        Expr::i32(1),
    ));
    if can_prove(&Expr::binary(BinaryOp::Le, whole_extent, Expr::i32(factor))) {
        return None;
    }
    Some(factor)
}

/// Every access to `func` with coordinate `d` replaced by `coordinate mod factor`.
fn fold_accesses(s: &Stmt, func: Symbol, d: usize, factor: i32) -> Stmt {
    let fold_expr = |e: &Expr| fold_accesses_expr(e, func, d, factor);
    match s.kind() {
        StmtKind::Provide {
            func: f,
            args,
            values,
        } if *f == func => {
            let mut args: Vec<Expr> = args.iter().map(fold_expr).collect();
            args[d] = Expr::binary(BinaryOp::Mod, args[d].clone(), Expr::i32(factor));
            Stmt::new(StmtKind::Provide {
                func: *f,
                args,
                values: values.iter().map(fold_expr).collect(),
            })
        }
        _ => s.map_children(fold_expr, |c| fold_accesses(c, func, d, factor)),
    }
}

fn fold_accesses_expr(e: &Expr, func: Symbol, d: usize, factor: i32) -> Expr {
    mutate_exprs(e, &mut |n| match n.kind() {
        ExprKind::Call {
            name,
            kind: kind @ CallKind::Func(_),
            args,
            value_index,
        } if *name == func => {
            let mut args: Vec<Expr> = args
                .iter()
                .map(|a| fold_accesses_expr(a, func, d, factor))
                .collect();
            args[d] = Expr::binary(BinaryOp::Mod, args[d].clone(), Expr::i32(factor));
            Some(Expr::new(
                n.ty(),
                ExprKind::Call {
                    name: *name,
                    kind: kind.clone(),
                    args,
                    value_index: *value_index,
                },
            ))
        }
        _ => None,
    })
}
