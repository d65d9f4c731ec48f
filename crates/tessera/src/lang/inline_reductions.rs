//! Inline reductions (Halide's `InlineReductions`): `sum`, `product`, `maximum`, `minimum`,
//! `argmax` and `argmin` of an expression over the reduction domain its RVars belong to.
//! Each builds a fresh Func over the expression's free pure Vars (sorted by name), whose pure
//! definition is the identity of the reduction and whose one update folds the expression in
//! over the RDom, and returns a call to that Func at those Vars. The `_named` variants (Halide's
//! `maximum(e, "name")`) name that Func and give it back, so it can be scheduled. The `_over`
//! variants (Halide's `sum(r, e)`) reduce over an explicit RDom: RVars of other RDoms in the
//! expression are then free variables of the reduction, like pure Vars, so reductions nest.
//!
//! Types follow Halide: `sum` and `product` keep the expression's type (and wrap like it);
//! `maximum` starts from the type's minimum (−∞ for floats) and `minimum` from its maximum.
//! `argmax`/`argmin` give the RDom coordinates of the *first* extremum in iteration order,
//! then the extremum itself; if no value beats the start value, the coordinates stay 0.
//! Mistakes (no RVar in the expression, RVars of two RDoms, a type the reduction cannot
//! combine) give `Invalid` expressions that the Func definition using them reports.

use std::collections::BTreeMap;

use super::func::{Func, Tuple};
use super::math::{max, min, select};
use super::operators::ExprOps;
use super::rdom::RDom;
use super::var::Var;
use crate::error::{Error, Result, ScheduleError};
use crate::ir::reduction::RDomLink;
use crate::ir::visit::{mutate_exprs, visit_exprs};
use crate::ir::{Expr, ExprKind, Symbol, Type, TypeCode};

/// The sum of `e` over its reduction domain (0 for an empty domain).
pub fn sum(e: impl Into<Expr>) -> Expr {
    sum_named(e, "sum$").0
}

/// The product of `e` over its reduction domain (1 for an empty domain).
pub fn product(e: impl Into<Expr>) -> Expr {
    product_named(e, "product$").0
}

/// The largest value of `e` over its reduction domain (the type's minimum if empty).
pub fn maximum(e: impl Into<Expr>) -> Expr {
    maximum_named(e, "maximum$").0
}

/// The smallest value of `e` over its reduction domain (the type's maximum if empty).
pub fn minimum(e: impl Into<Expr>) -> Expr {
    minimum_named(e, "minimum$").0
}

/// The coordinates of the first maximum of `e` in its reduction domain (one per RDom
/// dimension), then the maximum.
pub fn argmax(e: impl Into<Expr>) -> Vec<Expr> {
    argmax_named(e, "argmax$").0
}

/// The coordinates of the first minimum of `e` in its reduction domain (one per RDom
/// dimension), then the minimum.
pub fn argmin(e: impl Into<Expr>) -> Vec<Expr> {
    argmin_named(e, "argmin$").0
}

/// `sum`, its Func named `name` and given back to be scheduled (Halide's `sum(e, "name")`).
/// The Func's arguments are the free Vars of `e`, sorted by name; like any Func with an
/// update it is computed, unless scheduled otherwise, at the innermost loop of its consumer.
pub fn sum_named(e: impl Into<Expr>, name: &str) -> (Expr, Func) {
    fold("sum", name, e.into(), None, Expr::zero, plus)
}

/// `product`, its Func named `name` and given back to be scheduled (see [`sum_named`]).
pub fn product_named(e: impl Into<Expr>, name: &str) -> (Expr, Func) {
    fold("product", name, e.into(), None, Expr::one, times)
}

/// `maximum`, its Func named `name` and given back to be scheduled (Halide's
/// `maximum(e, "name")`; see [`sum_named`]).
pub fn maximum_named(e: impl Into<Expr>, name: &str) -> (Expr, Func) {
    fold("maximum", name, e.into(), None, type_min, max)
}

/// `minimum`, its Func named `name` and given back to be scheduled (see [`sum_named`]).
pub fn minimum_named(e: impl Into<Expr>, name: &str) -> (Expr, Func) {
    fold("minimum", name, e.into(), None, type_max, min)
}

/// `argmax`, its Func named `name` and given back to be scheduled (see [`sum_named`]).
pub fn argmax_named(e: impl Into<Expr>, name: &str) -> (Vec<Expr>, Func) {
    extremum("argmax", name, e.into(), None, type_min, greater)
}

/// `argmin`, its Func named `name` and given back to be scheduled (see [`sum_named`]).
pub fn argmin_named(e: impl Into<Expr>, name: &str) -> (Vec<Expr>, Func) {
    extremum("argmin", name, e.into(), None, type_max, less)
}

/// The sum of `e` over the RDom `r` (Halide's `sum(r, e)`; 0 for an empty domain). RVars of
/// other RDoms in `e` are free variables of the sum, as pure Vars are.
pub fn sum_over(r: &RDom, e: impl Into<Expr>) -> Expr {
    fold("sum", "sum$", e.into(), Some(r), Expr::zero, plus).0
}

