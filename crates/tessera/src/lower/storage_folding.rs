//! Storage folding (Halide §4.3): when every access to a Func happens inside one serial loop,
//! each iteration touches a window of extent at most a constant E in some dimension, and that window
//! only moves one way (forward, or backward: both its ends never decrease, or never increase, as
//! the loop runs), the storage in that dimension is folded to F (the power of two ≥ E,
//! or the factor `fold_storage` asks for): coordinate c is stored at c mod F. Sliding-window
//! schedules thereby keep just a few rows. A fold the schedule asks for that cannot be proven
//! valid is an error naming the Func.

use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};

use super::bounds_inference::union_boxes;
use super::realization_order::Environment;
use crate::analysis::bounds::Scope;
use crate::analysis::boxes::{boxes_provided_stmt, boxes_required_stmt, Box};
use crate::analysis::constant_bound::{constant_upper_bound, without_roundings};
use crate::analysis::interval::Interval;
use crate::analysis::monotonic::monotonicity;
use crate::error::{Error, Result};
use crate::ir::substitute::{inline_lets, substitute, substitute_map, uses_var};
use crate::ir::visit::{any_node, mutate_exprs, node_count, visit_exprs, visit_stmts};
use crate::ir::{
    BinaryOp, CallKind, Expr, ExprKind, ForKind, Range, Stmt, StmtKind, Symbol, Type, UnaryOp,
};
use crate::lang::func::calls_func_named;
use crate::simplify::{can_prove, simplify};

/// For each Func whose storage is folded, the serial loops it is folded over: sliding must
/// not reuse, across iterations of a loop outside one of them, points the fold overwrote.
pub type FoldLoops = HashMap<Symbol, HashSet<Symbol>>;

/// The window of a folded dimension of an async Func (`Func::async_`) that one iteration of
/// the loop it is folded over uses, `[lo, hi]` with the loop variable free (before sliding:
/// what the iteration reads or writes): `async_producers` guards the fold with a counting
/// semaphore, the producer acquiring coordinates as the window advances and the consumer
/// releasing those it is done with. A window moving backwards is given mirrored (`[-hi, -lo]`,
/// the same coordinates negated), so that every window given moves forward: the semaphore
/// counts only how many coordinates enter and leave it.
#[derive(Clone, Debug)]
pub struct FoldWindow {
    pub func: Symbol,
    pub dim: usize,
    pub factor: i32,
    pub loop_var: Symbol,
    pub lo: Expr,
    pub hi: Expr,
}

pub fn storage_folding(s: &Stmt, env: &Environment) -> Result<(Stmt, FoldLoops)> {
    storage_folding_with_windows(s, env).map(|(s, folded_over, _)| (s, folded_over))
}

/// `storage_folding`, and the window of every fold of an async Func.
pub fn storage_folding_with_windows(
    s: &Stmt,
    env: &Environment,
) -> Result<(Stmt, FoldLoops, Vec<FoldWindow>)> {
    let mut folds = Folds::default();
    let s = fold_realizations(s, env, &mut folds, &mut Constants::new())?;
    Ok((s, folds.loops, folds.async_windows))
}

/// What folding records besides the statement.
#[derive(Default)]
struct Folds {
    loops: FoldLoops,
    async_windows: Vec<FoldWindow>,
}

/// The enclosing lets whose values are integer constants (e.g. a region's min fixed by
/// `bound`): a window's extent may depend on them (through the parity of a coordinate
/// halved by a consumer) and is constant only once they are substituted.
type Constants = HashMap<Symbol, Expr>;

fn fold_realizations(
    s: &Stmt,
    env: &Environment,
    recorded: &mut Folds,
    constants: &mut Constants,
) -> Result<Stmt> {
    match s.kind() {
        StmtKind::Realize { .. } => fold_nest(s, env, recorded, constants),
        StmtKind::LetStmt { name, value, body } if value.as_int_const().is_some() => {
            let shadowed = constants.insert(*name, value.clone());
            let body = fold_realizations(body, env, recorded, constants);
            match shadowed {
                Some(outer) => constants.insert(*name, outer),
                None => constants.remove(name),
            };
            Ok(Stmt::let_stmt(*name, value.clone(), body?))
        }
        _ => s.try_map_stmts(|c| fold_realizations(c, env, recorded, constants)),
    }
}

