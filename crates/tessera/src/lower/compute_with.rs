//! `compute_with` (Halide's): two Funcs computed at the same loop level share their outer
//! loops, so one iteration computes the points of both (and loads what both read once).
//!
//! The pass runs after the sliding window, when each Func's loop nest is final. Of the two
//! productions, the one that comes first hosts the fused nest: its loops from the outermost
//! down to the fused level take, each, the union of both Funcs' bounds; inside the innermost
//! one each Func's own body runs, guarded by its own bounds where they are not provably the
//! same as the union (guards marked likely, so loop partitioning drops them from the steady
//! iterations). The productions of Funcs computed at an outer fused loop stay in it, under
//! their own Func's guards. Vectorized and unrolled loops fuse only where both Funcs' bounds
//! are the same: their union need not have a constant extent. A specialized stage has the
//! other fused into each of its nests. The second production is left empty. The lets and
//! storage that lie between the two productions move above the first, so the second Func's
//! storage and bounds are in scope where it is now computed.

use std::collections::{HashMap, HashSet};

use super::names::stage_var;
use super::realization_order::{direct_callees, Environment};
use crate::error::{Error, Result};
use crate::ir::substitute::substitute_map;
use crate::ir::visit::reads_memory;
use crate::ir::{BinaryOp, Expr, ForKind, Range, Stmt, StmtKind, Symbol, Type};
use crate::lang::function::FunctionContents;
use crate::lang::math::likely;
use crate::lang::schedule::{find_dim, LoopLevel, OUTERMOST};

pub fn compute_with(s: &Stmt, env: &Environment) -> Result<Stmt> {
    let mut out = s.clone();
    for &name in &env.order {
        let Some(fused) = env.func(name).read().schedule.compute_with.clone() else {
            continue;
        };
        let pair = Pair::new(
            env,
            (name, fused.stage),
            (fused.with, fused.with_stage),
            fused.var,
        )?;
        out = pair.fuse(&out)?;
    }
    Ok(out)
}

/// What placing Funcs needs to know of the groups `compute_with` makes (Halide realizes each
/// group as one unit): which loops become one once fused, and the `Var::outermost()` level of
/// each fused stage, which all members share. The loops are fused only after placement (and
/// after the sliding window), so a Func computed at a fused loop is placed in the loop of
/// each member that uses it, and one computed at the outermost level of a fused stage where
/// the group is computed, just before it.
pub(super) struct FusedGroups {
    /// Each fused loop and where it is in its group.
    loops: HashMap<Symbol, FusedLoop>,
    /// The `Var::outermost()` level of each fused stage, with the Func its group is fused
    /// with (the one computed with no other).
    outermost: HashMap<Symbol, Symbol>,
}

/// A loop `compute_with` fuses with others.
struct FusedLoop {
    /// The Func it is a loop of.
    member: Symbol,
    /// The loop at the same depth of the Func the group is fused with, which all the loops
    /// fused with this one share.
    host_loop: Symbol,
    /// Whether it is the innermost loop fused in every pair it is fused in: the members'
    /// bodies in it then run one after the other, each in its own scope.
    innermost: bool,
}

impl FusedGroups {
    /// The groups of `env`'s schedules; pairs the compute_with pass will refuse are left out.
    pub(super) fn new(env: &Environment) -> FusedGroups {
        let mut groups = FusedGroups {
            loops: HashMap::new(),
            outermost: HashMap::new(),
        };
        for &f in &env.order {
            let Some(fused) = env.func(f).read().schedule.compute_with.clone() else {
                continue;
            };
            let Some(with) = env.funcs.get(&fused.with) else {
                continue;
            };
            let member_loops = fused_loops(&env.func(f).read(), fused.stage, fused.var);
            let host_loops = fused_loops(&with.read(), fused.with_stage, fused.var);
            let (Ok(member_loops), Ok(host_loops)) = (member_loops, host_loops) else {
                continue;
            };
            if member_loops.len() != host_loops.len() {
                continue;
            }
            for (member, stage) in [(f, fused.stage), (fused.with, fused.with_stage)] {
                groups
                    .outermost
                    .insert(stage_var(member, stage, Symbol::new(OUTERMOST)), fused.with);
            }
            let depth = host_loops.len();
            for (i, ((member_loop, _), (host_loop, _))) in
                member_loops.into_iter().zip(host_loops).enumerate()
            {
                let innermost = i + 1 == depth;
                groups.loops.insert(
                    member_loop,
                    FusedLoop {
                        member: f,
                        host_loop,
                        innermost,
                    },
                );
                let host = groups.loops.entry(host_loop).or_insert(FusedLoop {
                    member: fused.with,
                    host_loop,
                    innermost,
                });
                host.innermost &= innermost;
            }
        }
        groups
    }

