//! Substitution of variables by expressions (and of a body's lets, up to a size), and the
//! questions passes ask about free variables (does an expression use `x`? which variables
//! does it use?).

use std::collections::{HashMap, HashSet};

use super::expr::{Expr, ExprKind};
use super::stmt::{Stmt, StmtKind};
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

/// `e` with the body's lets substituted (transitively: a let's value may use earlier lets),
/// or `None` when the result, as a tree, would have more than `limit` nodes. What is shared
/// stays shared, so the cost is in the distinct nodes visited, never above `limit`.
pub fn expand_lets(e: &Expr, lets: &HashMap<Symbol, Expr>, limit: usize) -> Option<Expr> {
    LetExpansion {
        lets,
        limit,
        expanded: HashMap::new(),
        expanding: HashSet::new(),
    }
    .expand(e)
    .map(|(e, _)| e)
}

struct LetExpansion<'a> {
    lets: &'a HashMap<Symbol, Expr>,
    limit: usize,
    /// Each node of `e` and of the lets' values already expanded (by address), with its
    /// size as a tree, or `None` when that is over the limit: a let used many times (or a
    /// chain of lets each using the one before twice) is walked once, kept or refused.
    expanded: HashMap<usize, Option<(Expr, usize)>>,
    /// The lets whose values are being expanded: a value naming its own let (which could
    /// only mean an outer binding of the name) keeps the name.
    expanding: HashSet<Symbol>,
}

impl LetExpansion<'_> {
    fn expand(&mut self, e: &Expr) -> Option<(Expr, usize)> {
        if let Some(done) = self.expanded.get(&e.node_id()) {
            return done.clone();
        }
        let done = self.expand_node(e).filter(|(_, size)| *size <= self.limit);
        self.expanded.insert(e.node_id(), done.clone());
        done
    }

    fn expand_node(&mut self, e: &Expr) -> Option<(Expr, usize)> {
        match e.kind() {
            ExprKind::Var(name) | ExprKind::RVar(name, _)
                if self.lets.contains_key(name) && !self.expanding.contains(name) =>
            {
                let lets = self.lets;
                self.expanding.insert(*name);
                let value = self.expand(&lets[name]);
                self.expanding.remove(name);
                value
            }
            // A let rebinding one of the names would need its own scope; lowered code binds
            // every name once, so such a condition is simply not expanded.
            ExprKind::Let(name, ..) if self.lets.contains_key(name) => None,
            _ => {
                let mut size = Some(1usize);
                // Once a child is refused the node is, so the other children are not walked.
                let out = e.map_children(|c| match size.and_then(|_| self.expand(c)) {
                    Some((c, n)) => {
                        size = size.map(|s| s.saturating_add(n));
                        c
                    }
                    None => {
                        size = None;
                        c.clone()
                    }
                });
                Some((out, size?))
            }
        }
    }
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

/// `s` with every `let` expression that rebinds a name already in use renamed to a fresh
/// name: a name bound around it (by a `let`, a `LetStmt` or a loop) or read unbound
/// somewhere in `s`. Analyses that keep a let's value in terms of the names around it
/// (`max(y, x)` for `l` in `let l = max(y, x) in (let x = -x in l)`) would otherwise read
/// the outer `x` as the inner one. Lowered code binds every name once; only expressions
/// written with `Expr::let_in` may shadow, so `s` itself is returned when nothing does.
pub fn rename_shadowing_lets(s: &Stmt) -> Stmt {
    let mut in_use = HashSet::new();
    unbound_vars_stmt(s, &mut HashSet::new(), &mut in_use);
    let mut renamer = ShadowRenamer {
        in_use,
        renamed: false,
    };
    let out = renamer.stmt(s);
    if renamer.renamed {
        out
    } else {
        s.clone()
    }
}

/// `rename_shadowing_lets` of an expression.
pub fn rename_shadowing_lets_expr(e: &Expr) -> Expr {
    let mut in_use = HashSet::new();
    unbound_vars(e, &mut HashSet::new(), &mut in_use);
    ShadowRenamer {
        in_use,
        renamed: false,
    }
    .expr(e)
}

struct ShadowRenamer {
    /// Names read unbound, and names bound around the visited code.
    in_use: HashSet<Symbol>,
    renamed: bool,
}

impl ShadowRenamer {
    fn binding<T>(&mut self, name: Symbol, f: impl FnOnce(&mut Self) -> T) -> T {
        let fresh_here = self.in_use.insert(name);
        let out = f(self);
        if fresh_here {
            self.in_use.remove(&name);
        }
        out
    }

    fn expr(&mut self, e: &Expr) -> Expr {
        mutate_exprs(e, &mut |n| match n.kind() {
            ExprKind::Let(name, value, body) => {
                let value = self.expr(value);
                let (name, body) = if self.in_use.contains(name) {
                    self.renamed = true;
                    let fresh = Symbol::fresh(name.as_str());
                    (
                        fresh,
                        substitute(body, *name, &Expr::var(fresh, value.ty())),
                    )
                } else {
                    (*name, body.clone())
                };
                let body = self.binding(name, |r| r.expr(&body));
                Some(Expr::let_in(name, value, body))
            }
            _ => None,
        })
    }

