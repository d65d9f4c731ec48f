//! The directives that apply to a whole Func, not one stage: where it is computed and stored
//! (`compute_root`, `compute_at`, `compute_inline`, `store_at`, `hoist_storage`), how its
//! storage is laid out (`fold_storage`, `align_storage`, `reorder_storage`, `store_in`), and
//! the region it computes (`bound`, `bound_extent`, `align_bounds`).

use super::{DimName, Stage};
use crate::error::ScheduleError;
use crate::ir::{Expr, MemoryType, Symbol, Type};
use crate::lang::func::Func;
use crate::lang::function::Function;
use crate::lang::math::cast;
use crate::lang::schedule::{
    Bound, BoundAlignment, ExtentBound, FuncSchedule, LoopLevel, Memoize, StorageAlignment,
    StorageFold,
};
use crate::lang::var::Var;

/// The consumer whose loop `compute_at`, `store_at` and `hoist_storage` name: a Func (the
/// loop of whichever of its stages uses the producer), or one stage of it (a `Stage`, such as
/// `g.update_stage(0)`, Halide's `g.update(0)`).
pub trait LoopOwner {
    /// The consumer, and its stage (0 the pure definition, k + 1 update k) if one is named.
    fn owner_stage(&self) -> (Function, Option<usize>);
}

impl LoopOwner for Func {
    fn owner_stage(&self) -> (Function, Option<usize>) {
        (self.function().clone(), None)
    }
}

impl LoopOwner for Stage {
    fn owner_stage(&self) -> (Function, Option<usize>) {
        (self.func.clone(), Some(self.index))
    }
}

impl<T: LoopOwner + ?Sized> LoopOwner for &T {
    fn owner_stage(&self) -> (Function, Option<usize>) {
        (**self).owner_stage()
    }
}

/// The loop level of loop `var` of `consumer`.
fn level_at(consumer: impl LoopOwner, var: impl Into<DimName>) -> LoopLevel {
    let (func, stage) = consumer.owner_stage();
    LoopLevel::At {
        func: func.name(),
        id: func.id(),
        stage,
        var: var.into().0,
    }
}

/// Scheduling directives that apply to a whole Func, not one stage.
impl Func {
    fn set_placement(&self, change: impl FnOnce(&mut FuncSchedule)) -> &Func {
        change(&mut self.function().write().schedule);
        self
    }

