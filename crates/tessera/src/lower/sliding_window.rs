//! Sliding window (Halide §4.3): when a Func is stored outside a serial loop but computed at
//! each iteration of it, and the region each iteration needs moves monotonically along one
//! dimension, every iteration after the first computes only the part no earlier iteration
//! computed: `f.s0.y.min` becomes `select(v > v_min, max(min, previous_max + 1), min)` (or,
//! for a window moving backwards, `f.s0.y.max` becomes `min(max, previous_min - 1)`).

use std::collections::{HashMap, HashSet};

use super::bounds_inference::wrap_lets;
use super::names::region_max;
use super::names::region_min;
use super::names::stage_var;
use super::realization_order::Environment;
use super::stage_loops::resolve_tail;
use super::storage_folding::FoldLoops;
use crate::analysis::monotonic::{monotonicity, Monotonic};
use crate::ir::substitute::{free_vars, substitute, substitute_map, uses_var};
use crate::ir::visit::{node_count, visit_stmts};
use crate::ir::{BinaryOp, Expr, ForKind, Stmt, StmtKind, Symbol, Type};
use crate::lang::function::{Definition, FunctionContents};
use crate::lang::schedule::{SplitDirective, StageSchedule, TailStrategy};
use crate::simplify::simplify;

pub fn sliding_window(s: &Stmt, env: &Environment, folded_over: &FoldLoops) -> Stmt {
    match s.kind() {
        StmtKind::Realize {
            func,
            types,
            bounds,
            body,
        } => {
            let body = sliding_window(body, env, folded_over);
            let no_folds = HashSet::new();
            let folds = folded_over.get(func).unwrap_or(&no_folds);
            let sliding = FuncSliding {
                func: *func,
                env,
                folded_over: folds,
            };
            let (body, _) = sliding.slide_inside(&body, &mut Vec::new());
            Stmt::new(StmtKind::Realize {
                func: *func,
                types: types.clone(),
                bounds: bounds.clone(),
                body,
            })
        }
        _ => s.map_children(|e| e.clone(), |c| sliding_window(c, env, folded_over)),
    }
}

/// The way from the top of a loop body down to where a Func is computed
/// (`FuncSliding::path_to_compute`).
struct PathToCompute {
    /// The lets on the way, in order, loops of one iteration as lets of their min.
    chain: Vec<(Symbol, Expr)>,
    /// How each let moves with the loop variable.
    moves: HashMap<Symbol, Monotonic>,
    /// Whether the way goes through a loop of more than one iteration.
    through_loops: bool,
}

/// One Func's sliding: the Func, and the loops its storage is folded over.
struct FuncSliding<'a> {
    func: Symbol,
    env: &'a Environment,
    folded_over: &'a HashSet<Symbol>,
}

