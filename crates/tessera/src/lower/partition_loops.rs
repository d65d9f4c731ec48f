//! Loop partitioning (Halide's `PartitionLoops`): boundary conditions write their in-bounds
//! case as a `likely` arm (`clamp(likely(x), lo, hi)`, `select(outside, v, likely(inside))`),
//! and tail guards (`GuardWithIf` splits, the skipped points of a factored reduction) mark
//! their conditions likely (`if (likely(x < end))`, the same in a store's or load's predicate).
//! A loop whose body has such sites is split into a prologue, a steady state and an epilogue,
//! where the steady state is the range of the loop variable over which every site it can
//! solve for takes its likely arm. There the clamps and selects are gone, so a vectorized
//! read of a clamped input becomes a dense vector load instead of a gather. The prologue and
//! epilogue keep the original body, so the result never changes.
//!
//! Loops are partitioned outermost first. In the prologue and epilogue the sites this loop
//! solved are not in their likely arm, so they lose their `likely` marks. Of the other sites
//! only the vector ones keep theirs, so an inner loop there is partitioned again only where
//! that turns gathers into dense vector loads: the rows a pyramid's coarser levels need
//! beyond the image can be a third of a level's rows, and in them the columns inside the
//! image still read densely. Scalar clamps cost a `min` and a `max`, so there (as in Halide,
//! which partitions only the steady state) the edge loops stay whole and a 2-D clamped
//! stencil gets five copies of its body, not nine.
//!
//! The steady range is an inner approximation (`analysis::solve::inner_range`): each site's
//! condition (for vectors, on every lane), with the lets of the body expanded, is reduced to
//! linear bounds on the loop variable.
//! A condition it cannot solve leaves its site alone, in all three parts.

// `Expr` keys are sound: hashing and equality are structural and ignore the Func and RDom
// links (the interior mutability clippy sees).
#![allow(clippy::mutable_key_type)]

use std::collections::{HashMap, HashSet};

use crate::analysis::solve::{inner_range, InnerRange};
use crate::ir::substitute::{expand_lets, free_vars};
use crate::ir::visit::{any_node, mutate_exprs, reads_memory, visit_exprs};
use crate::ir::{
    BinaryOp, CallKind, Expr, ExprKind, ForKind, Intrinsic, Stmt, StmtKind, Symbol, Type, UnaryOp,
};
use crate::simplify::simplify;

pub fn partition_loops(s: &Stmt) -> Stmt {
    // What is left unpartitioned has nothing more to say with its marks, which would only
    // keep the simplifier from seeing through them.
    strip_likely_in_stmt(&partition_nest(&mark_clamped_ramps(s)))
}

fn partition_nest(s: &Stmt) -> Stmt {
    if let StmtKind::For {
        name,
        min,
        extent,
        kind: kind @ (ForKind::Serial | ForKind::Parallel),
        body,
    } = s.kind()
    {
        if let Some(parts) = partition(*name, min, extent, *kind, body) {
            return parts;
        }
    }
    s.map_children(|e| e.clone(), partition_nest)
}

/// `s` with the ramps clamped in the indices of its loads and stores marked likely (Halide's
/// `MarkClampedRampsAsLikely`): a vector read through a clamp the user wrote by hand is
/// partitioned like a boundary condition's.
fn mark_clamped_ramps(s: &Stmt) -> Stmt {
    let s = s.map_children(in_values, mark_clamped_ramps);
    match s.kind() {
        StmtKind::Store {
            buffer,
            index,
            value,
            predicate,
        } => Stmt::new(StmtKind::Store {
            buffer: *buffer,
            index: in_index(index),
            value: value.clone(),
            predicate: predicate.clone(),
        }),
        _ => s,
    }
}

/// `e` with the indices of its loads marked as `mark_clamped_ramps` does.
fn in_values(e: &Expr) -> Expr {
    mutate_exprs(e, &mut |n| match n.kind() {
        ExprKind::Load {
            buffer,
            index,
            predicate,
        } => Some(Expr::predicated_load(
            n.ty(),
            *buffer,
            in_index(index),
            predicate.as_ref().map(in_values),
        )),
        _ => None,
    })
}

/// An index with each `min`/`max` of a ramp and something else marked likely in the ramp.
fn in_index(e: &Expr) -> Expr {
    mutate_exprs(e, &mut |n| match n.kind() {
        ExprKind::Binary(op @ (BinaryOp::Min | BinaryOp::Max), a, b) if !contains_likely(n) => {
            let likely = |r: &Expr| Expr::intrinsic(r.ty(), Intrinsic::Likely, vec![r.clone()]);
            match (a.kind(), b.kind()) {
                (ExprKind::Ramp(..), _) => Some(Expr::binary(*op, likely(a), in_index(b))),
                (_, ExprKind::Ramp(..)) => Some(Expr::binary(*op, in_index(a), likely(b))),
                _ => None,
            }
        }
        ExprKind::Load { .. } => Some(in_values(n)),
        _ => None,
    })
}