    /// The loops fused with `loop_name` (itself included, if it is fused at all).
    pub(super) fn fused_with(&self, loop_name: Symbol) -> Vec<Symbol> {
        let Some(host) = self.loops.get(&loop_name).map(|l| l.host_loop) else {
            return Vec::new();
        };
        self.loops
            .iter()
            .filter(|(_, l)| l.host_loop == host)
            .map(|(name, _)| *name)
            .collect()
    }

    /// The Func the group is fused with, if `loop_name` is the `Var::outermost()` level of a
    /// fused stage.
    pub(super) fn group_of_outermost(&self, loop_name: Symbol) -> Option<Symbol> {
        self.outermost.get(&loop_name).copied()
    }

    /// Checks that `f`, placed (computed or stored, `what`) at `level` in the loops
    /// `chosen`, is placed in the loops of one member of a group, or only at loops fused
    /// innermost: at a loop with fused loops inside, the members' placements would nest,
    /// one Func's storage hiding the other's.
    pub(super) fn check_placement(
        &self,
        f: Symbol,
        what: &str,
        level: &LoopLevel,
        chosen: &[Symbol],
    ) -> Result<()> {
        let fused: Vec<&FusedLoop> = chosen.iter().filter_map(|l| self.loops.get(l)).collect();
        let Some(first) = fused.first() else {
            return Ok(());
        };
        let Some(other) = fused.iter().find(|l| l.member != first.member) else {
            return Ok(());
        };
        if fused.iter().all(|l| l.innermost) {
            return Ok(());
        }
        Err(Error::schedule(format!(
            "{f} is {what}d at {}, a loop that compute_with fuses with loops of other Funcs, and it is used by both {} and {}: it is placed in the loops of each, which can be done only at their innermost fused loop; {what} {f} there or outside the fused loops",
            level.describe(),
            first.member,
            other.member
        )))
    }
}

/// The loops of stage `stage` of `c` that `compute_with(.., var)` fuses, outermost first, by
/// their names in the loop nest, with their kinds (none for `Var::outermost()`: the stages
/// are only computed side by side); or why there are none.
fn fused_loops(
    c: &FunctionContents,
    stage: usize,
    var: Symbol,
) -> std::result::Result<Vec<(Symbol, ForKind)>, String> {
    let def = c.stage(stage).ok_or_else(|| {
        format!(
            "{} has no update definition {}",
            c.name,
            stage.saturating_sub(1)
        )
    })?;
    let dims = &def.schedule.dims;
    let at = if var.as_str() == OUTERMOST {
        dims.len()
    } else {
        find_dim(dims, var).map_err(|e| format!("in {}: {e}", describe_stage(c.name, stage)))?
    };
    Ok(dims[at..]
        .iter()
        .rev()
        .map(|d| (stage_var(c.name, stage, d.name), d.kind))
        .collect())
}

/// The two Funcs and, for each, the stage fused and the names of its loops to fuse,
/// outermost first.
struct Pair {
    f: Symbol,
    g: Symbol,
    var: Symbol,
    stages: HashMap<Symbol, usize>,
    /// How many stages each Func has.
    stage_counts: HashMap<Symbol, usize>,
    loops: HashMap<Symbol, Vec<Symbol>>,
    /// The Funcs each of the two uses, directly or through others.
    uses: HashMap<Symbol, HashSet<Symbol>>,
}