/// Folds the storage of the realizations nested in one another from `s` down, through the
/// lets between them (Funcs stored at the same level, each with the lets sizing it),
/// analysing each serial loop they are computed in once for all of them: once per Func
/// would make lowering quadratic in the depth of a pipeline storing everything at root.
/// Folding one Func changes only the accesses to it, so the regions of the others are the
/// same before and after.
fn fold_nest(
    s: &Stmt,
    env: &Environment,
    recorded: &mut Folds,
    constants: &mut Constants,
) -> Result<Stmt> {
    let mut nest = Vec::new();
    let mut inside = s;
    while let StmtKind::Realize { body, .. } | StmtKind::LetStmt { body, .. } = inside.kind() {
        nest.push(inside);
        inside = body;
    }
    let body = fold_realizations(inside, env, recorded, constants)?;
    let mut regions = LoopRegions::default();
    let mut folds = Vec::new();
    let mut rebuilt = Vec::new();
    for outer in nest.into_iter().rev() {
        let StmtKind::Realize {
            func,
            types,
            bounds,
            ..
        } = outer.kind()
        else {
            rebuilt.push(outer.clone());
            continue;
        };
        let mut bounds = bounds.clone();
        let contents = env.func(*func).read();
        let asked = |d: usize| {
            let var = contents.args.get(d)?;
            let fold = contents.schedule.folds.iter().find(|f| f.var == *var)?;
            Some((*var, fold.factor))
        };
        let serial_loops = find_serial_loops(&body, *func);
        for (d, bound) in bounds.iter_mut().enumerate() {
            let mut fold_loops = Vec::new();
            let factor = match (serial_loops.as_slice(), asked(d)) {
                // Folding automatically only where one loop produces it, as Halide.
                ([l], None) => automatic_fold(&mut regions, l, *func, d, constants).map(
                    |(factor, at, direction)| {
                        recorded.loops.entry(*func).or_default().insert(loop_name(&at));
                        fold_loops.push((at, direction));
                        factor
                    },
                ),
                ([_, ..], None) => None,
                ([_, ..], Some((var, factor))) => {
                    let refuse = |why: String| {
                        Error::schedule(format!("{func}.fold_storage({var}, {factor}): {why}"))
                    };
                    for l in &serial_loops {
                        let l = explicit_fold_loop(&mut regions, l, *func, d);
                        recorded.loops.entry(*func).or_default().insert(loop_name(&l));
                        let (extent, direction) =
                            window_extent(regions.of(&l), *func, d, constants).map_err(refuse)?;
                        fold_loops.push((l.clone(), direction));
                        if extent > i64::from(factor) {
                            return Err(refuse(format!(
                                "each iteration of the loop {} uses {extent} coordinates of {var}, more than {factor}",
                                loop_name(&l)
                            )));
                        }
                    }
                    Some(factor)
                }
                ([], Some((var, factor))) => {
                    return Err(Error::schedule(format!(
                        "{func}.fold_storage({var}, {factor}): {func} is not computed inside a serial loop within its storage, so there is nothing to fold along; store it at an outer loop than it is computed at"
                    )))
                }
                ([], None) => None,
            };
            if let Some(factor) = factor {
                if contents.schedule.async_producer {
                    for (l, direction) in &fold_loops {
                        let window = regions.of(l).one_iteration.region(*func);
                        let Some((Some(lo), Some(hi))) =
                            window.map(|w| (w[d].min.clone(), w[d].max.clone()))
                        else {
                            unreachable!("a folded window is bounded");
                        };
                        let (lo, hi) = match direction {
                            Direction::Forward => (lo, hi),
                            Direction::Backward => {
                                let negate = |e| Expr::unary(UnaryOp::Neg, e);
                                (negate(hi), negate(lo))
                            }
                        };
                        recorded.async_windows.push(FoldWindow {
                            func: *func,
                            dim: d,
                            factor,
                            loop_var: loop_name(l),
                            lo,
                            hi,
                        });
                    }
                }
                folds.push((*func, d, factor));
                *bound = Range {
                    min: Expr::i32(0),
                    extent: Expr::i32(factor),
                };
            }
        }
        rebuilt.push(Stmt::new(StmtKind::Realize {
            func: *func,
            types: types.clone(),
            bounds,
            body: Stmt::empty(),
        }));
    }
    let nest = rebuilt
        .into_iter()
        .fold(body, |body, outer| match outer.kind() {
            StmtKind::LetStmt { name, value, .. } => Stmt::let_stmt(*name, value.clone(), body),
            StmtKind::Realize {
                func,
                types,
                bounds,
                ..
            } => Stmt::new(StmtKind::Realize {
                func: *func,
                types: types.clone(),
                bounds: bounds.clone(),
                body,
            }),
            _ => unreachable!("the nest holds lets and realizations"),
        });
    Ok(folds.into_iter().fold(nest, |s, (func, d, factor)| {
        fold_accesses(&s, func, d, factor)
    }))
}

