//! Interleaving strided stores (Halide's `rewrite_interleavings`): `n` stores of a block
//! that each store to one buffer at `ramp(b + k, n, L)` (k = 0..n-1 in any order, each store
//! under lets of its own, its index a ramp once they are substituted) write together the
//! `n * L` elements from `b`. They become one dense store of `interleave(v_0, .., v_{n-1})` —
//! a vector store and a shuffle instead of `n` scatters. An unrolled loop inside a
//! vectorized one makes this shape: a 2x2 tile stores each row as the tile's even and odd
//! columns. Stores to other buffers may come between them (the values of a Tuple are stored
//! one after the other): those go first.
//!
//! The stores write disjoint elements, and none of them reads the buffer (or it could see
//! the others' results), so computing every value first and storing them at once computes
//! what they did one after the other. A store to another buffer moved before them must not
//! read their buffer, nor they its (distinct buffers never alias: see `Pipeline::realize_into`).
//! Runs after the last simplification (no later pass expects an `interleave`), once loop
//! partitioning has made the steady states' indices plain ramps.

use std::collections::HashSet;

use std::collections::VecDeque;

use super::partition_loops::strip_likely;
use crate::ir::substitute::{free_vars, substitute};
use crate::ir::visit::visit_exprs;
use crate::ir::{BinaryOp, Expr, ExprKind, Intrinsic, Stmt, StmtKind, Symbol};
use crate::simplify::simplify;

pub fn interleave_stores(s: &Stmt) -> Stmt {
    let s = s.map_children(|e| e.clone(), interleave_stores);
    match s.kind() {
        StmtKind::Block(stmts) => Stmt::block(interleave_block(stmts)),
        _ => s,
    }
}

/// The statements of a block, with each run of strided stores that fills a dense span
/// replaced by one store.
fn interleave_block(stmts: &[Stmt]) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(stmts.len());
    let mut pending: VecDeque<Stmt> = stmts.iter().cloned().collect();
    while !pending.is_empty() {
        let rest = pending.make_contiguous();
        match interleaved(rest) {
            Some((moved, store, used)) => {
                // The stores moved before the new one may themselves start a run (the next
                // value of a Tuple), with the new store between their members: each merge
                // leaves fewer statements, so this ends.
                pending.drain(..used);
                pending.push_front(store);
                for s in moved.into_iter().rev() {
                    pending.push_front(s);
                }
            }
            None => out.extend(pending.pop_front()),
        }
    }
    out
}

/// The buffer a store (under lets) writes.
fn stored_buffer(s: &Stmt) -> Option<Symbol> {
    match s.kind() {
        StmtKind::LetStmt { body, .. } => stored_buffer(body),
        StmtKind::Store { buffer, .. } => Some(*buffer),
        _ => None,
    }
}

/// Whether any expression of `s` loads from `buffer`.
fn stmt_reads(s: &Stmt, buffer: Symbol) -> bool {
    let mut found = false;
    crate::ir::visit::visit_stmt_exprs(s, &mut |n| {
        found |= matches!(n.kind(), ExprKind::Load { buffer: b, .. } if *b == buffer);
        !found
    });
    found
}

/// A store of a vector at a ramp with a constant stride of 2 or more, under lets.
struct StridedStore {
    lets: Vec<(Symbol, Expr)>,
    buffer: Symbol,
    /// The ramp's base, with the store's lets substituted (in terms of the names outside).
    base: Expr,
    /// The base as the store writes it, under its lets, when its index is a ramp as written
    /// (the one store keeps it rather than repeating what the lets compute).
    written_base: Option<Expr>,
    stride: i128,
    value: Expr,
}

impl StridedStore {
    fn of(s: &Stmt) -> Option<StridedStore> {
        let mut lets = Vec::new();
        let mut s = s;
        while let StmtKind::LetStmt { name, value, body } = s.kind() {
            lets.push((*name, value.clone()));
            s = body;
        }
        let StmtKind::Store {
            buffer,
            index,
            value,
            predicate: None,
        } = s.kind()
        else {
            return None;
        };
        // The index is often a let of the unrolled loop's vector variable plus the row's
        // offset: a ramp once the lets are substituted and simplified.
        let expanded = lets.iter().rev().fold(strip_likely(index), |e, (n, v)| {
            substitute(&e, *n, &strip_likely(v))
        });
        let expanded = simplify(&expanded);
        let ExprKind::Ramp(base, stride) = expanded.kind() else {
            return None;
        };
        let stride = stride.as_int_const().filter(|&k| k >= 2)?;
        // Lets named twice would make renaming them below ambiguous.
        let names: HashSet<Symbol> = lets.iter().map(|(n, _)| *n).collect();
        (base.ty().is_scalar() && names.len() == lets.len()).then(|| StridedStore {
            lets,
            buffer: *buffer,
            base: base.clone(),
            written_base: match index.kind() {
                ExprKind::Ramp(written, _) => Some(written.clone()),
                _ => None,
            },
            stride,
            value: value.clone(),
        })
    }