impl Pair {
    /// Checks that `f.compute_with(g, var)` can be done and finds the loops it fuses.
    fn new(
        env: &Environment,
        (f, f_stage): (Symbol, usize),
        (g, g_stage): (Symbol, usize),
        var: Symbol,
    ) -> Result<Pair> {
        let stages: HashMap<Symbol, usize> = [(f, f_stage), (g, g_stage)].into();
        let err = |why: String| {
            Error::schedule(format!(
                "{}.compute_with({}, {var}): {why}",
                describe_stage(f, f_stage),
                describe_stage(g, g_stage)
            ))
        };
        if !env.funcs.contains_key(&g) {
            return Err(err(format!("{g} is not computed by this pipeline")));
        }
        if f == env.output || g == env.output {
            return Err(err(format!(
                "the output {} is computed in its own loops; fuse the Funcs it uses",
                env.output
            )));
        }
        let (fc, gc) = (env.func(f).read(), env.func(g).read());
        let level = |c: &FunctionContents| c.schedule.compute_level.clone();
        if !same_level(&level(&fc), &level(&gc)) {
            return Err(err(format!(
                "both must be computed at the same loop level, but {f} is computed at {} and {g} at {}",
                level(&fc).describe(),
                level(&gc).describe()
            )));
        }
        if gc.schedule.compute_with.is_some() {
            return Err(err(format!(
                "{g} is itself computed with another Func; fuse each Func with the same one"
            )));
        }
        // Stages of `g` before the fused one are computed before the fused nest, so a Func
        // fused with them cannot join a later one too.
        if env.order.iter().any(|&other| {
            other != f
                && env
                    .func(other)
                    .read()
                    .schedule
                    .compute_with
                    .as_ref()
                    .is_some_and(|w| w.with == g && w.with_stage != g_stage)
        }) {
            return Err(err(format!(
                "another Func is computed with a different stage of {g}; fuse every Func with the same stage"
            )));
        }
        let mut loops: HashMap<Symbol, Vec<Symbol>> = HashMap::new();
        let mut kinds = Vec::new();
        for c in [&fc, &gc] {
            let outer = fused_loops(c, stages[&c.name], var).map_err(err)?;
            kinds.push(outer.iter().map(|(_, kind)| *kind).collect::<Vec<_>>());
            loops.insert(c.name, outer.into_iter().map(|(name, _)| name).collect());
        }
        if kinds[0] != kinds[1] {
            return Err(err(format!(
                "the loops down to {var} differ: {f} has {} and {g} {}",
                describe(&loops[&f], &kinds[0]),
                describe(&loops[&g], &kinds[1])
            )));
        }
        let uses: HashMap<Symbol, HashSet<Symbol>> =
            [f, g].into_iter().map(|n| (n, used_by(env, n))).collect();
        for (a, b) in [(f, g), (g, f)] {
            if uses[&a].contains(&b) {
                return Err(err(format!(
                    "{a} uses {b}, so {b} must be computed before it, not with it"
                )));
            }
        }
        let stage_counts = [(f, fc.stage_count()), (g, gc.stage_count())].into();
        Ok(Pair {
            f,
            g,
            var,
            stages,
            stage_counts,
            loops,
            uses,
        })
    }

    fn err(&self, why: impl std::fmt::Display) -> Error {
        Error::schedule(format!(
            "{}.compute_with({}, {}): {why}",
            describe_stage(self.f, self.stages[&self.f]),
            describe_stage(self.g, self.stages[&self.g]),
            self.var
        ))
    }

    /// `s` with the two productions fused.
    fn fuse(&self, s: &Stmt) -> Result<Stmt> {
        let (first, second) = match first_produced(s, self.f, self.g) {
            Some(first) if first == self.f => (self.f, self.g),
            Some(_) => (self.g, self.f),
            None => return Ok(s.clone()),
        };
        let mut lets = HashMap::new();
        self.rewrite(s, first, second, &mut lets)?
            .ok_or_else(|| self.err(format!("{second} is not computed next to {first}")))
    }

