//! Halide's implicit arguments. The placeholder `_` (`Var::placeholder()`) in an argument list
//! stands for the pure dimensions the list leaves out: in a call it expands to the implicit
//! Vars `_0, _1, ...` the callee's remaining dimensions need; on a pure definition's left-hand
//! side to as many implicit Vars as its values use; on an update's left-hand side to the
//! Func's own pure Vars at those positions, the values' implicit Vars renamed to match.

use std::collections::{BTreeSet, HashMap};

use super::var::Var;
use crate::error::{Error, Result};
use crate::ir::substitute::substitute_map;
use crate::ir::visit::{any_node, visit_exprs};
use crate::ir::{Expr, Symbol};

/// The name of the placeholder Var; implicit Vars are named after it (`_0`, `_1`, ...).
pub(crate) const PLACEHOLDER: &str = "_";

fn is_placeholder(e: &Expr) -> bool {
    e.as_var().is_some_and(|v| v.as_str() == PLACEHOLDER)
}

fn mentions_placeholder(e: &Expr) -> bool {
    any_node(e, is_placeholder)
}

/// The `i` of an implicit Var `_i`.
fn implicit_index(name: Symbol) -> Option<usize> {
    let i: usize = name.as_str().strip_prefix(PLACEHOLDER)?.parse().ok()?;
    (Var::implicit(i).name() == name).then_some(i)
}

/// The indices of the implicit Vars the expressions use.
fn implicit_indices<'a>(exprs: impl Iterator<Item = &'a Expr>) -> BTreeSet<usize> {
    let mut used = BTreeSet::new();
    for e in exprs {
        visit_exprs(e, &mut |n| {
            used.extend(n.as_var().and_then(implicit_index));
            true
        });
    }
    used
}

/// How many implicit Vars a placeholder must stand for to define those the expressions use.
fn implicit_count<'a>(exprs: impl Iterator<Item = &'a Expr>) -> usize {
    implicit_indices(exprs).last().map_or(0, |i| i + 1)
}

/// The position of the placeholder in `args` (the arguments of `what`), if there is one. A
/// second placeholder, or one inside a coordinate, is an error.
fn placeholder_position(what: &str, args: &[Expr]) -> std::result::Result<Option<usize>, String> {
    let mut found = None;
    for (i, a) in args.iter().enumerate() {
        if is_placeholder(a) {
            if found.is_some() {
                return Err(format!("the placeholder `_` appears twice in {what}; one stands for all the dimensions left out"));
            }
            found = Some(i);
        } else if mentions_placeholder(a) {
            return Err(format!("coordinate {i} of {what} is {a}; the placeholder `_` can only stand alone as an argument"));
        }
    }
    Ok(found)
}

/// `args` with the placeholder replaced by `expansion`.
fn splice(mut args: Vec<Expr>, at: usize, expansion: impl Iterator<Item = Expr>) -> Vec<Expr> {
    args.splice(at..=at, expansion);
    args
}

/// The coordinates of a call to `callee`, which has `dims` dimensions, with the placeholder
/// expanded to the implicit Vars of the dimensions the other coordinates leave out.
pub(crate) fn expand_call(
    callee: Symbol,
    dims: usize,
    args: Vec<Expr>,
) -> std::result::Result<Vec<Expr>, String> {
    let Some(at) = placeholder_position(&format!("the call to {callee}"), &args)? else {
        return Ok(args);
    };
    let explicit = args.len() - 1;
    if explicit > dims {
        return Err(format!("{callee} has {dims} dimensions but is called with {explicit} coordinates besides the placeholder `_`"));
    }
    Ok(splice(
        args,
        at,
        (0..dims - explicit).map(|i| Var::implicit(i).expr()),
    ))
}

/// Rejects values using the placeholder itself: it stands for arguments, not for a value.
fn check_values(name: Symbol, what: &str, values: &[Expr]) -> Result<()> {
    match values.iter().find(|v| mentions_placeholder(v)) {
        Some(v) => Err(Error::Definition(format!(
            "the {what} of {name} uses the placeholder `_` in its value {v}; `_` stands only for arguments, of a call or of the left-hand side"
        ))),
        None => Ok(()),
    }
}

