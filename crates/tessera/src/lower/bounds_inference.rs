//! Pass 3, bounds inference (Halide §4.2): defines the region each stage of each Func must
//! compute, as lets in the IR just before the Func is produced: `f.s<k>.<x>.min/max` = the
//! union, over every use of `f` in the code that consumes it, of the coordinates used (by
//! interval analysis, with the loops inside ranging over their bounds). The pure stage also
//! covers every point its updates write or read, so they update initialized values. The
//! output's regions come from the output buffer (or its explicit bounds, which must cover it).

use std::collections::HashMap;

use super::names::{i32_var, region_max, region_min};
use super::realization_order::Environment;
use super::storage_flattening::value_buffer;
use crate::analysis::bounds::Scope;
use crate::analysis::boxes::{boxes_provided_stmt, boxes_required_stmt};
use crate::analysis::interval::Interval;
use crate::error::{Error, Result};
use crate::ir::{BinaryOp, Expr, MessagePart, Stmt, StmtKind, Symbol};
use crate::lang::function::FunctionContents;
use crate::lang::image_param::buffer_field;
use crate::simplify::simplify;

/// The per-dimension region of `func` a statement uses (`required`) or writes (`provided`).
pub fn func_box(s: &Stmt, func: Symbol, provided: bool) -> Option<Vec<Interval>> {
    let scope = Scope::new();
    let boxes = if provided {
        boxes_provided_stmt(s, &scope)
    } else {
        boxes_required_stmt(s, &scope)
    };
    boxes.get(&func).map(|b| b.bounds.clone())
}

/// Dimension-wise union of two optional boxes.
pub fn union_boxes(a: Option<Vec<Interval>>, b: Option<Vec<Interval>>) -> Option<Vec<Interval>> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.iter().zip(&b).map(|(x, y)| x.union(y)).collect()),
        (a, None) => a,
        (None, b) => b,
    }
}

/// The bounds of an interval, or an error naming the Func and dimension it leaves unbounded.
pub fn bounded(i: &Interval, what: impl Fn() -> String) -> Result<(Expr, Expr)> {
    match (&i.min, &i.max) {
        (Some(min), Some(max)) => Ok((simplify(min), simplify(max))),
        _ => Err(Error::Schedule(format!(
            "{} is accessed in an unbounded way (its coordinates cannot be bounded by interval analysis); clamp the coordinates or use a boundary condition",
            what()
        ))),
    }
}

pub fn bounds_inference(s: &Stmt, env: &Environment) -> Result<Stmt> {
    let body = infer(s, env)?;
    let out = env.func(env.output).read();
    let buffer = value_buffer(out.name, 0, out.output_types.len());
    // The output computes its buffer's box, or what its explicit bounds say (which must
    // cover the buffer).
    let mut region: Vec<(Expr, Expr)> = (0..out.args.len())
        .map(|d| {
            let min = i32_var(buffer_field(buffer, "min", d));
            let extent = i32_var(buffer_field(buffer, "extent", d));
            let max = Expr::binary(
                BinaryOp::Sub,
                Expr::binary(BinaryOp::Add, min.clone(), extent),
                Expr::i32(1),
            );
            (min, max)
        })
        .collect();
    let checks = apply_explicit_bounds(&out, &mut region);
    let mut lets = Vec::new();
    for k in 0..out.stage_count() {
        for (&arg, (min, max)) in out.args.iter().zip(&region) {
            lets.push((region_min(out.name, k, arg), min.clone()));
            lets.push((region_max(out.name, k, arg), max.clone()));
        }
    }
    Ok(wrap_lets(
        lets,
        Stmt::block(checks.into_iter().chain([body])),
    ))
}

/// Replaces the `required` region of `f` by its explicit bounds (`f.bound(x, min, extent)`),
/// returning the assertions that each bound covers what was required.
fn apply_explicit_bounds(f: &FunctionContents, required: &mut [(Expr, Expr)]) -> Vec<Stmt> {
    let func = f.name;
    let mut checks = Vec::new();
    for b in &f.schedule.bounds {
        let d = f
            .args
            .iter()
            .position(|a| *a == b.var)
            .expect("validated bound");
        let (min, max) = (
            b.min.clone(),
            simplify(&Expr::binary(
                BinaryOp::Sub,
                Expr::binary(BinaryOp::Add, b.min.clone(), b.extent.clone()),
                Expr::i32(1),
            )),
        );
        let (req_min, req_max) = required[d].clone();
        let covers = Expr::binary(
            BinaryOp::And,
            Expr::binary(BinaryOp::Le, min.clone(), req_min.clone()),
            Expr::binary(BinaryOp::Ge, max.clone(), req_max.clone()),
        );
        checks.push(Stmt::new(StmtKind::Assert {
            condition: covers,
            message: vec![
                MessagePart::Text(format!("{func}.bound({}, ..) gives [", b.var).into()),
                MessagePart::Value(min.clone()),
                MessagePart::Text(", ".into()),
                MessagePart::Value(max.clone()),
                MessagePart::Text("] but [".into()),
                MessagePart::Value(req_min),
                MessagePart::Text(", ".into()),
                MessagePart::Value(req_max),
                MessagePart::Text("] is needed".into()),
            ],
        }));
        required[d] = (min, max);
    }
    checks
}

