//! Regions of Funcs, images and buffers: a `Box` is one interval per dimension, and
//! `boxes_required` / `boxes_provided_stmt` find, for every Func or buffer an expression or
//! statement reads or writes, the union of the coordinates it touches (Halide's
//! `boxes_required` / `boxes_provided`). Bounds inference sizes each producer from the
//! regions its consumers require.
//!
//! Over a deep loop nest the analysis stays linear in the nest's size: a let whose value
//! varies inside the analysed code is expanded into the coordinates that use it only while
//! its expansion is small (so correlated lets, a region's min and max, still cancel); a
//! bigger one is bounded once, in terms of the names outside, and big ends of its interval
//! (and of loop variables' ranges, and big values of lets that do not vary) get names of
//! their own, `<let>.lo` / `<let>.hi` / `<let>`, defined by `Let`s wrapped around the
//! regions that use them (Halide names them the same way). Nothing is substituted into
//! itself level after level, so regions of Funcs computed inside one another stay small.

use std::collections::hash_map::Entry;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt;

use super::bounds::{may_narrow, simplified, Bounder, Narrow, Scope};
use super::fold;
use super::interval::Interval;
use crate::ir::substitute::{
    free_vars, rename_shadowing_lets, rename_shadowing_lets_expr, substitute, uses_var,
};
use crate::ir::visit::{node_count, reads_memory, visit_exprs};
use crate::ir::{BinaryOp, CallKind, Expr, ExprKind, Intrinsic, Stmt, StmtKind, Symbol, UnaryOp};
use crate::simplify::simplify;

/// A varying let whose expansion has at most this many nodes is expanded where it is used;
/// a bigger one is bounded once and named.
const EXPANSION_LIMIT: usize = 24;
/// An interval end with more nodes than this gets a name rather than being copied into every
/// bound computed from it.
const NAMING_LIMIT: usize = 16;

/// A multi-dimensional region: one interval per dimension.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Box {
    pub bounds: Vec<Interval>,
    /// `Some(c)` when the region is only touched under a condition: `c` is true whenever it
    /// is (it may also be true when it is not). `None`: touched unconditionally.
    pub used: Option<Expr>,
}

impl Box {
    /// An unconditionally used region.
    pub fn new(bounds: Vec<Interval>) -> Box {
        Box { bounds, used: None }
    }
    pub fn dimensions(&self) -> usize {
        self.bounds.len()
    }
    /// Whether every dimension is bounded on both sides.
    pub fn is_bounded(&self) -> bool {
        self.bounds.iter().all(Interval::is_bounded)
    }
}

impl fmt::Display for Box {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.bounds.iter().enumerate() {
            if i > 0 {
                f.write_str(" x ")?;
            }
            write!(f, "{b}")?;
        }
        match &self.used {
            Some(c) => write!(f, " if {c}"),
            None => Ok(()),
        }
    }
}

/// The smallest box containing both, used when either is.
pub fn box_union(a: &Box, b: &Box) -> Box {
    assert_eq!(
        a.dimensions(),
        b.dimensions(),
        "internal error: union of boxes of different dimensionality: {a} and {b}"
    );
    Box {
        bounds: a
            .bounds
            .iter()
            .zip(&b.bounds)
            .map(|(x, y)| x.union(y))
            .collect(),
        used: used_union(a, b),
    }
}

/// When the union of `a` and `b` is used: when either is (`None`: always).
fn used_union(a: &Box, b: &Box) -> Option<Expr> {
    match (&a.used, &b.used) {
        (Some(x), Some(y)) => fold::binary(BinaryOp::Or, x, y),
        _ => None,
    }
}

/// `op` (min or max) of an end of a box's union so far and the same end of a new access:
/// operands of the union that another one provably dominates are dropped, so a coordinate
/// read at many places (every channel of a pixel, the taps of a stencil) adds one operand,
/// not one per access.
fn merge_end(op: BinaryOp, old: &Option<Expr>, new: &Option<Expr>) -> Option<Expr> {
    let (old, new) = (old.as_ref()?, new.as_ref()?);
    // `a` never beyond `b` in the direction the union keeps.
    let dominated = |a: &Expr, b: &Expr| {
        let keeps_b = if op == BinaryOp::Min {
            BinaryOp::Ge
        } else {
            BinaryOp::Le
        };
        a == b || fold::prove_cmp(keeps_b, &Some(a.clone()), &Some(b.clone()))
    };
    let mut operands = Vec::new();
    let mut stack = vec![old.clone()];
    while let Some(e) = stack.pop() {
        match e.kind() {
            ExprKind::Binary(o, a, b) if *o == op => {
                stack.push(b.clone());
                stack.push(a.clone());
            }
            _ => operands.push(e),
        }
    }
    if operands.iter().any(|o| dominated(new, o)) {
        return Some(old.clone());
    }
    operands.retain(|o| !dominated(o, new));
    operands.push(new.clone());
    operands.into_iter().reduce(|a, b| Expr::binary(op, a, b))
}

