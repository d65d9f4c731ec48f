//! The scheduling language: loop-structure directives on a stage (`split`, `fuse`, `reorder`,
//! `tile`, `parallel`, `vectorize`, `unroll`) and placement directives on a Func
//! (`compute_root`, `compute_at`, `store_at`, `compute_inline`, `bound`, `reorder_storage`,
//! `align_storage`).
//! Directives chain; a directive that cannot apply records an error naming the Func, the stage
//! and the legal choices, and lowering reports it.

use std::collections::{HashMap, HashSet};

use super::func::Func;
use super::function::{Definition, Function, FunctionContents};
use super::independent_iterations::{check_independent, loop_rvars, rdom_vars};
use super::rdom::RVar;
use super::rfactor::is_exact_reduction;
use super::schedule::{
    describe_dims, find_dim, missing_update, Bound, ExtentBound, FuncSchedule, LoopDim, LoopLevel,
    Specialization, SplitDirective, StageSchedule, TailStrategy,
};
use super::var::Var;
use crate::ir::{BinaryOp, Expr, ExprKind, ForKind, MemoryType, Symbol, Type};
use crate::lang::math::cast;

/// A loop dimension named in a directive: a Var, an RVar, or a name.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DimName(pub Symbol);

impl From<Var> for DimName {
    fn from(v: Var) -> DimName {
        DimName(v.name())
    }
}
impl From<&Var> for DimName {
    fn from(v: &Var) -> DimName {
        DimName(v.name())
    }
}
impl From<RVar> for DimName {
    fn from(v: RVar) -> DimName {
        DimName(v.name())
    }
}
impl From<&RVar> for DimName {
    fn from(v: &RVar) -> DimName {
        DimName(v.name())
    }
}
impl From<&str> for DimName {
    fn from(v: &str) -> DimName {
        DimName(Symbol::new(v))
    }
}

impl From<&DimName> for DimName {
    fn from(d: &DimName) -> DimName {
        *d
    }
}

/// The loops a `reorder` lists, innermost first: an array or `Vec` of Vars, RVars or names
/// (`[x, y]`, `["xi", "yi"]`), a tuple mixing them (`(r.x(), x, "yo")`, where Halide writes
/// `reorder(r.x, x, yo)`), or a slice of [`DimName`]s.
pub trait DimList {
    /// The loops' names, in the order listed.
    fn dim_names(self) -> Vec<Symbol>;
}

impl<T: Into<DimName>, const N: usize> DimList for [T; N] {
    fn dim_names(self) -> Vec<Symbol> {
        self.into_iter().map(|d| d.into().0).collect()
    }
}

impl<T: Into<DimName>> DimList for Vec<T> {
    fn dim_names(self) -> Vec<Symbol> {
        self.into_iter().map(|d| d.into().0).collect()
    }
}

/// The spelling `reorder(["x", "y"])` of earlier releases (an array of one
/// element type is simpler: `reorder(["x", "y"])`).
impl<const N: usize> DimList for &[DimName; N] {
    fn dim_names(self) -> Vec<Symbol> {
        self.iter().map(|d| d.0).collect()
    }
}

impl DimList for &Vec<DimName> {
    fn dim_names(self) -> Vec<Symbol> {
        self.iter().map(|d| d.0).collect()
    }
}

impl DimList for &[DimName] {
    fn dim_names(self) -> Vec<Symbol> {
        self.iter().map(|d| d.0).collect()
    }
}

/// `DimList` for tuples of up to eight Vars, RVars and names, in any mix.
macro_rules! dim_list_tuples {
    ($(($($t:ident),+))*) => {
        $(
            impl<$($t: Into<DimName>),+> DimList for ($($t,)+) {
                #[allow(non_snake_case)]
                fn dim_names(self) -> Vec<Symbol> {
                    let ($($t,)+) = self;
                    vec![$($t.into().0),+]
                }
            }
        )*
    };
}

dim_list_tuples! {
    (A, B)
    (A, B, C)
    (A, B, C, D)
    (A, B, C, D, E)
    (A, B, C, D, E, F)
    (A, B, C, D, E, F, G)
    (A, B, C, D, E, F, G, H)
}

/// One definition of a Func (or one specialization of it), as a target for loop-structure
/// directives (Halide's `Stage`): [`Func::pure_stage`] for the pure definition,
/// [`Func::update_stage`]`(i)` for update `i` (Halide's `f.update(i)`).
///
/// ```
/// use tessera::prelude::*;
///
/// # fn main() -> Result<()> {
/// let x = Var::new("x");
/// let r = RDom::named("r", [(0, 4)]);
/// let histogram = Func::new("histogram");
/// histogram.define(x, 0)?;
/// // histogram(x) += (x + r.x) % 3;
/// histogram.update(x, histogram.at(x) + (x + r.x()) % 3)?;
///
/// histogram
///     .update_stage(0) // histogram.update(0)
///     .reorder((r.x(), x)) // .reorder(r.x, x)
///     .vectorize(x, 4); // .vectorize(x, 4);
///
/// let out = histogram.realize::<i32>(&[8])?;
/// assert_eq!(out.get(&[5]), (0..4).map(|r| (5 + r) % 3).sum::<i32>());
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Stage {
    func: Function,
    index: usize,
    /// Which `specialize`d loop structure the directives change: indices into the nested
    /// specializations, outermost first (empty: the stage's own).
    specialization: Vec<usize>,
}

impl Stage {
    /// The stage `index` of `func`: 0 for the pure definition, k + 1 for update k (users
    /// write [`Func::pure_stage`] and [`Func::update_stage`]).
    pub fn new(func: Function, index: usize) -> Stage {
        Stage {
            func,
            index,
            specialization: Vec::new(),
        }
    }
    /// The Func this stage belongs to.
    pub fn function(&self) -> &Function {
        &self.func
    }
    /// 0 for the pure definition, k + 1 for update k.
    pub fn index(&self) -> usize {
        self.index
    }