fn partition(v: Symbol, min: &Expr, extent: &Expr, kind: ForKind, body: &Stmt) -> Option<Stmt> {
    let mut sites = Vec::new();
    collect_sites(body, &mut HashMap::new(), &mut HashSet::new(), &mut sites);
    if has_loop(body) {
        sites.retain(|site| !only_if_innermost(&site.node));
    }
    // The same site text can occur several times with different meanings (an unrolled body
    // rebinds its lets): a site is taken only if every occurrence is solved.
    let mut solved_sites: Vec<(Expr, Option<InnerRange>)> = Vec::new();
    let mut index: HashMap<Expr, usize> = HashMap::new();
    for site in sites {
        // Sites that do not vary with `v` are left to the loop they vary with.
        let solved = site.condition.and_then(|cond| {
            let names = free_vars(&cond);
            let varies_here = names.contains(&v)
                && !names.iter().any(|n| site.inner.contains(n))
                && !reads_memory(&cond);
            varies_here
                .then(|| inner_range(&strip_likely(&cond), v))
                .flatten()
        });
        let i = *index.entry(site.node.clone()).or_insert_with(|| {
            solved_sites.push((site.node, Some(InnerRange::default())));
            solved_sites.len() - 1
        });
        let entry = &mut solved_sites[i].1;
        match (entry.as_mut(), solved) {
            (Some(all), Some(this)) => all.extend(this),
            _ => *entry = None,
        }
    }
    let mut steady = InnerRange::default();
    let mut taken: HashSet<Expr> = HashSet::new();
    for (node, solved) in solved_sites {
        if let Some(solved) = solved {
            steady.extend(solved);
            taken.insert(node);
        }
    }
    if taken.is_empty() || (steady.lower.is_empty() && steady.upper.is_empty()) {
        // Without a bound on `v` there is nothing to split (invariant conditions alone would
        // only choose between two copies of the whole loop).
        return None;
    }

    let steady_body = partition_nest(&take_likely_arms(body, &taken));
    let edge_body = partition_nest(&strip_likely_at_edges(body, &taken));
    let i32_var = |n: Symbol| Expr::var(n, Type::i32());
    let loop_min = v.dot("loop_min");
    let loop_end = v.dot("loop_end");
    let steady_min = v.dot("steady_min");
    let steady_end = v.dot("steady_end");
    let clamp = |e: Expr, lo: Expr, hi: Expr| {
        Expr::binary(BinaryOp::Max, Expr::binary(BinaryOp::Min, e, hi), lo)
    };
    let fold =
        |op: BinaryOp, items: &[Expr]| items.iter().cloned().reduce(|a, b| Expr::binary(op, a, b));
    // Where any invariant condition fails, the steady state is empty.
    let holds = fold(BinaryOp::And, &steady.invariant);
    let or_empty = |e: Expr| match &holds {
        Some(c) => Expr::select(c.clone(), e, i32_var(loop_end)),
        None => e,
    };
    let first = or_empty(
        fold(BinaryOp::Max, &steady.lower).map_or(i32_var(loop_min), |lo| {
            clamp(lo, i32_var(loop_min), i32_var(loop_end))
        }),
    );
    let end = or_empty(
        fold(BinaryOp::Min, &steady.upper).map_or(i32_var(loop_end), |hi| {
            clamp(
                Expr::binary(BinaryOp::Add, hi, Expr::i32(1)),
                i32_var(steady_min),
                i32_var(loop_end),
            )
        }),
    );
    let range_loop = |from: Symbol, to: Symbol, body: &Stmt| {
        Stmt::for_loop(
            v,
            i32_var(from),
            Expr::binary(BinaryOp::Sub, i32_var(to), i32_var(from)),
            kind,
            body.clone(),
        )
    };
    let mut parts = Vec::new();
    if !steady.lower.is_empty() || holds.is_some() {
        parts.push(range_loop(loop_min, steady_min, &edge_body));
    }
    parts.push(range_loop(steady_min, steady_end, &steady_body));
    if !steady.upper.is_empty() {
        parts.push(range_loop(steady_end, loop_end, &edge_body));
    }
    let lets = [
        (loop_min, min.clone()),
        (
            loop_end,
            Expr::binary(BinaryOp::Add, min.clone(), extent.clone()),
        ),
        (steady_min, simplify(&first)),
        (steady_end, simplify(&end)),
    ];
    Some(
        lets.into_iter()
            .rev()
            .fold(Stmt::block(parts), |s, (n, e)| {
                Stmt::let_stmt(n, simplify(&e), s)
            }),
    )
}