impl FuncSliding<'_> {
    /// Slides `func` over the serial loops below its storage, inner loops first (as Halide): a
    /// Func computed inside a loop nest can slide along one dimension over the inner loop and
    /// along another over an outer one. `scope` holds the lets above `s`, to recognise loops of
    /// one iteration, which have nothing to slide over. Also whether `func` is produced in `s`
    /// (only the loops around its production can slide it).
    fn slide_inside(&self, s: &Stmt, scope: &mut Vec<(Symbol, Expr)>) -> (Stmt, bool) {
        match s.kind() {
            StmtKind::For {
                name,
                min,
                extent,
                kind: ForKind::Serial,
                body,
            } => {
                let (body, produced) = self.slide_inside(body, scope);
                let slid = if produced && !is_one_iteration(extent, scope) {
                    self.slide_loop(*name, min, &body, scope)
                } else {
                    None
                };
                let s = Stmt::for_loop(
                    *name,
                    min.clone(),
                    extent.clone(),
                    ForKind::Serial,
                    slid.unwrap_or(body),
                );
                (s, produced)
            }
            StmtKind::LetStmt { name, value, body } => {
                scope.push((*name, value.clone()));
                let (body, produced) = self.slide_inside(body, scope);
                scope.pop();
                (Stmt::let_stmt(*name, value.clone(), body), produced)
            }
            StmtKind::ProducerConsumer {
                name,
                is_producer: true,
                ..
            } if *name == self.func => (s.clone(), true),
            _ => {
                let mut produced = false;
                let s = s.map_children(
                    |e| e.clone(),
                    |c| {
                        let (c, found) = self.slide_inside(c, scope);
                        produced |= found;
                        c
                    },
                );
                (s, produced)
            }
        }
    }

    /// The way down from the top of a loop body (over `v`) to where `func` is computed: the lets
    /// on it in order, with the variable of each loop of one iteration on it as a let of its min
    /// (as Halide's sliding window treats them), and how each moves with `v`. The way goes
    /// through the realizations and productions of other Funcs that contain `func`'s, and into
    /// serial loops whose bounds do not move with `v`: their iterations are the same in every
    /// iteration over `v`, so what an iteration over `v` computes at each of them was computed
    /// at the same point of the previous one. It does not enter the loops of a Func stored
    /// outside `v`'s loop, which may slide over `v` themselves and change those bounds.
    fn path_to_compute(&self, body: &Stmt, v: Symbol, scope: &[(Symbol, Expr)]) -> PathToCompute {
        let func = self.func;
        let mut through_loops = false;
        let mut chain: Vec<(Symbol, Expr)> = Vec::new();
        // How each let of the chain moves with `v`, read in order (the lets are never expanded
        // into one another: a cascade of Funcs each reading its consumer's region twice would
        // double the expression at every step).
        let mut moves: HashMap<Symbol, Monotonic> = HashMap::new();
        let mut realized_inside: HashSet<Symbol> = HashSet::new();
        let mut producing: Option<Symbol> = None;
        let mut cur = body.clone();
        loop {
            cur = match cur.kind() {
                StmtKind::LetStmt { name, value, body } => {
                    moves.insert(*name, monotonicity(value, v, &moves));
                    chain.push((*name, value.clone()));
                    body.clone()
                }
                StmtKind::Realize { func: g, body, .. } if *g != func => {
                    realized_inside.insert(*g);
                    body.clone()
                }
                StmtKind::For {
                    name,
                    min,
                    extent,
                    kind: ForKind::Serial,
                    body,
                } => {
                    if producing.is_some_and(|g| !realized_inside.contains(&g))
                        || self.folded_over.contains(name)
                    {
                        break;
                    }
                    let lets: Vec<(Symbol, Expr)> = scope.iter().chain(&chain).cloned().collect();
                    if is_one_iteration(extent, &lets) {
                        moves.insert(*name, monotonicity(min, v, &moves));
                        chain.push((*name, min.clone()));
                    } else if monotonicity(min, v, &moves) != Monotonic::Constant
                        || monotonicity(extent, v, &moves) != Monotonic::Constant
                    {
                        break;
                    } else {
                        through_loops = true;
                    }
                    body.clone()
                }
                _ => match production_step(&cur, func) {
                    Some((g, body)) => {
                        producing = g.or(producing);
                        body
                    }
                    None => break,
                },
            };
        }
        PathToCompute {
            chain,
            moves,
            through_loops,
        }
    }

    /// If the lets on the way to where `func` is computed define its region and it slides
    /// monotonically with the loop variable `v` in exactly one dimension, the body with that
    /// region shrunk.
    fn slide_loop(
        &self,
        v: Symbol,
        loop_min: &Expr,
        body: &Stmt,
        scope: &[(Symbol, Expr)],
    ) -> Option<Stmt> {
        let func = self.func;
        let f = self.env.func(func).read();
        let PathToCompute {
            chain,
            moves,
            through_loops,
        } = self.path_to_compute(body, v, scope);
        // A dimension slides over one loop only (an inner loop's slid region, slid again over an
        // outer loop, would lose its planned value): one slid already has an unslid bound.
        let slid_already = |arg: Symbol| {
            (0..f.stage_count()).any(|stage| {
                [region_min(func, stage, arg), region_max(func, stage, arg)]
                    .iter()
                    .any(|n| moves.contains_key(&n.dot("unslid")))
            })
        };
        let mut sliding = None;
        let mut fixed = None;
        let mut backwards = false;
        for (d, &arg) in f.args.iter().enumerate() {
            let (min_name, max_name) = (region_min(func, 0, arg), region_max(func, 0, arg));
            let (min, max) = (*moves.get(&min_name)?, *moves.get(&max_name)?);
            if min == Monotonic::Constant && max == Monotonic::Constant {
                if !slid_already(arg) {
                    fixed.get_or_insert((d, arg));
                }
                continue;
            }
            backwards = min.never_increases() && max.never_increases();
            if sliding.is_some()
                || slid_already(arg)
                || !(backwards || min.never_decreases() && max.never_decreases())
            {
                return None;
            }
            sliding = Some((d, arg));
        }
        // A region that does not move at all is computed in the first iteration only: sliding
        // along any dimension leaves the later iterations nothing to compute.
        let (d, arg) = sliding.or(fixed)?;
        // A window moving backwards (`g(100 - x)`) slides its max down instead of its min up;
        // only a Func of one stage with no split of that dimension does (no tail of a split
        // can then reach below the slid region).
        if backwards
            && (f.stage_count() > 1 || !split_tails(&f.stage(0)?.schedule, arg, false).is_empty())
        {
            return None;
        }
        let moves_along = |m: Monotonic| {
            if backwards {
                m.never_increases()
            } else {
                m.never_decreases()
            }
        };
        // Every stage slides along `arg`. An update may, when it writes this Func at the pure
        // `arg` in that dimension: each point then gets each stage once, in order, whichever
        // iteration first needs it.
        let mut windows = Vec::new();
        // The fewest points every stage computes from the slid start on (see below).
        let mut chunk: i64 = 1;
        for stage in 0..f.stage_count() {
            let def = f.stage(stage)?;
            if stage > 0 && !updates_pointwise_along(def, d, arg) {
                return None;
            }
            // The points a stage computes must follow its region monotonically, or a region
            // that starts later (slid) could reach past the storage sized for the planned one:
            // no split rounds up, and none shifts inwards a loop whose extent was rounded up
            // (from a later start, its last whole step can end later). With updates, a split
            // of the pure definition shifted inwards recomputes points before the slid region
            // (a region of fewer points than its factor): every stage then starts early
            // enough to cover them (`chunk`), so that each gets its updates again (as Halide
            // computes every stage of a Func unrolled by 2 two rows at a time). Any other
            // split of an update must be guarded.
            let with_updates = f.stage_count() > 1;
            // Computed inside a loop it does not slide over, a Func with updates recomputes,
            // at each iteration of that loop, what a split of any dimension shifted inwards
            // or rounded up reaches of the previous iteration's points, with its pure
            // definition alone; the next iteration over `v` would reuse them.
            if with_updates && through_loops && !every_split_guarded(&f) {
                return None;
            }
            for split in split_tails(&def.schedule, arg, stage > 0) {
                match split.tail {
                    TailStrategy::GuardWithIf
                    | TailStrategy::Predicate
                    | TailStrategy::PredicateStores => {}
                    TailStrategy::RoundUp | TailStrategy::PredicateLoads => return None,
                    _ if !split.constant_extent => return None,
                    _ if !with_updates => {}
                    _ if stage == 0 => {
                        let factor = i64::try_from(split.factor.as_int_const()?).ok()?;
                        chunk = chunk.max(factor);
                    }
                    _ => return None,
                }
            }
            let (min_name, max_name) = (region_min(func, stage, arg), region_max(func, stage, arg));
            let (min, max) = (*moves.get(&min_name)?, *moves.get(&max_name)?);
            if !moves_along(min) || !moves_along(max) {
                return None;
            }
            // Its other dimensions stay put.
            let others_move = def.args.iter().filter_map(Expr::as_var).any(|other| {
                other != arg
                    && [
                        region_min(func, stage, other),
                        region_max(func, stage, other),
                    ]
                    .iter()
                    .any(|n| moves.get(n).is_some_and(|m| *m != Monotonic::Constant))
            });
            if others_move {
                return None;
            }
            windows.push((min_name, max_name));
        }
        // Funcs computed inside this one's production must still fit the storage sized for
        // them before sliding (Halide sizes allocations after sliding).
        if !produced_inside(body, func).is_empty()
            && !inner_funcs_follow_the_loop(&f, d, arg, body, func, v, &moves)
        {
            return None;
        }
        // Each stage's previous max, from lets recomputed for `v - 1`, placed before its min
        // (backwards: its previous min, placed before its max).
        let mut slides = Vec::new();
        for (min_name, max_name) in windows {
            let min_at = chain.iter().position(|(n, _)| *n == min_name)?;
            let max_at = chain.iter().position(|(n, _)| *n == max_name)?;
            if max_at < min_at {
                return None;
            }
            let (slid_at, slid_name, lets_before): (usize, Symbol, Vec<&(Symbol, Expr)>) =
                if backwards {
                    (max_at, max_name, chain[..=min_at].iter().collect())
                } else {
                    if chain[min_at..max_at]
                        .iter()
                        .any(|(n, _)| uses_var(&chain[max_at].1, *n))
                    {
                        return None;
                    }
                    let lets = chain[..min_at].iter().chain([&chain[max_at]]).collect();
                    (min_at, min_name, lets)
                };
            let in_scope: HashSet<Symbol> = chain[..slid_at].iter().map(|(n, _)| *n).collect();
            let (previous_lets, previous_end) = previous_values(&lets_before, &in_scope, &moves, v);
            // Where the slid region starts (backwards: ends) at most; with a `chunk`, no later
            // than that many points before its max (whose value needs no let after the min).
            let bound = if backwards {
                Expr::binary(BinaryOp::Sub, previous_end, Expr::i32(1))
            } else {
                let after = Expr::binary(BinaryOp::Add, previous_end, Expr::i32(1));
                if chunk > 1 {
                    let chunk_back = Expr::i32(i32::try_from(chunk - 1).ok()?);
                    let chunk_start =
                        Expr::binary(BinaryOp::Sub, chain[max_at].1.clone(), chunk_back);
                    Expr::binary(BinaryOp::Min, after, chunk_start)
                } else {
                    after
                }
            };
            slides.push((slid_at, slid_name, previous_lets, bound));
        }
        // In chain order, so that previous values two stages share are defined once, before both.
        slides.sort_by_key(|(at, ..)| *at);
        let v_expr = Expr::var(v, Type::i32());
        let first = Expr::binary(BinaryOp::Le, v_expr, loop_min.clone());
        // Each region's min (backwards: max) as planned stays, named `<min>.unslid`, for
        // everything but this Func's production (the regions and storage of the Funcs this one
        // reads: they were computed to cover it, and slide on their own); the min itself starts
        // after the previous iteration's max (backwards: the max ends before its min), or
        // a chunk before its max.
        let mut defined: HashSet<Symbol> = HashSet::new();
        let mut body = body.clone();
        for (_, slid_name, previous_lets, bound) in slides {
            body = map_chain(&body, func, &mut |name, value, rest| {
                if name != slid_name {
                    return None;
                }
                let unslid = name.dot("unslid");
                let planned = Expr::var(unslid, value.ty());
                let op = if backwards {
                    BinaryOp::Min
                } else {
                    BinaryOp::Max
                };
                let after_previous = Expr::binary(op, planned.clone(), bound.clone());
                let slid = Expr::select(first.clone(), planned.clone(), after_previous);
                let rest = substitute_outside_production(rest, func, name, &planned);
                let lets = previous_lets
                    .iter()
                    .filter(|(n, _)| defined.insert(*n))
                    .cloned()
                    .chain([(unslid, value.clone()), (name, slid)]);
                Some(wrap_lets(lets.collect(), rest))
            });
        }
        Some(body)
    }
}

