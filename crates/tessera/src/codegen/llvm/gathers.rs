//! Gathers made lane by lane (on CPUs where that beats gather instructions:
//! `Target::prefers_scalar_gathers`), and the work the gathers of one store can share.
//!
//! A gather lane costs an extraction of its index from a vector and an insertion of the
//! loaded value into one, and both compete for the same shuffle unit. The gathers of a
//! store often index one buffer at `v + x(s)` for a common varying part `v` and uniform
//! offsets `s` (the corners of a grid cell, the channels of a pixel): they extract the
//! lanes of `v` once and add each `s` as a scalar. Two of them at offsets `s` and `s + 1`
//! read adjacent elements: one load of both per lane, then an even/odd split, halves the
//! loads and the insertions.

// `Expr` keys are sound: hashing and equality are structural and ignore the Func and RDom
// links (the interior mutability clippy sees).
#![allow(clippy::mutable_key_type)]

use std::collections::{HashMap, HashSet};

use inkwell::basic_block::BasicBlock;
use inkwell::values::PointerValue;

use super::values::Value;
use super::vector::{gather_index_type, Access};
use super::Codegen;
use crate::error::Result;
use crate::ir::visit::visit_exprs;
use crate::ir::{BinaryOp, Expr, ExprKind, Symbol, Type};
use crate::simplify::simplify;

/// The most lanes whose indices are extracted once for several gathers: they stay live in
/// general registers across all of those gathers, and x86-64 has 16 (unsharp's 16-lane
/// clamped row reads spilled and ran 7% slower).
const MAX_SHARED_LANES: u16 = 8;

/// A gather, by its buffer and index.
type GatherKey = (Symbol, Expr);

/// What the gathers of the store being made share.
#[derive(Default)]
pub(super) struct GatherGroups<'ctx> {
    /// Varying index parts that two or more of the gathers share.
    shared: HashSet<Expr>,
    /// Each gather that reads the elements just after another's: its partner's key, and
    /// whether it is the lower one of the two.
    partners: HashMap<GatherKey, (GatherKey, bool)>,
    /// Gathers already loaded with their partner: the block they were loaded in (they can
    /// be reused only there) and their value.
    loaded: HashMap<GatherKey, (BasicBlock<'ctx>, Value<'ctx>)>,
}

/// The integer vector `e` as a varying part plus a uniform scalar offset, each absent when
/// it is zero: sums, differences and products by broadcasts are distributed, which is exact
/// in wrapping arithmetic. Anything else is varying as a whole.
pub(super) fn uniform_offset(e: &Expr) -> (Option<Expr>, Option<Expr>) {
    let combine = |op: BinaryOp, a: Option<Expr>, b: Option<Expr>| match (a, b) {
        (Some(a), Some(b)) => Some(Expr::binary(op, a, b)),
        (Some(a), None) => Some(a),
        (None, Some(b)) if op == BinaryOp::Sub => {
            Some(Expr::binary(BinaryOp::Sub, Expr::zero(b.ty()), b))
        }
        (None, b) => b,
    };
    match e.kind() {
        ExprKind::Broadcast(s) if s.ty().is_scalar() => (None, Some(s.clone())),
        ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) => {
            let ((av, ao), (bv, bo)) = (uniform_offset(a), uniform_offset(b));
            (combine(*op, av, bv), combine(*op, ao, bo))
        }
        ExprKind::Binary(BinaryOp::Mul, a, b) => {
            let (factor, other) = match (a.kind(), b.kind()) {
                (_, ExprKind::Broadcast(k)) if k.ty().is_scalar() => (k, a),
                (ExprKind::Broadcast(k), _) if k.ty().is_scalar() => (k, b),
                _ => return (Some(e.clone()), None),
            };
            let (varying, offset) = uniform_offset(other);
            let lanes = e.ty().lanes;
            (
                varying.map(|v| Expr::binary(BinaryOp::Mul, v, factor.clone().broadcast_to(lanes))),
                offset.map(|o| Expr::binary(BinaryOp::Mul, o, factor.clone())),
            )
        }
        _ => (Some(e.clone()), None),
    }
}

