//! The schedule as plain data, as the IR keeps it with each Func (Halide's internal
//! `FuncSchedule` and `StageSchedule`): per stage, the loop structure (splits, fusions and the
//! loop order with each loop's kind); per Func, where it is computed and stored, explicit
//! bounds, storage order, the Func whose loops it shares, and the `Estimate`s the automatic
//! scheduler may assume. The user's directives (`lang::func`, `lang::stage`) fill it in and
//! record mistakes they can detect on the spot as deferred errors, which lowering reports (a
//! directive returns `&Self` so schedules chain, as in Halide).

use std::fmt;

use super::function::FuncId;
use crate::error::ScheduleError;
use crate::ir::{Expr, ForKind, MemoryType, Symbol};

/// What a split does when the factor does not divide the extent.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, serde::Serialize, serde::Deserialize)]
pub enum TailStrategy {
    /// Halide's default: `ShiftInwards` for pure definitions (`RoundUp` on a loop made from
    /// the outer loop of a shift-inwards split by at least the factor, whose pieces that split
    /// already keeps inside the region), `GuardWithIf` for updates.
    Auto,
    /// Skip the iterations past the end with an `if`.
    GuardWithIf,
    /// Shift the last iteration back so it ends at the end (recomputes a few points; needs the
    /// extent to be at least the factor).
    ShiftInwards,
    /// Compute past the end (the region computed is rounded up to a multiple of the factor).
    RoundUp,
    /// Guard the store and the loads of each point past the end, where it is made (never
    /// around inner loops): computes exactly the region, and a vectorized inner loop keeps
    /// its full width with masked loads and stores.
    Predicate,
    /// Guard only the loads: every piece is stored whole (the region computed is rounded up,
    /// as with `RoundUp`), but nothing is read past the end. Pure definitions only; the split
    /// loop cannot be split again.
    PredicateLoads,
    /// Guard only the stores: exactly the region is stored, but each piece reads what it
    /// needs whole (the region required of inputs and producers is rounded up). Not for
    /// reduction variables; the split loop cannot be split again.
    PredicateStores,
}

/// One loop-structure transformation, applied in order.
#[derive(Clone, PartialEq, Debug)]
pub enum SplitDirective {
    /// `old` becomes `outer * factor + inner`.
    Split {
        /// The loop split.
        old: Symbol,
        /// The new outer loop: `old`'s steps of `factor`.
        outer: Symbol,
        /// The new inner loop, over `[0, factor)`.
        inner: Symbol,
        /// The inner loop's extent.
        factor: Expr,
        /// What happens where `factor` does not divide `old`'s extent.
        tail: TailStrategy,
        /// The directive that made it, as the user wrote it (`vectorize(x, 8)`).
        directive: String,
    },
    /// `inner` and `outer` become one loop `fused` (inner fastest).
    Fuse {
        /// The loop iterating fastest in the fused loop.
        inner: Symbol,
        /// The loop iterating slowest.
        outer: Symbol,
        /// The fused loop.
        fused: Symbol,
    },
}

/// One loop of a stage. `name` is the full hierarchical dimension name (`x`, `x.xo`, ...),
/// unique within the stage even when a split reuses a name (`split(x, x, xi)` gives `x.x` and
/// `x.xi`); `short` is the name the user gave it, by which directives find it.
#[derive(Clone, PartialEq, Debug)]
pub struct LoopDim {
    /// The full hierarchical name (`x.xo`).
    pub name: Symbol,
    /// The name the user gave it (`xo`).
    pub short: Symbol,
    /// Serial, parallel, vectorized or unrolled.
    pub kind: ForKind,
    /// Whether the loop iterates a reduction variable (or a split/fusion of one).
    pub is_rvar: bool,
}