    /// `f` or `f.update(k)`, as messages name the stage.
    fn describe(&self) -> String {
        let name = self.func.name();
        let stage = if self.index == 0 {
            name.to_string()
        } else {
            format!("{name}.update({})", self.index - 1)
        };
        self.specialization
            .iter()
            .fold(stage, |s, i| format!("{s}.specialization({i})"))
    }

    /// A loop structure used instead of this one in runs where `condition` holds (Halide's
    /// `specialize`): it starts as a copy of this stage's loops, and directives on the
    /// returned Stage change only it. `condition` is a boolean over Params and buffer sizes;
    /// the first specialization whose condition holds is used. Specializing on the same
    /// condition again returns the same specialization; specializing a specialization nests
    /// (`f.specialize(a).specialize(b)` is used where `a` and `b` hold, `f.specialize(a)`
    /// where only `a` does).
    pub fn specialize(&self, condition: impl Into<Expr>) -> Stage {
        let condition = condition.into();
        if let Err(msg) = check_specialize_condition(&condition) {
            self.record_error(&format!("specialize({condition})"), msg);
            return self.clone();
        }
        let mut contents = self.func.write();
        let Some(def) = contents.stage_mut(self.index) else {
            let msg = missing_update(self.func.name(), self.index, contents.updates.len());
            drop(contents);
            self.record_error("specialize", msg);
            return self.clone();
        };
        let parent = def.schedule.specialized_mut(&self.specialization);
        let existing = parent
            .specializations
            .iter()
            .position(|s| s.condition == condition);
        let i = match existing {
            Some(i) => i,
            None => {
                let schedule = StageSchedule {
                    specializations: Vec::new(),
                    ..parent.clone()
                };
                parent.specializations.push(Specialization {
                    condition,
                    schedule,
                });
                parent.specializations.len() - 1
            }
        };
        Stage {
            func: self.func.clone(),
            index: self.index,
            specialization: self.specialization.iter().copied().chain([i]).collect(),
        }
    }

    /// `compute_with` of stages (Halide's `f.update(0).compute_with(g.update(1), y)`): this
    /// stage's loops, from the outermost down to `var` (a loop of both, or
    /// `Var::outermost()` to fuse none), join those of stage `other`, and each iteration
    /// computes both stages' points there. The other stages of both Funcs keep their order
    /// around the fused nest. One stage of a Func may be computed with another; both Funcs
    /// must be computed at the same level and neither may use the other (lowering checks).
    pub fn compute_with(&self, other: &Stage, var: impl Into<DimName>) -> &Stage {
        let (name, with, var) = (self.func.name(), other.func.name(), var.into().0);
        // Identities, not names: two Funcs may share a name until lowering makes names unique.
        let itself = self.func.id() == other.func.id();
        let fused = super::schedule::FusedLoops {
            with,
            with_id: other.func.id(),
            var,
            stage: self.index,
            with_stage: other.index,
        };
        // Names are read before the write lock is taken (see `apply`).
        let what = format!(
            "{}.compute_with({}, {var})",
            self.describe(),
            other.describe()
        );
        let mut contents = self.func.write();
        let schedule = &mut contents.schedule;
        let error = if itself {
            Some("a Func cannot be computed with itself".to_string())
        } else if !self.specialization.is_empty() || !other.specialization.is_empty() {
            Some("a specialization cannot be computed with another stage; fuse the stages themselves".to_string())
        } else {
            match &schedule.compute_with {
                Some(earlier) if earlier.stage != self.index => Some(format!(
                    "stage {} of {name} is already computed with {}; only one stage of a Func may be computed with another",
                    earlier.stage, earlier.with
                )),
                _ => None,
            }
        };
        match error {
            Some(msg) => schedule.errors.push(format!("{what}: {msg}")),
            None => schedule.compute_with = Some(fused),
        }
        drop(contents);
        self
    }

    fn record_error(&self, directive: &str, msg: String) {
        let what = format!("{}.{directive}", self.describe());
        self.func
            .write()
            .schedule
            .errors
            .push(format!("{what}: {msg}"));
    }

    /// Applies `change` to this stage's schedule, recording its error (if any) instead.
    fn apply(
        &self,
        directive: &str,
        change: impl FnOnce(&mut StageSchedule, &Definition) -> Result<(), String>,
    ) -> &Stage {
        let what = format!("{}.{directive}", self.describe());
        // The name is read before the write lock is taken: reading it under the lock would
        // wait on that lock forever.
        let func_name = self.func.name();
        let mut contents = self.func.write();
        let result = match contents.stage_mut(self.index) {
            None => Err(missing_update(
                func_name,
                self.index,
                contents.updates.len(),
            )),
            Some(def) => {
                let mut schedule = def.schedule.specialized(&self.specialization).clone();
                let r = change(&mut schedule, def);
                if r.is_ok() {
                    *def.schedule.specialized_mut(&self.specialization) = schedule;
                }
                r
            }
        };
        if let Err(msg) = result {
            contents.schedule.errors.push(format!("{what}: {msg}"));
        }
        drop(contents);
        self
    }

    /// Splits `old` into `outer * factor + inner`, with the default tail strategy.
    pub fn split(
        &self,
        old: impl Into<DimName>,
        outer: impl Into<DimName>,
        inner: impl Into<DimName>,
        factor: impl Into<Expr>,
    ) -> &Stage {
        self.split_with_tail(old, outer, inner, factor, TailStrategy::Auto)
    }

