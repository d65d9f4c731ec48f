//! Whether a stage's parallel and vectorized reduction loops may run that way, checked when
//! the pipeline is lowered (once `atomic` and `allow_race_conditions`, which may come later
//! in the schedule, are known): without `allow_race_conditions`, each must be race-free
//! (`independent_iterations`) or its update `atomic` and fit for it.

use super::loop_directives::kind_directive;
use crate::error::ScheduleError;
use crate::ir::{BinaryOp, Expr, ExprKind, ForKind, Symbol};
use crate::lang::function::{Definition, FunctionContents};
use crate::lang::independent_iterations::{check_independent, loop_rvars};
use crate::lang::schedule::{LoopDim, StageSchedule};

/// A reduction loop may run in parallel (or as vector lanes) only when its iterations are
/// independent (`independent_iterations`): different values of the RVars it iterates never
/// store to one point of `func`, and none reads a point another stores.
fn check_rvar_parallel_safe(
    s: &StageSchedule,
    def: &Definition,
    func: Symbol,
    loop_name: Symbol,
) -> Result<(), String> {
    let rvars = loop_rvars(s, def, loop_name);
    if rvars.is_empty() {
        return Err(format!(
            "internal error: {loop_name} is not a reduction loop"
        ));
    }
    check_independent(def, func, &rvars).map_err(|why| format!(
        "iterations of the reduction loop {loop_name} may write the same point of {func} or read points other iterations write ({why}), so running them in parallel could change the result; keep it serial, make the update atomic(), or allow_race_conditions() if the races are benign"
    ))
}

/// The schedule errors of `f`'s parallel and vectorized reduction loops: without
/// `allow_race_conditions`, each must be race-free (`check_rvar_parallel_safe`) or its update
/// `atomic` and fit for it (`check_atomic_update`).
pub(crate) fn race_errors(f: &FunctionContents) -> Vec<ScheduleError> {
    let mut errors = Vec::new();
    for (k, def) in f.updates.iter().enumerate() {
        for s in def.schedule.structures() {
            if f.schedule.allow_race_conditions || s.allow_race_conditions {
                continue;
            }
            let racy = |d: &&LoopDim| {
                d.is_rvar && matches!(d.kind, ForKind::Parallel | ForKind::Vectorized)
            };
            let stage = format!("{}.update({k})", f.name);
            if s.atomic {
                let parallel = s
                    .dims
                    .iter()
                    .any(|d| d.is_rvar && d.kind == ForKind::Parallel);
                if s.dims.iter().any(|d| racy(&d)) {
                    if let Err(msg) = check_atomic_update(def, f.name, parallel) {
                        let message = format!("{stage}.atomic(): {msg}");
                        errors.push(ScheduleError::of_directive(f.name, "atomic", message));
                    }
                }
                continue;
            }
            for d in s.dims.iter().filter(racy) {
                if let Err(msg) = check_rvar_parallel_safe(s, def, f.name, d.name) {
                    let directive = kind_directive(d.kind);
                    let message = format!("{stage}.{directive}({}): {msg}", d.short);
                    errors.push(ScheduleError::of_directive(f.name, directive, message));
                }
            }
        }
    }
    errors
}

/// An atomic update makes each store atomic, not the whole update, so its iterations may
/// overlap only on the points they store: every other point of `func` it reads must be one
/// no iteration writes (`never_written`), its guard may not read `func`, and, when
/// `parallel`, no Tuple element may read another element of the point being written (that
/// needs a lock around the stores, Halide's mutex, which Tessera does not have).
fn check_atomic_update(def: &Definition, func: Symbol, parallel: bool) -> Result<(), String> {
    let mut problem = None;
    for (i, v) in def.values.iter().enumerate() {
        crate::ir::visit::visit_exprs(v, &mut |e| {
            if let ExprKind::Call {
                name,
                kind: crate::ir::CallKind::Func(_),
                args,
                value_index,
            } = e.kind()
            {
                if *name != func || problem.is_some() {
                    return problem.is_none();
                }
                let at = args
                    .iter()
                    .map(|a| a.to_string())
                    .collect::<Vec<_>>()
                    .join(", ");
                if *args != def.args && !never_written(&def.args, args) {
                    problem = Some(format!(
                        "the update reads {func}({at}), a point other iterations may write; atomic() makes each store atomic, not the whole update"
                    ));
                } else if *args == def.args && parallel && *value_index != i {
                    problem = Some(format!(
                        "element {i} of the Tuple reads element {value_index} of the point it writes, {func}({at}), which needs a lock around the Tuple's stores; Tessera has none, so keep the reduction loops serial or vectorized"
                    ));
                }
            }
            problem.is_none()
        });
    }
    if let Some(guard) = &def.guard {
        if reads_func(guard, func) {
            problem.get_or_insert(format!(
                "the condition under which it stores ({guard}) reads {func}, outside the atomic store"
            ));
        }
    }
    problem.map_or(Ok(()), Err)
}

fn reads_func(e: &Expr, func: Symbol) -> bool {
    let mut found = false;
    crate::ir::visit::visit_exprs(e, &mut |n| {
        found |= matches!(n.kind(), ExprKind::Call { name, kind: crate::ir::CallKind::Func(_), .. } if *name == func);
        !found
    });
    found
}

/// Whether no point written at `written` (an update's left-hand side) is ever the point
/// read at `read`, whatever the values of the variables on either side: some coordinate
/// differs for every integer solution, `a + g * k` never being `b + h * m` when
/// `gcd(g, h)` does not divide `b - a` (the even and odd rows of `f(x, 2r)` and
/// `f(x, 2r + 1)`).
fn never_written(written: &[Expr], read: &[Expr]) -> bool {
    written.iter().zip(read).any(|(w, r)| {
        let (Some((gw, cw)), Some((gr, cr))) = (step_and_offset(w), step_and_offset(r)) else {
            return false;
        };
        let g = gcd(gw, gr);
        let d = cr - cw;
        if g == 0 {
            d != 0
        } else {
            d % g != 0
        }
    })
}

/// An affine integer expression in variables as `(g, c)`: the values it takes are all
/// `c + g * k` for integers `k` (g the gcd of the variables' coefficients, 0 for a constant).
fn step_and_offset(e: &Expr) -> Option<(i64, i64)> {
    match e.kind() {
        ExprKind::Var(_) | ExprKind::RVar(..) => Some((1, 0)),
        ExprKind::IntImm(_) | ExprKind::UIntImm(_) => Some((0, e.as_int_const()?.try_into().ok()?)),
        ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) => {
            let ((ga, ca), (gb, cb)) = (step_and_offset(a)?, step_and_offset(b)?);
            let c = if *op == BinaryOp::Add {
                ca.checked_add(cb)?
            } else {
                ca.checked_sub(cb)?
            };
            Some((gcd(ga, gb), c))
        }
        ExprKind::Binary(BinaryOp::Mul, a, b) => {
            let ((ga, ca), (gb, cb)) = (step_and_offset(a)?, step_and_offset(b)?);
            match (ga, gb) {
                (_, 0) => Some((ga.checked_mul(cb)?, ca.checked_mul(cb)?)),
                (0, _) => Some((gb.checked_mul(ca)?, ca.checked_mul(cb)?)),
                _ => None,
            }
        }
        _ => None,
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a as i64
}