/// The loop structure of one stage (pure definition or update).
#[derive(Clone, PartialEq, Debug, Default)]
pub struct StageSchedule {
    /// The splits and fusions made, in order.
    pub splits: Vec<SplitDirective>,
    /// Loops, innermost first.
    pub dims: Vec<LoopDim>,
    /// Alternative loop structures, each used when its condition holds (the first that
    /// holds wins; this schedule is used when none does).
    pub specializations: Vec<Specialization>,
    /// `Stage::atomic`: each store of the stage is an atomic read-modify-write of its point,
    /// so its reduction loops may run in parallel or as vector lanes.
    pub atomic: bool,
    /// `Stage::allow_race_conditions`: its reduction loops may run in parallel or as vector
    /// lanes unchecked (the user promises the races are benign).
    pub allow_race_conditions: bool,
}

/// `Stage::specialize`: a loop structure for the runs where `condition` (over Params and
/// buffer sizes) holds.
#[derive(Clone, PartialEq, Debug)]
pub struct Specialization {
    /// When the specialization is used.
    pub condition: Expr,
    /// The loop structure used then.
    pub schedule: StageSchedule,
}

impl StageSchedule {
    /// The initial loops of a pure definition: its Vars, the first innermost.
    pub fn for_pure(vars: &[Symbol]) -> StageSchedule {
        let dims = vars
            .iter()
            .map(|&v| LoopDim {
                name: v,
                short: v,
                kind: ForKind::Serial,
                is_rvar: false,
            })
            .collect();
        StageSchedule {
            splits: Vec::new(),
            dims,
            ..StageSchedule::default()
        }
    }

    /// The loop structure of the specialization at `path` (indices into the nested
    /// specializations, outermost first; empty: this one).
    pub fn specialized(&self, path: &[usize]) -> &StageSchedule {
        path.iter()
            .fold(self, |s, &i| &s.specializations[i].schedule)
    }

    /// `specialized`, to change it.
    pub fn specialized_mut(&mut self, path: &[usize]) -> &mut StageSchedule {
        path.iter()
            .fold(self, |s, &i| &mut s.specializations[i].schedule)
    }

    /// This loop structure and those of all its specializations, nested ones too.
    pub fn structures(&self) -> Vec<&StageSchedule> {
        let mut all = vec![self];
        let mut i = 0;
        while i < all.len() {
            let s = all[i];
            all.extend(s.specializations.iter().map(|sp| &sp.schedule));
            i += 1;
        }
        all
    }

    /// The initial loops of an update: the reduction variables innermost (the first fastest),
    /// then the pure Vars that stand alone at their own positions (`pure_args`) on its
    /// left-hand side, as in Halide (elsewhere, as in `g(x, x)`, a Var is a coordinate).
    pub fn for_update(lhs: &[Expr], pure_args: &[Symbol], rvars: &[Symbol]) -> StageSchedule {
        let rdims = rvars.iter().map(|&v| LoopDim {
            name: v,
            short: v,
            kind: ForKind::Serial,
            is_rvar: true,
        });
        let own_position =
            |(i, a): (usize, &Expr)| a.as_var().filter(|v| pure_args.get(i) == Some(v));
        let pure = lhs
            .iter()
            .enumerate()
            .filter_map(own_position)
            .map(|v| LoopDim {
                name: v,
                short: v,
                kind: ForKind::Serial,
                is_rvar: false,
            });
        StageSchedule {
            splits: Vec::new(),
            dims: rdims.chain(pure).collect(),
            ..StageSchedule::default()
        }
    }
}

/// The name of `Var::outermost()`: the level of a stage outside all its loops.
pub const OUTERMOST: &str = "__outermost";

/// A place in the loop nest of the pipeline.
#[derive(Clone, PartialEq, Debug)]
pub enum LoopLevel {
    /// Substituted into every use (the default for every Func but the output).
    Inlined,
    /// Outside all loops.
    Root,
    /// Inside the loop over dimension `var` of `func`'s stage `stage` (by default the one stage
    /// of `func` that uses the Func being scheduled).
    At {
        /// The consumer whose loop it is.
        func: Symbol,
        /// The identity of `func`, which names follow when they are made unique.
        id: FuncId,
        /// The consumer's stage (0 the pure definition, k + 1 update k), if one is named.
        stage: Option<usize>,
        /// The loop.
        var: Symbol,
    },
}