    /// `split`, giving back the new loops `outer` and `inner` as Vars for the directives that
    /// follow: `let (yo, yi) = f.split_vars(y, "yo", "yi", 8); f.parallel(yo);`.
    pub fn split_vars(
        &self,
        old: impl Into<DimName>,
        outer: impl Into<DimName>,
        inner: impl Into<DimName>,
        factor: impl Into<Expr>,
    ) -> (Var, Var) {
        let (outer, inner) = (outer.into(), inner.into());
        self.split(old, outer, inner, factor);
        (Var::from(outer), Var::from(inner))
    }

    /// `split`, with tail strategy `tail` for an extent `factor` does not divide (Halide's
    /// `split(x, xo, xi, factor, tail)`).
    pub fn split_with_tail(
        &self,
        old: impl Into<DimName>,
        outer: impl Into<DimName>,
        inner: impl Into<DimName>,
        factor: impl Into<Expr>,
        tail: TailStrategy,
    ) -> &Stage {
        let (old, outer, inner, factor) =
            (old.into().0, outer.into().0, inner.into().0, factor.into());
        let directive = format!("split({old}, {outer}, {inner}, {factor})");
        self.split_and_mark(directive, old, outer, inner, factor, tail, None)
    }

    /// One split, its inner loop then made `inner_kind` (for `vectorize` and `unroll`),
    /// reported as `directive`, the call the user wrote.
    #[allow(clippy::too_many_arguments)]
    fn split_and_mark(
        &self,
        directive: String,
        old: Symbol,
        outer: Symbol,
        inner: Symbol,
        factor: Expr,
        tail: TailStrategy,
        inner_kind: Option<ForKind>,
    ) -> &Stage {
        let is_update = self.index > 0;
        self.apply(&directive.clone(), |s, _| {
            let split = Split {
                old,
                outer,
                inner,
                factor,
                tail,
                directive,
            };
            split_dim(s, split, is_update)?;
            match inner_kind {
                Some(kind) => set_dim_kind(s, inner, kind),
                None => Ok(()),
            }
        })
    }

    /// Fuses loops `inner` and `outer` into one loop `fused` at `inner`'s place, iterating
    /// `inner` fastest (as Halide, `outer` need not be directly outside `inner`: any two
    /// loops fuse, reduction loops only where their new order cannot change the result).
    pub fn fuse(
        &self,
        inner: impl Into<DimName>,
        outer: impl Into<DimName>,
        fused: impl Into<DimName>,
    ) -> &Stage {
        let (inner, outer, fused) = (inner.into().0, outer.into().0, fused.into().0);
        let func = self.func.name();
        self.apply(&format!("fuse({inner}, {outer}, {fused})"), |s, def| {
            fuse_dims(s, def, func, (inner, outer, fused))
        })
    }

    /// Reorders the named loops, innermost first (they take the positions they held).
    pub fn reorder(&self, dims: impl DimList) -> &Stage {
        let names = dims.dim_names();
        let listed = names
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let func = self.func.name();
        self.apply(&format!("reorder({listed})"), |s, def| {
            reorder_dims(s, &names, def, func)
        })
    }

    /// Splits `x` and `y` into tiles of `x_factor` × `y_factor`: loops `yo, xo, yi, xi`.
    #[allow(clippy::too_many_arguments)]
    pub fn tile(
        &self,
        x: impl Into<DimName>,
        y: impl Into<DimName>,
        xo: impl Into<DimName>,
        yo: impl Into<DimName>,
        xi: impl Into<DimName>,
        yi: impl Into<DimName>,
        x_factor: impl Into<Expr>,
        y_factor: impl Into<Expr>,
    ) -> &Stage {
        let (x, y, xo, yo, xi, yi) = (
            x.into().0,
            y.into().0,
            xo.into().0,
            yo.into().0,
            xi.into().0,
            yi.into().0,
        );
        let (x_factor, y_factor) = (x_factor.into(), y_factor.into());
        let directive = format!("tile({x}, {y}, {xo}, {yo}, {xi}, {yi}, {x_factor}, {y_factor})");
        let is_update = self.index > 0;
        let func = self.func.name();
        self.apply(&directive.clone(), |s, def| {
            for (old, outer, inner, factor) in [(x, xo, xi, x_factor), (y, yo, yi, y_factor)] {
                let split = Split {
                    old,
                    outer,
                    inner,
                    factor,
                    tail: TailStrategy::Auto,
                    directive: directive.clone(),
                };
                split_dim(s, split, is_update)?;
            }
            reorder_dims(s, &[xi, yi, xo, yo], def, func)
        })
    }

    /// `tile` keeping the names `x` and `y` for the tile loops.
    pub fn tile_in_place(
        &self,
        x: impl Into<DimName>,
        y: impl Into<DimName>,
        xi: impl Into<DimName>,
        yi: impl Into<DimName>,
        x_factor: impl Into<Expr>,
        y_factor: impl Into<Expr>,
    ) -> &Stage {
        let (x, y) = (x.into(), y.into());
        self.tile(x, y, x, y, xi, yi, x_factor, y_factor)
    }

    fn set_kind(&self, dim: DimName, kind: ForKind) -> &Stage {
        let name = dim.0;
        let directive = format!("{}({name})", kind_directive(kind));
        self.apply(&directive, |s, _| set_dim_kind(s, name, kind))
    }

    /// Makes each store of this update an atomic read-modify-write of the point it writes
    /// (Halide's `atomic()`), so its reduction loops may run in parallel or as vector lanes
    /// even where iterations update the same point, as in a histogram: `f(i) = f(i) op e`
    /// becomes one atomic instruction where the machine has `op`, a compare-and-swap loop
    /// otherwise; vectorized, lanes storing to one point are reduced first. Lowering refuses
    /// an update that reads points of the Func other iterations may write (each store is
    /// atomic, not the whole update), and, with a parallel reduction loop, a Tuple whose
    /// elements read each other at the point written (Halide's mutex).
    pub fn atomic(&self) -> &Stage {
        self.apply("atomic()", |s, _| {
            s.atomic = true;
            Ok(())
        })
    }

