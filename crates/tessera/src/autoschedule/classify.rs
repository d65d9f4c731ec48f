//! What kind of computation each stage is, from how it reads its producers and writes its
//! Func: pointwise, a stencil (reads at constant offsets), an upsample (`f(x / 2)`) or a
//! downsample (`f(2 * x)`), a reduction (an update whose iterations write the same point), a
//! scan (an update reading its Func at points other than the one it writes), data-dependent
//! (coordinates computed from loaded values). A stage may be several at once: a histogram is
//! a data-dependent reduction.

use std::collections::BTreeSet;

use super::cost::reads_data;
use crate::ir::substitute::{free_vars, substitute};
use crate::ir::visit::any_node;
use crate::ir::{BinaryOp, CallKind, Expr, ExprKind, Symbol};
use crate::lang::function::Definition;
use crate::simplify::simplify;

/// One trait of a stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StageClass {
    /// Every read is at the point computed (in the dimensions the read shares).
    Pointwise,
    /// Some read is at a constant offset from the point computed.
    Stencil,
    /// Some read divides a coordinate (`f(x / 2)`): a tile reads a smaller region.
    Upsample,
    /// Some read multiplies a coordinate (`f(2 * x + 1)`): a tile reads a larger region.
    Downsample,
    /// An update over a reduction domain whose iterations may write the same point.
    Reduction,
    /// An update reading its own Func at points other than the one it writes.
    Scan,
    /// Some coordinate, read or written, is computed from loaded values.
    DataDependent,
    /// Some read is none of the above (a transposition, a mirrored border).
    Irregular,
}

/// How one coordinate of a read relates to the point computed.
enum Access {
    /// Independent of the point (a constant, a channel index).
    Fixed,
    /// The same pure Var, at this offset.
    Offset(i64),
    Scaled {
        up: bool,
    },
    DataDependent,
    Irregular,
}

/// The traits of `definition` of Func `func` with pure Vars `args`.
pub fn classify(func: Symbol, args: &[Symbol], definition: &Definition) -> BTreeSet<StageClass> {
    let mut classes = BTreeSet::new();
    let rvars: Vec<Symbol> = definition
        .rdom
        .iter()
        .flat_map(|r| &r.vars)
        .map(|v| v.name)
        .collect();
    if definition.args.iter().any(reads_data) {
        classes.insert(StageClass::DataDependent);
    }
    if !rvars.is_empty() {
        let written: BTreeSet<Symbol> = definition.args.iter().flat_map(free_vars).collect();
        let some_rvar_unwritten = rvars.iter().any(|r| !written.contains(r));
        if some_rvar_unwritten || classes.contains(&StageClass::DataDependent) {
            classes.insert(StageClass::Reduction);
        }
    }
    let mut reads_elsewhere = false;
    let mut offsets = BTreeSet::new();
    for e in definition
        .values
        .iter()
        .chain(&definition.guard)
        .chain(&definition.args)
    {
        for (callee, coordinates) in calls_in(e) {
            if callee == func {
                let at_lhs = coordinates
                    .iter()
                    .zip(&definition.args)
                    .all(|(c, a)| simplify(&(c.clone() - a.clone())).is_const_value(0));
                reads_elsewhere |= !at_lhs;
                continue;
            }
            let mut offset = Vec::new();
            for (d, c) in coordinates.iter().enumerate() {
                match access(c, args.get(d).copied(), &rvars) {
                    Access::Fixed => {}
                    Access::Offset(k) => offset.push(k),
                    Access::Scaled { up } => {
                        classes.insert(if up {
                            StageClass::Upsample
                        } else {
                            StageClass::Downsample
                        });
                    }
                    Access::DataDependent => {
                        classes.insert(StageClass::DataDependent);
                    }
                    Access::Irregular => {
                        classes.insert(StageClass::Irregular);
                    }
                }
            }
            offsets.insert(offset);
        }
    }
    if reads_elsewhere {
        classes.insert(StageClass::Scan);
    }
    if offsets.iter().any(|o| o.iter().any(|&k| k != 0)) {
        classes.insert(StageClass::Stencil);
    }
    if classes.is_empty() {
        classes.insert(StageClass::Pointwise);
    }
    classes
}

