//! The region of each Func the differentiated output needs (Halide's `func_bounds` in
//! `propagate_adjoints`): the output's given box, and for every other Func the union of
//! what its consumers' definitions read of it, each consumer's pure Vars ranging over its
//! own region and reduction variables over their domains. A scatter iterates over the
//! region of the Func it differentiates, and a gather is zero outside it.

use std::collections::HashMap;

use crate::analysis::bounds::Scope;
use crate::analysis::boxes::boxes_required;
use crate::analysis::interval::Interval;
use crate::ir::{Expr, ExprKind, Symbol};
use crate::lang::function::{Definition, Function};
use crate::simplify::simplify;

/// Each Func's region (one interval per dimension), by name.
pub(super) type Regions = HashMap<Symbol, Vec<Interval>>;

/// The regions of the Funcs of `consumers_first` (each Func after all that call it), the
/// first being the output, whose region is `output`.
pub(super) fn func_regions(consumers_first: &[Function], output: Vec<Interval>) -> Regions {
    let mut regions = Regions::new();
    if let Some(out) = consumers_first.first() {
        regions.insert(out.name(), output);
    }
    for f in consumers_first {
        let Some(region) = regions.get(&f.name()).cloned() else {
            continue;
        };
        for def in f.definitions() {
            let scope = stage_scope(&def, &f.read().args, &region);
            for e in def.exprs() {
                for (callee, found) in boxes_required(e, &scope) {
                    if callee == f.name() || !consumers_first.iter().any(|g| g.name() == callee) {
                        continue;
                    }
                    let merged: Vec<Interval> = match regions.get(&callee) {
                        Some(old) => old
                            .iter()
                            .zip(&found.bounds)
                            .map(|(a, b)| a.union(b))
                            .collect(),
                        None => found.bounds.clone(),
                    };
                    let merged = merged
                        .into_iter()
                        .map(|i| Interval {
                            min: i.min.map(|e| simplify(&e)),
                            max: i.max.map(|e| simplify(&e)),
                        })
                        .collect();
                    regions.insert(callee, merged);
                }
            }
        }
    }
    regions
}

/// The ranges of a stage's variables: each pure Var standing alone among its coordinates
/// ranges over the Func's region in that dimension, each reduction variable over its domain.
pub(super) fn stage_scope(def: &Definition, pure_args: &[Symbol], region: &[Interval]) -> Scope {
    let mut scope = Scope::new();
    for (var, dim) in stage_pure_vars(def, pure_args) {
        if let Some(interval) = region.get(dim) {
            scope.insert(var, interval.clone());
        }
    }
    for r in def.rdom.iter().flat_map(|r| &r.vars) {
        scope.insert(r.name, interval_of(&r.min, &r.extent));
    }
    scope
}

/// The pure Vars a stage iterates over, each with the dimension it stands alone in.
pub(super) fn stage_pure_vars(def: &Definition, pure_args: &[Symbol]) -> Vec<(Symbol, usize)> {
    def.args
        .iter()
        .enumerate()
        .filter_map(|(dim, a)| match a.kind() {
            ExprKind::Var(v) if pure_args.contains(v) => Some((*v, dim)),
            _ => None,
        })
        .collect()
}

/// `[min, min + extent - 1]`.
pub(super) fn interval_of(min: &Expr, extent: &Expr) -> Interval {
    Interval::new(min.clone(), simplify(&(min.clone() + extent.clone() - 1)))
}