    /// Lets this update's reduction loops run in parallel or as vector lanes without the
    /// check that no two iterations write the same point or read what another writes
    /// (Halide's `allow_race_conditions`): the user promises any race is benign, e.g. every
    /// iteration writing the same value to a point.
    pub fn allow_race_conditions(&self) -> &Stage {
        self.apply("allow_race_conditions()", |s, _| {
            s.allow_race_conditions = true;
            Ok(())
        })
    }

    /// Runs the iterations of loop `dim` in parallel on the thread pool.
    pub fn parallel(&self, dim: impl Into<DimName>) -> &Stage {
        self.set_kind(dim.into(), ForKind::Parallel)
    }
    /// Runs loop `dim` in order (the default).
    pub fn serial(&self, dim: impl Into<DimName>) -> &Stage {
        self.set_kind(dim.into(), ForKind::Serial)
    }
    /// Splits `dim` by `width` and computes the inner loop as one vector of `width` lanes.
    pub fn vectorize(&self, dim: impl Into<DimName>, width: i32) -> &Stage {
        self.vectorize_with_tail(dim, width, TailStrategy::Auto)
    }
    /// `vectorize`, with the tail strategy of the split (Halide's `vectorize(x, 8, tail)`).
    pub fn vectorize_with_tail(
        &self,
        dim: impl Into<DimName>,
        width: i32,
        tail: TailStrategy,
    ) -> &Stage {
        self.split_off_inner(dim.into().0, width, ForKind::Vectorized, tail)
    }
    /// Vectorizes the whole loop `dim` (its extent must be a constant).
    pub fn vectorize_loop(&self, dim: impl Into<DimName>) -> &Stage {
        self.set_kind(dim.into(), ForKind::Vectorized)
    }
    /// Splits `dim` by `factor` and unrolls the inner loop.
    pub fn unroll(&self, dim: impl Into<DimName>, factor: i32) -> &Stage {
        self.split_off_inner(dim.into().0, factor, ForKind::Unrolled, TailStrategy::Auto)
    }
    /// Unrolls the whole loop `dim` (its extent must be a constant).
    pub fn unroll_loop(&self, dim: impl Into<DimName>) -> &Stage {
        self.set_kind(dim.into(), ForKind::Unrolled)
    }

    /// Splits `dim` by `factor`, the outer loop keeping its name, and makes the inner loop
    /// (`dim_vi` or `dim_ui`) `kind`: `vectorize(dim, factor)` or `unroll(dim, factor)`.
    fn split_off_inner(
        &self,
        dim: Symbol,
        factor: i32,
        kind: ForKind,
        tail: TailStrategy,
    ) -> &Stage {
        let suffix = if kind == ForKind::Vectorized {
            "vi"
        } else {
            "ui"
        };
        let inner = Symbol::new(&format!("{dim}_{suffix}"));
        let directive = format!("{}({dim}, {factor})", kind_directive(kind));
        let factor = Expr::i32(factor);
        self.split_and_mark(directive, dim, dim, inner, factor, tail, Some(kind))
    }
}

fn kind_directive(kind: ForKind) -> &'static str {
    match kind {
        ForKind::Serial => "serial",
        ForKind::Parallel => "parallel",
        ForKind::Vectorized => "vectorize",
        ForKind::Unrolled => "unroll",
    }
}

/// A loop's kind set. Whether a parallel or vectorized reduction loop is race-free is
/// checked when the pipeline is lowered (`race_errors`), once `atomic` and
/// `allow_race_conditions`, which may come later in the schedule, are known.
fn set_dim_kind(s: &mut StageSchedule, name: Symbol, kind: ForKind) -> Result<(), String> {
    let i = find_dim(&s.dims, name)?;
    s.dims[i].kind = kind;
    Ok(())
}

/// A split as a directive gives it: loop names as the user wrote them.
struct Split {
    old: Symbol,
    outer: Symbol,
    inner: Symbol,
    factor: Expr,
    tail: TailStrategy,
    directive: String,
}

fn split_dim(s: &mut StageSchedule, split: Split, is_update: bool) -> Result<(), String> {
    let Split {
        old,
        outer,
        inner,
        factor,
        tail,
        directive,
    } = split;
    let i = find_dim(&s.dims, old)?;
    if let Some(f) = factor.as_int_const() {
        if f <= 0 {
            return Err(format!("the split factor must be positive, not {f}"));
        }
    } else if !factor.ty().is_int_or_uint() || matches!(factor.kind(), ExprKind::Invalid(_)) {
        return Err(format!(
            "the split factor must be an integer, not {} ({factor})",
            factor.ty()
        ));
    }
    if outer == inner {
        return Err(format!(
            "the outer and inner loops need different names, not both {outer}"
        ));
    }
    for new in [outer, inner] {
        if s.dims
            .iter()
            .enumerate()
            .any(|(j, d)| j != i && d.short == new)
        {
            return Err(format!(
                "there is already a loop named {new}; the loops are {}",
                describe_dims(&s.dims)
            ));
        }
    }
    let old_dim = s.dims[i].clone();
    if is_update
        && matches!(
            tail,
            TailStrategy::ShiftInwards | TailStrategy::RoundUp | TailStrategy::PredicateLoads
        )
    {
        return Err(format!(
            "{tail:?} would apply the update more than once to some points (or to points outside its domain); use TailStrategy::GuardWithIf (the default for updates)"
        ));
    }
    check_predicated_split(s, &old_dim, tail)?;
    let tail = match tail {
        TailStrategy::Auto if !is_update && covered_by_shift_inwards(s, old_dim.name, &factor) => {
            TailStrategy::RoundUp
        }
        other => other,
    };
    let full = |n: Symbol| old_dim.name.dot(n.as_str());
    let inner_dim = LoopDim {
        name: full(inner),
        short: inner,
        kind: ForKind::Serial,
        is_rvar: old_dim.is_rvar,
    };
    let outer_dim = LoopDim {
        name: full(outer),
        short: outer,
        kind: old_dim.kind,
        is_rvar: old_dim.is_rvar,
    };
    s.dims.splice(i..=i, [inner_dim.clone(), outer_dim.clone()]);
    s.splits.push(SplitDirective::Split {
        old: old_dim.name,
        outer: outer_dim.name,
        inner: inner_dim.name,
        factor: factor.clone(),
        tail,
        directive,
    });
    Ok(())
}

