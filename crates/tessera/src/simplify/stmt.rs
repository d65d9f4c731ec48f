//! Statements: every expression simplified; `if` with a constant condition replaced by the
//! branch taken, and a store with a constant predicate by the store or nothing; loops that run no iteration, empty blocks, empty branches and lets whose
//! name is unused dropped; lets substituted or split as `let_and_vars.rs` says (a vector
//! value used once is substituted only outside loops, so that it is still computed once, and
//! only if it reads no memory, which a store between the let and the use could change).
//! Inside a loop its variable is known to lie in `[min, min + extent - 1]`, and inside an
//! `if` branch its condition (split at `&&`, or at `||` in the else branch) is known, both as
//! a fact about the condition's expressions, as bounds on variables compared with
//! constants, and as the residue of a variable whose remainder it fixes (`v % 2 == 0`).

use super::info::Info;
use super::let_and_vars::count_uses;
use super::{Binding, Fact, Simplifier};
use crate::ir::substitute::uses_var;
use crate::ir::visit::{reads_memory, visit_exprs, visit_stmt_exprs};
use crate::ir::{BinaryOp, Expr, ExprKind, Stmt, StmtKind, Symbol, UnaryOp};

fn stmt_uses_var(s: &Stmt, name: Symbol) -> bool {
    let mut found = false;
    visit_stmt_exprs(s, &mut |e| {
        found |= uses_var(e, name);
        !found
    });
    found
}

/// How many times `s` uses variable `name`, a use inside a loop body counting as two (a value
/// substituted there would be computed on every iteration). Counting stops early at 2.
fn use_count(s: &Stmt, name: Symbol) -> usize {
    if let StmtKind::For {
        min, extent, body, ..
    } = s.kind()
    {
        let in_loop = if stmt_uses_var(body, name) { 2 } else { 0 };
        return count_uses(min, name) + count_uses(extent, name) + in_loop;
    }
    let (mut in_exprs, mut in_stmts) = (0, 0);
    s.for_each_child(
        |e| in_exprs += count_uses(e, name),
        |c| {
            if in_stmts < 2 {
                in_stmts += use_count(c, name)
            }
        },
    );
    in_exprs + in_stmts
}

