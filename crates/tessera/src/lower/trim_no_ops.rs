//! Trimming of no-op iterations (Halide's `TrimNoOps`): a loop runs only over the range of
//! its variable where its body can do something. An update that changes its point only
//! where a condition holds is guarded by an `if` (`stage_loops`), as is a definition with
//! an `undef` arm; iterations where every guard around every effect of the body fails do
//! nothing, so they are cut off the loop's ends instead of being tested one by one.
//!
//! For each serial or parallel loop, innermost first, the conditions every effect of the body
//! needs are gathered: the conjuncts of the `if`s around it and the positive extents of the
//! inner loops it is in (in terms of names outside the loop: the body's lets are expanded,
//! and conditions using names bound inside the body or reading memory are left out, which
//! only loosens them). Each is solved for the range of the loop variable where it can hold,
//! an outer approximation; the loop is shrunk to their intersection. A condition whose range
//! is exactly where it holds (comparisons linear in the variable, and conjunctions of them)
//! holds throughout the shrunk loop, so its conjunct is removed from the `if`s in the body.

// `Expr` keys are sound: hashing and equality are structural and ignore the Func and RDom
// links (the interior mutability clippy sees).
#![allow(clippy::mutable_key_type)]

use std::collections::{HashMap, HashSet};

use super::partition_loops::strip_likely;
use crate::analysis::solve::outer_range;
use crate::ir::substitute::{expand_lets, free_vars, uses_var};
use crate::ir::visit::reads_memory;
use crate::ir::{BinaryOp, Expr, ExprKind, ForKind, Stmt, StmtKind, Symbol, Type, UnaryOp};
use crate::simplify::simplify;

/// Conditions bigger than this (once the body's lets are expanded) are left out: solving
/// them would cost more than trimming gains.
const MAX_CONDITION_NODES: usize = 2000;

pub fn trim_no_ops(s: &Stmt) -> Stmt {
    let s = s.map_children(|e| e.clone(), trim_no_ops);
    if let StmtKind::For {
        name,
        min,
        extent,
        kind: kind @ (ForKind::Serial | ForKind::Parallel),
        body,
    } = s.kind()
    {
        if let Some(trimmed) = trim(*name, min, extent, *kind, body) {
            return trimmed;
        }
    }
    s
}

fn trim(v: Symbol, min: &Expr, extent: &Expr, kind: ForKind, body: &Stmt) -> Option<Stmt> {
    let needs = Scope::default().needed(body);
    let (mut lower, mut upper) = (Vec::new(), Vec::new());
    let mut facts = HashSet::new();
    for need in needs.into_iter().filter(|c| uses_var(c, v)) {
        let reach = outer_range(&strip_likely(&need), v);
        lower.extend(reach.lower);
        upper.extend(reach.upper);
        if reach.exact {
            facts.insert(need);
        }
    }
    if lower.is_empty() && upper.is_empty() {
        return None;
    }
    // Each bound is named by a let, unless it is a name or a constant already.
    let mut lets = Vec::new();
    let mut named = |name: Symbol, e: Expr| {
        let e = simplify(&e);
        if matches!(e.kind(), ExprKind::Var(_)) || e.is_const() {
            e
        } else {
            lets.push((name, e));
            Expr::var(name, Type::i32())
        }
    };
    let old_end = named(
        v.dot("old_end"),
        Expr::binary(BinaryOp::Add, min.clone(), extent.clone()),
    );
    let fold =
        |op: BinaryOp, items: Vec<Expr>| items.into_iter().reduce(|a, b| Expr::binary(op, a, b));
    let clamp = |e: Expr, lo: Expr, hi: Expr| {
        Expr::binary(BinaryOp::Max, Expr::binary(BinaryOp::Min, e, hi), lo)
    };
    let first = fold(BinaryOp::Max, lower)
        .map_or(min.clone(), |lo| clamp(lo, min.clone(), old_end.clone()));
    let first = named(v.dot("trim_min"), first);
    let end = fold(BinaryOp::Min, upper).map_or(old_end.clone(), |hi| {
        clamp(
            Expr::binary(BinaryOp::Add, hi, Expr::i32(1)),
            first.clone(),
            old_end.clone(),
        )
    });
    let end = named(v.dot("trim_end"), end);
    let body = Scope::default().assume(body, &facts);
    let extent = simplify(&Expr::binary(BinaryOp::Sub, end, first.clone()));
    let trimmed = Stmt::for_loop(v, first, extent, kind, body);
    Some(
        lets.into_iter()
            .rev()
            .fold(trimmed, |s, (n, e)| Stmt::let_stmt(n, e, s)),
    )
}

/// What is bound between the loop being trimmed and a statement of its body.
#[derive(Default)]
struct Scope {
    lets: HashMap<Symbol, Expr>,
    /// Loop variables bound inside the body.
    inner: HashSet<Symbol>,
}