fn wrap_lets(lets: Vec<(Symbol, Expr)>, body: Stmt) -> Stmt {
    lets.into_iter()
        .rev()
        .fold(body, |b, (n, v)| Stmt::let_stmt(n, v, b))
}

fn infer(s: &Stmt, env: &Environment) -> Result<Stmt> {
    let mut error = None;
    let s = s.map_children(
        |e| e.clone(),
        |c| {
            infer(c, env).unwrap_or_else(|e| {
                error.get_or_insert(e);
                c.clone()
            })
        },
    );
    if let Some(e) = error {
        return Err(e);
    }
    let StmtKind::Block(stmts) = s.kind() else {
        return Ok(s);
    };
    let mut out = Vec::with_capacity(stmts.len());
    let mut i = 0;
    while i < stmts.len() {
        if let (
            StmtKind::ProducerConsumer {
                name,
                is_producer: true,
                body: produce,
            },
            Some(next),
        ) = (stmts[i].kind(), stmts.get(i + 1))
        {
            if let StmtKind::ProducerConsumer {
                name: consumer,
                is_producer: false,
                body: consume,
            } = next.kind()
            {
                if consumer == name {
                    let pair = Stmt::block([stmts[i].clone(), next.clone()]);
                    out.push(define_regions(*name, produce, consume, pair, env)?);
                    i += 2;
                    continue;
                }
            }
        }
        out.push(stmts[i].clone());
        i += 1;
    }
    Ok(Stmt::block(out))
}

/// Wraps `pair` (produce f; consume f) in the lets defining the regions of f's stages.
fn define_regions(
    func: Symbol,
    produce: &Stmt,
    consume: &Stmt,
    pair: Stmt,
    env: &Environment,
) -> Result<Stmt> {
    let f = env.func(func).read();
    let dim_name = |d: usize| format!("{func} in dimension {} ({})", d, f.args[d]);
    let Some(required) = func_box(consume, func, false) else {
        return Err(Error::Schedule(format!(
            "internal error: {func} is produced but not used"
        )));
    };
    let mut required: Vec<(Expr, Expr)> = required
        .iter()
        .enumerate()
        .map(|(d, i)| bounded(i, || dim_name(d)))
        .collect::<Result<_>>()?;
    let checks = apply_explicit_bounds(&f, &mut required);

    // Updates compute the required region of their pure dimensions.
    let mut lets: Vec<(Symbol, Expr)> = Vec::new();
    for k in 1..f.stage_count() {
        let def = f.stage(k).expect("stage exists");
        for (d, arg) in def.args.iter().enumerate() {
            if let Some(v) = arg.as_var() {
                lets.push((region_min(func, k, v), required[d].0.clone()));
                lets.push((region_max(func, k, v), required[d].1.clone()));
            }
        }
    }
    // The pure definition also covers what the updates touch.
    let stages: Vec<Stmt> = match produce.kind() {
        StmtKind::Block(s) => s.clone(),
        _ => vec![produce.clone()],
    };
    let scope: HashMap<Symbol, Expr> = lets.iter().cloned().collect();
    let mut touched: Option<Vec<Interval>> = None;
    for update in stages.iter().skip(1) {
        let with_lets = wrap_lets(
            scope.iter().map(|(a, b)| (*a, b.clone())).collect(),
            update.clone(),
        );
        touched = union_boxes(
            touched,
            union_boxes(
                func_box(&with_lets, func, true),
                func_box(&with_lets, func, false),
            ),
        );
    }
    let region: Vec<(Expr, Expr)> = match touched {
        None => required,
        Some(t) => required
            .iter()
            .zip(&t)
            .enumerate()
            .map(|(d, ((min, max), t))| {
                bounded(&Interval::new(min.clone(), max.clone()).union(t), || {
                    format!("the region the updates of {} write", dim_name(d))
                })
            })
            .collect::<Result<_>>()?,
    };
    for (d, &arg) in f.args.iter().enumerate() {
        lets.push((region_min(func, 0, arg), region[d].0.clone()));
        lets.push((region_max(func, 0, arg), region[d].1.clone()));
    }
    Ok(wrap_lets(
        lets,
        Stmt::block(checks.into_iter().chain([pair])),
    ))
}