/// A gather of `e` with a varying index part and a uniform offset.
struct Candidate {
    key: GatherKey,
    ty: Type,
    varying: Expr,
    offset: Expr,
}

impl<'ctx> GatherGroups<'ctx> {
    /// The groups among the unpredicated vector loads of `value`; adjacent pairs only when
    /// `pairs` (not in checked mode, where each load's own check must precede its read).
    fn of(value: &Expr, pairs: bool) -> Self {
        // A loaded value is reused by its index's expression, which must mean the same
        // everywhere in `value`: no names bound inside it (a let may be shadowed).
        let mut bound_inside = HashSet::new();
        visit_exprs(value, &mut |node| {
            if let ExprKind::Let(name, ..) = node.kind() {
                bound_inside.insert(*name);
            }
            true
        });
        let uses_bound_name = |e: &Expr| {
            let mut found = false;
            visit_exprs(e, &mut |n| {
                found |= matches!(n.kind(), ExprKind::Var(v) if bound_inside.contains(v));
                !found
            });
            found
        };
        let mut candidates: Vec<Candidate> = Vec::new();
        visit_exprs(value, &mut |node| {
            if let ExprKind::Load {
                buffer,
                index,
                predicate: None,
            } = node.kind()
            {
                if index.ty().is_vector() && !node.ty().is_bool() {
                    if let (Some(varying), Some(offset)) = uniform_offset(index) {
                        let key = (*buffer, index.clone());
                        if !candidates.iter().any(|c| c.key == key) {
                            candidates.push(Candidate {
                                key,
                                ty: node.ty(),
                                varying,
                                offset,
                            });
                        }
                    }
                }
            }
            true
        });
        let mut uses: HashMap<&Expr, usize> = HashMap::new();
        for c in &candidates {
            *uses.entry(&c.varying).or_default() += 1;
        }
        let shared: HashSet<Expr> = uses
            .into_iter()
            .filter(|&(_, n)| n >= 2)
            .map(|(v, _)| v.clone())
            .collect();
        let mut partners = HashMap::new();
        for (i, low) in candidates.iter().enumerate() {
            if !pairs || partners.contains_key(&low.key) || uses_bound_name(&low.key.1) {
                continue;
            }
            let next = candidates[i + 1..]
                .iter()
                .chain(&candidates[..i])
                .find(|c| {
                    !partners.contains_key(&c.key)
                        && !uses_bound_name(&c.key.1)
                        && c.key.0 == low.key.0
                        && c.ty == low.ty
                        && c.varying == low.varying
                        && simplify(&Expr::binary(
                            BinaryOp::Sub,
                            c.offset.clone(),
                            low.offset.clone(),
                        ))
                        .as_int_const()
                            == Some(1)
                });
            if let Some(high) = next {
                partners.insert(low.key.clone(), (high.key.clone(), true));
                partners.insert(high.key.clone(), (low.key.clone(), false));
            }
        }
        GatherGroups {
            shared,
            partners,
            loaded: HashMap::new(),
        }
    }
}