/// The regions of the Funcs touched in serial loops, each loop analysed once: in one
/// iteration (its body, the loop variable a single point) and in all iterations.
#[derive(Default)]
struct LoopRegions {
    loops: Vec<(Stmt, Regions)>,
}

struct Regions {
    the_loop: Stmt,
    one_iteration: Touched,
    /// Needed only where a fold is possible.
    all_iterations: OnceCell<Touched>,
}

/// What a statement writes and reads of each Func.
struct Touched {
    provided: HashMap<Symbol, Box>,
    required: HashMap<Symbol, Box>,
}

impl Touched {
    fn of(s: &Stmt) -> Touched {
        Touched {
            provided: boxes_provided_stmt(s, &Scope::new()),
            required: boxes_required_stmt(s, &Scope::new()),
        }
    }

    /// The union of what is written and read of `func`.
    fn region(&self, func: Symbol) -> Option<Vec<Interval>> {
        let of = |boxes: &HashMap<Symbol, Box>| boxes.get(&func).map(|b| b.bounds.clone());
        union_boxes(of(&self.provided), of(&self.required))
    }
}

impl LoopRegions {
    fn of(&mut self, l: &Stmt) -> &Regions {
        let at = match self.loops.iter().position(|(m, _)| m.same_as(l)) {
            Some(at) => at,
            None => {
                let StmtKind::For { body, .. } = l.kind() else {
                    unreachable!("find_serial_loops finds loops")
                };
                let regions = Regions {
                    the_loop: l.clone(),
                    one_iteration: Touched::of(body),
                    all_iterations: OnceCell::new(),
                };
                self.loops.push((l.clone(), regions));
                self.loops.len() - 1
            }
        };
        &self.loops[at].1
    }
}

fn loop_name(l: &Stmt) -> Symbol {
    match l.kind() {
        StmtKind::For { name, .. } => *name,
        _ => unreachable!("find_serial_loops finds loops"),
    }
}

/// The serial loops, reached through lets, produce/consume nodes, the realizations of other
/// Funcs stored at the same level, blocks and the branches of `if`s (a specialization's
/// copies of the loop) only, that contain every access to `func` in `s`; none if some access
/// is elsewhere. Within one lifetime of the storage one of them runs.
fn find_serial_loops(s: &Stmt, func: Symbol) -> Vec<Stmt> {
    match serial_loops(s, func, Through::Branches) {
        Accesses::InLoops(loops) => loops,
        Accesses::Nowhere | Accesses::Elsewhere => Vec::new(),
    }
}

/// The one serial loop holding every access to `func` in `s`, reached through lets,
/// produce/consume nodes, realizations and blocks (not `if`s), if there is one.
fn sole_serial_loop(s: &Stmt, func: Symbol) -> Option<Stmt> {
    match serial_loops(s, func, Through::NoBranches) {
        Accesses::InLoops(loops) if loops.len() == 1 => loops.into_iter().next(),
        _ => None,
    }
}

/// Where the accesses to a Func in a statement are.
enum Accesses {
    Nowhere,
    /// All inside these serial loops, one per branch taken.
    InLoops(Vec<Stmt>),
    Elsewhere,
}

/// Whether `serial_loops` looks for loops in the branches of `if`s.
#[derive(Clone, Copy, PartialEq)]
enum Through {
    Branches,
    NoBranches,
}