impl LoopLevel {
    /// The level as messages print it (`root`, `g.x`, `g.s1.x`).
    pub fn describe(&self) -> String {
        match self {
            LoopLevel::Inlined => "inline".to_string(),
            LoopLevel::Root => "root".to_string(),
            LoopLevel::At {
                func,
                stage: Some(s),
                var,
                ..
            } => format!("{func}.s{s}.{var}"),
            LoopLevel::At {
                func,
                stage: None,
                var,
                ..
            } => format!("{func}.{var}"),
        }
    }
}

/// `bound(var, min, extent)`: the region computed in that dimension is exactly this.
#[derive(Clone, PartialEq, Debug)]
pub struct Bound {
    /// The dimension bounded.
    pub var: Symbol,
    /// The first coordinate computed.
    pub min: Expr,
    /// The number of coordinates computed.
    pub extent: Expr,
}

/// `bound_extent(var, extent)`: the region computed in that dimension is `extent` points
/// from the min its consumers need (the min stays inferred).
#[derive(Clone, PartialEq, Debug)]
pub struct ExtentBound {
    /// The dimension bounded.
    pub var: Symbol,
    /// The number of coordinates computed.
    pub extent: Expr,
}

/// Where a Func is computed and stored, and constraints on its storage.
#[derive(Clone, PartialEq, Debug)]
pub struct FuncSchedule {
    /// Where it is computed (`compute_root`, `compute_at`, `compute_inline`).
    pub compute_level: LoopLevel,
    /// `compute_inline` was the last placement asked for: inlined is also the default, which
    /// means root for an output, but an output cannot be inlined when asked to be.
    pub inline_requested: bool,
    /// `None`: stored where it is computed.
    pub store_level: Option<LoopLevel>,
    /// `hoist_storage`: where the storage is allocated, when outside the store level.
    pub hoist_level: Option<LoopLevel>,
    /// `bound`: dimensions whose computed region is fixed.
    pub bounds: Vec<Bound>,
    /// `bound_extent`: dimensions whose computed extent is fixed (none also in `bounds`).
    pub extent_bounds: Vec<ExtentBound>,
    /// Storage dimension order, innermost first (`reorder_storage`); empty for the default.
    pub storage_order: Vec<Symbol>,
    /// `compute_with` of each stage that has one (at most one per stage, as Halide's
    /// per-stage fuse level): the stage whose loops it joins, and the innermost loop joined.
    pub compute_with: Vec<FusedLoops>,
    /// `fold_storage`: dimensions whose storage is circular, with their fold factors.
    pub folds: Vec<StorageFold>,
    /// `align_storage`: dimensions whose storage extent is padded to a multiple.
    pub alignments: Vec<StorageAlignment>,
    /// `align_bounds`: dimensions whose computed region is widened to multiples.
    pub bound_alignments: Vec<BoundAlignment>,
    /// `Func::allow_race_conditions`: every update's reduction loops may run in parallel or
    /// as vector lanes unchecked.
    pub allow_race_conditions: bool,
    /// `store_nontemporal`: the output's whole-vector stores bypass the caches.
    pub nontemporal_stores: bool,
    /// `store_in`: where the Func's storage lives (the compiler's choice by default).
    pub memory: MemoryType,
    /// `prefetch`: regions of producers brought into the caches ahead of their use.
    pub prefetches: Vec<PrefetchDirective>,
    /// `memoize`: the region computed is cached across runs of one compiled pipeline.
    pub memoize: Option<Memoize>,
    /// `async_`: each production runs concurrently with what consumes it, which waits for
    /// it (`lower::async_producers`).
    pub async_producer: bool,
    /// Mistakes found while scheduling, reported by lowering.
    pub errors: Vec<ScheduleError>,
}

