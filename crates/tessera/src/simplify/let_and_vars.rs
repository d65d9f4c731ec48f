//! Variables and lets (the logic `Let` expressions and `LetStmt`s share). While a let's body
//! is simplified its name is bound to what is known about the value, and sometimes to a
//! replacement substituted for it:
//!
//! - a value that is a constant or a variable, possibly inside ramps (with constant or
//!   variable strides) and broadcasts, replaces the name everywhere;
//! - any other scalar inside ramps and broadcasts is split off (Halide's rule): it gets its
//!   own let, `name.base`, and the name is replaced by the ramps and broadcasts around that
//!   variable — so `let v = ramp(a, 1, 8) in v + x8(k)` becomes
//!   `let v.base = a in ramp(v.base + k, 1, 8)`, and vector index arithmetic folds. (Lets
//!   bind values as wide as their bodies or scalars: a let is evaluated lane by lane.)
//! - another vector value replaces the name when the body uses it once (and the caller says
//!   where that is safe).
//!
//! A let whose name the simplified body no longer uses is dropped. Substitution happens
//! lazily, when the body's variables are visited, and is refused where an inner binding
//! rebinds a variable the replacement names (so `let t = y in let y = 3 in t` keeps `t`, and
//! with it the outer let).

use super::info::{Info, Origin};
use super::{Binding, Simplifier};
use crate::ir::substitute::uses_var;
use crate::ir::visit::visit_exprs;
use crate::ir::{Expr, ExprKind, Symbol, Type};

/// The innermost binding of `name` that binds it (refinements after it add knowledge).
fn binding(s: &Simplifier, name: Symbol) -> Option<usize> {
    s.scope.iter().rposition(|b| b.name == name && b.rebinds)
}

/// The replacement of the variable bound at `index`, unless that binding or a later one
/// captures a variable the replacement names (in `let z = ramp(z, 1, 8) in ..`, the
/// replacement's `z` is the outer one).
fn replacement(s: &Simplifier, index: usize) -> Option<Expr> {
    let r = s.scope[index].replacement.clone()?;
    let captured = s.scope[index..]
        .iter()
        .any(|b| b.rebinds && uses_var(&r, b.name));
    (!captured).then_some(r)
}

/// A variable, replaced by what its let binds it to when it has a replacement.
pub(super) fn var(s: &mut Simplifier, e: &Expr) -> Expr {
    let ExprKind::Var(name) = e.kind() else {
        unreachable!("internal error: var() on {e}")
    };
    if let Some(r) = binding(s, *name).and_then(|i| replacement(s, i)) {
        if r.ty() == e.ty() {
            // Other replacements had their info recorded when the let was entered.
            if is_simple(&r) {
                s.record(&r, Origin::Input);
            }
            return r;
        }
    }
    s.record(e, Origin::Input);
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

/// A constant or a variable: substituting it duplicates no work.
fn is_simple(e: &Expr) -> bool {
    e.is_const() || e.as_var().is_some()
}

/// How many times variable `name` occurs in `e` (counting stops at 2).
pub(super) fn count_uses(e: &Expr, name: Symbol) -> usize {
    let mut n = 0;
    visit_exprs(e, &mut |x| {
        if x.as_var() == Some(name) {
            n += 1;
        }
        n < 2
    });
    n
}

/// `value` and the ramps and broadcasts inside it, outermost first, down to the first node
/// that is neither (its core).
fn peel(value: &Expr) -> Vec<Expr> {
    let mut chain = vec![value.clone()];
    loop {
        let inner = match chain[chain.len() - 1].kind() {
            ExprKind::Ramp(base, stride) if is_simple(stride) => base.clone(),
            ExprKind::Broadcast(v) => v.clone(),
            _ => return chain,
        };
        chain.push(inner);
    }
}

/// A let whose body is being simplified.
pub(super) struct LetScope {
    name: Symbol,
    /// For a split let: the variable bound to the value's core, and the core.
    base: Option<(Symbol, Expr)>,
    /// What the let binds the name to if the simplified body still names it.
    kept_value: Expr,
    /// The number of bindings in scope before the let.
    outer_scope: usize,
}

impl LetScope {
    /// The names the let binds: its own, and the base variable of a split let.
    pub(super) fn bound_names(&self) -> impl Iterator<Item = Symbol> + '_ {
        std::iter::once(self.name).chain(self.base.as_ref().map(|(base, _)| *base))
    }
}