/// Whether a loop's `extent` is provably 1, given the lets in `scope` (innermost last): such
/// a loop (a Func computed per point of its consumer) is a let of its variable to its min.
fn is_one_iteration(extent: &Expr, scope: &[(Symbol, Expr)]) -> bool {
    // Enough rounds of expansion for a region defined through a few lets, and a size limit,
    // so that a deep cascade of regions is not expanded into a huge expression.
    const ROUNDS: usize = 8;
    const MAX_NODES: usize = 512;
    let mut e = extent.clone();
    for _ in 0..ROUNDS {
        let values: HashMap<Symbol, Expr> = free_vars(&e)
            .into_iter()
            .filter_map(|n| {
                let (_, value) = scope.iter().rev().find(|(m, _)| *m == n)?;
                Some((n, value.clone()))
            })
            .collect();
        if values.is_empty() {
            break;
        }
        e = substitute_map(&e, &values);
        if node_count(&e) > MAX_NODES {
            return false;
        }
    }
    simplify(&e).as_int_const() == Some(1)
}

/// One step of the way down through a `produce g; consume g` pair: into `g`'s production
/// (with `g`) when `func` is computed there, else into its consumption; `func`'s own
/// production ends the way.
fn production_step(s: &Stmt, func: Symbol) -> Option<(Option<Symbol>, Stmt)> {
    let (g, produce, consume) = produce_consume_pair(s)?;
    if g == func {
        return None;
    }
    Some(if produces(produce, func) {
        (Some(g), produce.clone())
    } else {
        (None, consume.clone())
    })
}