/// Where the accesses to `func` in `s` are, in one walk over `s` (asking of every block's
/// child, or of every branch, whether it touches `func` before looking inside would be
/// quadratic in the depth of nested blocks or in the number of specializations).
fn serial_loops(s: &Stmt, func: Symbol, through: Through) -> Accesses {
    match s.kind() {
        StmtKind::For {
            kind: ForKind::Serial,
            ..
        } if touches(s, func) => Accesses::InLoops(vec![s.clone()]),
        StmtKind::LetStmt { value, .. } if calls_func_named(value, func) => Accesses::Elsewhere,
        StmtKind::Realize { bounds, .. }
            if bounds
                .iter()
                .any(|r| calls_func_named(&r.min, func) || calls_func_named(&r.extent, func)) =>
        {
            Accesses::Elsewhere
        }
        StmtKind::LetStmt { body, .. }
        | StmtKind::ProducerConsumer { body, .. }
        | StmtKind::Realize { body, .. } => serial_loops(body, func, through),
        StmtKind::Block(stmts) => {
            let mut found = Accesses::Nowhere;
            for c in stmts {
                found = match (found, serial_loops(c, func, through)) {
                    (Accesses::Nowhere, only) | (only, Accesses::Nowhere) => only,
                    _ => return Accesses::Elsewhere,
                };
            }
            found
        }
        StmtKind::IfThenElse {
            condition,
            then_case,
            else_case,
        } if through == Through::Branches && !calls_func_named(condition, func) => {
            let mut found = Accesses::Nowhere;
            for branch in std::iter::once(then_case).chain(else_case) {
                found = match (found, serial_loops(branch, func, through)) {
                    (Accesses::Elsewhere, _) | (_, Accesses::Elsewhere) => {
                        return Accesses::Elsewhere
                    }
                    (Accesses::Nowhere, only) | (only, Accesses::Nowhere) => only,
                    (Accesses::InLoops(mut loops), Accesses::InLoops(more)) => {
                        loops.extend(more);
                        Accesses::InLoops(loops)
                    }
                };
            }
            found
        }
        _ if touches(s, func) => Accesses::Elsewhere,
        _ => Accesses::Nowhere,
    }
}

/// Whether `s` reads or writes `func`.
fn touches(s: &Stmt, func: Symbol) -> bool {
    let mut touched = false;
    visit_stmts(s, &mut |c| {
        touched |= match c.kind() {
            StmtKind::Provide { func: name, .. } | StmtKind::Store { buffer: name, .. } => {
                *name == func
            }
            _ => false,
        };
        c.for_each_child(
            |e| {
                touched = touched
                    || any_node(e, |n| {
                        matches!(n.kind(), ExprKind::Call { name, .. } | ExprKind::Load { buffer: name, .. } if *name == func)
                    })
            },
            |_| {},
        );
        !touched
    });
    touched
}

/// Which way the window of a fold moves as the loop it is folded over runs.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Direction {
    /// Neither end ever decreases.
    Forward,
    /// Neither end ever increases.
    Backward,
}