    /// Whether anything the store computes reads `buffer`.
    fn reads(&self, buffer: Symbol) -> bool {
        let mut found = false;
        let exprs = self.lets.iter().map(|(_, v)| v);
        for e in exprs.chain([&self.base, &self.value]) {
            visit_exprs(e, &mut |n| {
                found |= matches!(n.kind(), ExprKind::Load { buffer: b, .. } if *b == buffer);
                !found
            });
        }
        found
    }

    /// Every name the store binds or uses.
    fn names(&self) -> HashSet<Symbol> {
        let mut names: HashSet<Symbol> = self.lets.iter().map(|(n, _)| *n).collect();
        for e in self
            .lets
            .iter()
            .map(|(_, v)| v)
            .chain([&self.base, &self.value])
            .chain(&self.written_base)
        {
            names.extend(free_vars(e));
        }
        names
    }

    /// The store with its let `from` (and its uses) renamed `to`.
    fn rename(&mut self, from: Symbol, to: Symbol) {
        let var = |ty| Expr::var(to, ty);
        let Some(at) = self.lets.iter().position(|(n, _)| *n == from) else {
            return;
        };
        let ty = self.lets[at].1.ty();
        self.lets[at].0 = to;
        for (_, v) in &mut self.lets[at + 1..] {
            *v = substitute(v, from, &var(ty));
        }
        self.value = substitute(&self.value, from, &var(ty));
        self.written_base = self
            .written_base
            .take()
            .map(|b| substitute(&b, from, &var(ty)));
    }
}

/// The one store replacing the first strided store of `stmts` and the stores to its buffer
/// that complete a dense span with it, if there are such stores; with the stores to other
/// buffers between them (which go first) and how many statements it replaces.
fn interleaved(stmts: &[Stmt]) -> Option<(Vec<Stmt>, Stmt, usize)> {
    let first = StridedStore::of(&stmts[0])?;
    let n = usize::try_from(first.stride).ok()?;
    let lanes = first.value.ty().lanes;
    if usize::from(lanes) * n > usize::from(u16::MAX) {
        return None;
    }
    let fits = |s: &StridedStore| {
        s.buffer == first.buffer
            && s.stride == first.stride
            && s.value.ty() == first.value.ty()
            && !s.reads(first.buffer)
    };
    let (mut stores, mut moved) = (Vec::with_capacity(n), Vec::new());
    let mut used = 0;
    for s in stmts {
        if stores.len() == n {
            break;
        }
        used += 1;
        let target = stored_buffer(s)?;
        if target == first.buffer {
            let store = StridedStore::of(s).filter(fits)?;
            stores.push(store);
        } else if stmt_reads(s, first.buffer) {
            return None;
        } else {
            moved.push((target, s.clone()));
        }
    }
    if stores.len() < n
        || stores
            .iter()
            .any(|s| moved.iter().any(|(target, _)| s.reads(*target)))
    {
        return None;
    }
    // Each store's offset from the first's base, which must be n consecutive elements.
    let offsets = stores
        .iter()
        .map(|s| {
            let d = Expr::binary(BinaryOp::Sub, s.base.clone(), first.base.clone());
            simplify(&d).as_int_const()
        })
        .collect::<Option<Vec<i128>>>()?;
    let lowest = *offsets.iter().min()?;
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&k| offsets[k]);
    if order
        .iter()
        .enumerate()
        .any(|(j, &k)| offsets[k] - lowest != j as i128)
    {
        return None;
    }
    let outer_base = stores[order[0]].base.clone();

    // All the lets go around the one store: a let of one store named like something another
    // store binds or uses, or like a name of the base (which is in terms of the names
    // outside the lets), is renamed apart.
    let base_names = free_vars(&outer_base);
    let mut taken: HashSet<Symbol> = stores.iter().flat_map(|s| s.names()).collect();
    for k in 0..n {
        let others: HashSet<Symbol> = (0..n)
            .filter(|&j| j != k)
            .flat_map(|j| stores[j].names())
            .chain(base_names.iter().copied())
            .collect();
        let clashing: Vec<Symbol> = stores[k]
            .lets
            .iter()
            .map(|(n, _)| *n)
            .filter(|n| others.contains(n))
            .collect();
        for name in clashing {
            let fresh = Symbol::first_untaken(name.as_str(), |c| taken.contains(&c));
            taken.insert(fresh);
            stores[k].rename(name, fresh);
        }
    }
    let ty = first.value.ty().with_lanes(lanes * n as u16);
    let value = Expr::intrinsic(
        ty,
        Intrinsic::Interleave,
        order.iter().map(|&k| stores[k].value.clone()).collect(),
    );
    let base = stores[order[0]].written_base.clone().unwrap_or(outer_base);
    let one = Expr::one(base.ty());
    let store = Stmt::new(StmtKind::Store {
        buffer: first.buffer,
        index: Expr::ramp(base, one, ty.lanes),
        value,
        predicate: None,
    });
    let lets: Vec<(Symbol, Expr)> = stores.into_iter().flat_map(|s| s.lets).collect();
    let store = lets
        .into_iter()
        .rev()
        .fold(store, |body, (n, v)| Stmt::let_stmt(n, v, body));
    Some((moved.into_iter().map(|(_, s)| s).collect(), store, used))
}