/// Whether `outer` provably contains `inner` (and is used whenever `inner` is).
pub fn box_contains(outer: &Box, inner: &Box) -> bool {
    let ends_contain = |o: &Option<Expr>, i: &Option<Expr>, op: BinaryOp| match (o, i) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(_), Some(_)) => fold::prove_cmp(op, o, i),
    };
    let used_covered = match (&outer.used, &inner.used) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(o), Some(i)) => {
            o == i
                || fold::binary(BinaryOp::Or, &Expr::unary(UnaryOp::Not, i.clone()), o)
                    .is_some_and(|c| fold::prove(&c))
        }
    };
    outer.dimensions() == inner.dimensions()
        && used_covered
        && outer.bounds.iter().zip(&inner.bounds).all(|(o, i)| {
            ends_contain(&o.min, &i.min, BinaryOp::Le) && ends_contain(&o.max, &i.max, BinaryOp::Ge)
        })
}

/// For every Func, image and buffer that `e` reads: the region it reads, with the variables
/// in `scope` ranging over their intervals.
pub fn boxes_required(e: &Expr, scope: &Scope) -> HashMap<Symbol, Box> {
    let mut c = BoxCollector::new(scope, Regions::Required);
    c.visit_expr(&rename_shadowing_lets_expr(e));
    c.finish()
}

/// For every Func, image and buffer that `s` reads: the region it reads. Loop variables
/// range over their loops, lets over their values' bounds, and each branch of an `if` is
/// analysed under its condition.
pub fn boxes_required_stmt(s: &Stmt, scope: &Scope) -> HashMap<Symbol, Box> {
    let mut c = BoxCollector::new(scope, Regions::Required);
    c.visit_stmt(&rename_shadowing_lets(s));
    c.finish()
}

/// The regions whose values `s` uses, for bounds inference: `boxes_required_stmt` where each
/// let named in `within` ranges only over the part of its value's interval inside the given
/// one (whose ends may use the lets of `s` around it), and is bounded by name where used, not
/// expanded: what the code reads for those values of the let alone. Each arm of a `select`
/// whose condition may narrow a variable, and whose arms read nothing in common
/// (`narrows_arms`), is analysed under its truth of the condition, as an `if`'s branches are (`h(x) = select(x < 100, f(x), g(x))` uses f only below 100, Halide's
/// concat): native code reads the other arm too, but throws what it read away.
pub fn boxes_required_stmt_within(
    s: &Stmt,
    scope: &Scope,
    within: &HashMap<Symbol, Interval>,
) -> HashMap<Symbol, Box> {
    let mut c = BoxCollector::new(scope, Regions::Required);
    c.within = Some(within);
    c.select_arms = SelectArms::TakenOnly;
    c.visit_stmt(&rename_shadowing_lets(s));
    c.finish()
}

/// `boxes_required_stmt`, leaving out each Func's reads by the code consuming it directly:
/// a read inside the Func's `consume` node counts only inside a production nested there of
/// a Func other than the `outputs`, or inside an arm of a `select` its condition narrows
/// (`narrows_arms`). What remains is what the Func's storage must hold beyond the region bounds
/// inference gave it: its consumers read inside that region, but for the arms of such
/// selects (the region covers each arm only where it is taken, native code reads both) and
/// the points the consumers produced there compute beyond their own regions.
pub fn boxes_required_stmt_by_producers(
    s: &Stmt,
    scope: &Scope,
    outputs: &[Symbol],
) -> HashMap<Symbol, Box> {
    let mut c = BoxCollector::new(scope, Regions::Required);
    c.producers_only = Some(ProducerReads {
        outputs: outputs.to_vec(),
        depth: 0,
        producing: Vec::new(),
        consuming: HashMap::new(),
        narrowed_arms: 0,
    });
    c.visit_stmt(&rename_shadowing_lets(s));
    c.finish()
}

/// Where the visited code is, for `boxes_required_stmt_by_producers`.
struct ProducerReads {
    /// The pipeline's outputs, which compute exactly their buffers.
    outputs: Vec<Symbol>,
    /// The depth of the production and consumption nodes around the visited code.
    depth: usize,
    /// The depths of the productions of Funcs other than the outputs, innermost last.
    producing: Vec<usize>,
    /// The depths of the consumptions of each Func, innermost last.
    consuming: HashMap<Symbol, Vec<usize>>,
    /// How many arms of selects narrowed by their conditions are around the visited code.
    narrowed_arms: usize,
}

impl ProducerReads {
    /// Whether a read of `func` here is made by a producer rather than the code consuming
    /// `func` directly.
    fn counts(&self, func: Symbol) -> bool {
        if self.narrowed_arms > 0 {
            return true;
        }
        match self.consuming.get(&func).and_then(|c| c.last()) {
            Some(consumed) => self.producing.last().is_some_and(|p| p > consumed),
            None => true,
        }
    }

    fn enter(&mut self, func: Symbol, is_producer: bool) {
        self.depth += 1;
        if !is_producer {
            self.consuming.entry(func).or_default().push(self.depth);
        } else if !self.outputs.contains(&func) {
            self.producing.push(self.depth);
        }
    }

    fn leave(&mut self, func: Symbol, is_producer: bool) {
        if !is_producer {
            self.consuming.get_mut(&func).and_then(Vec::pop);
        } else if !self.outputs.contains(&func) {
            self.producing.pop();
        }
        self.depth -= 1;
    }
}

