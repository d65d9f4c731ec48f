//! Interleaving strided stores (Halide's `rewrite_interleavings`): `n` consecutive statements
//! of a block that each store to one buffer at `ramp(b + k, n, L)` (k = 0..n-1 in any
//! order, each store under lets of its own) write together the `n * L` elements from `b`.
//! They become one dense store of `interleave(v_0, .., v_{n-1})` — a vector store and a
//! shuffle instead of `n` scatters. An unrolled loop inside a vectorized one makes this
//! shape: a 2x2 tile stores each row as the tile's even and odd columns.
//!
//! The stores write disjoint elements, and none of them reads the buffer (or it could see
//! the others' results), so computing every value first and storing them at once computes
//! what they did one after the other. Runs after the last simplification (no later pass
//! expects an `interleave`), once loop partitioning has made the steady states' indices
//! plain ramps.

use std::collections::HashSet;

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
    let mut i = 0;
    while i < stmts.len() {
        match interleaved(&stmts[i..]) {
            Some((store, used)) => {
                out.push(store);
                i += used;
            }
            None => {
                out.push(stmts[i].clone());
                i += 1;
            }
        }
    }
    out
}

/// A store of a vector at a ramp with a constant stride of 2 or more, under lets.
struct StridedStore {
    lets: Vec<(Symbol, Expr)>,
    buffer: Symbol,
    base: Expr,
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
        let ExprKind::Ramp(base, stride) = index.kind() else {
            return None;
        };
        let stride = stride.as_int_const().filter(|&k| k >= 2)?;
        // Lets named twice would make renaming them below ambiguous.
        let names: HashSet<Symbol> = lets.iter().map(|(n, _)| *n).collect();
        (base.ty().is_scalar() && names.len() == lets.len()).then(|| StridedStore {
            lets,
            buffer: *buffer,
            base: base.clone(),
            stride,
            value: value.clone(),
        })
    }

    /// The base with the store's own lets substituted (in terms of the names outside).
    fn expanded_base(&self) -> Expr {
        self.lets
            .iter()
            .rev()
            .fold(self.base.clone(), |e, (n, v)| substitute(&e, *n, v))
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
        self.base = substitute(&self.base, from, &var(ty));
        self.value = substitute(&self.value, from, &var(ty));
    }
}

/// The one store replacing the first statements of `stmts`, if they are strided stores
/// filling a dense span, with how many statements it replaces.
fn interleaved(stmts: &[Stmt]) -> Option<(Stmt, usize)> {
    let first = StridedStore::of(&stmts[0])?;
    let n = usize::try_from(first.stride).ok()?;
    let mut stores = stmts
        .get(..n)?
        .iter()
        .map(StridedStore::of)
        .collect::<Option<Vec<_>>>()?;
    let lanes = first.value.ty().lanes;
    let fits = |s: &StridedStore| {
        s.buffer == first.buffer
            && s.stride == first.stride
            && s.value.ty() == first.value.ty()
            && !s.reads(first.buffer)
    };
    if !stores.iter().all(fits) || usize::from(lanes) * n > usize::from(u16::MAX) {
        return None;
    }
    // Each store's offset from the first's base, which must be n consecutive elements.
    let origin = first.expanded_base();
    let offsets = stores
        .iter()
        .map(|s| {
            let d = Expr::binary(BinaryOp::Sub, s.expanded_base(), origin.clone());
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

    // All the lets go around the one store: a let of one store named like something another
    // store binds or uses is renamed apart.
    let mut taken: HashSet<Symbol> = stores.iter().flat_map(|s| s.names()).collect();
    for k in 0..n {
        let others: HashSet<Symbol> = (0..n)
            .filter(|&j| j != k)
            .flat_map(|j| stores[j].names())
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
    let base = stores[order[0]].base.clone();
    let ty = first.value.ty().with_lanes(lanes * n as u16);
    let value = Expr::intrinsic(
        ty,
        Intrinsic::Interleave,
        order.iter().map(|&k| stores[k].value.clone()).collect(),
    );
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
    Some((store, n))
}
