//! Storage folding (Halide §4.3): when every access to a Func happens inside one serial loop,
//! each iteration touches a window of constant extent E in some dimension, and that window
//! only moves forward, the storage in that dimension is folded to F (the power of two ≥ E):
//! coordinate c is stored at c mod F. Sliding-window schedules thereby keep just a few rows.

use super::bounds_inference::{func_box, touching, union_boxes};
use crate::ir::substitute::substitute;
use crate::ir::visit::mutate_exprs;
use crate::ir::{BinaryOp, CallKind, Expr, ExprKind, ForKind, Range, Stmt, StmtKind, Symbol, Type};
use crate::simplify::{can_prove, simplify};

pub fn storage_folding(s: &Stmt) -> Stmt {
    match s.kind() {
        StmtKind::Realize {
            func,
            types,
            bounds,
            body,
        } => {
            let body = storage_folding(body);
            let mut bounds = bounds.clone();
            let mut body = body;
            if let Some(l) = find_serial_loop(&body, *func) {
                for (d, bound) in bounds.iter_mut().enumerate() {
                    if let Some(factor) = fold_factor(&l, *func, d) {
                        body = fold_accesses(&body, *func, d, factor);
                        *bound = Range {
                            min: Expr::i32(0),
                            extent: Expr::i32(factor),
                        };
                    }
                }
            }
            Stmt::new(StmtKind::Realize {
                func: *func,
                types: types.clone(),
                bounds,
                body,
            })
        }
        _ => s.map_children(|e| e.clone(), storage_folding),
    }
}

/// The serial loop, reached through lets, produce/consume nodes, the storage of other Funcs
/// stored at the same level, and blocks only, that contains every access to `func` in `s`.
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

/// The fold factor for dimension `d` of `func` in serial loop `l`, if folding is valid.
fn fold_factor(l: &Stmt, func: Symbol, d: usize) -> Option<i32> {
    let StmtKind::For { name: v, body, .. } = l.kind() else {
        return None;
    };
    let window = union_boxes(func_box(body, func, true), func_box(body, func, false))?;
    let (min, max) = (window[d].min.clone()?, window[d].max.clone()?);
    let extent = simplify(&Expr::binary(
        BinaryOp::Add,
        Expr::binary(BinaryOp::Sub, max.clone(), min.clone()),
        Expr::i32(1),
    ));
    let e = extent.as_int_const()?;
    let v_expr = Expr::var(*v, Type::i32());
    let next = |x: &Expr| {
        substitute(
            x,
            *v,
            &Expr::binary(BinaryOp::Add, v_expr.clone(), Expr::i32(1)),
        )
    };
    let moves_forward = |x: &Expr| can_prove(&Expr::binary(BinaryOp::Ge, next(x), x.clone()));
    if !(1..=1 << 20).contains(&e) || !moves_forward(&min) || !moves_forward(&max) {
        return None;
    }
    // Folding only pays when the window is smaller than what the loop touches overall.
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