/// Whether update `def` writes its Func at the pure Var `arg` in dimension `d` (where it
/// then also reads its Func only at `arg`: the language refuses any other self-read).
fn updates_pointwise_along(def: &Definition, d: usize, arg: Symbol) -> bool {
    def.args.get(d).and_then(Expr::as_var) == Some(arg)
}

/// The lets recomputing, for the previous iteration of the loop over `v`, the value of the
/// last of `lets` (in order): of the lets it depends on, those that move with `v` get a
/// `<let>.previous` in terms of one another (so they stay as small as the lets themselves),
/// except those `in_scope` already (defined for another Func's window: a cascade of Funcs
/// would otherwise repeat the chain of previous values once per Func); and that previous
/// value.
fn previous_values(
    lets: &[&(Symbol, Expr)],
    in_scope: &HashSet<Symbol>,
    moves: &HashMap<Symbol, Monotonic>,
    v: Symbol,
) -> (Vec<(Symbol, Expr)>, Expr) {
    let (last, _) = *lets.last().expect("at least the max is given");
    // The lets the last one depends on, through one another.
    let mut needed: HashSet<Symbol> = [*last].into_iter().collect();
    for (n, value) in lets.iter().rev() {
        if needed.contains(n) {
            needed.extend(free_vars(value));
        }
    }
    let mut renames: HashMap<Symbol, Expr> = HashMap::new();
    renames.insert(
        v,
        Expr::binary(BinaryOp::Sub, Expr::var(v, Type::i32()), Expr::i32(1)),
    );
    let mut previous_lets = Vec::new();
    for (n, value) in lets {
        // The last one always: it is defined after the min, where its previous value is used.
        if !needed.contains(n) || (moves[n] == Monotonic::Constant && n != last) {
            continue;
        }
        let previous = n.dot("previous");
        if !in_scope.contains(&previous) {
            previous_lets.push((previous, substitute_map(value, &renames)));
        }
        renames.insert(*n, Expr::var(previous, value.ty()));
    }
    let value = renames
        .get(last)
        .cloned()
        .unwrap_or_else(|| Expr::var(*last, Type::i32()));
    (previous_lets, value)
}