impl Simplifier {
    pub(super) fn stmt(&mut self, s: &Stmt) -> Stmt {
        match s.kind() {
            StmtKind::LetStmt { name, value, body } => {
                let v = self.expr(value);
                let scope = self.enter_let(
                    *name,
                    &v,
                    || !reads_memory(&v) && use_count(body, *name) == 1,
                    |n| stmt_uses_var(body, n),
                );
                let mentions_before: Vec<(Symbol, usize)> = scope
                    .bound_names()
                    .map(|n| (n, self.stmt_mention_count(n)))
                    .collect();
                let b = self.stmt(body);
                let mentioned_since = |s: &Self, _: &Stmt, n: Symbol| {
                    let before = mentions_before.iter().find(|(m, _)| *m == n);
                    s.stmt_mention_count(n) > before.map_or(0, |(_, count)| *count)
                };
                self.leave_let(scope, b, mentioned_since, |s, n, v, b| {
                    s.built(Stmt::let_stmt(n, v, b))
                })
            }
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => self.if_then_else(condition, then_case, else_case.as_ref()),
            StmtKind::For {
                name,
                min,
                extent,
                kind,
                body,
            } => {
                let (min, extent) = (self.expr(min), self.expr(extent));
                let (m, x) = (self.info(&min), self.info(&extent));
                if x.hi <= 0 {
                    return Stmt::empty();
                }
                if extent.as_int_const() == Some(1) {
                    // One iteration: the loop variable is just a name for its min.
                    return self.stmt(&Stmt::let_stmt(*name, min, body.clone()));
                }
                let bounds = Info::bounded_untyped(m.lo, m.hi.saturating_add(x.hi - 1));
                self.push_binding(Binding::new_variable(*name, None, bounds));
                let body = self.stmt(body);
                self.pop_binding();
                if body.is_empty() {
                    return body;
                }
                self.built(Stmt::for_loop(*name, min, extent, *kind, body))
            }
            StmtKind::Block(stmts) => {
                Stmt::block(stmts.iter().map(|c| self.stmt(c)).collect::<Vec<_>>())
            }
            StmtKind::Free { .. } => s.clone(),
            StmtKind::Fork { first, rest } => {
                let (first, rest) = (self.stmt(first), self.stmt(rest));
                match (first.is_empty(), rest.is_empty()) {
                    (true, _) => rest,
                    (_, true) => first,
                    _ => self.built(Stmt::new(StmtKind::Fork { first, rest })),
                }
            }
            StmtKind::Acquire { .. } | StmtKind::Release { .. } => {
                let r = s.map_children(|e| self.expr(e), |c| c.clone());
                match r.kind() {
                    StmtKind::Acquire { count, .. } | StmtKind::Release { count, .. }
                        if count.as_int_const() == Some(0) =>
                    {
                        Stmt::empty()
                    }
                    _ => self.built(r),
                }
            }
            StmtKind::Prefetch { .. } => {
                let r = s.map_children(|e| self.expr(e), |c| c.clone());
                self.built(r)
            }
            StmtKind::Evaluate(e) => {
                let e = self.expr(e);
                if e.is_const() {
                    Stmt::empty()
                } else {
                    self.built(Stmt::new(StmtKind::Evaluate(e)))
                }
            }
            StmtKind::Assert { .. } => {
                let r = s.map_children(|e| self.expr(e), |c| c.clone());
                match r.kind() {
                    StmtKind::Assert { condition, .. } if is_true(condition) => Stmt::empty(),
                    _ => self.built(r),
                }
            }
            StmtKind::ProducerConsumer { body, .. }
            | StmtKind::Atomic { body }
            | StmtKind::Allocate { body, .. }
            | StmtKind::Semaphore { body, .. }
            | StmtKind::Realize { body, .. } => {
                let b = self.stmt(body);
                if b.is_empty() {
                    return b;
                }
                let r = s.map_children(|e| self.expr(e), |_| b.clone());
                self.built(r)
            }
            StmtKind::Store {
                buffer,
                index,
                value,
                predicate: Some(p),
            } => {
                // A predicate known true on every lane is no predicate; known false, no store.
                let p = self.expr(p);
                if p.as_int_const() == Some(0) {
                    return Stmt::empty();
                }
                let store = Stmt::new(StmtKind::Store {
                    buffer: *buffer,
                    index: self.expr(index),
                    value: self.expr(value),
                    predicate: (!is_true(&p)).then_some(p),
                });
                self.built(store)
            }
            StmtKind::Store { .. } | StmtKind::Provide { .. } => {
                let r = s.map_children(|e| self.expr(e), |c| c.clone());
                self.built(r)
            }
        }
    }

    fn if_then_else(
        &mut self,
        condition: &Expr,
        then_case: &Stmt,
        else_case: Option<&Stmt>,
    ) -> Stmt {
        let c = self.expr(condition);
        if c.is_const() {
            return if is_true(&c) {
                self.stmt(then_case)
            } else {
                else_case.map_or_else(Stmt::empty, |e| self.stmt(e))
            };
        }
        let then_s = self.with_facts(&c, true, |s| s.stmt(then_case));
        let else_s = else_case
            .map(|e| self.with_facts(&c, false, |s| s.stmt(e)))
            .filter(|e| !e.is_empty());
        if then_s.is_empty() && else_s.is_none() {
            return Stmt::empty();
        }
        if then_s.is_empty() {
            let negated = self.make(Expr::unary(UnaryOp::Not, c));
            return self.built(Stmt::if_then(negated, else_s.expect("checked above")));
        }
        self.built(Stmt::new(StmtKind::IfThenElse {
            condition: c,
            then_case: then_s,
            else_case: else_s,
        }))
    }

    /// `s`, a node of the simplified statement, with the names its own expressions mention
    /// counted (`stmt_mentions`; its child statements were counted when they were built).
    /// Every node kept in the result passes here once it is final, and no node dropped
    /// after it does.
    fn built(&mut self, s: Stmt) -> Stmt {
        let mentions = &mut self.stmt_mentions;
        s.for_each_child(
            |e| {
                visit_exprs(e, &mut |n| {
                    if let ExprKind::Var(name)
                    | ExprKind::RVar(name, _)
                    | ExprKind::Param(name, _) = n.kind()
                    {
                        *mentions.entry(*name).or_default() += 1;
                    }
                    true
                })
            },
            |_| {},
        );
        s
    }

    /// How often `name` occurs in the statement nodes built so far.
    fn stmt_mention_count(&self, name: Symbol) -> usize {
        self.stmt_mentions.get(&name).copied().unwrap_or(0)
    }