    fn stmt(&mut self, s: &Stmt) -> Stmt {
        let binds = match s.kind() {
            StmtKind::LetStmt { name, .. } | StmtKind::For { name, .. } => Some(*name),
            _ => None,
        };
        // The values and bounds of a let or loop are outside its binding; its body inside.
        let mut exprs = Vec::new();
        s.for_each_child(|e| exprs.push(self.expr(e)), |_| {});
        let mut exprs = exprs.into_iter();
        match binds {
            Some(name) => self.binding(name, |r| {
                s.map_children(|_| exprs.next().expect("one per child"), |c| r.stmt(c))
            }),
            None => s.map_children(|_| exprs.next().expect("one per child"), |c| self.stmt(c)),
        }
    }
}

/// Adds to `out` the variables (and parameters) `e` reads that no `let` in `e` around the
/// read binds, nor a name in `bound`.
pub fn unbound_vars(e: &Expr, bound: &mut HashSet<Symbol>, out: &mut HashSet<Symbol>) {
    visit_exprs(e, &mut |n| match n.kind() {
        ExprKind::Var(s) | ExprKind::RVar(s, _) | ExprKind::Param(s, _) => {
            if !bound.contains(s) {
                out.insert(*s);
            }
            true
        }
        ExprKind::Let(name, value, body) => {
            unbound_vars(value, bound, out);
            let fresh_here = bound.insert(*name);
            unbound_vars(body, bound, out);
            if fresh_here {
                bound.remove(name);
            }
            false
        }
        _ => true,
    });
}

/// `unbound_vars` of a statement: its lets and loops bind names too.
pub fn unbound_vars_stmt(s: &Stmt, bound: &mut HashSet<Symbol>, out: &mut HashSet<Symbol>) {
    let binds = match s.kind() {
        StmtKind::LetStmt { name, .. } | StmtKind::For { name, .. } => Some(*name),
        _ => None,
    };
    let mut children = Vec::new();
    s.for_each_child(
        |e| unbound_vars(e, bound, out),
        |c| children.push(c.clone()),
    );
    let fresh_here = binds.is_some_and(|n| bound.insert(n));
    for c in &children {
        unbound_vars_stmt(c, bound, out);
    }
    if let (true, Some(n)) = (fresh_here, binds) {
        bound.remove(&n);
    }
}

/// Whether `e` mentions variable (or reduction variable, or parameter) `name`.
pub fn uses_var(e: &Expr, name: Symbol) -> bool {
    let mut found = false;
    visit_exprs(e, &mut |n| {
        if let ExprKind::Var(s) | ExprKind::RVar(s, _) | ExprKind::Param(s, _) = n.kind() {
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
        if let ExprKind::Var(s) | ExprKind::RVar(s, _) | ExprKind::Param(s, _) = n.kind() {
            out.insert(*s);
        }
        true
    });
    out
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::time::{Duration, Instant};

    use super::expand_lets;
    use crate::ir::{BinaryOp, Expr, ExprKind, Symbol, Type};

    /// Lets `l0 = x`, `l1 = l0 + l0`, ..., each the sum of the one before with itself: `l{k}`
    /// expands to a tree of `2^(k+1) - 1` nodes worth `2^k * x`.
    fn doubling_chain(length: usize) -> HashMap<Symbol, Expr> {
        let name = |i: usize| Symbol::from(format!("l{i}").as_str());
        let mut lets = HashMap::from([(name(0), Expr::var("x", Type::i32()))]);
        for i in 1..length {
            let previous = Expr::var(name(i - 1), Type::i32());
            lets.insert(
                name(i),
                Expr::binary(BinaryOp::Add, previous.clone(), previous),
            );
        }
        lets
    }

    /// The value of a sum of `x`s at `x`, walking the tree (every shared node once per use).
    fn tree_value(e: &Expr, x: i64) -> (i64, usize) {
        match e.kind() {
            ExprKind::Var(name) if name.as_str() == "x" => (x, 1),
            ExprKind::Binary(BinaryOp::Add, a, b) => {
                let ((a, m), (b, n)) = (tree_value(a, x), tree_value(b, x));
                (a + b, m + n + 1)
            }
            _ => panic!("unexpected node in the expansion: {e:?}"),
        }
    }

    #[test]
    fn a_chain_of_lets_within_the_limit_expands_to_the_sum_it_names() {
        let lets = doubling_chain(8);
        let top = Expr::var("l7", Type::i32());
        let expanded = expand_lets(&top, &lets, 255).expect("255 nodes are within the limit");
        assert_eq!(tree_value(&expanded, 3), (3 << 7, 255));
        assert!(
            expand_lets(&top, &lets, 254).is_none(),
            "255 nodes exceed 254"
        );
    }

    /// Before refusals were remembered, each use of a refused let walked it again: 2^60 walks
    /// here, a hang (the bound is a hang detector: the refusal takes microseconds).
    #[test]
    fn a_chain_of_lets_over_the_limit_is_refused_in_linear_time() {
        let lets = doubling_chain(60);
        let top = Expr::var("l59", Type::i32());
        let start = Instant::now();
        assert!(expand_lets(&top, &lets, 1 << 20).is_none());
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the refusal took {:?}",
            start.elapsed()
        );
    }
}