/// Whether every split of every stage of `f` is guarded: none computes points outside the
/// stage's region.
fn every_split_guarded(f: &FunctionContents) -> bool {
    (0..f.stage_count()).all(|stage| {
        f.stage(stage).is_some_and(|def| {
            def.args.iter().filter_map(Expr::as_var).all(|arg| {
                split_tails(&def.schedule, arg, stage > 0)
                    .iter()
                    .all(|split| {
                        matches!(
                            split.tail,
                            TailStrategy::GuardWithIf
                                | TailStrategy::Predicate
                                | TailStrategy::PredicateStores
                        )
                    })
            })
        })
    })
}

/// A split of dimension `arg` or of a loop made from it (`split_tails`).
struct SplitTail {
    /// Its tail strategy, as resolved.
    tail: TailStrategy,
    /// Whether the loop it splits has a constant extent (`arg` itself, or the inner loop of
    /// a split) rather than a rounded-up one (an outer or fused loop).
    constant_extent: bool,
    factor: Expr,
}

/// The splits of dimension `arg` and of the loops made from it, in the stage's loop
/// structure and in its specializations'.
fn split_tails(schedule: &StageSchedule, arg: Symbol, is_update: bool) -> Vec<SplitTail> {
    let mut tails = Vec::new();
    for structure in schedule.structures() {
        // The loops made from `arg`, with whether each has a constant extent.
        let mut derived = vec![(arg, true)];
        for split in &structure.splits {
            let from = |n: &Symbol| derived.iter().find(|(d, _)| d == n).map(|&(_, c)| c);
            match split {
                SplitDirective::Split {
                    old,
                    outer,
                    inner,
                    factor,
                    tail,
                    ..
                } => {
                    if let Some(constant) = from(old) {
                        tails.push(SplitTail {
                            tail: resolve_tail(*tail, is_update),
                            constant_extent: constant,
                            factor: factor.clone(),
                        });
                        derived.extend([(*outer, false), (*inner, true)]);
                    }
                }
                SplitDirective::Fuse {
                    inner,
                    outer,
                    fused,
                } => {
                    if from(inner).is_some() || from(outer).is_some() {
                        derived.push((*fused, false));
                    }
                }
            }
        }
    }
    tails
}