    /// Computes all of this Func, before anything that uses it, outside all loops.
    pub fn compute_root(&self) -> &Func {
        self.set_placement(|s| {
            s.compute_level = LoopLevel::Root;
            s.inline_requested = false
        })
    }
    /// Computes the region of this Func that one iteration of `consumer`'s loop `var` needs,
    /// inside that loop. `consumer` is a Func (the loop of whichever of its stages uses this
    /// one) or one of its stages: `f.compute_at(g.update_stage(0), r.x())` is Halide's
    /// `f.compute_at(g.update(0), r.x)`.
    pub fn compute_at(&self, consumer: impl LoopOwner, var: impl Into<DimName>) -> &Func {
        let level = level_at(consumer, var);
        self.set_placement(|s| {
            s.compute_level = level;
            s.inline_requested = false
        })
    }
    /// `compute_at` a loop of stage `stage` of `consumer`, numbered 0 for the pure definition
    /// and k + 1 for update k.
    #[deprecated(
        note = "numbers stages unlike `update_stage`; use `compute_at(consumer.update_stage(k), var)` (update k) or `compute_at(consumer.pure_stage(), var)`"
    )]
    pub fn compute_at_stage(
        &self,
        consumer: &Func,
        stage: usize,
        var: impl Into<DimName>,
    ) -> &Func {
        self.compute_at(Stage::new(consumer.function().clone(), stage), var)
    }
    /// Computes this Func in the loops of `other` (Halide's `compute_with`): the loops of both
    /// pure definitions, from the outermost down to `var`, become one loop nest whose every
    /// iteration computes the points of both (so values both read, such as the same input
    /// pixels, are loaded once). Both must be computed at the same loop level, with the same
    /// loops down to `var`, and neither may use the other; lowering reports what does not fit.
    pub fn compute_with(&self, other: &Func, var: impl Into<DimName>) -> &Func {
        self.pure_stage().compute_with(&other.pure_stage(), var);
        self
    }
    /// Folds this Func's storage in dimension `var` to `factor` coordinates, stored circularly
    /// (`c mod factor`), as Halide's `fold_storage`: for a Func stored outside a serial loop
    /// and computed inside it, whose every iteration uses a window of at most `factor`
    /// coordinates of `var` that only moves forward. Lowering proves that or refuses the
    /// schedule. (Without it, such storage is folded to the power of two covering the
    /// window, when that saves memory.)
    pub fn fold_storage(&self, var: impl Into<Var>, factor: i32) -> &Func {
        let var = var.into();
        self.set_storage_dim("fold_storage", var, factor, "fold factor", |s| {
            s.folds.retain(|f| f.var != var.name());
            s.folds.push(StorageFold {
                var: var.name(),
                factor,
            });
        })
    }
    /// Pads this Func's storage extent in dimension `var` up to a multiple of `alignment`
    /// elements, as Halide's `align_storage`: the strides of the dimensions stored outside
    /// `var` become multiples of `alignment` (e.g. rows that each start at an aligned offset).
    /// What is computed does not change.
    pub fn align_storage(&self, var: impl Into<Var>, alignment: i32) -> &Func {
        let var = var.into();
        self.set_storage_dim("align_storage", var, alignment, "alignment", |s| {
            s.alignments.retain(|a| a.var != var.name());
            s.alignments.push(StorageAlignment {
                var: var.name(),
                alignment,
            });
        })
    }
    /// Widens the region computed in dimension `var` so that its min and extent are multiples
    /// of `modulus` (Halide's `align_bounds`): e.g. with 2, a loop over `var` unrolled by two
    /// knows which iteration is even. On the output Func, whose region is its buffer's, the
    /// buffer must be so aligned (checked when the pipeline runs).
    pub fn align_bounds(&self, var: impl Into<Var>, modulus: i32) -> &Func {
        let var = var.into();
        self.align_bounds_with_remainder(var, modulus, 0)
    }
    /// `align_bounds`, the min widened to `remainder` modulo `modulus` instead (Halide's
    /// `align_bounds(var, modulus, remainder)`); `remainder` is in `[0, modulus)`.
    pub fn align_bounds_with_remainder(
        &self,
        var: impl Into<Var>,
        modulus: i32,
        remainder: i32,
    ) -> &Func {
        let var = var.into();
        if !(0..modulus.max(1)).contains(&remainder) {
            let name = self.name();
            return self.set_placement(|s| {
                s.errors.push(ScheduleError::of_directive(name, "align_bounds", format!(
                    "{name}.align_bounds({}, {modulus}, {remainder}): the remainder must be in [0, {modulus})",
                    var.name()
                )))
            });
        }
        self.align_dimension("align_bounds", var, modulus, Some(remainder))
    }
    /// Widens the region computed in dimension `var` so that its extent is a multiple of
    /// `modulus`, keeping its min (Halide's `align_extent`).
    pub fn align_extent(&self, var: impl Into<Var>, modulus: i32) -> &Func {
        let var = var.into();
        self.align_dimension("align_extent", var, modulus, None)
    }
    fn align_dimension(
        &self,
        directive: &str,
        var: Var,
        modulus: i32,
        remainder: Option<i32>,
    ) -> &Func {
        self.set_storage_dim(directive, var, modulus, "modulus", |s| {
            s.bound_alignments.retain(|a| a.var != var.name());
            s.bound_alignments.push(BoundAlignment {
                var: var.name(),
                modulus,
                remainder,
            });
        })
    }
    /// Records the per-dimension directive `directive(var, amount)` with `record`, or the error if
    /// `var` is not a dimension of this Func or `amount` (the directive's `what`) is not
    /// positive.
    fn set_storage_dim(
        &self,
        directive: &str,
        var: Var,
        amount: i32,
        what: &str,
        record: impl FnOnce(&mut FuncSchedule),
    ) -> &Func {
        let name = self.name();
        let args = self.function().read().args.clone();
        let call = format!("{directive}({}, {amount})", var.name());
        self.set_placement(|s| {
            if !args.contains(&var.name()) {
                s.errors.push(not_a_dimension(name, &call, var, &args));
            } else if amount < 1 {
                let message = format!("{name}.{call}: the {what} must be positive");
                s.errors
                    .push(ScheduleError::of_directive(name, directive, message));
            } else {
                record(s);
            }
        })
    }
    /// Lets the reduction loops of every update of this Func run in parallel or as vector
    /// lanes without the race check (Halide's `Func::allow_race_conditions`); see
    /// [`Stage::allow_race_conditions`].
    pub fn allow_race_conditions(&self) -> &Func {
        self.set_placement(|s| s.allow_race_conditions = true)
    }
    /// Writes this Func, an output of the pipeline, with non-temporal stores that bypass the
    /// caches, wherever a whole vector is stored at an address aligned to it (the others are
    /// normal stores). Faster for an output larger than the last-level cache that is written
    /// once and not read back soon: a normal store first reads each line from memory. Slower
    /// when the output is read back while cached (by its own updates, or a caller). Results
    /// are unchanged; an error when the Func is not the pipeline's output.
    pub fn store_nontemporal(&self) -> &Func {
        self.set_placement(|s| s.nontemporal_stores = true)
    }
    /// Places this Func's storage in `memory` (Halide's `Func::store_in`): `Heap` always
    /// allocates, `Stack` and `Register` use the stack frame and need a constant size (an
    /// error names the Func otherwise), `Auto` (the default) takes the stack for small
    /// constant sizes. Results are unchanged; the pipeline's output, stored in the caller's
    /// buffer, ignores it.
    pub fn store_in(&self, memory: MemoryType) -> &Func {
        self.set_placement(|s| s.memory = memory)
    }
    /// Substitutes this Func's definition into every use (the default). An output of the
    /// pipeline has no uses to substitute into: lowering refuses it, naming the Func.
    pub fn compute_inline(&self) -> &Func {
        self.set_placement(|s| {
            s.compute_level = LoopLevel::Inlined;
            s.inline_requested = true;
            s.store_level = None
        })
    }
    /// Caches what this Func computes across runs of one compiled pipeline (Halide's
    /// `Func::memoize`): a production whose region and Params (those its values depend on)
    /// match an earlier one's copies that one's values instead of computing them. Results
    /// are unchanged. Lowering refuses it for the pipeline's output, a Func stored at
    /// another level than it is computed, and one reading an input image (whose contents
    /// are no part of the key).
    pub fn memoize(&self) -> &Func {
        self.set_placement(|s| s.memoize = Some(Memoize { eviction_key: None }))
    }
    /// `memoize`, the cached entries stored under `key` (cast to u64; Halide's
    /// `memoize(EvictionKey(key))`), so that `Compiled::memoize_evict(key)` drops them.
    /// `key` may use Params, not Vars.
    pub fn memoize_with_eviction_key(&self, key: impl Into<Expr>) -> &Func {
        let key = cast(Type::u64(), key);
        self.set_placement(|s| {
            s.memoize = Some(Memoize {
                eviction_key: Some(key),
            })
        })
    }
    /// Computes this Func as a task of its own, concurrently with what consumes it (Halide's
    /// `Func::async`; `async` is a Rust keyword): each production runs ahead of the
    /// consumer, which waits for it, and where the storage is folded the producer waits in
    /// turn for the consumer to finish with the coordinates it would overwrite. Results are
    /// unchanged. Lowering refuses it for an inlined Func and the pipeline's output.
    pub fn async_(&self) -> &Func {
        self.set_placement(|s| s.async_producer = true)
    }
    /// Allocates this Func's storage outside all loops (with compute at a finer level, this
    /// enables the sliding window optimization).
    pub fn store_root(&self) -> &Func {
        self.set_placement(|s| s.store_level = Some(LoopLevel::Root))
    }
    /// Allocates this Func's storage inside `consumer`'s loop `var`.
    pub fn store_at(&self, consumer: impl LoopOwner, var: impl Into<DimName>) -> &Func {
        let level = level_at(consumer, var);
        self.set_placement(|s| s.store_level = Some(level))
    }
    /// Allocates this Func's storage once per iteration of `consumer`'s loop `var`, outside
    /// its store level (Halide's `hoist_storage`): what is computed, and how storage folds,
    /// stay as at the store level, but the allocation, as large as any iteration inside needs,
    /// is made once for all of them. It may not leave a parallel loop.
    pub fn hoist_storage(&self, consumer: impl LoopOwner, var: impl Into<DimName>) -> &Func {
        let level = level_at(consumer, var);
        self.set_placement(|s| s.hoist_level = Some(level))
    }
    /// `hoist_storage` outside all loops: one allocation for the whole pipeline.
    pub fn hoist_storage_root(&self) -> &Func {
        self.set_placement(|s| s.hoist_level = Some(LoopLevel::Root))
    }
    /// Computes exactly `[min, min + extent)` of dimension `var` (asserting it covers what is
    /// needed).
    pub fn bound(
        &self,
        var: impl Into<Var>,
        min: impl Into<Expr>,
        extent: impl Into<Expr>,
    ) -> &Func {
        let var = var.into();
        let (min, extent) = (min.into(), extent.into());
        let directive = format!("bound({}, ..)", var.name());
        self.set_bound(var, &directive, &[&min, &extent], |s| {
            s.bounds.push(Bound {
                var: var.name(),
                min: cast(Type::i32(), min.clone()),
                extent: cast(Type::i32(), extent.clone()),
            })
        })
    }
    /// Computes `extent` points of dimension `var` from the min its consumers need (Halide's
    /// `bound_extent`), asserting that covers what is needed: a constant extent gives the
    /// Func a constant-size allocation however the consumers' region varies.
    pub fn bound_extent(&self, var: impl Into<Var>, extent: impl Into<Expr>) -> &Func {
        let var = var.into();
        let extent = extent.into();
        let directive = format!("bound_extent({}, ..)", var.name());
        self.set_bound(var, &directive, &[&extent], |s| {
            s.extent_bounds.push(ExtentBound {
                var: var.name(),
                extent: cast(Type::i32(), extent.clone()),
            })
        })
    }
    /// Records a bound of dimension `var` (`add`), replacing any earlier `bound` or
    /// `bound_extent` of it, once `var` and the integer `values` are checked.
    fn set_bound(
        &self,
        var: Var,
        directive: &str,
        values: &[&Expr],
        add: impl FnOnce(&mut FuncSchedule),
    ) -> &Func {
        let name = self.name();
        let args = self.function().read().args.clone();
        self.set_placement(|s| {
            if !args.contains(&var.name()) {
                s.errors.push(not_a_dimension(name, directive, var, &args));
            } else if !values.iter().all(|v| v.ty().is_int_or_uint()) {
                let message = format!("{name}.{directive}: the bounds must be integers");
                s.errors
                    .push(ScheduleError::of_directive(name, directive, message));
            } else {
                s.bounds.retain(|b| b.var != var.name());
                s.extent_bounds.retain(|b| b.var != var.name());
                add(s);
            }
        })
    }
    /// Orders this Func's storage dimensions, innermost first.
    pub fn reorder_storage<V: Into<Var>>(&self, vars: impl IntoIterator<Item = V>) -> &Func {
        let name = self.name();
        let args = self.function().read().args.clone();
        let order: Vec<Symbol> = vars.into_iter().map(|v| v.into().name()).collect();
        self.set_placement(|s| {
            let mut sorted_order = order.clone();
            sorted_order.sort();
            let mut sorted_args = args.clone();
            sorted_args.sort();
            if sorted_order != sorted_args {
                let message = format!(
                    "{name}.reorder_storage({}): list every dimension of {name} once ({})",
                    join(&order),
                    join(&args)
                );
                s.errors.push(ScheduleError::of_directive(
                    name,
                    "reorder_storage",
                    message,
                ));
            } else {
                s.storage_order = order;
            }
        })
    }
}

/// The error of the directive `func.call` (e.g. `f.bound(z, ..)`) naming `var`, which is not
/// one of `func`'s dimensions `args`.
fn not_a_dimension(func: Symbol, call: &str, var: Var, args: &[Symbol]) -> ScheduleError {
    let message = format!(
        "{func}.{call}: {} is not a dimension of {func}; its dimensions are {}",
        var.name(),
        join(args)
    );
    ScheduleError::of_directive(func, call, message)
}

fn join(names: &[Symbol]) -> String {
    names
        .iter()
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