/// Halide's rules for the tails that guard only loads or only stores: they stay valid only
/// for a split that is not split again, of a loop not made from the inner loop of an
/// earlier split (`PredicateLoads` stores whole pieces, which must not run past the outer
/// loop's own pieces), and not of a reduction variable (its loads or stores past the end
/// would change the result).
fn check_predicated_split(
    s: &StageSchedule,
    old: &LoopDim,
    tail: TailStrategy,
) -> Result<(), String> {
    let name = old.short;
    let predicated_inner = s.splits.iter().find_map(|split| match split {
        SplitDirective::Split {
            inner,
            tail: t @ (TailStrategy::PredicateLoads | TailStrategy::PredicateStores),
            ..
        } if *inner == old.name => Some(*t),
        _ => None,
    });
    if let Some(t) = predicated_inner {
        return Err(format!(
            "cannot split {name}: it is the inner loop of a split with TailStrategy::{t:?}, which guards its accesses by that loop's range and must stay the innermost split"
        ));
    }
    if !matches!(
        tail,
        TailStrategy::PredicateLoads | TailStrategy::PredicateStores
    ) {
        return Ok(());
    }
    if old.is_rvar {
        return Err(format!(
            "TailStrategy::{tail:?} cannot split the reduction variable {name}: its loads or stores past the end would change the result; use TailStrategy::GuardWithIf or TailStrategy::Predicate"
        ));
    }
    if tail == TailStrategy::PredicateLoads && made_from_inner_loop(s, old.name) {
        return Err(format!(
            "TailStrategy::PredicateLoads cannot split {name}, a loop made from the inner loop of an earlier split: its whole pieces would run past that split's pieces; use TailStrategy::Predicate or TailStrategy::GuardWithIf"
        ));
    }
    Ok(())
}

/// Whether loop `name` is the inner loop of a split, or made from one by later splits and
/// fusions.
/// Whether the loop `name` of a pure definition is made from the outer loop of an earlier
/// split that shifts inwards (`ShiftInwards`, or `Auto`, which is that in a pure definition)
/// by at least `factor`. Such a loop's pieces are already kept inside the region by that
/// split, so a split of it by default rounds up rather than shifting inwards again (Halide's
/// `Auto`: `vectorize(x, 8).unroll(x, 4)` unrolls whole vectors): shifting twice nests one
/// clamp in another, whose regions interval analysis can only bound loosely (a producer
/// computed per unrolled group was sized for the whole row).
fn covered_by_shift_inwards(s: &StageSchedule, name: Symbol, factor: &Expr) -> bool {
    // The loops made from such an outer loop, with the shifting split's factor.
    let mut covered: HashMap<Symbol, Expr> = HashMap::new();
    for split in &s.splits {
        match split {
            SplitDirective::Split {
                old,
                outer,
                inner,
                factor,
                tail,
                ..
            } => {
                if let Some(f) = covered.get(old).cloned() {
                    covered.insert(*outer, f.clone());
                    covered.insert(*inner, f);
                } else if matches!(tail, TailStrategy::ShiftInwards | TailStrategy::Auto) {
                    covered.insert(*outer, factor.clone());
                }
            }
            SplitDirective::Fuse { .. } => {}
        }
    }
    let constant = |e: &Expr| e.as_int_const();
    covered
        .get(&name)
        .and_then(constant)
        .zip(constant(factor))
        .is_some_and(|(shifted, f)| shifted >= f)
}

fn made_from_inner_loop(s: &StageSchedule, name: Symbol) -> bool {
    let mut from_inner: HashSet<Symbol> = HashSet::new();
    for split in &s.splits {
        match split {
            SplitDirective::Split {
                old, outer, inner, ..
            } => {
                from_inner.insert(*inner);
                if from_inner.contains(old) {
                    from_inner.insert(*outer);
                }
            }
            SplitDirective::Fuse {
                inner,
                outer,
                fused,
            } => {
                if from_inner.contains(inner) || from_inner.contains(outer) {
                    from_inner.insert(*fused);
                }
            }
        }
    }
    from_inner.contains(&name)
}

/// Halide's `fuse`: `inner` and `outer` may be any two loops of the stage, pure or
/// reduction loops; the fused loop takes `inner`'s place (iterating `inner` fastest) and `outer`'s loop goes away. Where
/// `outer` was not directly outside `inner`, that moves the iterations of `outer` next to
/// those of `inner`, which for reduction loops is a reordering and follows `reorder`'s rule.
fn fuse_dims(
    s: &mut StageSchedule,
    def: &Definition,
    func: Symbol,
    names: (Symbol, Symbol, Symbol),
) -> Result<(), String> {
    let (inner, outer, fused) = names;
    let i = find_dim(&s.dims, inner)?;
    let o = find_dim(&s.dims, outer)?;
    if i == o {
        return Err(format!("cannot fuse the loop {inner} with itself"));
    }
    if s.dims
        .iter()
        .enumerate()
        .any(|(j, d)| j != i && j != o && d.short == fused)
    {
        return Err(format!("there is already a loop named {fused}"));
    }
    // The order the fused loop iterates in: `outer` directly outside `inner`.
    let mut iterated = s.dims.clone();
    let outer_dim = iterated.remove(o);
    let at = if o < i { i - 1 } else { i };
    iterated.insert(at + 1, outer_dim);
    check_rvar_order(&s.dims, &iterated, def, func)?;
    let name = s.dims[i].name.dot(fused.as_str());
    let dim = LoopDim {
        name,
        short: fused,
        kind: ForKind::Serial,
        // A pure loop fused with a reduction loop is a reduction loop (Halide's): its
        // iterations include some that update one point, so it runs in parallel or as
        // vector lanes only under the reduction loops' rules.
        is_rvar: s.dims[i].is_rvar || s.dims[o].is_rvar,
    };
    s.splits.push(SplitDirective::Fuse {
        inner: s.dims[i].name,
        outer: s.dims[o].name,
        fused: name,
    });
    iterated.splice(at..=at + 1, [dim]);
    s.dims = iterated;
    Ok(())
}

