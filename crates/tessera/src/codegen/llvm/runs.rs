//! Loads and stores of nested vectors. A vectorized loop inside another makes indices that
//! are ramps of ramps and broadcasts of vectors (`lower::vectorize_loops`: the outer loop's
//! lanes major), which have no linear form, so the whole access would be one gather or
//! scatter. Taken run by run — each run the lanes of the innermost vectorized loop — the
//! index is usually a plain ramp (a row of a tile): each run is accessed on its own, densely
//! where its index allows, and the runs are joined (or the stored value split) by shuffles.
//! The runs are the access's lanes in order, so the value is the same, and a store's later
//! lanes still win over earlier ones at equal indices.

use super::values::Value;
use super::Codegen;
use crate::error::Result;
use crate::ir::lanes::extract_lanes;
use crate::ir::visit::visit_exprs;
use crate::ir::{Expr, ExprKind, Symbol, Type};
use crate::simplify::simplify;

/// An access split into runs: their lanes, and each run's index and predicate.
struct Runs {
    lanes: u16,
    parts: Vec<(Expr, Option<Expr>)>,
}

impl<'ctx> Codegen<'ctx> {
    /// `buffer[index]` (lanes where `predicate` is false reading zero) run by run, when the
    /// index is a nested vector; `None` otherwise.
    pub(super) fn load_by_runs(
        &mut self,
        ty: Type,
        buffer: Symbol,
        index: &Expr,
        predicate: Option<&Expr>,
    ) -> Result<Option<Value<'ctx>>> {
        let Some(runs) = runs(index, predicate) else {
            return Ok(None);
        };
        let mut joined: Option<Value<'ctx>> = None;
        for (i, (index, predicate)) in runs.parts.iter().enumerate() {
            let run = self.load(ty.with_lanes(runs.lanes), buffer, index, predicate.as_ref())?;
            joined = Some(match joined {
                None => self.widen_run(run, ty.lanes),
                Some(all) => self.place_run(all, run, i as u32 * u32::from(runs.lanes)),
            });
        }
        Ok(joined)
    }

    /// Stores `value` at `buffer[index]` run by run, when the index is a nested vector;
    /// whether it did.
    pub(super) fn store_by_runs(
        &mut self,
        buffer: Symbol,
        index: &Expr,
        value: &Expr,
        predicate: Option<&Expr>,
    ) -> Result<bool> {
        let Some(runs) = runs(index, predicate) else {
            return Ok(false);
        };
        // The whole store is checked before its value is computed, as `store` does.
        let storage = self.storage(buffer)?;
        self.check_access("store to", buffer, &storage, index, predicate)?;
        let v = self.expr(value)?;
        let ty = value.ty().with_lanes(runs.lanes);
        for (i, (index, predicate)) in runs.parts.iter().enumerate() {
            let first = i as u32 * u32::from(runs.lanes);
            let lanes: Vec<u32> = (first..first + u32::from(runs.lanes)).collect();
            let part = self.shuffle(v, v, &lanes);
            self.store_value(buffer, index, ty, predicate.as_ref(), |_| Ok(part))?;
        }
        Ok(true)
    }

    /// `run` widened to `lanes`, its lanes first (the others are filled by `place_run`).
    fn widen_run(&self, run: Value<'ctx>, lanes: u16) -> Value<'ctx> {
        let own = u32::from(Self::lanes_of(run));
        let picks: Vec<u32> = (0..u32::from(lanes)).map(|i| i % own).collect();
        self.shuffle(run, run, &picks)
    }

    /// `all` with its lanes from `first` on replaced by those of `run`.
    pub(super) fn place_run(&self, all: Value<'ctx>, run: Value<'ctx>, first: u32) -> Value<'ctx> {
        let lanes = u32::from(Self::lanes_of(all));
        let wide = self.widen_run(run, lanes as u16);
        let own = u32::from(Self::lanes_of(run));
        let picks: Vec<u32> = (0..lanes)
            .map(|i| {
                if (first..first + own).contains(&i) {
                    lanes + i - first
                } else {
                    i
                }
            })
            .collect();
        self.shuffle(all, wide, &picks)
    }
}

/// The runs of an access whose index is a nested vector: runs of the fewest lanes a vector
/// nested in it has, each run's index and predicate simplified; `None` for an index that is
/// not nested, or a run the lanes cannot be taken apart for.
fn runs(index: &Expr, predicate: Option<&Expr>) -> Option<Runs> {
    let lanes = index.ty().lanes;
    let mut run = None::<u16>;
    visit_exprs(index, &mut |n| {
        let nested = match n.kind() {
            ExprKind::Ramp(base, _) => base.ty().lanes,
            ExprKind::Broadcast(v) => v.ty().lanes,
            _ => 1,
        };
        if nested > 1 {
            run = Some(run.map_or(nested, |r| r.min(nested)));
        }
        true
    });
    let run = run.filter(|&r| r >= 2 && lanes.is_multiple_of(r))?;
    let part = |e: &Expr, i: u16| extract_lanes(e, i * run, 1, run).map(|e| simplify(&e));
    let parts = (0..lanes / run)
        .map(|i| {
            let predicate = match predicate {
                Some(p) => Some(part(p, i)?),
                None => None,
            };
            Some((part(index, i)?, predicate))
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Runs { lanes: run, parts })
}
