//! The loop-structure directives of a stage (`split`, `fuse`, `reorder`, `tile`, `parallel`,
//! `serial`, `vectorize`, `unroll`, `atomic`, `allow_race_conditions`): how each checks the
//! stage's loops and changes them, and the same directives on a Func, which apply to its pure
//! definition.

use std::collections::{HashMap, HashSet};

use super::{DimList, DimName, Stage};
use crate::ir::{Expr, ExprKind, ForKind, Symbol};
use crate::lang::func::Func;
use crate::lang::function::Definition;
use crate::lang::independent_iterations::{check_independent, rdom_vars};
use crate::lang::rfactor::is_exact_reduction;
use crate::lang::schedule::{
    describe_dims, find_dim, LoopDim, SplitDirective, StageSchedule, TailStrategy,
};
use crate::lang::var::Var;

impl Stage {
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

pub(super) fn kind_directive(kind: ForKind) -> &'static str {
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