/// Reorders the loops `names` of stage `def` of `func` (reduction loops as
/// `check_rvar_order` allows).
fn reorder_dims(
    s: &mut StageSchedule,
    names: &[Symbol],
    def: &Definition,
    func: Symbol,
) -> Result<(), String> {
    let mut positions = Vec::new();
    for &n in names {
        let i = find_dim(&s.dims, n)?;
        if positions.contains(&i) {
            return Err(format!("{n} is listed twice"));
        }
        positions.push(i);
    }
    let dims: Vec<LoopDim> = positions.iter().map(|&i| s.dims[i].clone()).collect();
    let mut sorted = positions.clone();
    sorted.sort_unstable();
    let mut reordered = s.dims.clone();
    for (slot, dim) in sorted.iter().zip(dims) {
        reordered[*slot] = dim;
    }
    check_rvar_order(&s.dims, &reordered, def, func)?;
    s.dims = reordered;
    Ok(())
}

/// Loops `before` may iterate as `after` unless that changes the relative order of the
/// reduction loops where the order can matter (Halide's rule): the update is an exact
/// associative, commutative reduction (`f(..) = f(..) + e`, integers), or iterations that
/// differ in any one RVar are independent (`independent_iterations`).
fn check_rvar_order(
    before: &[LoopDim],
    after: &[LoopDim],
    def: &Definition,
    func: Symbol,
) -> Result<(), String> {
    let rvar_order = |d: &[LoopDim]| {
        d.iter()
            .filter(|d| d.is_rvar)
            .map(|d| d.name)
            .collect::<Vec<_>>()
    };
    let order_free = || {
        is_exact_reduction(def, func)
            || rdom_vars(def).all(|v| check_independent(def, func, &[v]).is_ok())
    };
    if rvar_order(after) != rvar_order(before) && !order_free() {
        return Err(format!(
            "this changes the order of the reduction loops ({}), which could change the result of the update (it is not an exact associative reduction, and its iterations are not independent); only pure loops may move",
            rvar_order(before).iter().rev().map(|n| n.to_string()).collect::<Vec<_>>().join(", ")
        ));
    }
    Ok(())
}

/// A reduction loop may run in parallel (or as vector lanes) only when its iterations are
/// independent (`independent_iterations`): different values of the RVars it iterates never
/// store to one point of `func`, and none reads a point another stores.
fn check_rvar_parallel_safe(
    s: &StageSchedule,
    def: &Definition,
    func: Symbol,
    loop_name: Symbol,
) -> Result<(), String> {
    let rvars = loop_rvars(s, def, loop_name);
    if rvars.is_empty() {
        return Err(format!(
            "internal error: {loop_name} is not a reduction loop"
        ));
    }
    check_independent(def, func, &rvars).map_err(|why| format!(
        "iterations of the reduction loop {loop_name} may write the same point of {func} or read points other iterations write ({why}), so running them in parallel could change the result; keep it serial, make the update atomic(), or allow_race_conditions() if the races are benign"
    ))
}

/// The schedule errors of `f`'s parallel and vectorized reduction loops: without
/// `allow_race_conditions`, each must be race-free (`check_rvar_parallel_safe`) or its update
/// `atomic` and fit for it (`check_atomic_update`).
pub(crate) fn race_errors(f: &FunctionContents) -> Vec<String> {
    let mut errors = Vec::new();
    for (k, def) in f.updates.iter().enumerate() {
        for s in def.schedule.structures() {
            if f.schedule.allow_race_conditions || s.allow_race_conditions {
                continue;
            }
            let racy = |d: &&LoopDim| {
                d.is_rvar && matches!(d.kind, ForKind::Parallel | ForKind::Vectorized)
            };
            let stage = format!("{}.update({k})", f.name);
            if s.atomic {
                let parallel = s
                    .dims
                    .iter()
                    .any(|d| d.is_rvar && d.kind == ForKind::Parallel);
                if s.dims.iter().any(|d| racy(&d)) {
                    if let Err(msg) = check_atomic_update(def, f.name, parallel) {
                        errors.push(format!("{stage}.atomic(): {msg}"));
                    }
                }
                continue;
            }
            for d in s.dims.iter().filter(racy) {
                if let Err(msg) = check_rvar_parallel_safe(s, def, f.name, d.name) {
                    let directive = kind_directive(d.kind);
                    errors.push(format!("{stage}.{directive}({}): {msg}", d.short));
                }
            }
        }
    }
    errors
}