    /// `s` with the production of `first` hosting that of `second`, if `s` holds it; `lets`
    /// are the lets in scope.
    fn rewrite(
        &self,
        s: &Stmt,
        first: Symbol,
        second: Symbol,
        lets: &mut HashMap<Symbol, Expr>,
    ) -> Result<Option<Stmt>> {
        match s.kind() {
            StmtKind::Block(stmts) => {
                if let Some(i) = stmts.iter().position(|c| is_producer(c, first)) {
                    let rest = Stmt::block(stmts[i + 1..].iter().cloned());
                    let mut moved = Vec::new();
                    let Some((rest, second_body)) = self.extract(&rest, second, &mut moved)? else {
                        return Err(self.err(format!(
                            "{second} is computed inside a loop or branch that {first} is not"
                        )));
                    };
                    for m in &moved {
                        if let Moved::Let(name, value) = m {
                            lets.insert(*name, value.clone());
                        }
                    }
                    let StmtKind::ProducerConsumer { body, .. } = stmts[i].kind() else {
                        unreachable!("is_producer matched a production")
                    };
                    let host = Stmt::new(StmtKind::ProducerConsumer {
                        name: first,
                        is_producer: true,
                        body: self.fuse_productions(first, second, body, &second_body, lets)?,
                    });
                    let tail = moved
                        .into_iter()
                        .rev()
                        .fold(Stmt::block([host, rest]), |body, m| m.wrap(body));
                    return Ok(Some(Stmt::block(
                        stmts[..i].iter().cloned().chain(std::iter::once(tail)),
                    )));
                }
                for (i, c) in stmts.iter().enumerate() {
                    if let Some(new) = self.rewrite(c, first, second, lets)? {
                        let mut out = stmts.clone();
                        out[i] = new;
                        return Ok(Some(Stmt::block(out)));
                    }
                }
                Ok(None)
            }
            StmtKind::LetStmt { name, value, body } => {
                lets.insert(*name, value.clone());
                let inner = self.rewrite(body, first, second, lets)?;
                Ok(inner.map(|b| Stmt::let_stmt(*name, value.clone(), b)))
            }
            _ => {
                let mut children = Vec::new();
                s.for_each_child(|_| {}, |c| children.push(c.clone()));
                let mut found = None;
                for c in &children {
                    if let Some(new) = self.rewrite(c, first, second, lets)? {
                        found = Some((c.clone(), new));
                        break;
                    }
                }
                Ok(found.map(|(old, new)| {
                    s.map_children(
                        |e| e.clone(),
                        |c| {
                            if c.same_as(&old) {
                                new.clone()
                            } else {
                                c.clone()
                            }
                        },
                    )
                }))
            }
        }
    }

    /// The body of the fused production: the stages of both Funcs before the fused ones,
    /// the fused nest, then the stages of both after them (each Func's own stages keep
    /// their order; the two Funcs do not use each other).
    fn fuse_productions(
        &self,
        first: Symbol,
        second: Symbol,
        first_body: &Stmt,
        second_body: &Stmt,
        lets: &mut HashMap<Symbol, Expr>,
    ) -> Result<Stmt> {
        let (first_lets, first_stages) = self.split_stages(first, first_body)?;
        let (second_lets, second_stages) = self.split_stages(second, second_body)?;
        for (name, value) in first_lets.iter().chain(&second_lets) {
            lets.insert(*name, value.clone());
        }
        let nest = if self.loops[&first].is_empty() {
            Stmt::block([first_stages.fused, second_stages.fused])
        } else {
            self.fuse_specializations(
                first,
                second,
                &first_stages.fused,
                &second_stages.fused,
                lets,
            )?
        };
        let body = Stmt::block(
            first_stages
                .before
                .into_iter()
                .chain(second_stages.before)
                .chain([nest])
                .chain(first_stages.after)
                .chain(second_stages.after),
        );
        Ok(first_lets
            .into_iter()
            .chain(second_lets)
            .rev()
            .fold(body, |s, (n, v)| Stmt::let_stmt(n, v, s)))
    }

    /// The lets at the top of `func`'s production `body` and its statements around the one
    /// computing the fused stage (found by its loops, or, fusing no loop, by its place).
    fn split_stages(&self, func: Symbol, body: &Stmt) -> Result<(Vec<(Symbol, Expr)>, Stages)> {
        let (lets, body) = peel_lets(body);
        let stmts = match body.kind() {
            StmtKind::Block(stmts) => stmts.clone(),
            _ => vec![body.clone()],
        };
        let stage = self.stages[&func];
        let prefix = format!("{func}.s{stage}.");
        let at = if self.loops[&func].is_empty() {
            // The statements of the Funcs fused into it before do not write `func`.
            let own: Vec<usize> = (0..stmts.len())
                .filter(|&i| writes(&stmts[i], func))
                .collect();
            (own.len() == self.stage_counts[&func]).then(|| own[stage])
        } else {
            stmts.iter().position(|s| has_loop_named(s, &prefix))
        };
        let Some(at) = at else {
            return Err(self.err(format!(
                "stage {stage} of {func} is not computed on its own in its production (a sliding window or skipped stage changed it)"
            )));
        };
        Ok((
            lets,
            Stages {
                before: stmts[..at].to_vec(),
                fused: stmts[at].clone(),
                after: stmts[at + 1..].to_vec(),
            },
        ))
    }