/// The calls to Funcs and images in `e`, with their coordinates.
fn calls_in(e: &Expr) -> Vec<(Symbol, Vec<Expr>)> {
    let mut calls = Vec::new();
    crate::ir::visit::visit_exprs(e, &mut |n| {
        if let ExprKind::Call {
            name,
            kind: CallKind::Func(_) | CallKind::Image(_),
            args,
            ..
        } = n.kind()
        {
            calls.push((*name, args.clone()));
        }
        true
    });
    calls
}

/// How coordinate `c`, in a dimension whose pure Var is `own` at the point computed, relates
/// to that point (reduction variables `rvars` range over the domain and count as points too).
fn access(c: &Expr, own: Option<Symbol>, rvars: &[Symbol]) -> Access {
    if reads_data(c) {
        return Access::DataDependent;
    }
    let c = without_clamps(&simplify(c));
    let vars: Vec<Expr> = variables(&c);
    let [var] = vars.as_slice() else {
        return if vars.is_empty() {
            Access::Fixed
        } else {
            Access::Irregular
        };
    };
    let (ExprKind::Var(v) | ExprKind::RVar(v, _)) = var.kind() else {
        unreachable!("`variables` finds variables")
    };
    let offset = simplify(&(c.clone() - var.clone()));
    if let Some(k) = offset.as_int_const() {
        let same_dimension = Some(*v) == own || rvars.contains(v);
        return if same_dimension {
            Access::Offset(k as i64)
        } else {
            Access::Irregular
        };
    }
    let shifted = |by: i32| simplify(&(substitute(&c, *v, &(var.clone() + by)) - c.clone()));
    if shifted(1).as_int_const().is_some_and(|k| k > 1) {
        return Access::Scaled { up: false };
    }
    // `x / k` moves by one every k points.
    match divisor(&c) {
        Some(k) if shifted(k as i32).is_const_value(1) => Access::Scaled { up: true },
        _ => Access::Irregular,
    }
}

/// The constant `k` of a division `e / k` (or shift `e >> s`, `k = 2^s`) in `c`.
fn divisor(c: &Expr) -> Option<i64> {
    let mut found = None;
    crate::ir::visit::visit_exprs(c, &mut |n| {
        if let ExprKind::Binary(op @ (BinaryOp::Div | BinaryOp::Shr), _, k) = n.kind() {
            let k = k.as_int_const().and_then(|k| i64::try_from(k).ok());
            found = found.or(match op {
                BinaryOp::Div => k.filter(|&k| k > 1),
                _ => k.filter(|&s| (1..31).contains(&s)).map(|s| 1 << s),
            });
        }
        found.is_none()
    });
    found
}

/// The distinct variables and reduction variables `e` uses (not its parameters).
fn variables(e: &Expr) -> Vec<Expr> {
    let mut found: Vec<Expr> = Vec::new();
    crate::ir::visit::visit_exprs(e, &mut |n| {
        if matches!(n.kind(), ExprKind::Var(_) | ExprKind::RVar(..)) && !found.contains(n) {
            found.push(n.clone());
        }
        true
    });
    found
}

/// `c` without the clamps around it (`min`/`max` with operands free of its variables), as
/// boundary conditions put them: a clamped read is classified by the read it clamps.
fn without_clamps(c: &Expr) -> Expr {
    match c.kind() {
        ExprKind::Binary(BinaryOp::Min | BinaryOp::Max, a, b) => {
            let bound = |e: &Expr| {
                !any_node(e, |n| {
                    matches!(n.kind(), ExprKind::Var(_) | ExprKind::RVar(..))
                })
            };
            match (bound(a), bound(b)) {
                (false, true) => without_clamps(a),
                (true, false) => without_clamps(b),
                _ => c.clone(),
            }
        }
        _ => c.clone(),
    }
}