/// An atomic update makes each store atomic, not the whole update, so its iterations may
/// overlap only on the points they store: every other point of `func` it reads must be one
/// no iteration writes (`never_written`), its guard may not read `func`, and, when
/// `parallel`, no Tuple element may read another element of the point being written (that
/// needs a lock around the stores, Halide's mutex, which Tessera does not have).
fn check_atomic_update(def: &Definition, func: Symbol, parallel: bool) -> Result<(), String> {
    let mut problem = None;
    for (i, v) in def.values.iter().enumerate() {
        crate::ir::visit::visit_exprs(v, &mut |e| {
            if let ExprKind::Call {
                name,
                kind: crate::ir::CallKind::Func(_),
                args,
                value_index,
            } = e.kind()
            {
                if *name != func || problem.is_some() {
                    return problem.is_none();
                }
                let at = args
                    .iter()
                    .map(|a| a.to_string())
                    .collect::<Vec<_>>()
                    .join(", ");
                if *args != def.args && !never_written(&def.args, args) {
                    problem = Some(format!(
                        "the update reads {func}({at}), a point other iterations may write; atomic() makes each store atomic, not the whole update"
                    ));
                } else if *args == def.args && parallel && *value_index != i {
                    problem = Some(format!(
                        "element {i} of the Tuple reads element {value_index} of the point it writes, {func}({at}), which needs a lock around the Tuple's stores; Tessera has none, so keep the reduction loops serial or vectorized"
                    ));
                }
            }
            problem.is_none()
        });
    }
    if let Some(guard) = &def.guard {
        if reads_func(guard, func) {
            problem.get_or_insert(format!(
                "the condition under which it stores ({guard}) reads {func}, outside the atomic store"
            ));
        }
    }
    problem.map_or(Ok(()), Err)
}

fn reads_func(e: &Expr, func: Symbol) -> bool {
    let mut found = false;
    crate::ir::visit::visit_exprs(e, &mut |n| {
        found |= matches!(n.kind(), ExprKind::Call { name, kind: crate::ir::CallKind::Func(_), .. } if *name == func);
        !found
    });
    found
}

/// Whether no point written at `written` (an update's left-hand side) is ever the point
/// read at `read`, whatever the values of the variables on either side: some coordinate
/// differs for every integer solution, `a + g * k` never being `b + h * m` when
/// `gcd(g, h)` does not divide `b - a` (the even and odd rows of `f(x, 2r)` and
/// `f(x, 2r + 1)`).
fn never_written(written: &[Expr], read: &[Expr]) -> bool {
    written.iter().zip(read).any(|(w, r)| {
        let (Some((gw, cw)), Some((gr, cr))) = (step_and_offset(w), step_and_offset(r)) else {
            return false;
        };
        let g = gcd(gw, gr);
        let d = cr - cw;
        if g == 0 {
            d != 0
        } else {
            d % g != 0
        }
    })
}

/// An affine integer expression in variables as `(g, c)`: the values it takes are all
/// `c + g * k` for integers `k` (g the gcd of the variables' coefficients, 0 for a constant).
fn step_and_offset(e: &Expr) -> Option<(i64, i64)> {
    match e.kind() {
        ExprKind::Var(_) | ExprKind::RVar(..) => Some((1, 0)),
        ExprKind::IntImm(_) | ExprKind::UIntImm(_) => Some((0, e.as_int_const()?.try_into().ok()?)),
        ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) => {
            let ((ga, ca), (gb, cb)) = (step_and_offset(a)?, step_and_offset(b)?);
            let c = if *op == BinaryOp::Add {
                ca.checked_add(cb)?
            } else {
                ca.checked_sub(cb)?
            };
            Some((gcd(ga, gb), c))
        }
        ExprKind::Binary(BinaryOp::Mul, a, b) => {
            let ((ga, ca), (gb, cb)) = (step_and_offset(a)?, step_and_offset(b)?);
            match (ga, gb) {
                (_, 0) => Some((ga.checked_mul(cb)?, ca.checked_mul(cb)?)),
                (0, _) => Some((gb.checked_mul(ca)?, ca.checked_mul(cb)?)),
                _ => None,
            }
        }
        _ => None,
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a as i64
}