/// The extent of the window of dimension `d` of `func` that one iteration of a serial loop
/// uses, when it is a constant and only moves one way, and that way; otherwise why not.
fn window_extent(
    regions: &Regions,
    func: Symbol,
    d: usize,
    constants: &Constants,
) -> std::result::Result<(i64, Direction), String> {
    let v = loop_name(&regions.the_loop);
    let window = regions
        .one_iteration
        .region(func)
        .ok_or_else(|| format!("its region in one iteration of {v} is not known"))?;
    let unbounded = || format!("its region in one iteration of {v} is not bounded");
    let (mut min, mut max) = (
        substitute_map(&window[d].min.clone().ok_or_else(unbounded)?, constants),
        substitute_map(&window[d].max.clone().ok_or_else(unbounded)?, constants),
    );
    let extent_of = |min: &Expr, max: &Expr| {
        simplify(&Expr::binary(
            BinaryOp::Add,
            Expr::binary(BinaryOp::Sub, max.clone(), min.clone()),
            Expr::i32(1),
        ))
    };
    let mut extent = extent_of(&min, &max);
    // The simplifier keeps a let used more than once; with the lets inlined the extent may
    // still prove constant. Only then, and only for a few lets: inlining nested lets grows an
    // expression exponentially in their depth (a deep cascade's windows).
    if extent.as_int_const().is_none() && let_count(&min) + let_count(&max) <= INLINED_LETS {
        (min, max) = (inline_lets(&min), inline_lets(&max));
        extent = extent_of(&min, &max);
    }
    // An extent that varies (a `GuardWithIf` tail's last window is shorter) folds by its
    // constant upper bound, as Halide's: each iteration's window, moving only one way,
    // still fits in the fold. Only a small extent is searched for one: the search splits
    // every min and max, and a deep cascade's windows nest dozens of them.
    let bounded = |extent: &Expr| {
        extent.as_int_const().or_else(|| {
            (node_count(extent) <= BOUNDED_EXTENT_NODES)
                .then(|| constant_upper_bound(extent, &Scope::new()))
                .flatten()
        })
    };
    // A window rounded to a split's factor (the producer's own split shifting inwards or
    // rounding up, a consumer's strip clamped to its last) is at most its rounded form
    // (`t/k*k <= t`), whose ends cancel where the rounded ones do not.
    let e = bounded(&extent)
        .or_else(|| bounded(&simplify(&without_roundings(&extent)?)))
        .ok_or_else(|| {
            format!(
                "the extent of its region in one iteration of {v}, {extent}, has no constant upper bound"
            )
        })? as i64;
    let v_expr = Expr::var(v, Type::i32());
    let next = |x: &Expr| {
        substitute(
            x,
            v,
            &Expr::binary(BinaryOp::Add, v_expr.clone(), Expr::i32(1)),
        )
    };
    // The comparison proves shifts (`y - 1` to `y`); the structure, clamps the simplifier
    // does not compare (`min(y, max)` never decreasing as `y` grows).
    let moves = |x: &Expr, direction: Direction| {
        let (structurally, step) = match direction {
            Direction::Forward => (
                monotonicity(x, v, &HashMap::new()).never_decreases(),
                BinaryOp::Ge,
            ),
            Direction::Backward => (
                monotonicity(x, v, &HashMap::new()).never_increases(),
                BinaryOp::Le,
            ),
        };
        structurally || can_prove(&Expr::binary(step, next(x), x.clone()))
    };
    if !(1..=1 << 20).contains(&e) {
        return Err(format!("its region in one iteration of {v} has extent {e}"));
    }
    [Direction::Forward, Direction::Backward]
        .into_iter()
        .find(|&direction| moves(&min, direction) && moves(&max, direction))
        .map(|direction| (e, direction))
        .ok_or_else(|| {
            format!(
                "its region is not proven to move only forward, or only backward, as {v} increases"
            )
        })
}

/// The largest extent (in nodes) `window_extent` searches for a constant upper bound.
const BOUNDED_EXTENT_NODES: usize = 48;

/// The most lets `window_extent` inlines into a window's bounds.
const INLINED_LETS: usize = 6;

/// The number of `let` expressions in `e`.
fn let_count(e: &Expr) -> usize {
    let mut count = 0;
    visit_exprs(e, &mut |n| {
        count += usize::from(matches!(n.kind(), ExprKind::Let(..)));
        true
    });
    count
}

/// The fold factor for dimension `d` of `func` when the schedule does not choose one, and
/// the loop it folds over: the outermost serial loop containing every access to `func`
/// along which the window has an extent bounded by a constant, starting at `outer`. A loop inside another
/// is passed over when the Func may reuse, in one iteration of an enclosing loop, points
/// of its previous iteration (it slides there), since folding inside would have overwritten
/// them: when its window along the enclosing loop overlaps the previous iteration's in
/// another dimension, or does not move at all.
fn automatic_fold(
    regions: &mut LoopRegions,
    outer: &Stmt,
    func: Symbol,
    d: usize,
    constants: &Constants,
) -> Option<(i32, Stmt, Direction)> {
    let mut l = outer.clone();
    loop {
        if let Some((factor, direction)) = automatic_factor(regions.of(&l), func, d, constants) {
            return Some((factor, l, direction));
        }
        let StmtKind::For { body, .. } = l.kind() else {
            unreachable!("find_serial_loops finds loops")
        };
        let inner = sole_serial_loop(body, func)?;
        if reuses_previous_iteration(regions.of(&l), func, d) {
            return None;
        }
        l = inner;
    }
}

/// The loop a fold the schedule asks for in dimension `d` of `func` folds over, from the
/// serial loop `outer` containing every access: as Halide's, a loop along which the window
/// does not move in `d` is passed over for the serial loop inside it holding every access
/// (a loop over channels outside the rows folded), unless the Func may reuse points across
/// its iterations (it slides there, see `automatic_fold`).
fn explicit_fold_loop(regions: &mut LoopRegions, outer: &Stmt, func: Symbol, d: usize) -> Stmt {
    let mut l = outer.clone();
    loop {
        let StmtKind::For { name, body, .. } = l.kind() else {
            unreachable!("find_serial_loops finds loops")
        };
        let moves = match regions.of(&l).one_iteration.region(func) {
            Some(window) => [&window[d].min, &window[d].max]
                .into_iter()
                .any(|end| end.as_ref().is_none_or(|end| uses_var(end, *name))),
            None => true,
        };
        if moves {
            return l;
        }
        let Some(inner) = sole_serial_loop(body, func) else {
            return l;
        };
        if reuses_previous_iteration(regions.of(&l), func, d) {
            return l;
        }
        l = inner;
    }
}