impl Simplifier {
    /// Enters the body of `let name = value` (`value` simplified). `single_use` tells whether
    /// a vector value may replace the name (the body uses it once, and moving the value
    /// there changes nothing); `taken` whether the body names a variable.
    pub(super) fn enter_let(
        &mut self,
        name: Symbol,
        value: &Expr,
        single_use: impl FnOnce() -> bool,
        taken: impl Fn(Symbol) -> bool,
    ) -> LetScope {
        let outer_scope = self.scope.len();
        let info = self.info(value);
        let chain = peel(value);
        let core = &chain[chain.len() - 1];
        let (replacement, base) = if is_simple(core) {
            (Some(value.clone()), None)
        } else if chain.len() > 1 && core.ty().is_scalar() {
            let base = self.fresh_name(name, &taken);
            let core_info = self.info(core);
            self.push_binding(Binding::new_variable(base, None, core_info));
            let wrapped = self.rewrap(&chain, Expr::var(base, core.ty()));
            (Some(wrapped), Some((base, core.clone())))
        } else if value.ty().is_vector() && single_use() {
            (Some(value.clone()), None)
        } else {
            (None, None)
        };
        let kept_value = match (&base, &replacement) {
            (Some(_), Some(wrapped)) => wrapped.clone(),
            _ => value.clone(),
        };
        self.push_binding(Binding::new_variable(name, replacement, info));
        LetScope {
            name,
            base,
            kept_value,
            outer_scope,
        }
    }

    /// Leaves the let's scope and wraps the simplified body in what it still needs: the let
    /// of the name, and of the base variable of a split let.
    pub(super) fn leave_let<T>(
        &mut self,
        scope: LetScope,
        body: T,
        uses: impl Fn(&Self, &T, Symbol) -> bool,
        make_let: impl Fn(&mut Self, Symbol, Expr, T) -> T,
    ) -> T {
        self.truncate_scope(scope.outer_scope);
        let body = if uses(self, &body, scope.name) {
            make_let(self, scope.name, scope.kept_value, body)
        } else {
            body
        };
        match scope.base {
            Some((base, core)) if uses(self, &body, base) => make_let(self, base, core, body),
            _ => body,
        }
    }

    /// Leaves the let's scope, keeping nothing of it.
    pub(super) fn abandon_let(&mut self, scope: LetScope) {
        self.truncate_scope(scope.outer_scope);
    }

    /// `name.base` (numbered if needed), a name neither in scope nor `taken` by the body.
    fn fresh_name(&self, name: Symbol, taken: &impl Fn(Symbol) -> bool) -> Symbol {
        Symbol::first_untaken(&format!("{name}.base"), |n| {
            taken(n) || self.scope.iter().any(|b| b.name == n)
        })
    }

    /// The ramps and broadcasts of `chain` (outermost first, ending with the core) rebuilt
    /// around `core`, which has the core's value: each new node has the value of the node it
    /// copies, so it gets that node's info.
    fn rewrap(&mut self, chain: &[Expr], core: Expr) -> Expr {
        let mut inner = core;
        for node in chain[..chain.len() - 1].iter().rev() {
            let count = node.ty().lanes / inner.ty().lanes;
            let rebuilt = match node.kind() {
                ExprKind::Ramp(_, stride) => Expr::ramp(inner, stride.clone(), count),
                _ => inner.broadcast_to(count),
            };
            let computed = self.record(&rebuilt, Origin::Derived);
            let known = self.info(node);
            let element = node.ty().element();
            self.set_info(&rebuilt, computed.meet(known, element));
            inner = rebuilt;
        }
        inner
    }
}

/// `let name = value in body`.
pub(super) fn let_expr(s: &mut Simplifier, e: &Expr) -> Expr {
    let ExprKind::Let(name, value, body) = e.kind() else {
        unreachable!("internal error: let_expr() on {e}")
    };
    let v = s.expr(value);
    let scope = s.enter_let(
        *name,
        &v,
        || count_uses(body, *name) == 1,
        |n| uses_var(body, n),
    );
    let b = s.expr(body);
    let body_info = s.info(&b);
    if b.as_var() == Some(*name) {
        s.abandon_let(scope);
        return v;
    }
    // What was learned about the body inside the scope holds for the let (same value), and
    // for the body itself once it no longer names the variable.
    let r = s.leave_let(
        scope,
        b,
        |_, b, n| uses_var(b, n),
        |_, n, v, b| Expr::let_in(n, v, b),
    );
    s.set_info(&r, body_info);
    r
}
