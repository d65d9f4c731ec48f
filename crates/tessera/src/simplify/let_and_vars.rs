//! Variables and `Let`: a let whose value simplifies to a constant or a variable is substituted
//! into its body; otherwise what is known about the value (bounds, alignment) becomes what is
//! known about the name. A let whose name the simplified body no longer uses is dropped.
//!
//! Substitution happens lazily, when the body's variables are visited, and is refused where an
//! inner let rebinds the name the replacement refers to (so `let t = y in let y = 3 in t`
//! keeps `t`, and with it the outer let).

use super::info::Info;
use super::{Binding, Simplifier};
use crate::ir::substitute::uses_var;
use crate::ir::{Expr, ExprKind, Symbol, Type};

/// The innermost binding of `name` that binds it (refinements after it add knowledge).
fn binding(s: &Simplifier, name: Symbol) -> Option<usize> {
    s.scope.iter().rposition(|b| b.name == name && b.rebinds)
}

/// The replacement of the variable bound at `index`, unless a later binding captures the
/// variable the replacement names.
fn replacement(s: &Simplifier, index: usize) -> Option<Expr> {
    let r = s.scope[index].replacement.clone()?;
    if let Some(v) = r.as_var() {
        if s.scope[index + 1..]
            .iter()
            .any(|b| b.name == v && b.rebinds)
        {
            return None;
        }
    }
    Some(r)
}

/// A variable, replaced by what its let binds it to when that is a constant or a variable.
pub(super) fn var(s: &mut Simplifier, e: &Expr) -> Expr {
    let ExprKind::Var(name) = e.kind() else {
        unreachable!("internal error: var() on {e}")
    };
    if let Some(r) = binding(s, *name).and_then(|i| replacement(s, i)) {
        if r.ty() == e.ty() {
            s.record(&r, super::info::Origin::Input);
            return r;
        }
    }
    s.record(e, super::info::Origin::Input);
    e.clone()
}

/// What is known about variable `name` of type `ty` here: its binding's info (or its
/// replacement's), narrowed by every refinement in scope since.
pub(super) fn var_info(s: &mut Simplifier, name: Symbol, ty: Type) -> Info {
    let element = ty.element();
    if element.is_float() {
        return Info::of_type(element);
    }
    let start = binding(s, name);
    let mut info = match start {
        Some(i) => match replacement(s, i) {
            Some(r) if r.ty() == ty && r.as_var() != Some(name) => s.info(&r),
            _ => Info::of_type(element).meet(s.scope[i].info, element),
        },
        None => Info::of_type(element),
    };
    let refinements = start.map_or(0, |i| i + 1);
    for b in &s.scope[refinements..] {
        if b.name == name && !b.rebinds {
            info = info.meet(b.info, element);
        }
    }
    info
}

/// `let name = value in body`.
pub(super) fn let_expr(s: &mut Simplifier, e: &Expr) -> Expr {
    let ExprKind::Let(name, value, body) = e.kind() else {
        unreachable!("internal error: let_expr() on {e}")
    };
    let v = s.expr(value);
    let substitutable = v.is_const() || v.as_var().is_some();
    let value_info = s.info(&v);
    s.push_binding(Binding::new_variable(
        *name,
        substitutable.then(|| v.clone()),
        value_info,
    ));
    let b = s.expr(body);
    let body_info = s.info(&b);
    s.pop_binding();
    if b.as_var() == Some(*name) {
        return v;
    }
    // What was learned about the body inside the scope holds for the let (same value), and
    // for the body itself once it no longer names the variable.
    let r = if uses_var(&b, *name) {
        Expr::let_in(*name, v, b)
    } else {
        b
    };
    s.set_info(&r, body_info);
    r
}