/// Whether, along the serial loop of `regions`, the window of `func` in a dimension other
/// than `d` overlaps the previous iteration's, or no dimension's window moves at all: what
/// sliding over that loop may reuse.
fn reuses_previous_iteration(regions: &Regions, func: Symbol, d: usize) -> bool {
    let v = loop_name(&regions.the_loop);
    let Some(window) = regions.one_iteration.region(func) else {
        return true;
    };
    let v_expr = Expr::var(v, Type::i32());
    let previous = |x: &Expr| {
        substitute(
            x,
            v,
            &Expr::binary(BinaryOp::Sub, v_expr.clone(), Expr::i32(1)),
        )
    };
    let mut moves = false;
    for (dim, interval) in window.iter().enumerate() {
        let (Some(min), Some(max)) = (&interval.min, &interval.max) else {
            return true;
        };
        if !uses_var(min, v) && !uses_var(max, v) {
            continue;
        }
        moves = true;
        let disjoint = can_prove(&Expr::binary(BinaryOp::Gt, min.clone(), previous(max)))
            || can_prove(&Expr::binary(BinaryOp::Lt, max.clone(), previous(min)));
        if dim != d && !disjoint {
            return true;
        }
    }
    !moves
}

/// The fold factor for dimension `d` of `func` in a serial loop when the schedule does not
/// choose one, the power of two covering the window, if folding is valid and saves memory;
/// and the way the window moves.
fn automatic_factor(
    regions: &Regions,
    func: Symbol,
    d: usize,
    constants: &Constants,
) -> Option<(i32, Direction)> {
    let (e, direction) = window_extent(regions, func, d, constants).ok()?;
    let factor = (e as u32).next_power_of_two() as i32;
    let whole = regions
        .all_iterations
        .get_or_init(|| Touched::of(&regions.the_loop))
        .region(func)?;
    let whole_extent = simplify(&Expr::binary(
        BinaryOp::Add,
        Expr::binary(BinaryOp::Sub, whole[d].max.clone()?, whole[d].min.clone()?),
        Expr::i32(1),
    ));
    if can_prove(&Expr::binary(BinaryOp::Le, whole_extent, Expr::i32(factor))) {
        return None;
    }
    Some((factor, direction))
}

/// Every access to `func` with coordinate `d` replaced by `coordinate mod factor`.
fn fold_accesses(s: &Stmt, func: Symbol, d: usize, factor: i32) -> Stmt {
    let fold_expr = |e: &Expr| fold_accesses_expr(e, func, d, factor);
    match s.kind() {
        StmtKind::Provide {
            func: f,
            args,
            values,
        } if *f == func => {
            let mut args: Vec<Expr> = args.iter().map(fold_expr).collect();
            args[d] = Expr::binary(BinaryOp::Mod, args[d].clone(), Expr::i32(factor));
            Stmt::new(StmtKind::Provide {
                func: *f,
                args,
                values: values.iter().map(fold_expr).collect(),
            })
        }
        _ => s.map_children(fold_expr, |c| fold_accesses(c, func, d, factor)),
    }
}

fn fold_accesses_expr(e: &Expr, func: Symbol, d: usize, factor: i32) -> Expr {
    mutate_exprs(e, &mut |n| match n.kind() {
        ExprKind::Call {
            name,
            kind: kind @ CallKind::Func(_),
            args,
            value_index,
        } if *name == func => {
            let mut args: Vec<Expr> = args
                .iter()
                .map(|a| fold_accesses_expr(a, func, d, factor))
                .collect();
            args[d] = Expr::binary(BinaryOp::Mod, args[d].clone(), Expr::i32(factor));
            Some(Expr::new(
                n.ty(),
                ExprKind::Call {
                    name: *name,
                    kind: kind.clone(),
                    args,
                    value_index: *value_index,
                },
            ))
        }
        _ => None,
    })
}