/// Whether the Funcs computed inside `func`'s production keep to what was planned for them
/// when `func` slides along `arg` (dimension `d`) over `v`: the loops over `arg` of the
/// stages that do not split it run over a part of the planned coordinates, each as planned;
/// every such Func is computed inside one of those loops, so its region follows a coordinate rather than `func`'s slid
/// region (from a later start, a region rounded up ends later than planned, past what the
/// Funcs it reads were sized for); and no storage inside the production moves with `v` (an
/// allocation sized from the planned region, in terms of `v`, would not hold the points
/// the loops reach from the slid one).
fn inner_funcs_follow_the_loop(
    f: &FunctionContents,
    d: usize,
    arg: Symbol,
    body: &Stmt,
    func: Symbol,
    v: Symbol,
    moves: &HashMap<Symbol, Monotonic>,
) -> bool {
    let mut arg_loops = HashSet::new();
    for stage in 0..f.stage_count() {
        let Some(def) = f.stage(stage) else {
            return false;
        };
        if def.args.get(d).and_then(Expr::as_var) != Some(arg) {
            return false;
        }
        // A split stage's loops over `arg` run over chunks, not the planned coordinates: a
        // Func computed inside them is refused below.
        if split_tails(&def.schedule, arg, stage > 0).is_empty() {
            arg_loops.insert(stage_var(func, stage, arg));
        }
    }
    struct Walk<'a> {
        func: Symbol,
        v: Symbol,
        arg_loops: &'a HashSet<Symbol>,
        moves: HashMap<Symbol, Monotonic>,
    }
    impl Walk<'_> {
        /// Whether `s` keeps to the plan; `producing`: inside `func`'s production, and
        /// `in_arg_loop`: inside one of its loops over `arg`.
        fn keeps(&mut self, s: &Stmt, producing: bool, in_arg_loop: bool) -> bool {
            let still = |m: Monotonic| m == Monotonic::Constant;
            match s.kind() {
                StmtKind::ProducerConsumer {
                    name,
                    is_producer: true,
                    body,
                } => {
                    if *name == self.func {
                        return self.keeps(body, true, in_arg_loop);
                    }
                    if producing && !in_arg_loop {
                        return false;
                    }
                    self.keeps(body, producing, in_arg_loop)
                }
                StmtKind::LetStmt { name, value, body } => {
                    let m = monotonicity(value, self.v, &self.moves);
                    let outer = self.moves.insert(*name, m);
                    let keeps = self.keeps(body, producing, in_arg_loop);
                    match outer {
                        Some(m) => self.moves.insert(*name, m),
                        None => self.moves.remove(name),
                    };
                    keeps
                }
                StmtKind::Realize { bounds, body, .. } => {
                    let sized_still = bounds.iter().all(|r| {
                        still(monotonicity(&r.min, self.v, &self.moves))
                            && still(monotonicity(&r.extent, self.v, &self.moves))
                    });
                    (!producing || sized_still) && self.keeps(body, producing, in_arg_loop)
                }
                StmtKind::For { name, body, .. } => {
                    let in_arg_loop = in_arg_loop || producing && self.arg_loops.contains(name);
                    self.keeps(body, producing, in_arg_loop)
                }
                _ => {
                    let mut keeps = true;
                    s.for_each_child(
                        |_| {},
                        |c| keeps = keeps && self.keeps(c, producing, in_arg_loop),
                    );
                    keeps
                }
            }
        }
    }
    Walk {
        func,
        v,
        arg_loops: &arg_loops,
        moves: moves.clone(),
    }
    .keeps(body, false, false)
}