/// For every Func and buffer that `s` writes (by `Provide` or `Store`): the region written.
pub fn boxes_provided_stmt(s: &Stmt, scope: &Scope) -> HashMap<Symbol, Box> {
    let mut c = BoxCollector::new(scope, Regions::Provided);
    c.visit_stmt(&rename_shadowing_lets(s));
    c.finish()
}

/// Whether the arms of `select(condition, t, f)` are narrowed by its condition where only
/// the values taken matter: the condition may narrow a variable (`may_narrow`), and no Func,
/// image or buffer is read in both arms. Where one is, its region spans both arms anyway:
/// narrowing would only trim a stencil's margin at the condition's edge, while making its
/// region's ends grow at every level of a pyramid (multigrid's Jacobi steps,
/// `select(interior, stencil(u), u)`, lowered 3 times slower).
fn narrows_arms(condition: &Expr, t: &Expr, f: &Expr) -> bool {
    let read = |e: &Expr| {
        let mut names = HashSet::new();
        visit_exprs(e, &mut |n| {
            if let ExprKind::Call {
                name,
                kind: CallKind::Func(_) | CallKind::Image(_),
                ..
            }
            | ExprKind::Load { buffer: name, .. } = n.kind()
            {
                names.insert(*name);
            }
            true
        });
        names
    };
    may_narrow(condition) && read(t).is_disjoint(&read(f))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Regions {
    Required,
    Provided,
}

/// What is read in the arms of a `select` its condition narrows (`narrows_arms`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum SelectArms {
    /// Both arms, wherever the select is evaluated (native code evaluates both): the memory
    /// touched.
    BothRead,
    /// Each arm where it is taken: the values used.
    TakenOnly,
}

/// A let whose value varies inside the analysed code.
struct VaryingLet {
    name: Symbol,
    value: Expr,
    /// The names `value` uses.
    uses: HashSet<Symbol>,
    /// The value with the varying lets before it expanded, simplified, if small enough to
    /// be expanded where the let is used; `None` if the let ranges over its interval.
    expansion: Option<Expr>,
}

struct BoxCollector<'a> {
    bounder: Bounder<'a>,
    regions: Regions,
    /// True whenever the code being visited runs (`None`: always), in terms of the scope.
    guard: Option<Expr>,
    boxes: HashMap<Symbol, Box>,
    /// Lets in effect whose values vary inside the visited code, innermost last.
    /// Coordinates are expanded through them before bounding, so correlated lets (a region's
    /// min and max, defined from the same loop variables) cancel instead of each widening to
    /// its own interval.
    varying_lets: Vec<VaryingLet>,
    /// Varying lets that a condition in effect narrows (a `GuardWithIf` tail tests the
    /// variable its split rebuilds): expanding them would lose the narrowing.
    narrowed_lets: Vec<Symbol>,
    /// The names given to big interval ends, each with its definition (in terms of the names
    /// outside the analysed code and the names before it), outermost first.
    named_ends: Vec<(Symbol, Expr)>,
    /// Lets restricted to an interval (`boxes_required_stmt_within`).
    within: Option<&'a HashMap<Symbol, Interval>>,
    select_arms: SelectArms,
    /// Set for `boxes_required_stmt_by_producers`.
    producers_only: Option<ProducerReads>,
    /// The names bound inside the analysed code around the visited code (loop variables
    /// and lets), innermost last.
    inner: Vec<Symbol>,
}