    /// Runs `f` knowing that `condition` has the value `holds`.
    fn with_facts<T>(
        &mut self,
        condition: &Expr,
        holds: bool,
        f: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let mut learned = Vec::new();
        split(condition, holds, &mut learned);
        let (facts_before, scope_before) = (self.facts.len(), self.scope.len());
        for (condition, value) in learned {
            if let Some((name, lo, hi)) = var_bound(&condition, value) {
                self.push_binding(Binding::refinement(name, Info::bounded_untyped(lo, hi)));
            }
            if let Some((name, modulus, remainder)) = var_residue(&condition, value) {
                let aligned = Info::aligned_untyped(modulus, remainder);
                self.push_binding(Binding::refinement(name, aligned));
            }
            self.facts.push(Fact {
                condition,
                value,
                scope_len: self.scope.len(),
            });
        }
        let r = f(self);
        self.facts.truncate(facts_before);
        self.truncate_scope(scope_before);
        r
    }
}

fn is_true(e: &Expr) -> bool {
    e.as_int_const() == Some(1)
}

/// The conjuncts (or, for a false condition, disjuncts) of a condition, with their values.
fn split(c: &Expr, holds: bool, out: &mut Vec<(Expr, bool)>) {
    match c.kind() {
        ExprKind::Binary(BinaryOp::And, a, b) if holds => {
            split(a, true, out);
            split(b, true, out);
        }
        ExprKind::Binary(BinaryOp::Or, a, b) if !holds => {
            split(a, false, out);
            split(b, false, out);
        }
        ExprKind::Unary(UnaryOp::Not, a) => split(a, !holds, out),
        _ => out.push((c.clone(), holds)),
    }
}

/// The bounds a scalar integer variable or Param gets from a comparison with a constant
/// that holds (or, `holds` false, fails).
pub(crate) fn var_bound(fact: &Expr, holds: bool) -> Option<(Symbol, i128, i128)> {
    let ExprKind::Binary(op, a, b) = fact.kind() else {
        return None;
    };
    if !a.ty().is_int_or_uint() || a.ty().is_vector() {
        return None;
    }
    let named = |e: &Expr| match e.kind() {
        ExprKind::Var(n) | ExprKind::Param(n, _) => Some(*n),
        _ => None,
    };
    let (op, var, c, var_on_left) = match (named(a), b.as_int_const(), named(b), a.as_int_const()) {
        (Some(v), Some(c), _, _) => (*op, v, c, true),
        (_, _, Some(v), Some(c)) => (*op, v, c, false),
        _ => return None,
    };
    // Normalize to `var op c` holding.
    use BinaryOp::*;
    let op = if var_on_left {
        op
    } else {
        match op {
            Lt => Gt,
            Le => Ge,
            Gt => Lt,
            Ge => Le,
            other => other,
        }
    };
    let op = if holds {
        op
    } else {
        op.negated_comparison().unwrap_or(op)
    };
    let (lo, hi) = match op {
        Lt => (i128::MIN, c - 1),
        Le => (i128::MIN, c),
        Gt => (c + 1, i128::MAX),
        Ge => (c, i128::MAX),
        Eq => (c, c),
        _ => return None,
    };
    Some((var, lo, hi))
}

/// The residue a scalar integer variable or Param has when `v % k == r` (either side, `k` and
/// `r` constants, `k > 0`) holds: a specialization on an output's min being even tells the
/// loops inside that their rows' parities are known.
fn var_residue(fact: &Expr, holds: bool) -> Option<(Symbol, i128, i128)> {
    let ExprKind::Binary(BinaryOp::Eq, a, b) = fact.kind() else {
        return None;
    };
    let residue = |m: &Expr, r: &Expr| {
        let ExprKind::Binary(BinaryOp::Mod, v, k) = m.kind() else {
            return None;
        };
        let (ExprKind::Var(name) | ExprKind::Param(name, _)) = v.kind() else {
            return None;
        };
        let (k, r) = (k.as_int_const()?, r.as_int_const()?);
        let scalar_int = v.ty().is_int_or_uint() && !v.ty().is_vector();
        (holds && scalar_int && k > 0 && (0..k).contains(&r)).then_some((*name, k, r))
    };
    residue(a, b).or_else(|| residue(b, a))
}

#[cfg(test)]
mod tests {
    use crate::ir::expr::child_walk_steps;
    use crate::ir::visit::visit_stmts;
    use crate::ir::{BinaryOp, Expr, Stmt, StmtKind, Symbol, Type};
    use crate::simplify::simplify_stmt;