/// A `min`, `max` or `select` node with a likely arm, and the condition (in terms of names
/// outside the body, lets expanded) under which the likely arm is its value.
struct Site {
    node: Expr,
    /// `None` when expanding the lets makes it too big (`MAX_EXPANDED_NODES`).
    condition: Option<Expr>,
    /// Names bound inside the loop body where the site is (a condition using them varies
    /// within one iteration of the loop).
    inner: HashSet<Symbol>,
}

fn collect_sites(
    s: &Stmt,
    lets: &mut HashMap<Symbol, Expr>,
    inner: &mut HashSet<Symbol>,
    out: &mut Vec<Site>,
) {
    match s.kind() {
        StmtKind::LetStmt { name, value, body } => {
            sites_in_expr(value, lets, inner, out);
            lets.insert(*name, value.clone());
            collect_sites(body, lets, inner, out);
            lets.remove(name);
        }
        StmtKind::For {
            name,
            min,
            extent,
            body,
            ..
        } => {
            sites_in_expr(min, lets, inner, out);
            sites_in_expr(extent, lets, inner, out);
            let fresh = inner.insert(*name);
            collect_sites(body, lets, inner, out);
            if fresh {
                inner.remove(name);
            }
        }
        _ => {
            if let StmtKind::IfThenElse { condition: c, .. }
            | StmtKind::Store {
                predicate: Some(c), ..
            } = s.kind()
            {
                guard_sites(c, lets, inner, out);
            }
            let mut exprs = Vec::new();
            let mut children = Vec::new();
            s.for_each_child(|e| exprs.push(e.clone()), |c| children.push(c.clone()));
            for e in &exprs {
                sites_in_expr(e, lets, inner, out);
            }
            for c in &children {
                collect_sites(c, lets, inner, out);
            }
        }
    }
}

/// The conjuncts of a guard (an `if` condition, a store or load predicate) marked likely: each is
/// a site whose likely arm is `true`.
fn guard_sites(
    c: &Expr,
    lets: &HashMap<Symbol, Expr>,
    inner: &HashSet<Symbol>,
    out: &mut Vec<Site>,
) {
    match c.kind() {
        ExprKind::Binary(BinaryOp::And, a, b) => {
            guard_sites(a, lets, inner, out);
            guard_sites(b, lets, inner, out);
        }
        ExprKind::Call { args, .. } if is_likely(c) => out.push(Site {
            node: c.clone(),
            condition: expand_lets(&args[0], lets, MAX_EXPANDED_NODES),
            inner: inner.clone(),
        }),
        _ => {}
    }
}

fn sites_in_expr(
    e: &Expr,
    lets: &HashMap<Symbol, Expr>,
    inner: &HashSet<Symbol>,
    out: &mut Vec<Site>,
) {
    visit_exprs(e, &mut |n| {
        if let ExprKind::Let(name, ..) = n.kind() {
            // A let inside an expression binds a name the condition cannot see through;
            // treating it as inner keeps sites that use it alone.
            let mut inner = inner.clone();
            inner.insert(*name);
            if let ExprKind::Let(_, value, body) = n.kind() {
                sites_in_expr(value, lets, &inner, out);
                sites_in_expr(body, lets, &inner, out);
            }
            return false;
        }
        if let ExprKind::Load {
            predicate: Some(p), ..
        }
        | ExprKind::Select(p, ..) = n.kind()
        {
            guard_sites(p, lets, inner, out);
        }
        if let Some(condition) = likely_condition(n) {
            out.push(Site {
                node: n.clone(),
                condition: expand_lets(&condition, lets, MAX_EXPANDED_NODES),
                inner: inner.clone(),
            });
        }
        true
    });
}

/// The condition under which a `min`/`max`/`select` with one likely arm equals that arm.
fn likely_condition(e: &Expr) -> Option<Expr> {
    let (arm, other) = likely_arm_and_other(e)?;
    Some(match e.kind() {
        ExprKind::Binary(BinaryOp::Min, ..) => Expr::binary(BinaryOp::Le, arm, other),
        ExprKind::Binary(..) => Expr::binary(BinaryOp::Le, other, arm),
        ExprKind::Select(c, t, _) if *t == arm => c.clone(),
        ExprKind::Select(c, ..) => Expr::unary(UnaryOp::Not, c.clone()),
        _ => unreachable!("likely_arm_and_other matches only min, max and select"),
    })
}

