//! Substitution of variables by expressions, and the questions passes ask about free
//! variables (does an expression use `x`? which variables does it use?).

use std::collections::{HashMap, HashSet};

use super::expr::{Expr, ExprKind};
use super::symbol::Symbol;
use super::visit::{mutate_exprs, visit_exprs};

/// Replaces free occurrences of the variables in `map` (respecting `Let` shadowing).
pub fn substitute_map(e: &Expr, map: &HashMap<Symbol, Expr>) -> Expr {
    if map.is_empty() {
        return e.clone();
    }
    mutate_exprs(e, &mut |n| match n.kind() {
        ExprKind::Var(s) | ExprKind::RVar(s, _) => map.get(s).cloned(),
        ExprKind::Let(name, value, body) if map.contains_key(name) => {
            let value = substitute_map(value, map);
            let mut inner = map.clone();
            inner.remove(name);
            Some(Expr::let_in(*name, value, substitute_map(body, &inner)))
        }
        _ => None,
    })
}

/// Replaces free occurrences of variable `name` with `replacement`.
pub fn substitute(e: &Expr, name: Symbol, replacement: &Expr) -> Expr {
    substitute_map(e, &HashMap::from([(name, replacement.clone())]))
}

/// `e` with every `let` expression replaced by its body with the let's value substituted
/// (the inner lets of body and value first, so no let shadows a substituted variable): for
/// questions about a value, like whether it is a constant, that the simplifier cannot answer
/// through a let whose variable is used more than once.
pub fn inline_lets(e: &Expr) -> Expr {
    mutate_exprs(e, &mut |n| match n.kind() {
        ExprKind::Let(name, value, body) => {
            Some(substitute(&inline_lets(body), *name, &inline_lets(value)))
        }
        _ => None,
    })
}

/// Whether `e` mentions variable (or reduction variable, or parameter) `name`.
pub fn uses_var(e: &Expr, name: Symbol) -> bool {
    let mut found = false;
    visit_exprs(e, &mut |n| {
        if let ExprKind::Var(s) | ExprKind::RVar(s, _) | ExprKind::Param(s) = n.kind() {
            found |= *s == name;
        }
        !found
    });
    found
}

/// The names of all variables, reduction variables and parameters `e` mentions.
pub fn free_vars(e: &Expr) -> HashSet<Symbol> {
    let mut out = HashSet::new();
    visit_exprs(e, &mut |n| {
        if let ExprKind::Var(s) | ExprKind::RVar(s, _) | ExprKind::Param(s) = n.kind() {
            out.insert(*s);
        }
        true
    });
    out
}