/// The product of `e` over the RDom `r` (Halide's `product(r, e)`; see [`sum_over`]).
pub fn product_over(r: &RDom, e: impl Into<Expr>) -> Expr {
    fold("product", "product$", e.into(), Some(r), Expr::one, times).0
}

/// The largest value of `e` over the RDom `r` (Halide's `maximum(r, e)`; see [`sum_over`]).
pub fn maximum_over(r: &RDom, e: impl Into<Expr>) -> Expr {
    fold("maximum", "maximum$", e.into(), Some(r), type_min, max).0
}

/// The smallest value of `e` over the RDom `r` (Halide's `minimum(r, e)`; see [`sum_over`]).
pub fn minimum_over(r: &RDom, e: impl Into<Expr>) -> Expr {
    fold("minimum", "minimum$", e.into(), Some(r), type_max, min).0
}

/// The coordinates in `r` of the first maximum of `e` over the RDom `r`, then the maximum
/// (Halide's `argmax(r, e)`; see [`sum_over`]).
pub fn argmax_over(r: &RDom, e: impl Into<Expr>) -> Vec<Expr> {
    extremum("argmax", "argmax$", e.into(), Some(r), type_min, greater).0
}

/// The coordinates in `r` of the first minimum of `e` over the RDom `r`, then the minimum
/// (Halide's `argmin(r, e)`; see [`sum_over`]).
pub fn argmin_over(r: &RDom, e: impl Into<Expr>) -> Vec<Expr> {
    extremum("argmin", "argmin$", e.into(), Some(r), type_max, less).0
}

fn plus(acc: Expr, e: Expr) -> Expr {
    acc + e
}

fn times(acc: Expr, e: Expr) -> Expr {
    acc * e
}

fn greater(e: &Expr, best: &Expr) -> Expr {
    e.gt(best)
}

fn less(e: &Expr, best: &Expr) -> Expr {
    e.lt(best)
}

/// The smallest value of a type (−∞ for floats), Halide's `Type::min`.
pub(crate) fn type_min(ty: Type) -> Expr {
    match ty.code {
        TypeCode::Float => Expr::make_float(ty, f64::NEG_INFINITY),
        TypeCode::Int => Expr::make_const(ty, ty.int_min() as i64),
        TypeCode::UInt | TypeCode::Bool => Expr::zero(ty),
    }
}

/// The largest value of a type (+∞ for floats), Halide's `Type::max`.
pub(crate) fn type_max(ty: Type) -> Expr {
    match ty.code {
        TypeCode::Float => Expr::make_float(ty, f64::INFINITY),
        TypeCode::Int => Expr::make_const(ty, ty.int_max() as i64),
        TypeCode::UInt | TypeCode::Bool => Expr::u64_const(ty, ty.int_max() as u64),
    }
}

/// The pieces every inline reduction is built from.
struct Reduction {
    /// The new Func's arguments: the free pure Vars of the expression (sorted by name), then
    /// a fresh Var for each RVar of another RDom (explicit reductions only).
    vars: Vec<Var>,
    /// What the call of the new Func passes for each of `vars`.
    call_args: Vec<Expr>,
    /// The variables of the reduction domain, innermost first.
    rvars: Vec<Expr>,
    /// The expression reduced, each RVar of another RDom replaced by its Var.
    value: Expr,
    func: Func,
}

impl Reduction {
    /// The reduction `what` of `e` over `over`, or else over the RDom of `e`'s RVars, its
    /// Func named `name`.
    fn find(what: &str, name: &str, e: &Expr, over: Option<&RDom>) -> Result<Reduction> {
        let mut free = BTreeMap::new();
        let mut rvars = Vec::new();
        visit_exprs(e, &mut |n| {
            match n.kind() {
                ExprKind::Var(v) => {
                    free.insert(v.as_str(), Var::new(v.as_str()));
                }
                ExprKind::RVar(name, link) => rvars.push((*name, link.clone())),
                _ => {}
            }
            true
        });
        let mut vars: Vec<Var> = free.into_values().collect();
        let mut call_args: Vec<Expr> = vars.iter().map(|v| v.expr()).collect();
        let (link, value) = match over {
            Some(r) => {
                let link = r.link();
                let mut captured: Vec<(Symbol, Var)> = Vec::new();
                let value = mutate_exprs(e, &mut |n| match n.kind() {
                    ExprKind::RVar(name, l) if !l.same_domain(&link) => {
                        let var = match captured.iter().find(|(c, _)| c == name) {
                            Some((_, var)) => *var,
                            None => {
                                let var = Var::fresh();
                                captured.push((*name, var));
                                vars.push(var);
                                call_args.push(n.clone());
                                var
                            }
                        };
                        Some(var.expr())
                    }
                    _ => None,
                });
                (link, value)
            }
            None => (Self::implicit_domain(what, e, &rvars)?, e.clone()),
        };
        let domain = link.domain().ok_or_else(|| {
            Error::Definition(format!(
                "the RDom of the reduction variables of {what} was dropped before the reduction was built"
            ))
        })?;
        let rvars = domain
            .vars
            .iter()
            .map(|v| Expr::new(Type::i32(), ExprKind::RVar(v.name, link.clone())))
            .collect();
        Ok(Reduction {
            vars,
            call_args,
            rvars,
            value,
            // Unnamed reductions' `$` keeps their names apart from users' names; pipelines
            // number same-named Funcs.
            func: Func::new(name),
        })
    }