/// The Funcs produced inside the production of `func` in `s`.
fn produced_inside(s: &Stmt, func: Symbol) -> Vec<Symbol> {
    fn producers(s: &Stmt, func: Symbol, inside: bool, found: &mut Vec<Symbol>) {
        let inside = match s.kind() {
            StmtKind::ProducerConsumer {
                name,
                is_producer: true,
                ..
            } => {
                if inside && !found.contains(name) {
                    found.push(*name);
                }
                inside || *name == func
            }
            _ => inside,
        };
        s.for_each_child(|_| {}, |c| producers(c, func, inside, found));
    }
    let mut found = Vec::new();
    producers(s, func, false, &mut found);
    found
}

/// A `produce g; consume g` pair: `g`, the production's body and the consumption's body.
fn produce_consume_pair(s: &Stmt) -> Option<(Symbol, &Stmt, &Stmt)> {
    let StmtKind::Block(stmts) = s.kind() else {
        return None;
    };
    match stmts.as_slice() {
        [produce, consume] => match (produce.kind(), consume.kind()) {
            (
                StmtKind::ProducerConsumer {
                    name,
                    is_producer: true,
                    body: produce,
                },
                StmtKind::ProducerConsumer {
                    is_producer: false,
                    body: consume,
                    ..
                },
            ) => Some((*name, produce, consume)),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `func` is produced in `s`.
fn produces(s: &Stmt, func: Symbol) -> bool {
    let mut found = false;
    visit_stmts(s, &mut |c| {
        found |= matches!(c.kind(), StmtKind::ProducerConsumer { name, is_producer: true, .. } if *name == func);
        !found
    });
    found
}

/// `s` with `name` (the region's min) replaced by `to` (its unslid value) everywhere but in
/// the production of `func`: the regions and storage of other Funcs were planned around the
/// unslid region, in lets of the chain and in allocations nested deeper alike.
fn substitute_outside_production(s: &Stmt, func: Symbol, name: Symbol, to: &Expr) -> Stmt {
    match s.kind() {
        StmtKind::ProducerConsumer {
            name: g,
            is_producer: true,
            ..
        } if *g == func => s.clone(),
        _ => s.map_children(
            |e| substitute(e, name, to),
            |c| substitute_outside_production(c, func, name, to),
        ),
    }
}

/// The way down to where `func` is computed (as `path_to_compute` walks it) with each let
/// `name = value` whose rewrite `f(name, value, rest of the way)` gives a statement replaced
/// by it (which must hold the rest); the others kept.
fn map_chain(
    s: &Stmt,
    func: Symbol,
    f: &mut dyn FnMut(Symbol, &Expr, &Stmt) -> Option<Stmt>,
) -> Stmt {
    match s.kind() {
        StmtKind::LetStmt { name, value, body } => match f(*name, value, body) {
            Some(replaced) => replaced,
            None => Stmt::let_stmt(*name, value.clone(), map_chain(body, func, f)),
        },
        StmtKind::Realize { .. } | StmtKind::For { .. } => {
            s.map_children(|e| e.clone(), |c| map_chain(c, func, f))
        }
        _ => match production_step(s, func) {
            Some((producing, _)) => {
                let StmtKind::Block(stmts) = s.kind() else {
                    unreachable!("a production step is a produce/consume pair")
                };
                let (produce, consume) = match producing {
                    Some(_) => (map_producer_consumer(&stmts[0], func, f), stmts[1].clone()),
                    None => (stmts[0].clone(), map_producer_consumer(&stmts[1], func, f)),
                };
                Stmt::new(StmtKind::Block(vec![produce, consume]))
            }
            None => s.clone(),
        },
    }
}

/// A produce or consume node with `map_chain` applied to its body.
fn map_producer_consumer(
    s: &Stmt,
    func: Symbol,
    f: &mut dyn FnMut(Symbol, &Expr, &Stmt) -> Option<Stmt>,
) -> Stmt {
    s.map_children(|e| e.clone(), |c| map_chain(c, func, f))
}