/// A specialization condition must be a scalar bool that is the same for the whole run.
fn check_specialize_condition(condition: &Expr) -> Result<(), String> {
    if !condition.ty().is_bool() || !condition.ty().is_scalar() {
        return Err(format!(
            "the condition has type {}; it must be a scalar bool",
            condition.ty()
        ));
    }
    let mut bad = None;
    crate::ir::visit::visit_exprs(condition, &mut |n| {
        match n.kind() {
            ExprKind::Var(v) | ExprKind::RVar(v, _) => {
                bad.get_or_insert(format!("it uses the variable {v}"));
            }
            ExprKind::Call { name, kind, .. }
                if !matches!(kind, crate::ir::CallKind::Intrinsic(_)) =>
            {
                bad.get_or_insert(format!("it reads {name}"));
            }
            ExprKind::Invalid(msg) => {
                bad.get_or_insert(msg.to_string());
            }
            _ => {}
        }
        bad.is_none()
    });
    match bad {
        Some(why) => Err(format!(
            "{why}; a specialization condition may use only Params and buffer sizes"
        )),
        None => Ok(()),
    }
}

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
    /// The schedule handle of update definition `k`, counted from 0 in the order the updates
    /// were defined (Halide's `f.update(k)`; `update(args, values)` defines one). An index
    /// past the last update is reported, naming the Func and its updates, when the pipeline
    /// is lowered.
    pub fn update_stage(&self, k: usize) -> Stage {
        Stage::new(self.function().clone(), k + 1)
    }
    /// The schedule handle of the pure definition.
    pub fn pure_stage(&self) -> Stage {
        Stage::new(self.function().clone(), 0)
    }
    /// `specialize` of the pure definition: a loop structure for runs where `condition`
    /// holds.
    pub fn specialize(&self, condition: impl Into<Expr>) -> Stage {
        self.pure_stage().specialize(condition)
    }

    fn set_placement(&self, change: impl FnOnce(&mut super::schedule::FuncSchedule)) -> &Func {
        change(&mut self.function().write().schedule);
        self
    }

    /// Computes all of this Func, before anything that uses it, outside all loops.
    pub fn compute_root(&self) -> &Func {
        self.set_placement(|s| s.compute_level = LoopLevel::Root)
    }
    /// Computes the region of this Func that one iteration of `consumer`'s loop `var` needs,
    /// inside that loop. `consumer` is a Func (the loop of whichever of its stages uses this
    /// one) or one of its stages: `f.compute_at(g.update_stage(0), r.x())` is Halide's
    /// `f.compute_at(g.update(0), r.x)`.
    pub fn compute_at(&self, consumer: impl LoopOwner, var: impl Into<DimName>) -> &Func {
        let level = level_at(consumer, var);
        self.set_placement(|s| s.compute_level = level)
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
            s.folds.push(super::schedule::StorageFold {
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
            s.alignments.push(super::schedule::StorageAlignment {
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
                s.errors.push(format!(
                    "{name}.align_bounds({}, {modulus}, {remainder}): the remainder must be in [0, {modulus})",
                    var.name()
                ))
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
            s.bound_alignments.push(super::schedule::BoundAlignment {
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
        record: impl FnOnce(&mut super::schedule::FuncSchedule),
    ) -> &Func {
        let name = self.name();
        let args = self.function().read().args.clone();
        let call = format!("{directive}({}, {amount})", var.name());
        self.set_placement(|s| {
            if !args.contains(&var.name()) {
                s.errors.push(not_a_dimension(name, &call, var, &args));
            } else if amount < 1 {
                s.errors
                    .push(format!("{name}.{call}: the {what} must be positive"));
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
    /// Substitutes this Func's definition into every use (the default).
    pub fn compute_inline(&self) -> &Func {
        self.set_placement(|s| {
            s.compute_level = LoopLevel::Inlined;
            s.store_level = None
        })
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
                s.errors
                    .push(format!("{name}.{directive}: the bounds must be integers"));
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
                s.errors.push(format!(
                    "{name}.reorder_storage({}): list every dimension of {name} once ({})",
                    join(&order),
                    join(&args)
                ));
            } else {
                s.storage_order = order;
            }
        })
    }
}

/// The error of the directive `func.call` (e.g. `f.bound(z, ..)`) naming `var`, which is not
/// one of `func`'s dimensions `args`.
fn not_a_dimension(func: Symbol, call: &str, var: Var, args: &[Symbol]) -> String {
    format!(
        "{func}.{call}: {} is not a dimension of {func}; its dimensions are {}",
        var.name(),
        join(args)
    )
}

fn join(names: &[Symbol]) -> String {
    names
        .iter()
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The stage directives on a Func apply to its pure definition (`f.split(...)` is
/// `f.pure_stage().split(...)`), returning the Func so placement directives can follow
/// (`chain:`), or what the stage's directive gives back (`value:`).
macro_rules! forward_stage_directives {
    (chain: $($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*);)*) => {
        impl Func {
            $(
                $(#[$doc])*
                #[allow(clippy::too_many_arguments)]
                pub fn $name(&self, $($arg: $ty),*) -> &Func {
                    self.pure_stage().$name($($arg),*);
                    self
                }
            )*
        }
    };
    (value: $($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        impl Func {
            $(
                $(#[$doc])*
                pub fn $name(&self, $($arg: $ty),*) -> $ret {
                    self.pure_stage().$name($($arg),*)
                }
            )*
        }
    };
}

forward_stage_directives! {
    value:
    /// See [`Stage::split_vars`].
    fn split_vars(old: impl Into<DimName>, outer: impl Into<DimName>, inner: impl Into<DimName>, factor: impl Into<Expr>) -> (Var, Var);
}

forward_stage_directives! {
    chain:
    /// See [`Stage::split`].
    fn split(old: impl Into<DimName>, outer: impl Into<DimName>, inner: impl Into<DimName>, factor: impl Into<Expr>);
    /// See [`Stage::split_with_tail`].
    fn split_with_tail(old: impl Into<DimName>, outer: impl Into<DimName>, inner: impl Into<DimName>, factor: impl Into<Expr>, tail: TailStrategy);
    /// See [`Stage::fuse`].
    fn fuse(inner: impl Into<DimName>, outer: impl Into<DimName>, fused: impl Into<DimName>);
    /// See [`Stage::reorder`].
    fn reorder(dims: impl DimList);
    /// See [`Stage::tile`].
    fn tile(x: impl Into<DimName>, y: impl Into<DimName>, xo: impl Into<DimName>, yo: impl Into<DimName>, xi: impl Into<DimName>, yi: impl Into<DimName>, x_factor: impl Into<Expr>, y_factor: impl Into<Expr>);
    /// See [`Stage::tile_in_place`].
    fn tile_in_place(x: impl Into<DimName>, y: impl Into<DimName>, xi: impl Into<DimName>, yi: impl Into<DimName>, x_factor: impl Into<Expr>, y_factor: impl Into<Expr>);
    /// See [`Stage::parallel`].
    fn parallel(dim: impl Into<DimName>);
    /// See [`Stage::serial`].
    fn serial(dim: impl Into<DimName>);
    /// See [`Stage::vectorize`].
    fn vectorize(dim: impl Into<DimName>, width: i32);
    /// See [`Stage::vectorize_with_tail`].
    fn vectorize_with_tail(dim: impl Into<DimName>, width: i32, tail: TailStrategy);
    /// See [`Stage::vectorize_loop`].
    fn vectorize_loop(dim: impl Into<DimName>);
    /// See [`Stage::unroll`].
    fn unroll(dim: impl Into<DimName>, factor: i32);
    /// See [`Stage::unroll_loop`].
    fn unroll_loop(dim: impl Into<DimName>);
}