/// How `Func::prefetch` treats the part of a region ahead that lies outside the producer's
/// buffer (Halide's `PrefetchBoundStrategy`).
#[derive(
    Clone, Copy, PartialEq, Eq, Debug, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum PrefetchBoundStrategy {
    /// The region is clamped to the buffer: no address outside it is formed.
    Clamp,
    /// The whole region is prefetched only when it lies inside the buffer.
    #[default]
    GuardWithIf,
    /// The region is prefetched as is: the target's prefetches do not fault outside a buffer.
    NonFaulting,
}

/// `f.prefetch(producer, at, from, offset, strategy)`: at the top of each iteration of f's
/// loop `at`, the region of `producer` that the iteration `offset` iterations ahead along
/// loop `from` (`at` or a loop outside it) reads is prefetched.
#[derive(Clone, PartialEq, Debug)]
pub struct PrefetchDirective {
    /// The Func or input image prefetched.
    pub producer: Symbol,
    /// The identity of `producer` when it is a Func, which names follow when made unique.
    pub producer_id: Option<FuncId>,
    pub at: Symbol,
    pub from: Symbol,
    pub offset: i32,
    pub strategy: PrefetchBoundStrategy,
}

/// `f.memoize()` (Halide's `Func::memoize`): each production of f is looked up in the
/// compiled pipeline's cache, keyed by its region and the Params it depends on, and
/// computed only on a miss (`lower::memoize`).
#[derive(Clone, PartialEq, Debug)]
pub struct Memoize {
    /// Halide's `EvictionKey`: a u64 value entries are stored under, so that
    /// `Compiled::memoize_evict(key)` drops them all.
    pub eviction_key: Option<Expr>,
}

/// `f.fold_storage(var, factor)`: coordinate `c` of dimension `var` is stored at `c mod factor`.
#[derive(Clone, PartialEq, Debug)]
pub struct StorageFold {
    /// The dimension folded.
    pub var: Symbol,
    /// The number of coordinates stored.
    pub factor: i32,
}

/// `f.align_storage(var, alignment)`: the storage extent of dimension `var` is rounded up to
/// a multiple of `alignment`, so the strides of the dimensions stored outside it are multiples
/// of it too.
#[derive(Clone, PartialEq, Debug)]
pub struct StorageAlignment {
    /// The dimension padded.
    pub var: Symbol,
    /// The multiple its storage extent is rounded up to.
    pub alignment: i32,
}

/// `f.align_bounds(var, modulus, remainder)` or `f.align_extent(var, modulus)` (Halide's):
/// the region computed in dimension `var` is widened so that its extent is a multiple of
/// `modulus` and, for `align_bounds`, its min is `remainder` modulo `modulus`, so code inside
/// knows the phase of each coordinate from its loop position.
#[derive(Clone, PartialEq, Debug)]
pub struct BoundAlignment {
    /// The dimension aligned.
    pub var: Symbol,
    /// The multiple its extent (and min) is widened to.
    pub modulus: i32,
    /// `None` for `align_extent`, which keeps the min.
    pub remainder: Option<i32>,
}

/// `f.compute_with(g, var)` (or `f.update_stage(i).compute_with(&g.update_stage(j), var)`):
/// the loops of stage `stage` of `f` and stage `with_stage` of `g`, from the outermost to
/// `var`, are one loop nest.
#[derive(Clone, PartialEq, Debug)]
pub struct FusedLoops {
    /// The Func whose loops are joined.
    pub with: Symbol,
    /// The identity of `with`, which names follow when they are made unique.
    pub with_id: FuncId,
    /// The innermost loop joined.
    pub var: Symbol,
    /// The stage of the Func scheduled (0 = pure, k = update k-1).
    pub stage: usize,
    /// The stage of `with` whose loops it joins.
    pub with_stage: usize,
}