impl<'a> BoxCollector<'a> {
    fn new(scope: &'a Scope, regions: Regions) -> BoxCollector<'a> {
        BoxCollector {
            bounder: Bounder::new(scope),
            regions,
            guard: None,
            boxes: HashMap::new(),
            varying_lets: Vec::new(),
            narrowed_lets: Vec::new(),
            named_ends: Vec::new(),
            within: None,
            select_arms: SelectArms::BothRead,
            producers_only: None,
            inner: Vec::new(),
        }
    }

    /// The boxes found, each end (and condition) wrapped in the lets of the names it uses.
    fn finish(self) -> HashMap<Symbol, Box> {
        // Each named end's definition uses only names before it: the names an end needs are
        // found from its own free names down, without searching the growing expression
        // once per name (a deep pipeline has as many names as Funcs).
        let index: HashMap<Symbol, usize> = self
            .named_ends
            .iter()
            .enumerate()
            .map(|(i, (name, _))| (*name, i))
            .collect();
        let named_in = |e: &Expr| -> Vec<usize> {
            free_vars(e)
                .iter()
                .filter_map(|v| index.get(v).copied())
                .collect()
        };
        let uses: Vec<Vec<usize>> = self.named_ends.iter().map(|(_, v)| named_in(v)).collect();
        let wrap = |e: Expr| {
            let mut needed: BTreeSet<usize> = named_in(&e).into_iter().collect();
            let mut wrapped = e;
            while let Some(i) = needed.pop_last() {
                needed.extend(&uses[i]);
                let (name, value) = &self.named_ends[i];
                wrapped = Expr::let_in(*name, value.clone(), wrapped);
            }
            wrapped
        };
        self.boxes
            .into_iter()
            .map(|(name, b)| {
                let bounds = b
                    .bounds
                    .into_iter()
                    .map(|i| Interval {
                        min: i.min.map(wrap),
                        max: i.max.map(wrap),
                    })
                    .collect();
                let used = b.used.map(wrap);
                (name, Box { bounds, used })
            })
            .collect()
    }

    /// `interval` (the range of `name`) with its big ends replaced by names of their own:
    /// `<name>.lo` and `<name>.hi`, or `<name>` for the one value of a let that does not vary.
    fn name_big_ends(&mut self, name: Symbol, interval: Interval) -> Interval {
        if interval.is_single_point() {
            let point = self.name_big_end(interval.min, name.as_str().to_string());
            return Interval {
                min: point.clone(),
                max: point,
            };
        }
        Interval {
            min: self.name_big_end(interval.min, format!("{name}.lo")),
            max: self.name_big_end(interval.max, format!("{name}.hi")),
        }
    }

    /// `end`, simplified, or a fresh name (`base`, numbered if taken) defined as it if big.
    fn name_big_end(&mut self, end: Option<Expr>, base: String) -> Option<Expr> {
        let end = simplify(&end?);
        if node_count(&end) <= NAMING_LIMIT {
            return Some(end);
        }
        let fresh = Symbol::first_untaken(&base, |n| self.named_ends.iter().any(|(m, _)| *m == n));
        let var = Expr::var(fresh, end.ty());
        self.named_ends.push((fresh, end));
        Some(var)
    }

    /// `e` with the varying lets substituted (except those in `keep`), simplified (so a
    /// loop's last iteration `min + (max - min + 1) - 1` is its region's `max`).
    fn expand(&self, e: &Expr, keep: &[Symbol]) -> Expr {
        // A let whose value uses a kept let (directly or through other lets) is substituted
        // by its own value, to keep that let's name (even a let otherwise not expanded: its
        // interval, computed outside the condition narrowing the kept let, would not be
        // narrowed); any other by its expansion, computed once when it was bound
        // (substituting the values of a deep nest of lets, each using the one before several
        // times, would multiply).
        // Each step is linear in the lets (a deep nest has many): the names depending on a
        // kept let are found in one pass, and the names `e` uses are recomputed only when a
        // substitution changes it.
        let mut depend_on_kept: HashSet<Symbol> = HashSet::new();
        if !keep.is_empty() {
            for l in &self.varying_lets {
                if keep.contains(&l.name) || l.uses.iter().any(|u| depend_on_kept.contains(u)) {
                    depend_on_kept.insert(l.name);
                }
            }
        }
        let mut e = e.clone();
        let mut uses = free_vars(&e);
        for l in self.varying_lets.iter().rev() {
            if keep.contains(&l.name) || !uses.contains(&l.name) {
                continue;
            }
            let by = if depend_on_kept.contains(&l.name) {
                Some(&l.value)
            } else {
                l.expansion.as_ref()
            };
            if let Some(by) = by {
                e = substitute(&e, l.name, by);
                uses = free_vars(&e);
            }
        }
        simplify(&e)
    }

    /// The bounds of `e`, looking through the varying lets; where `e` depends on lets a
    /// condition narrows, also through all the other lets, keeping those at their narrowed
    /// ranges.
    fn bounds_of(&mut self, e: &Expr) -> Interval {
        let expanded = self.bounder.bounds(&self.expand(e, &[]));
        if self.narrowed_lets.is_empty() {
            return expanded;
        }
        let partial = self.expand(e, &self.narrowed_lets);
        if self.narrowed_lets.iter().any(|n| uses_var(&partial, *n)) {
            return expanded.intersect(&self.bounder.bounds(&partial));
        }
        expanded
    }

    /// Runs `f` with `name` bound to `value`: expanded where it is used if it varies and
    /// expands small, else ranging over its interval, or being its one value, with big ends
    /// named (a chain of lets each using the one before several times, the regions of
    /// Funcs computed inside one another, would otherwise multiply).
    fn with_let(&mut self, name: Symbol, value: &Expr, f: impl FnOnce(&mut Self)) {
        if let Some(range) = self.within.and_then(|w| w.get(&name)) {
            // The range's ends may be lets of the analysed code themselves.
            let range = Interval {
                min: range.min.as_ref().and_then(|e| self.bounds_of(e).min),
                max: range.max.as_ref().and_then(|e| self.bounds_of(e).max),
            };
            let interval = simplified(self.bounds_of(value).intersect(&range));
            let interval = self.name_big_ends(name, interval);
            self.bound(name, interval, f);
            return;
        }
        let interval = self.bounds_of(value);
        let varying = !interval.is_single_point();
        let expansion = varying.then(|| self.expand(value, &[]));
        let expanded = expansion
            .as_ref()
            .is_some_and(|e| node_count(e) <= EXPANSION_LIMIT);
        if varying {
            self.varying_lets.push(VaryingLet {
                name,
                value: value.clone(),
                uses: free_vars(value),
                expansion: expansion.filter(|_| expanded),
            });
        }
        let interval = if expanded {
            interval
        } else {
            self.name_big_ends(name, interval)
        };
        self.bound(name, interval, f);
        if varying {
            self.varying_lets.pop();
        }
    }

    /// Whether a read of `func` here is recorded.
    fn records_read(&self, func: Symbol) -> bool {
        self.regions == Regions::Required
            && self.producers_only.as_ref().is_none_or(|p| p.counts(func))
    }

    fn record(&mut self, name: Symbol, coordinates: &[Expr]) {
        let bounds = coordinates
            .iter()
            .map(|c| simplified(self.bounds_of(c)))
            .collect();
        let region = Box {
            bounds,
            used: self.guard.as_ref().map(simplify),
        };
        self.add(name, region);
    }

    /// Adds `region` to what is touched of `name`.
    fn add(&mut self, name: Symbol, region: Box) {
        match self.boxes.entry(name) {
            Entry::Occupied(mut o) => {
                assert_eq!(
                    o.get().dimensions(),
                    region.dimensions(),
                    "internal error: {name} accessed with different dimensionalities"
                );
                let used = used_union(o.get(), &region);
                let bounds = o
                    .get()
                    .bounds
                    .iter()
                    .zip(&region.bounds)
                    .map(|(old, new)| Interval {
                        min: merge_end(BinaryOp::Min, &old.min, &new.min),
                        max: merge_end(BinaryOp::Max, &old.max, &new.max),
                    })
                    .collect();
                *o.get_mut() = Box { bounds, used };
            }
            Entry::Vacant(v) => {
                v.insert(region);
            }
        }
    }

    /// Visits the two branches of an `if` (or the two arms of a `select` whose values are
    /// what matters), each under its truth of `condition`. Where the condition is fixed for
    /// the whole analysed code (it reads no memory and uses no name bound inside it: a
    /// specialization's), only one branch ever runs, so what both touch is
    /// `select(condition, then, else)` rather than the union (Halide's boxes do the same).
    fn visit_branches(
        &mut self,
        condition: &Expr,
        then_case: impl FnOnce(&mut Self),
        else_case: impl FnOnce(&mut Self),
    ) {
        let outer = std::mem::take(&mut self.boxes);
        self.guarded(condition, true, Narrow::AlsoFixed, then_case);
        let then_boxes = std::mem::take(&mut self.boxes);
        self.guarded(condition, false, Narrow::AlsoFixed, else_case);
        let mut else_boxes = std::mem::replace(&mut self.boxes, outer);
        let fixed = !reads_memory(condition)
            && free_vars(condition).iter().all(|v| !self.inner.contains(v));
        for (name, then_box) in then_boxes {
            let region = match else_boxes.remove(&name) {
                Some(else_box) if fixed => {
                    let pick = |t: &Option<Expr>, e: &Option<Expr>| {
                        Some(Expr::select(condition.clone(), t.clone()?, e.clone()?))
                    };
                    Box {
                        used: used_union(&then_box, &else_box),
                        bounds: then_box
                            .bounds
                            .iter()
                            .zip(&else_box.bounds)
                            .map(|(t, e)| Interval {
                                min: pick(&t.min, &e.min),
                                max: pick(&t.max, &e.max),
                            })
                            .collect(),
                    }
                }
                Some(else_box) => {
                    self.add(name, else_box);
                    then_box
                }
                None => then_box,
            };
            self.add(name, region);
        }
        for (name, else_box) in else_boxes {
            self.add(name, else_box);
        }
    }

    /// The arms of a select on `condition`, which narrows them (`narrows_arms`).
    fn visit_narrowing_arms(&mut self, condition: &Expr, t: &Expr, f: &Expr) {
        match self.select_arms {
            SelectArms::TakenOnly => {
                self.visit_branches(condition, |c| c.visit_expr(t), |c| c.visit_expr(f))
            }
            SelectArms::BothRead => {
                if let Some(p) = &mut self.producers_only {
                    p.narrowed_arms += 1;
                }
                self.visit_expr(t);
                self.visit_expr(f);
                if let Some(p) = &mut self.producers_only {
                    p.narrowed_arms -= 1;
                }
            }
        }
    }

    /// Records a flat access to `buffer[index]`, made only where `predicate` holds.
    fn record_flat(&mut self, buffer: Symbol, index: &Expr, predicate: &Option<Expr>) {
        let index = std::slice::from_ref(index);
        match predicate {
            Some(p) => self.guarded(p, true, Narrow::InScope, |c| c.record(buffer, index)),
            None => self.record(buffer, index),
        }
    }

    /// Runs `f` for code that executes only when `condition == truth`: variables the
    /// condition restricts are narrowed, and regions found are guarded by it. Code that can
    /// never run is skipped.
    fn guarded(
        &mut self,
        condition: &Expr,
        truth: bool,
        narrow: Narrow,
        f: impl FnOnce(&mut Self),
    ) {
        let original = condition;
        let condition = &self.comparands_expanded(condition);
        let c = self.bounder.bounds(condition);
        let possible = if truth {
            c.max
        } else {
            c.min.and_then(|m| fold::unary(UnaryOp::Not, &m))
        };
        let possible = possible.unwrap_or_else(|| Expr::bool_(true));
        let guard = match possible.as_int_const() {
            Some(0) => return,
            Some(_) => self.guard.clone(),
            None => match &self.guard {
                Some(g) => fold::binary(BinaryOp::And, g, &possible),
                None => Some(possible),
            },
        };
        let outer_guard = std::mem::replace(&mut self.guard, guard);
        let pushed = self.bounder.restrict(condition, truth, narrow);
        let outer_narrowed = self.narrowed_lets.len();
        let narrowed = free_vars(original)
            .into_iter()
            .filter(|v| self.varying_lets.iter().any(|l| l.name == *v));
        self.narrowed_lets.extend(narrowed);
        f(self);
        self.narrowed_lets.truncate(outer_narrowed);
        for _ in 0..pushed {
            self.bounder.pop();
        }
        self.guard = outer_guard;
    }

    /// `condition` with each side of its comparisons that is not a variable expanded through
    /// the varying lets (but those a condition already narrows) and simplified, so the
    /// variable on the other side is narrowed by a bound in which correlated lets cancel: a
    /// `GuardWithIf` tail's `x < x.min + ((x.max - x.min) + 1)` narrows `x` to `x.max`, not to
    /// the sum of the widest ranges of the region's min and max over the loops outside.
    fn comparands_expanded(&self, condition: &Expr) -> Expr {
        let side = |e: &Expr| match e.kind() {
            ExprKind::Var(_) | ExprKind::RVar(..) | ExprKind::Param(..) => e.clone(),
            ExprKind::Broadcast(v) if matches!(v.kind(), ExprKind::Var(_)) => e.clone(),
            _ => self.expand(e, &self.narrowed_lets),
        };
        match condition.kind() {
            ExprKind::Binary(op, a, b) if op.is_comparison() => Expr::binary(*op, side(a), side(b)),
            ExprKind::Binary(op @ (BinaryOp::And | BinaryOp::Or), a, b) => Expr::binary(
                *op,
                self.comparands_expanded(a),
                self.comparands_expanded(b),
            ),
            ExprKind::Unary(UnaryOp::Not, a) => {
                Expr::unary(UnaryOp::Not, self.comparands_expanded(a))
            }
            ExprKind::Call {
                kind: CallKind::Intrinsic(op @ (Intrinsic::Likely | Intrinsic::LikelyIfInnermost)),
                args,
                ..
            } => Expr::intrinsic(
                condition.ty(),
                *op,
                vec![self.comparands_expanded(&args[0])],
            ),
            _ => condition.clone(),
        }
    }

    /// Runs `f` with `name` ranging over `interval`.
    fn bound(&mut self, name: Symbol, interval: Interval, f: impl FnOnce(&mut Self)) {
        self.bounder.push(name, interval);
        self.inner.push(name);
        f(self);
        self.inner.pop();
        self.bounder.pop();
    }

    fn visit_expr(&mut self, e: &Expr) {
        if self.regions == Regions::Provided {
            return;
        }
        match e.kind() {
            ExprKind::Let(name, value, body) => {
                self.visit_expr(value);
                self.with_let(*name, value, |c| c.visit_expr(body));
            }
            ExprKind::Call {
                name,
                kind: CallKind::Func(_) | CallKind::Image(_),
                args,
                ..
            } => {
                args.iter().for_each(|a| self.visit_expr(a));
                if self.records_read(*name) {
                    self.record(*name, args);
                }
            }
            ExprKind::Load {
                buffer,
                index,
                predicate,
            } => {
                self.visit_expr(index);
                if let Some(p) = predicate {
                    self.visit_expr(p);
                }
                if self.records_read(*buffer) {
                    self.record_flat(*buffer, index, predicate);
                }
            }
            ExprKind::Select(condition, t, f) if narrows_arms(condition, t, f) => {
                self.visit_expr(condition);
                self.visit_narrowing_arms(condition, t, f);
            }
            _ => e.for_each_child(|child| self.visit_expr(child)),
        }
    }

    fn visit_stmt(&mut self, s: &Stmt) {
        match s.kind() {
            StmtKind::LetStmt { name, value, body } => {
                self.visit_expr(value);
                self.with_let(*name, value, |c| c.visit_stmt(body));
            }
            StmtKind::For {
                name,
                min,
                extent,
                body,
                ..
            } => {
                self.visit_expr(min);
                self.visit_expr(extent);
                let one = Expr::one(min.ty());
                let last = Expr::binary(
                    BinaryOp::Sub,
                    Expr::binary(BinaryOp::Add, min.clone(), extent.clone()),
                    one,
                );
                let range = Interval {
                    min: self.bounds_of(min).min,
                    max: self.bounds_of(&last).max,
                };
                let range = self.name_big_ends(*name, range);
                let runs = Expr::binary(BinaryOp::Gt, extent.clone(), Expr::zero(extent.ty()));
                self.guarded(&runs, true, Narrow::InScope, |c| {
                    c.bound(*name, range, |c| c.visit_stmt(body))
                });
            }
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                self.visit_expr(condition);
                self.visit_branches(
                    condition,
                    |c| c.visit_stmt(then_case),
                    |c| {
                        if let Some(e) = else_case {
                            c.visit_stmt(e)
                        }
                    },
                );
            }
            StmtKind::ProducerConsumer {
                name,
                is_producer,
                body,
            } => {
                if let Some(p) = &mut self.producers_only {
                    p.enter(*name, *is_producer);
                }
                self.visit_stmt(body);
                if let Some(p) = &mut self.producers_only {
                    p.leave(*name, *is_producer);
                }
            }
            StmtKind::Provide { func, args, values } => {
                args.iter().chain(values).for_each(|e| self.visit_expr(e));
                if self.regions == Regions::Provided {
                    self.record(*func, args);
                }
            }
            StmtKind::Store {
                buffer,
                index,
                value,
                predicate,
            } => {
                self.visit_expr(index);
                self.visit_expr(value);
                if let Some(p) = predicate {
                    self.visit_expr(p);
                }
                if self.regions == Regions::Provided {
                    self.record_flat(*buffer, index, predicate);
                }
            }
            _ => {
                let mut exprs = Vec::new();
                let mut stmts = Vec::new();
                s.for_each_child(|e| exprs.push(e.clone()), |c| stmts.push(c.clone()));
                exprs.iter().for_each(|e| self.visit_expr(e));
                stmts.iter().for_each(|c| self.visit_stmt(c));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{ForKind, Type};
    use crate::lang::func::Func;
    use crate::lang::image_param::ImageParam;
    use crate::lang::operators::ExprOps;
    use crate::lang::var::Var;

    fn range(v: Var, lo: i64, hi: i64) -> (Symbol, Interval) {
        (v.name(), Interval::from_consts(Type::i32(), lo, hi))
    }

    fn region(boxes: &HashMap<Symbol, Box>, name: &str) -> String {
        boxes[&Symbol::new(name)].to_string()
    }

    #[test]
    fn blur_requires_a_halo() {
        let (x, y) = (Var::new("x"), Var::new("y"));
        let input = ImageParam::new(Type::u16(), 2, "input");
        let blur_x = Func::new("blur_x");
        let value = input.at([x - 1, y.expr()])
            + input.at([x.expr(), y.expr()])
            + input.at([x + 1, y.expr()]);
        blur_x.define([x, y], value.clone()).unwrap();
        let blur_y = blur_x.at([x.expr(), y.expr()])
            + blur_x.at([x.expr(), y + 1])
            + blur_x.at([x.expr(), y + 2]);
        let s: Scope = [range(x, 0, 99), range(y, 0, 49)].into_iter().collect();
        let required = boxes_required(&blur_y, &s);
        assert_eq!(required.len(), 1);
        assert_eq!(region(&required, "blur_x"), "[0, 99] x [0, 51]");
        let consumed: Scope = [range(x, 0, 99), range(y, 0, 51)].into_iter().collect();
        let required = boxes_required(&value, &consumed);
        assert_eq!(region(&required, "input"), "[-1, 100] x [0, 51]");
    }

    #[test]
    fn a_let_rebinding_a_name_a_let_around_it_uses_is_read_as_the_inner_name() {
        // let l = x + 10 in f(let x = x * 2 in l): f is read at x + 10 of the outer x.
        let x = Var::new("x");
        let f = ImageParam::new(Type::i32(), 1, "f");
        let l = Symbol::new("l");
        let doubled = Expr::let_in(x.name(), x * 2, Expr::var(l, Type::i32()));
        let e = Expr::let_in(l, x + 10, f.at([doubled]));
        let s: Scope = [range(x, 0, 5)].into_iter().collect();
        assert_eq!(region(&boxes_required(&e, &s), "f"), "[10, 15]");
        // The same through a loop variable the let rebinds.
        let body = Stmt::let_stmt(
            l,
            x + 10,
            Stmt::new(StmtKind::Evaluate(f.at([Expr::let_in(
                x.name(),
                x * 2,
                Expr::var(l, Type::i32()),
            )]))),
        );
        let nest = Stmt::for_loop(x.name(), Expr::i32(0), Expr::i32(6), ForKind::Serial, body);
        assert_eq!(
            region(&boxes_required_stmt(&nest, &Scope::new()), "f"),
            "[10, 15]"
        );
    }

    #[test]
    fn both_sides_of_a_select_are_read_everywhere() {
        // Native code evaluates both values of a select: each side's reads are not narrowed
        // by the condition (Halide's rule too).
        let x = Var::new("x");
        let (f, g) = (
            ImageParam::new(Type::f32(), 1, "f"),
            ImageParam::new(Type::f32(), 1, "g"),
        );
        let e = crate::lang::math::select(x.lt(10), f.at([x.expr()]), g.at([x * 2]));
        let s: Scope = [range(x, 0, 99)].into_iter().collect();
        let required = boxes_required(&e, &s);
        assert_eq!(region(&required, "f"), "[0, 99]");
        assert_eq!(region(&required, "g"), "[0, 198]");
    }

    #[test]
    fn the_values_used_of_each_side_of_a_select_are_where_it_is_taken() {
        // for x in [0, 100): out(x) = select(x < 10, f(x), g(x * 2)) + select(x < 5, h(x), h(-x))
        let x = Var::new("x");
        let (f, g, h) = (Func::new("f"), Func::new("g"), Func::new("h"));
        for func in [&f, &g, &h] {
            func.define(x, x.expr()).unwrap();
        }
        let select = crate::lang::math::select;
        let value = select(x.lt(10), f.at([x.expr()]), g.at([x * 2]))
            + select(x.lt(5), h.at([x.expr()]), h.at([-x]));
        let out = Symbol::new("out");
        let provide = Stmt::new(StmtKind::Provide {
            func: out,
            args: vec![x.expr()],
            values: vec![value],
        });
        let node = |name: Symbol, is_producer: bool, body: Stmt| {
            Stmt::new(StmtKind::ProducerConsumer {
                name,
                is_producer,
                body,
            })
        };
        let produce = node(
            out,
            true,
            Stmt::for_loop(
                x.name(),
                Expr::i32(0),
                Expr::i32(100),
                ForKind::Serial,
                provide,
            ),
        );
        let consume = [&f, &g, &h]
            .into_iter()
            .fold(produce.clone(), |body, func| node(func.name(), false, body));
        // The values used: each arm where it is taken, but for arms reading the same Func.
        let used = boxes_required_stmt_within(&produce, &Scope::new(), &HashMap::new());
        assert_eq!(region(&used, "f"), "[0, 9]");
        assert_eq!(region(&used, "g"), "[20, 198]");
        assert_eq!(region(&used, "h"), "[-99, 99]");
        // The memory read: both arms everywhere, also by the output consuming the Funcs
        // directly, since the regions of f and g no longer cover what it reads.
        let read = boxes_required_stmt_by_producers(&consume, &Scope::new(), &[out]);
        assert_eq!(region(&read, "f"), "[0, 99]");
        assert_eq!(region(&read, "g"), "[0, 198]");
        assert!(!read.contains_key(&h.name()));
    }

    #[test]
    fn nested_loops_with_branches() {
        let (x, y, n) = (Var::new("x"), Var::new("y"), Var::new("n"));
        let f = ImageParam::new(Type::i32(), 2, "f");
        let g = ImageParam::new(Type::i32(), 1, "g");
        let out = Symbol::new("out");
        // for y in [0, 50): for x in [0, 100):
        //   if x < 10 { out(x, y) = f(x - 1, 2 * y) } else { out(x, y) = g(x + 1) }
        //   buf[x + n] = out(x, y)
        let provide = |value: Expr| {
            Stmt::new(StmtKind::Provide {
                func: out,
                args: vec![x.expr(), y.expr()],
                values: vec![value],
            })
        };
        let branch = Stmt::new(StmtKind::IfThenElse {
            condition: x.lt(10),
            then_case: provide(f.at([x - 1, y * 2])),
            else_case: Some(provide(g.at([x + 1]))),
        });
        let store = Stmt::new(StmtKind::Store {
            buffer: Symbol::new("buf"),
            index: x + n,
            value: Expr::load(Type::i32(), Symbol::new("lut"), x * 3),
            predicate: None,
        });
        let inner = Stmt::for_loop(
            x.name(),
            Expr::i32(0),
            Expr::i32(100),
            ForKind::Serial,
            Stmt::block([branch, store]),
        );
        let nest = Stmt::for_loop(
            y.name(),
            Expr::i32(0),
            Expr::i32(50),
            ForKind::Serial,
            inner,
        );
        let required = boxes_required_stmt(&nest, &Scope::new());
        assert_eq!(region(&required, "f"), "[-1, 8] x [0, 98]");
        assert_eq!(region(&required, "g"), "[11, 100]");
        assert_eq!(region(&required, "lut"), "[0, 297]");
        assert!(!required.contains_key(&out) && !required.contains_key(&Symbol::new("buf")));
        let provided = boxes_provided_stmt(&nest, &Scope::new());
        assert_eq!(region(&provided, "out"), "[0, 99] x [0, 49]");
        assert_eq!(region(&provided, "buf"), "[n, n + 99]");
        assert_eq!(provided.len(), 2);

        // A loop with a symbolic extent runs only if the extent is positive.
        let call = Stmt::new(StmtKind::Evaluate(g.at([x.expr()])));
        let symbolic = Stmt::for_loop(x.name(), Expr::i32(0), n.expr(), ForKind::Serial, call);
        let required = boxes_required_stmt(&symbolic, &Scope::new());
        assert_eq!(region(&required, "g"), "[0, n - 1] if 0 < n");
    }

    #[test]
    fn union_and_containment() {
        let i = |lo, hi| Interval::from_consts(Type::i32(), lo, hi);
        let a = Box::new(vec![i(0, 10), i(5, 6)]);
        let b = Box::new(vec![i(-2, 3), i(0, 1)]);
        let u = box_union(&a, &b);
        assert_eq!(u.to_string(), "[-2, 10] x [0, 6]");
        assert!(box_contains(&u, &a) && box_contains(&u, &b));
        assert!(!box_contains(&a, &u));
        let open = Box::new(vec![Interval::everything(), i(0, 6)]);
        assert!(box_contains(&open, &u) && !box_contains(&u, &open));
        let c = Symbol::new("c");
        let conditional = Box {
            used: Some(Expr::var(c, Type::bool_())),
            ..u.clone()
        };
        assert!(box_contains(&u, &conditional) && !box_contains(&conditional, &u));
        assert!(box_contains(&conditional, &conditional));
        assert_eq!(box_union(&conditional, &conditional).used, conditional.used);
        assert_eq!(box_union(&conditional, &a).used, None);
    }
}