impl Scope {
    /// `e` in terms of names outside the loop, or `None` when it cannot be (it uses an inner
    /// loop's variable, reads memory, or is too big).
    fn outside(&self, e: &Expr) -> Option<Expr> {
        let e = expand_lets(e, &self.lets, MAX_CONDITION_NODES)?;
        let usable = !reads_memory(&e) && !free_vars(&e).iter().any(|n| self.inner.contains(n));
        usable.then_some(e)
    }

    /// `f` run on `body` with the let `name = value` in scope.
    fn with_let<T>(&mut self, name: Symbol, value: &Expr, f: impl FnOnce(&mut Self) -> T) -> T {
        let shadowed = self.lets.insert(name, value.clone());
        let out = f(self);
        match shadowed {
            Some(old) => self.lets.insert(name, old),
            None => self.lets.remove(&name),
        };
        out
    }

    /// `f` run with the loop variable `name` bound.
    fn with_loop<T>(&mut self, name: Symbol, f: impl FnOnce(&mut Self) -> T) -> T {
        let fresh = self.inner.insert(name);
        let out = f(self);
        if fresh {
            self.inner.remove(&name);
        }
        out
    }

    /// Conditions (in terms of names outside the loop) that all hold wherever `s` does
    /// anything; empty when nothing is known.
    fn needed(&mut self, s: &Stmt) -> Vec<Expr> {
        match s.kind() {
            StmtKind::LetStmt { name, value, body } => {
                self.with_let(*name, value, |scope| scope.needed(body))
            }
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                let mut then_needs: Vec<Expr> = condition
                    .conjuncts()
                    .iter()
                    .filter_map(|c| self.outside(c))
                    .collect();
                then_needs.extend(self.needed(then_case));
                match else_case {
                    None => then_needs,
                    Some(else_case) => {
                        let mut else_needs: Vec<Expr> = self
                            .outside(condition)
                            .map(|c| Expr::unary(UnaryOp::Not, c))
                            .into_iter()
                            .collect();
                        else_needs.extend(self.needed(else_case));
                        either(then_needs, else_needs)
                    }
                }
            }
            StmtKind::For {
                name, extent, body, ..
            } => {
                let mut needs = self.with_loop(*name, |scope| scope.needed(body));
                let runs = Expr::binary(BinaryOp::Lt, Expr::i32(0), extent.clone());
                needs.extend(self.outside(&runs));
                needs
            }
            StmtKind::Block(stmts) => stmts
                .iter()
                .map(|s| self.needed(s))
                .reduce(either)
                .unwrap_or_default(),
            StmtKind::Allocate { body, .. }
            | StmtKind::Realize { body, .. }
            | StmtKind::ProducerConsumer { body, .. }
            | StmtKind::Atomic { body } => self.needed(body),
            // Stores, assertions and the rest act unconditionally.
            _ => Vec::new(),
        }
    }

    /// `s` with every `if` conjunct that is one of `facts` (in terms of names outside the
    /// loop) replaced by `true`.
    fn assume(&mut self, s: &Stmt, facts: &HashSet<Expr>) -> Stmt {
        if facts.is_empty() {
            return s.clone();
        }
        match s.kind() {
            StmtKind::LetStmt { name, value, .. } => self.with_let(*name, value, |scope| {
                s.map_children(|e| e.clone(), |c| scope.assume(c, facts))
            }),
            StmtKind::For { name, .. } => self.with_loop(*name, |scope| {
                s.map_children(|e| e.clone(), |c| scope.assume(c, facts))
            }),
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                let then_case = self.assume(then_case, facts);
                let else_case = else_case.as_ref().map(|e| self.assume(e, facts));
                let remaining = Expr::conjunction(
                    condition
                        .conjuncts()
                        .into_iter()
                        .filter(|c| !self.outside(c).is_some_and(|c| facts.contains(&c))),
                );
                match remaining {
                    None => then_case,
                    Some(condition) => Stmt::new(StmtKind::IfThenElse {
                        condition,
                        then_case,
                        else_case,
                    }),
                }
            }
            _ => s.map_children(|e| e.clone(), |c| self.assume(c, facts)),
        }
    }
}

/// The conditions needed by one of two statements, of which either may act: those both
/// need, and that one or the other's hold.
fn either(a: Vec<Expr>, b: Vec<Expr>) -> Vec<Expr> {
    let mut out: Vec<Expr> = a.iter().filter(|c| b.contains(c)).cloned().collect();
    if let (Some(x), Some(y)) = (Expr::conjunction(a), Expr::conjunction(b)) {
        out.push(Expr::binary(BinaryOp::Or, x, y));
    }
    out
}