impl Default for FuncSchedule {
    fn default() -> Self {
        FuncSchedule {
            compute_level: LoopLevel::Inlined,
            inline_requested: false,
            store_level: None,
            hoist_level: None,
            bounds: Vec::new(),
            extent_bounds: Vec::new(),
            storage_order: Vec::new(),
            compute_with: Vec::new(),
            folds: Vec::new(),
            alignments: Vec::new(),
            bound_alignments: Vec::new(),
            allow_race_conditions: false,
            nontemporal_stores: false,
            memory: MemoryType::Auto,
            prefetches: Vec::new(),
            memoize: None,
            async_producer: false,
            errors: Vec::new(),
        }
    }
}

impl FuncSchedule {
    /// The `compute_with` of stage `stage`, if it has one.
    pub fn compute_with_of(&self, stage: usize) -> Option<&FusedLoops> {
        self.compute_with.iter().find(|fused| fused.stage == stage)
    }

    /// Where it is stored: the store level, or the compute level when none is set.
    pub fn store_level(&self) -> &LoopLevel {
        self.store_level.as_ref().unwrap_or(&self.compute_level)
    }
}

/// Finds the loop of `dims` the user means by `name` (its short or full name). Errors list
/// the loops that exist.
pub fn find_dim(dims: &[LoopDim], name: Symbol) -> Result<usize, String> {
    let matches: Vec<usize> = dims
        .iter()
        .enumerate()
        .filter(|(_, d)| d.short == name || d.name == name)
        .map(|(i, _)| i)
        .collect();
    match matches.as_slice() {
        [i] => Ok(*i),
        [] => Err(format!(
            "there is no loop {name}; the loops are {}",
            describe_dims(dims)
        )),
        _ => Err(format!(
            "{name} is ambiguous: it could be {}",
            matches
                .iter()
                .map(|&i| dims[i].name.to_string())
                .collect::<Vec<_>>()
                .join(" or ")
        )),
    }
}

/// The loops, outermost first, as users read them.
pub fn describe_dims(dims: &[LoopDim]) -> String {
    let names: Vec<String> = dims.iter().rev().map(|d| d.short.to_string()).collect();
    if names.is_empty() {
        "(none)".to_string()
    } else {
        names.join(", ")
    }
}

/// The error of a directive naming stage `stage` (0 the pure definition, k + 1 update k) of
/// `func`, which has only `updates` update definitions.
pub(crate) fn missing_update(func: Symbol, stage: usize, updates: usize) -> String {
    let defined = match updates {
        0 => "no update definitions".to_string(),
        1 => "1 update definition, update(0)".to_string(),
        n => format!("{n} update definitions, update(0) to update({})", n - 1),
    };
    match stage.checked_sub(1) {
        Some(k) => format!("{func} has no update({k}): it has {defined}"),
        None => format!("{func} has no pure definition (define it before scheduling it)"),
    }
}

/// The range `[min, min + extent)` a dimension is expected to span.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Estimate {
    /// The least coordinate expected.
    pub min: i64,
    /// The number of coordinates expected.
    pub extent: i64,
}

impl Estimate {
    /// `[min, min + extent)`, or why it is not a range (a non-positive extent, an end past
    /// `i64`).
    pub fn new(min: i64, extent: i64) -> std::result::Result<Estimate, String> {
        if extent <= 0 {
            return Err(format!("the extent must be positive, but it is {extent}"));
        }
        if min.checked_add(extent).is_none() {
            return Err(format!("[{min}, {min} + {extent}) overflows"));
        }
        Ok(Estimate { min, extent })
    }
    /// The largest coordinate of the range.
    pub fn max(&self) -> i64 {
        self.min + self.extent - 1
    }
}

impl fmt::Display for Estimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}]", self.min, self.max())
    }
}