fn likely_arm(e: &Expr) -> Option<Expr> {
    likely_arm_and_other(e).map(|(arm, _)| arm)
}

/// For a `min`, `max` or `select` with exactly one arm containing `likely`: that arm and the
/// other one.
fn likely_arm_and_other(e: &Expr) -> Option<(Expr, Expr)> {
    match e.kind() {
        ExprKind::Binary(BinaryOp::Min | BinaryOp::Max, a, b) | ExprKind::Select(_, a, b) => {
            match (contains_likely(a), contains_likely(b)) {
                (true, false) => Some((a.clone(), b.clone())),
                (false, true) => Some((b.clone(), a.clone())),
                _ => None,
            }
        }
        _ => None,
    }
}

fn is_likely(e: &Expr) -> bool {
    matches!(
        e.kind(),
        ExprKind::Call {
            kind: CallKind::Intrinsic(Intrinsic::Likely | Intrinsic::LikelyIfInnermost),
            ..
        }
    )
}

/// Whether the likely arm of site `node` (a guard site: the node itself) is marked only
/// `likely_if_innermost`.
fn only_if_innermost(node: &Expr) -> bool {
    let Some(arm) = likely_arm(node).or_else(|| is_likely(node).then(|| node.clone())) else {
        return false;
    };
    let mut plain = false;
    visit_exprs(&arm, &mut |n| {
        plain |= matches!(
            n.kind(),
            ExprKind::Call {
                kind: CallKind::Intrinsic(Intrinsic::Likely),
                ..
            }
        );
        !plain
    });
    !plain
}

/// Whether `s` contains a loop.
fn has_loop(s: &Stmt) -> bool {
    let mut found = matches!(s.kind(), StmtKind::For { .. });
    s.for_each_child(|_| {}, |c| found |= has_loop(c));
    found
}

fn contains_likely(e: &Expr) -> bool {
    any_node(e, is_likely)
}

/// `e` without its `likely` marks (which are identities).
pub(super) fn strip_likely(e: &Expr) -> Expr {
    mutate_exprs(e, &mut |n| match n.kind() {
        ExprKind::Call { args, .. } if is_likely(n) => Some(strip_likely(&args[0])),
        _ => None,
    })
}

/// The body of a prologue or epilogue: without the `likely` marks of the sites in `taken`
/// and of every scalar site.
fn strip_likely_at_edges(s: &Stmt, taken: &HashSet<Expr>) -> Stmt {
    fn in_expr(e: &Expr, taken: &HashSet<Expr>) -> Expr {
        mutate_exprs(e, &mut |n| {
            let scalar_mark = is_likely(n) && !n.ty().is_vector();
            (scalar_mark || taken.contains(n))
                .then(|| strip_likely(&n.map_children(|c| in_expr(c, taken))))
        })
    }
    s.map_children(|e| in_expr(e, taken), |c| strip_likely_at_edges(c, taken))
}

/// `s` without `likely` marks.
fn strip_likely_in_stmt(s: &Stmt) -> Stmt {
    s.map_children(strip_likely, strip_likely_in_stmt)
}

fn unwrap_likely(e: &Expr) -> Expr {
    match e.kind() {
        ExprKind::Call { args, .. } if is_likely(e) => unwrap_likely(&args[0]),
        _ => e.clone(),
    }
}

/// The most nodes, counted as a tree, a condition may have once the body's lets are expanded
/// into it. The bounds lets of Funcs computed inside a loop are written in terms of their
/// consumers' bounds, each often used twice (in a `min` and a `max`), so a chain of `n` Funcs
/// computed at one loop expands to some `2^n` nodes: solving and simplifying that, and the
/// loop bounds it would give, cost as much (a 17-Func stencil chain tiled at one loop took
/// minutes and gigabytes). A condition bigger than this is left unsolved (its site alone),
/// which only gives up a partition; the apps' biggest solved conditions have some 13000.
const MAX_EXPANDED_NODES: usize = 1 << 14;

/// The body with every site in `taken` replaced by its likely arm (a guard site by `true`).
fn take_likely_arms(s: &Stmt, taken: &HashSet<Expr>) -> Stmt {
    fn in_expr(e: &Expr, taken: &HashSet<Expr>) -> Expr {
        mutate_exprs(e, &mut |n| {
            if taken.contains(n) && is_likely(n) {
                Some(Expr::bool_(true).broadcast_to(n.ty().lanes))
            } else if taken.contains(n) {
                // The arm without its `likely` marker, so it folds into ramps again.
                likely_arm(n).map(|arm| unwrap_likely(&in_expr(&arm, taken)))
            } else {
                None
            }
        })
    }
    s.map_children(|e| in_expr(e, taken), |c| take_likely_arms(c, taken))
}