    /// Finds the production of `second` in `s` (which follows the production of the host)
    /// along lets, storage, consumer marks and blocks: `s` with that production emptied and
    /// the lets and storage on the way removed (pushed to `moved`, outermost first), and the
    /// production's body.
    fn extract(
        &self,
        s: &Stmt,
        second: Symbol,
        moved: &mut Vec<Moved>,
    ) -> Result<Option<(Stmt, Stmt)>> {
        match s.kind() {
            StmtKind::ProducerConsumer {
                name,
                is_producer: true,
                body,
            } if *name == second => Ok(Some((
                Stmt::new(StmtKind::ProducerConsumer {
                    name: *name,
                    is_producer: true,
                    body: Stmt::empty(),
                }),
                body.clone(),
            ))),
            StmtKind::ProducerConsumer {
                name,
                is_producer: false,
                body,
            } => Ok(self.extract(body, second, moved)?.map(|(b, found)| {
                let consumer = Stmt::new(StmtKind::ProducerConsumer {
                    name: *name,
                    is_producer: false,
                    body: b,
                });
                (consumer, found)
            })),
            StmtKind::LetStmt { name, value, body } => {
                if reads_memory(value) {
                    return Ok(None);
                }
                moved.push(Moved::Let(*name, value.clone()));
                let found = self.extract(body, second, moved)?;
                if found.is_none() {
                    moved.pop();
                }
                Ok(found)
            }
            StmtKind::Realize {
                func,
                types,
                bounds,
                body,
            } => {
                moved.push(Moved::Realize(*func, types.clone(), bounds.clone()));
                let found = self.extract(body, second, moved)?;
                if found.is_none() {
                    moved.pop();
                }
                Ok(found)
            }
            StmtKind::Block(stmts) => {
                for (i, c) in stmts.iter().enumerate() {
                    if let Some((c, found)) = self.extract(c, second, moved)? {
                        // Productions passed on the way now run after the fused one.
                        let mut passed = Vec::new();
                        stmts[..i]
                            .iter()
                            .for_each(|b| collect_produced(b, &mut passed));
                        if let Some(h) = passed.iter().find(|h| self.uses[&second].contains(h)) {
                            return Err(self.err(format!(
                                "{second} uses {h}, which is computed between the two"
                            )));
                        }
                        let mut out = stmts.clone();
                        out[i] = c;
                        return Ok(Some((Stmt::block(out), found)));
                    }
                }
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    /// The fused stages' statements `a` (of `first`) and `b` (of `second`) as one loop nest.
    /// A specialized stage (`if (c) nest else other`, each nest keeping the fused loops) has
    /// the other stage fused into each of its nests.
    fn fuse_specializations(
        &self,
        first: Symbol,
        second: Symbol,
        a: &Stmt,
        b: &Stmt,
        lets: &mut HashMap<Symbol, Expr>,
    ) -> Result<Stmt> {
        for (s, is_first) in [(a, true), (b, false)] {
            if let StmtKind::IfThenElse {
                condition,
                then_case,
                else_case: Some(else_case),
            } = s.kind()
            {
                let mut fuse = |branch: &Stmt| {
                    let (a, b) = if is_first { (branch, b) } else { (a, branch) };
                    self.fuse_specializations(first, second, a, b, lets)
                };
                return Ok(Stmt::new(StmtKind::IfThenElse {
                    condition: condition.clone(),
                    then_case: fuse(then_case)?,
                    else_case: Some(fuse(else_case)?),
                }));
            }
        }
        self.fuse_loops(first, second, a, b, 0, Vec::new(), Vec::new(), lets)
    }

    /// The loop nests `a` (of `first`) and `b` (of `second`) fused from loop level `depth`
    /// down, each body under the guards of the outer levels (`a_guards`, `b_guards`); `lets`
    /// are the lets in scope, to compare bounds through. Each loop may be found below
    /// statements of its own Func's nest (the productions of Funcs computed at the enclosing
    /// level, their storage, lets): those of `a` enclose those of `b` around the fused loop,
    /// each run under its own Func's guards.
    #[allow(clippy::too_many_arguments)]
    fn fuse_loops(
        &self,
        first: Symbol,
        second: Symbol,
        a: &Stmt,
        b: &Stmt,
        depth: usize,
        a_guards: Vec<Expr>,
        b_guards: Vec<Expr>,
        lets: &mut HashMap<Symbol, Expr>,
    ) -> Result<Stmt> {
        let (a_name, b_name) = (self.loops[&first][depth], self.loops[&second][depth]);
        let missing = |name: Symbol| {
            self.err(format!(
                "the loop {name} is not at the top of its Func's computation (only productions, storage and lets may come before it)"
            ))
        };
        let a_context = conjunction(&a_guards);
        let b_context = conjunction(&b_guards);
        replace_loop(a, a_name, a_context.as_ref(), lets, &mut |a_loop, lets| {
            replace_loop(b, b_name, b_context.as_ref(), lets, &mut |b_loop, lets| {
                self.fuse_loop_pair(
                    first,
                    second,
                    (a_loop, b_loop),
                    depth,
                    a_guards.clone(),
                    b_guards.clone(),
                    lets,
                )
            })?
            .ok_or_else(|| missing(b_name))
        })?
        .ok_or_else(|| missing(a_name))
    }

    /// The loops `a_loop` and `b_loop` at level `depth` as one, their bodies fused further
    /// down (see `fuse_loops`).
    #[allow(clippy::too_many_arguments)]
    fn fuse_loop_pair(
        &self,
        first: Symbol,
        second: Symbol,
        (a_loop, b_loop): (&Stmt, &Stmt),
        depth: usize,
        mut a_guards: Vec<Expr>,
        mut b_guards: Vec<Expr>,
        lets: &mut HashMap<Symbol, Expr>,
    ) -> Result<Stmt> {
        let loop_parts = |s: &Stmt| match s.kind() {
            StmtKind::For {
                name,
                min,
                extent,
                kind,
                body,
            } => (*name, min.clone(), extent.clone(), *kind, body.clone()),
            _ => unreachable!("replace_loop passes the loop it found"),
        };
        let (a_name, a_min, a_extent, kind, a_body) = loop_parts(a_loop);
        let (b_name, b_min, b_extent, b_kind, b_body) = loop_parts(b_loop);
        if kind != b_kind {
            // Checked for the unspecialized schedules already; a specialization may differ.
            return Err(self.err(format!(
                "the loop {a_name} is {} but {b_name} is {}; fused loops must be of one kind",
                kind.keyword(),
                b_kind.keyword()
            )));
        }
        // Inside the fused loop, the second Func's loop variable is the first's.
        let i32_var = |n: Symbol| Expr::var(n, Type::i32());
        lets.insert(b_name, i32_var(a_name));
        let add = |x: &Expr, y: &Expr| Expr::binary(BinaryOp::Add, x.clone(), y.clone());
        let (a_end, b_end) = (add(&a_min, &a_extent), add(&b_min, &b_extent));
        let same = equal_through(&a_min, &b_min, lets) && equal_through(&a_end, &b_end, lets);
        let (min, extent) = if same {
            (a_min, a_extent)
        } else if matches!(kind, ForKind::Vectorized | ForKind::Unrolled) {
            // A union of two constant-extent loops need not have a constant extent, and its
            // guards would split the vectors and unrolled copies (Halide fuses such loops
            // only when their widths match).
            return Err(self.err(format!(
                "the loops {a_name} (from {a_min}, extent {a_extent}) and {b_name} (from {b_min}, extent {b_extent}) are {} but cover different iterations; vectorized and unrolled loops fuse only when their bounds are the same",
                kind.keyword()
            )));
        } else {
            // The union, each body guarded by its own bounds.
            let within = |v: Symbol, lo: &Expr, end: &Expr| {
                likely(Expr::binary(
                    BinaryOp::And,
                    Expr::binary(BinaryOp::Le, lo.clone(), i32_var(v)),
                    Expr::binary(BinaryOp::Lt, i32_var(v), end.clone()),
                ))
            };
            a_guards.push(within(a_name, &a_min, &a_end));
            b_guards.push(within(b_name, &b_min, &b_end));
            let min = Expr::binary(BinaryOp::Min, a_min, b_min);
            let end = Expr::binary(BinaryOp::Max, a_end, b_end);
            (min.clone(), Expr::binary(BinaryOp::Sub, end, min))
        };
        let inner = if depth + 1 < self.loops[&first].len() {
            self.fuse_loops(
                first,
                second,
                &a_body,
                &b_body,
                depth + 1,
                a_guards,
                b_guards,
                lets,
            )?
        } else {
            Stmt::block([
                guarded(a_body, conjunction(&a_guards)),
                guarded(b_body, conjunction(&b_guards)),
            ])
        };
        let body = Stmt::let_stmt(b_name, i32_var(a_name), inner);
        Ok(Stmt::for_loop(a_name, min, extent, kind, body))
    }
}

/// What a loop found by `replace_loop` becomes, given the lets in scope.
type LoopReplacement<'a> = dyn FnMut(&Stmt, &mut HashMap<Symbol, Expr>) -> Result<Stmt> + 'a;

/// `s` with the loop `name` replaced by `replace(loop, lets)`, if `s` holds it along lets,
/// storage, production marks and blocks; the lets on the way are added to `lets`, and the
/// other statements of the blocks on the way run only where `guard` holds.
fn replace_loop(
    s: &Stmt,
    name: Symbol,
    guard: Option<&Expr>,
    lets: &mut HashMap<Symbol, Expr>,
    replace: &mut LoopReplacement,
) -> Result<Option<Stmt>> {
    match s.kind() {
        StmtKind::For { name: n, .. } if *n == name => replace(s, lets).map(Some),
        StmtKind::LetStmt {
            name: n,
            value,
            body,
        } => {
            lets.insert(*n, value.clone());
            let body = replace_loop(body, name, guard, lets, replace)?;
            Ok(body.map(|b| Stmt::let_stmt(*n, value.clone(), b)))
        }
        StmtKind::Realize { body, .. } | StmtKind::ProducerConsumer { body, .. } => {
            let body = replace_loop(body, name, guard, lets, replace)?;
            Ok(body.map(|b| s.map_children(|e| e.clone(), |_| b.clone())))
        }
        StmtKind::Block(stmts) => {
            for (i, c) in stmts.iter().enumerate() {
                if let Some(new) = replace_loop(c, name, guard, lets, replace)? {
                    let others = |c: &Stmt| guarded(c.clone(), guard.cloned());
                    return Ok(Some(Stmt::block(
                        stmts[..i]
                            .iter()
                            .map(others)
                            .chain([new])
                            .chain(stmts[i + 1..].iter().map(others)),
                    )));
                }
            }
            Ok(None)
        }
        _ => Ok(None),
    }
}

/// The conjunction of `conditions`, if any.
fn conjunction(conditions: &[Expr]) -> Option<Expr> {
    conditions
        .iter()
        .cloned()
        .reduce(|x, y| Expr::binary(BinaryOp::And, x, y))
}

/// `body` run only where `condition` holds, if there is one.
fn guarded(body: Stmt, condition: Option<Expr>) -> Stmt {
    match condition {
        Some(c) => Stmt::if_then(c, body),
        None => body,
    }
}

/// The statements of a production: those before the fused stage, the fused stage's, and
/// those after it.
struct Stages {
    before: Vec<Stmt>,
    fused: Stmt,
    after: Vec<Stmt>,
}

/// `f` or `f.update(k)`, as the user names a stage.
fn describe_stage(func: Symbol, stage: usize) -> String {
    match stage {
        0 => func.to_string(),
        k => format!("{func}.update({})", k - 1),
    }
}

/// Whether `s` holds a loop whose name starts with `prefix`.
fn has_loop_named(s: &Stmt, prefix: &str) -> bool {
    if let StmtKind::For { name, .. } = s.kind() {
        if name.as_str().starts_with(prefix) {
            return true;
        }
    }
    let mut found = false;
    s.for_each_child(|_| {}, |c| found = found || has_loop_named(c, prefix));
    found
}

/// Whether `s` writes a point of `func`.
fn writes(s: &Stmt, func: Symbol) -> bool {
    if let StmtKind::Provide { func: f, .. } = s.kind() {
        if *f == func {
            return true;
        }
    }
    let mut found = false;
    s.for_each_child(|_| {}, |c| found = found || writes(c, func));
    found
}

/// A let or a storage moved above the host production.
enum Moved {
    Let(Symbol, Expr),
    Realize(Symbol, Vec<Type>, Vec<Range>),
}

impl Moved {
    fn wrap(self, body: Stmt) -> Stmt {
        match self {
            Moved::Let(name, value) => Stmt::let_stmt(name, value, body),
            Moved::Realize(func, types, bounds) => Stmt::new(StmtKind::Realize {
                func,
                types,
                bounds,
                body,
            }),
        }
    }
}

/// Whether two compute levels are the same loop (a level naming no stage means the stage
/// that uses the Func; if that is another stage, the productions are not next to each other,
/// which fusing finds). No two Funcs are inlined together.
fn same_level(a: &LoopLevel, b: &LoopLevel) -> bool {
    match (a, b) {
        (LoopLevel::Root, LoopLevel::Root) => true,
        (
            LoopLevel::At {
                func: fa,
                stage: sa,
                var: va,
                ..
            },
            LoopLevel::At {
                func: fb,
                stage: sb,
                var: vb,
                ..
            },
        ) => fa == fb && va == vb && (sa == sb || sa.is_none() || sb.is_none()),
        _ => false,
    }
}

/// The lets at the top of `s` and the statement below them.
fn peel_lets(s: &Stmt) -> (Vec<(Symbol, Expr)>, Stmt) {
    let mut lets = Vec::new();
    let mut s = s.clone();
    while let StmtKind::LetStmt { name, value, body } = s.kind() {
        lets.push((*name, value.clone()));
        s = body.clone();
    }
    (lets, s)
}

/// Whether `a` and `b` are the same once the lets in scope are substituted.
fn equal_through(a: &Expr, b: &Expr, lets: &HashMap<Symbol, Expr>) -> bool {
    let expand = |e: &Expr| {
        let mut e = e.clone();
        for _ in 0..16 {
            let next = substitute_map(&e, lets);
            if next == e {
                break;
            }
            e = next;
        }
        crate::simplify::simplify(&e)
    };
    expand(a) == expand(b)
}

fn is_producer(s: &Stmt, func: Symbol) -> bool {
    matches!(s.kind(), StmtKind::ProducerConsumer { name, is_producer: true, .. } if *name == func)
}

/// Which of `f` and `g` is produced first in `s`.
fn first_produced(s: &Stmt, f: Symbol, g: Symbol) -> Option<Symbol> {
    if let StmtKind::ProducerConsumer {
        name,
        is_producer: true,
        ..
    } = s.kind()
    {
        if *name == f || *name == g {
            return Some(*name);
        }
    }
    let mut found = None;
    s.for_each_child(
        |_| {},
        |c| {
            if found.is_none() {
                found = first_produced(c, f, g);
            }
        },
    );
    found
}

fn collect_produced(s: &Stmt, out: &mut Vec<Symbol>) {
    if let StmtKind::ProducerConsumer {
        name,
        is_producer: true,
        ..
    } = s.kind()
    {
        out.push(*name);
    }
    s.for_each_child(|_| {}, |c| collect_produced(c, out));
}

/// The Funcs `f`'s definitions use, directly or through other Funcs.
fn used_by(env: &Environment, f: Symbol) -> HashSet<Symbol> {
    let mut stack = vec![f];
    let mut used = HashSet::new();
    while let Some(n) = stack.pop() {
        for callee in direct_callees(env.func(n)) {
            let c = callee.name();
            if env.funcs.contains_key(&c) && used.insert(c) {
                stack.push(c);
            }
        }
    }
    used
}

fn describe(loops: &[Symbol], kinds: &[ForKind]) -> String {
    loops
        .iter()
        .zip(kinds)
        .map(|(l, k)| format!("{} {l}", k.keyword()))
        .collect::<Vec<_>>()
        .join(", ")
}