    fn int(name: &str) -> Expr {
        Expr::var(name, Type::int(32))
    }

    /// `let x0 = .. in let x1 = .. in .. in evaluate(uses)`: let `k`'s value is `y * (k + 2)`
    /// plus the earlier lets `deps(k)` names (a value no rule substitutes).
    fn let_chain(n: usize, deps: impl Fn(usize) -> Vec<usize>, uses: &[usize]) -> Stmt {
        let sum = |names: &[usize], start: Expr| {
            names.iter().fold(start, |acc, &d| {
                Expr::binary(BinaryOp::Add, acc, int(&format!("x{d}")))
            })
        };
        let mut s = Stmt::new(StmtKind::Evaluate(sum(uses, int("y"))));
        for k in (0..n).rev() {
            let own = Expr::binary(BinaryOp::Mul, int("y"), Expr::i32(k as i32 + 2));
            s = Stmt::let_stmt(Symbol::new(&format!("x{k}")), sum(&deps(k), own), s);
        }
        s
    }

    fn let_names(s: &Stmt) -> Vec<String> {
        let mut names = Vec::new();
        visit_stmts(s, &mut |c| {
            if let StmtKind::LetStmt { name, .. } = c.kind() {
                names.push(name.to_string());
            }
            true
        });
        names
    }

    /// Inside `if (m % 2 == 0)`, `(m + 2 y + 1) % 2` is 1: the branch knows `m`'s residue
    /// (a specialization on an output's min being even, and a row of a pair in it).
    #[test]
    fn a_branch_on_a_residue_knows_it() {
        let (m, y) = (int("m"), int("y"));
        let modulo = |a: Expr, k: i32| Expr::binary(BinaryOp::Mod, a, Expr::i32(k));
        let row = Expr::binary(
            BinaryOp::Add,
            m.clone(),
            Expr::binary(BinaryOp::Mul, y, Expr::i32(2)),
        );
        let odd_row = Expr::binary(BinaryOp::Add, row, Expr::i32(1));
        let even = Expr::binary(BinaryOp::Eq, modulo(m, 2), Expr::i32(0));
        let store = |value: Expr| {
            Stmt::new(StmtKind::Store {
                buffer: Symbol::new("out"),
                index: Expr::i32(0),
                value,
                predicate: None,
            })
        };
        let body = store(modulo(odd_row, 2));
        let simplified = simplify_stmt(&Stmt::if_then(even.clone(), body.clone()));
        let want = Stmt::if_then(even, store(Expr::i32(1)));
        assert_eq!(simplified.to_string(), want.to_string());
        // Without the branch, the residue is unknown.
        assert_ne!(
            simplify_stmt(&body).to_string(),
            store(Expr::i32(1)).to_string()
        );
    }

    #[test]
    fn simplify_keeps_exactly_the_lets_the_body_needs() {
        let n = 60;
        let deps = |k: usize| {
            (0..k)
                .filter(|d| (k * 7 + d * 3).is_multiple_of(11))
                .collect()
        };
        let uses = [n - 1, 17, 40];
        let simplified = simplify_stmt(&let_chain(n, deps, &uses));
        // The reference: liveness, from the body up the chain.
        let mut live = vec![false; n];
        uses.iter().for_each(|&u| live[u] = true);
        for k in (0..n).rev() {
            if live[k] {
                deps(k).into_iter().for_each(|d: usize| live[d] = true);
            }
        }
        let expected: Vec<String> = (0..n)
            .filter(|&k| live[k])
            .map(|k| format!("x{k}"))
            .collect();
        assert!(expected.len() < n, "the chain has dead lets to drop");
        assert_eq!(let_names(&simplified), expected);
    }

    #[test]
    fn simplify_work_on_a_nest_of_lets_is_linear_in_its_depth() {
        let steps_for = |n: usize| {
            let chain = let_chain(
                n,
                |k| (k > 0).then(|| k - 1).into_iter().collect(),
                &[n - 1],
            );
            let before = child_walk_steps();
            let simplified = simplify_stmt(&chain);
            assert_eq!(let_names(&simplified).len(), n);
            child_walk_steps() - before
        };
        let (shallow, deep) = (steps_for(300), steps_for(1200));
        // Four times as deep: about four times the steps; a walk of the body per let
        // (quadratic) would take sixteen.
        assert!(
            deep < 5 * shallow,
            "{shallow} steps for 300 nested lets but {deep} for 1200"
        );
    }
}