/// Rejects implicit Vars of the values that the left-hand side does not define: they come
/// from a `_` in a call, and need a `_` on the left-hand side too.
fn check_bound(name: Symbol, what: &str, lhs: &[Expr], values: &[Expr]) -> Result<()> {
    let unbound = implicit_indices(values.iter())
        .into_iter()
        .map(Var::implicit)
        .find(|v| !lhs.iter().any(|a| a.as_var() == Some(v.name())));
    match unbound {
        Some(v) => Err(Error::Definition(format!(
            "the {what} of {name} uses the implicit Var {} (from a `_` in a call) but its left-hand side has no placeholder `_` standing for it",
            v.name()
        ))),
        None => Ok(()),
    }
}

/// The pure Vars of a definition of `name`, the placeholder expanded to the implicit Vars its
/// values use (`f(x, _) = g(x, _)` with a 3-D `g` is `f(x, _0, _1)`).
pub(crate) fn expand_pure_lhs(name: Symbol, vars: Vec<Var>, values: &[Expr]) -> Result<Vec<Var>> {
    let lhs = expand_lhs(name, vars.iter().map(|v| v.expr()).collect(), values)?;
    Ok(lhs
        .iter()
        .map(|a| Var::new(a.as_var().expect("pure arguments are Vars").as_str()))
        .collect())
}

/// A left-hand side of `name` that will be its pure one (a definition's, or that of the
/// update that gives a Func its first definition), the placeholder expanded to the implicit
/// Vars the values and the coordinates other than Vars (calls with a `_`) use.
pub(crate) fn expand_lhs(name: Symbol, lhs: Vec<Expr>, values: &[Expr]) -> Result<Vec<Expr>> {
    check_values(name, "definition", values)?;
    let at = placeholder_position(&format!("the left-hand side of {name}'s definition"), &lhs)
        .map_err(Error::Definition)?;
    let lhs = match at {
        Some(at) => {
            let computed = lhs.iter().filter(|a| a.as_var().is_none());
            let count = implicit_count(values.iter().chain(computed));
            splice(lhs, at, (0..count).map(|i| Var::implicit(i).expr()))
        }
        None => lhs,
    };
    check_bound(name, "definition", &lhs, values)?;
    Ok(lhs)
}

/// The coordinates and values of an update of `name` (whose pure Vars are `pure_args`), the
/// placeholder on the left expanded to the pure Vars of the dimensions the other coordinates
/// leave out, and the implicit Vars of the values renamed to those Vars.
pub(crate) fn expand_update(
    name: Symbol,
    pure_args: &[Symbol],
    args: Vec<Expr>,
    values: Vec<Expr>,
) -> Result<(Vec<Expr>, Vec<Expr>)> {
    check_values(name, "update", &values)?;
    let what = format!("the left-hand side of {name}'s update");
    let Some(at) = placeholder_position(&what, &args).map_err(Error::Definition)? else {
        check_bound(name, "update", &args, &values)?;
        return Ok((args, values));
    };
    let explicit = args.len() - 1;
    if explicit > pure_args.len() {
        return Err(Error::Definition(format!(
            "the update of {name} has {explicit} coordinates besides the placeholder `_` but {name} has {} dimensions",
            pure_args.len()
        )));
    }
    let stands_for = &pure_args[at..at + pure_args.len() - explicit];
    let used = implicit_count(values.iter().chain(&args));
    if used > stands_for.len() {
        return Err(Error::Definition(format!(
            "the update of {name} uses {used} implicit Vars (from `_` in its calls) but the placeholder `_` on its left-hand side stands for only {} dimensions",
            stands_for.len()
        )));
    }
    let rename: HashMap<Symbol, Expr> = stands_for
        .iter()
        .enumerate()
        .map(|(i, &v)| (Var::implicit(i).name(), Var::new(v.as_str()).expr()))
        .collect();
    // Renamed before the splice: the Func's own pure Vars may be implicit Vars themselves.
    let args = args.iter().map(|a| substitute_map(a, &rename)).collect();
    let args = splice(
        args,
        at,
        stands_for.iter().map(|&v| Var::new(v.as_str()).expr()),
    );
    let values = values.iter().map(|v| substitute_map(v, &rename)).collect();
    Ok((args, values))
}