impl<'ctx> Codegen<'ctx> {
    /// Makes `value`'s gather groups current, returning the enclosing ones to restore.
    /// (Only lane-by-lane gathers consult them: elsewhere none are looked for.)
    pub(super) fn enter_gather_groups(&mut self, value: &Expr) -> GatherGroups<'ctx> {
        let groups = if self.target.prefers_scalar_gathers() {
            GatherGroups::of(value, !self.target.bounds_checks)
        } else {
            GatherGroups::default()
        };
        std::mem::replace(&mut self.gather_groups, groups)
    }

    /// `buffer[index]` as one scalar load per lane, from 32-bit indices as Halide does:
    /// LLVM's own scalarization extracts 64-bit pointers, which is slower. `indices` is the
    /// index vector already made, for a gather that shares nothing. The scalar adds of
    /// shared indices wrap in the index's own type, exactly as the vector sum they replace.
    /// (Not `map_lanes`: the lanes are of the storage type.)
    pub(super) fn scalar_gather(
        &mut self,
        ty: Type,
        buffer: Symbol,
        base: PointerValue<'ctx>,
        index: &Expr,
        indices: Value<'ctx>,
        access: Access<'ctx>,
    ) -> Result<Value<'ctx>> {
        let key = (buffer, index.clone());
        let block = self.builder.get_insert_block();
        if let Some(&(at, v)) = self.gather_groups.loaded.get(&key) {
            if Some(at) == block {
                return Ok(v);
            }
        }
        let elem = self.storage_type(ty.element());
        let shared = match uniform_offset(index) {
            (Some(v), Some(_))
                if ty.lanes <= MAX_SHARED_LANES && self.gather_groups.shared.contains(&v) =>
            {
                Some(v)
            }
            _ => None,
        };
        let partner = self.gather_groups.partners.get(&key).cloned();
        match (partner, block) {
            (Some((other, is_low)), Some(block)) if ty.lanes.is_power_of_two() => {
                // The pair loads from the lower one's index.
                let low_index = if is_low { index } else { &other.1 };
                let lanes = self.gather_lane_indices(low_index, shared.as_ref(), None)?;
                let pair_ty = self.vector_of(elem, 2);
                let pairs: Vec<Value<'ctx>> = lanes
                    .into_iter()
                    .map(|i| {
                        let ptr = self.element_ptr(elem, base, i);
                        self.aligned_load(pair_ty, ptr, access)
                    })
                    .collect();
                let (low, high) = self.split_pairs(pairs);
                let (mine, theirs) = if is_low { (low, high) } else { (high, low) };
                self.gather_groups.loaded.insert(other, (block, theirs));
                Ok(mine)
            }
            _ => {
                let lanes = self.gather_lane_indices(index, shared.as_ref(), Some(indices))?;
                let mut v = self.storage_type(ty).const_zero();
                for (lane, i) in lanes.into_iter().enumerate() {
                    let x = self.load_scalar(elem, base, i, access);
                    v = self.insert(v, x, lane as u32);
                }
                Ok(v)
            }
        }
    }

    /// The lanes of the gather index `index` (in the type addressing takes): the lanes of its
    /// `shared` varying part, if given, plus its uniform offset, added as scalars in the
    /// index's own type (so they wrap exactly as the vector sum would); else the lanes of
    /// the index vector (`made`, or made now).
    fn gather_lane_indices(
        &mut self,
        index: &Expr,
        shared: Option<&Expr>,
        made: Option<Value<'ctx>>,
    ) -> Result<Vec<Value<'ctx>>> {
        let ty = index.ty();
        let element = ty.element();
        let lanes = 0..ty.lanes as u32;
        if let (Some(varying), (_, Some(offset))) = (shared, uniform_offset(index)) {
            let varying = self.expr(varying)?;
            let offset = self.expr(&offset)?;
            return Ok(lanes
                .map(|lane| {
                    let i = self.extract(varying, lane);
                    let i = self.binary(BinaryOp::Add, i, offset, element, None);
                    self.cast(i, element, gather_index_type(element))
                })
                .collect());
        }
        let vector = match made {
            Some(v) => v,
            None => {
                let v = self.expr(index)?;
                self.cast(v, ty, gather_index_type(ty))
            }
        };
        Ok(lanes.map(|lane| self.extract(vector, lane)).collect())
    }

    /// Two-element vectors, one per lane (a power of two of them), as the vector of their
    /// first elements and the vector of their second ones: concatenated pairwise, then
    /// split into even and odd elements.
    fn split_pairs(&self, mut parts: Vec<Value<'ctx>>) -> (Value<'ctx>, Value<'ctx>) {
        let lanes = parts.len() as u32;
        let mut width = 2;
        while parts.len() > 1 {
            let concat: Vec<u32> = (0..2 * width).collect();
            parts = parts
                .chunks(2)
                .map(|p| self.shuffle(p[0], p[1], &concat))
                .collect();
            width *= 2;
        }
        let all = parts[0];
        let even: Vec<u32> = (0..lanes).map(|i| 2 * i).collect();
        let odd: Vec<u32> = (0..lanes).map(|i| 2 * i + 1).collect();
        (self.shuffle(all, all, &even), self.shuffle(all, all, &odd))
    }
}