    /// The one RDom of the RVars of `e` (found in it as `rvars`), reduced over implicitly.
    fn implicit_domain(what: &str, e: &Expr, rvars: &[(Symbol, RDomLink)]) -> Result<RDomLink> {
        let Some((first, link)) = rvars.first().cloned() else {
            return Err(Error::Definition(format!(
                "{what} needs an expression that uses a reduction variable (of an RDom), but {e} uses none"
            )));
        };
        if let Some((other, _)) = rvars.iter().find(|(_, l)| !l.same_domain(&link)) {
            return Err(Error::Definition(format!(
                "{what} of {e} uses reduction variables {first} and {other} from two different RDoms; use one RDom with several dimensions, or {what}_over"
            )));
        }
        Ok(link)
    }

    /// The new Func's value at its own arguments (in its definitions).
    fn at(&self) -> Vec<Expr> {
        self.func.tuple_at(self.vars.clone())
    }
}

/// `f(vars) = identity(type); f(vars) = combine(f(vars), e)`, with `f` named `name`; a
/// mistake gives an Invalid value and a Func without definitions.
fn fold(
    what: &str,
    name: &str,
    e: Expr,
    over: Option<&RDom>,
    identity: fn(Type) -> Expr,
    combine: fn(Expr, Expr) -> Expr,
) -> (Expr, Func) {
    let ty = e.ty();
    if matches!(e.kind(), ExprKind::Invalid(_)) {
        return (e, Func::new(name));
    }
    let r = match Reduction::find(what, name, &e, over) {
        Ok(r) => r,
        Err(err) => return (Expr::invalid(ty, describe(what, &e, err)), Func::new(name)),
    };
    let build = || -> Result<Expr> {
        r.func.define(r.vars.clone(), identity(ty))?;
        let acc = r.func.at(r.vars.clone());
        r.func
            .update(r.vars.clone(), combine(acc, r.value.clone()))?;
        Ok(r.func.at(r.call_args.clone()))
    };
    let value = build().unwrap_or_else(|err| Expr::invalid(ty, describe(what, &e, err)));
    (value, r.func)
}

/// `f(vars) = (0, .., start); f(vars) = better(e, f[last]) ? (rvars.., e) : f(vars)`, with `f`
/// named `name`.
fn extremum(
    what: &str,
    name: &str,
    e: Expr,
    over: Option<&RDom>,
    start: fn(Type) -> Expr,
    better: fn(&Expr, &Expr) -> Expr,
) -> (Vec<Expr>, Func) {
    let ty = e.ty();
    if let ExprKind::Invalid(msg) = e.kind() {
        return (invalid_tuple(1, ty, msg), Func::new(name));
    }
    let r = match Reduction::find(what, name, &e, over) {
        Ok(r) => r,
        Err(err) => {
            return (
                invalid_tuple(1, ty, &describe(what, &e, err)),
                Func::new(name),
            )
        }
    };
    let dims = r.rvars.len();
    let build = || -> Result<Vec<Expr>> {
        let mut initial = vec![Expr::i32(0); dims];
        initial.push(start(ty));
        r.func.define(r.vars.clone(), Tuple(initial))?;
        let current = r.at();
        let is_better = better(&r.value, &current[dims]);
        let updated = r
            .rvars
            .iter()
            .chain([&r.value])
            .zip(&current)
            .map(|(new, old)| select(is_better.clone(), new, old))
            .collect();
        r.func.update(r.vars.clone(), Tuple(updated))?;
        Ok(r.func.tuple_at(r.call_args.clone()))
    };
    let values = build().unwrap_or_else(|err| invalid_tuple(dims, ty, &describe(what, &e, err)));
    (values, r.func)
}

/// The result of a failed argmax/argmin: one Invalid per coordinate and one for the value.
fn invalid_tuple(dims: usize, ty: Type, msg: &str) -> Vec<Expr> {
    let mut out = vec![Expr::invalid(Type::i32(), msg); dims];
    out.push(Expr::invalid(ty, msg));
    out
}

/// The message of an Invalid result. It is reported again as an error of the Func using the
/// reduction, so it carries the bare text (no "type error:" prefix) and says which
/// reduction failed.
fn describe(what: &str, e: &Expr, err: Error) -> String {
    let text = match err {
        Error::Definition(m)
        | Error::Type(m)
        | Error::Schedule(ScheduleError { message: m, .. })
        | Error::Buffer(m)
        | Error::Runtime(m)
        | Error::Codegen(m)
        | Error::Io(m)
        | Error::Internal(m) => m,
    };
    if text.starts_with(what) {
        text
    } else {
        format!("{what} of {e}: {text}")
    }
}
