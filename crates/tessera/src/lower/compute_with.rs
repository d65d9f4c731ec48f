//! `compute_with` (Halide's): stages of Funcs computed at the same loop level share their
//! outer loops, so one iteration computes the points of each (and loads what they read
//! once).
//!
//! Each stage may be computed with one stage of another Func (its host); Funcs linked so
//! form a group realized as one production. Outputs of a pipeline may be members (computed
//! at root, whatever their schedule says): each still writes only its own buffer's region. The pass runs after the sliding window, when
//! each Func's loop nest is final. The production that comes first hosts the group; the
//! others are left empty, and the lets and storage between them move above the first, so
//! every member's storage and bounds are in scope where it is now computed. Each member's
//! production is cut into its fused stages and the runs of unfused stages between them,
//! and these are ordered as Halide orders a group's stages: each Func's stages in order, a
//! stage after its host, and the earlier stages of a Func before the host of its later
//! ones (no order is a cycle, refused). Each host stage's nest takes in its members' nests,
//! the deepest fused first: its loops from the outermost down to the fused level take,
//! each, the union of the bounds fused there; inside the innermost one each stage's own
//! body runs, guarded by its own bounds where they are not provably the same as the union
//! (guards marked likely, so loop partitioning drops them from the steady iterations). The
//! productions of Funcs computed at an outer fused loop stay in it, under their own stage's
//! guards, but for those computed there for several members (placed once, in the loop of
//! the first: `FusedGroups`), which run in every iteration, unguarded, with the other
//! members' code inside their scope (`bounds_inference` makes their region the union of what
//! the members running in an iteration need, empty where none runs). Vectorized and unrolled loops fuse only where both stages' bounds are the same:
//! their union need not have a constant extent. A specialized stage has the other fused
//! into each of its nests.

use std::collections::{HashMap, HashSet};

use super::names::stage_var;
use super::realization_order::{direct_callees, Environment};
use super::schedule_functions::level_loops;
use crate::error::{Error, Result};
use crate::ir::substitute::substitute_map;
use crate::ir::visit::{any_stmt, reads_memory};
use crate::ir::{BinaryOp, Expr, ForKind, Range, Stmt, StmtKind, Symbol, Type};
use crate::lang::function::FunctionContents;
use crate::lang::math::likely;
use crate::lang::schedule::{find_dim, LoopLevel, OUTERMOST};

pub fn compute_with(s: &Stmt, env: &Environment) -> Result<Stmt> {
    let mut out = s.clone();
    for group in Group::all(env)? {
        out = group.fuse(&out)?;
    }
    Ok(out)
}

/// The `compute_with` requests of `env`'s Funcs: each Func with its stage, the stage it
/// joins, and the innermost loop fused.
fn requests(env: &Environment) -> Vec<(StageId, StageId, Symbol)> {
    env.order
        .iter()
        .flat_map(|&f| {
            let fused = env.func(f).read().schedule.compute_with.clone();
            fused
                .into_iter()
                .map(move |w| ((f, w.stage), (w.with, w.with_stage), w.var))
        })
        .collect()
}

/// What placing Funcs needs to know of the groups `compute_with` makes (Halide realizes each
/// group as one unit): which loops become one once fused, and the `Var::outermost()` level of
/// each fused stage, which all members share. The loops are fused only after placement (and
/// after the sliding window), so a Func computed at a fused loop is placed in the loop of
/// the member that uses it, or, used by several, once, in the loop of the first of them to
/// run (its lead): bounds inference gives it the union of what all of them need there
/// (`bounds_inference`), and fusing puts the others' bodies inside it. One computed at the
/// outermost level of a fused stage is placed where the group is computed, just before it.
pub(super) struct FusedGroups {
    /// Each fused loop and where it is in its group.
    loops: HashMap<Symbol, FusedLoop>,
    /// The `Var::outermost()` level of each fused stage, with the Func its stage is fused
    /// with (the host's).
    outermost: HashMap<Symbol, Symbol>,
}

/// A loop `compute_with` fuses with others.
struct FusedLoop {
    /// Where its stage runs in the fused body: the Func's place in the realization order,
    /// then the stage (the first to run leads the fused loop).
    rank: (usize, usize),
    /// The loop at the same depth of the host stage, which all the loops fused with this
    /// one share.
    host_loop: Symbol,
}

impl FusedGroups {
    /// The groups of `env`'s schedules; pairs the compute_with pass will refuse are left out.
    pub(super) fn new(env: &Environment) -> FusedGroups {
        let mut groups = FusedGroups {
            loops: HashMap::new(),
            outermost: HashMap::new(),
        };
        let rank = |f: Symbol, stage: usize| {
            let position = env.order.iter().position(|&o| o == f);
            (position.unwrap_or(usize::MAX), stage)
        };
        for ((f, f_stage), (with, with_stage), var) in requests(env) {
            let Some(host) = env.funcs.get(&with) else {
                continue;
            };
            let member_loops = fused_loops(&env.func(f).read(), f_stage, var);
            let host_loops = fused_loops(&host.read(), with_stage, var);
            let (Ok(member_loops), Ok(host_loops)) = (member_loops, host_loops) else {
                continue;
            };
            if member_loops.len() != host_loops.len() {
                continue;
            }
            for (func, stage) in [(f, f_stage), (with, with_stage)] {
                groups
                    .outermost
                    .insert(stage_var(func, stage, Symbol::new(OUTERMOST)), with);
            }
            for ((member_loop, _), (host_loop, _)) in member_loops.into_iter().zip(host_loops) {
                groups.loops.insert(
                    member_loop,
                    FusedLoop {
                        rank: rank(f, f_stage),
                        host_loop,
                    },
                );
                groups.loops.entry(host_loop).or_insert(FusedLoop {
                    rank: rank(with, with_stage),
                    host_loop,
                });
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

    /// Whether `loop_name` is a loop fused with loops of other stages.
    pub(super) fn is_fused(&self, loop_name: Symbol) -> bool {
        self.loops.contains_key(&loop_name)
    }

    /// `chosen`, the loops a Func is placed at (one per loop nest around its uses), with
    /// those of the fused loops that belong to several stages moved to the stage that runs
    /// first among them: the Func is computed (or stored) once for all of them, in that
    /// stage's loop at the same depth. Placed in several stages' loops, the placements
    /// would nest once the loops are fused, one hiding the other.
    pub(super) fn placed_once(&self, chosen: &[Symbol]) -> Vec<Symbol> {
        let fused: Vec<&FusedLoop> = chosen.iter().filter_map(|l| self.loops.get(l)).collect();
        let Some(lead) = fused.iter().map(|l| l.rank).min() else {
            return chosen.to_vec();
        };
        if fused.iter().all(|l| l.rank == lead) {
            return chosen.to_vec();
        }
        let lead_loop = |l: Symbol| {
            let Some(host) = self.loops.get(&l).map(|f| f.host_loop) else {
                return l;
            };
            let found = self
                .loops
                .iter()
                .find(|(_, f)| f.host_loop == host && f.rank == lead);
            found.map_or(l, |(name, _)| *name)
        };
        chosen.iter().map(|&l| lead_loop(l)).collect()
    }
}

/// The Funcs of `env` computed at a loop `compute_with` fuses with others.
pub(super) fn computed_at_fused_loops(env: &Environment) -> Vec<Symbol> {
    let groups = FusedGroups::new(env);
    if groups.loops.is_empty() {
        return Vec::new();
    }
    env.order
        .iter()
        .copied()
        .filter(|&f| {
            let LoopLevel::At {
                func, stage, var, ..
            } = env.func(f).read().schedule.compute_level.clone()
            else {
                return false;
            };
            let Some(consumer) = env.funcs.get(&func) else {
                return false;
            };
            let loops = level_loops(&consumer.read(), stage, var);
            loops.into_iter().flatten().any(|l| groups.is_fused(l))
        })
        .collect()
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

/// A stage of a Func: the Func and its stage index (0 = pure, k = update k-1).
type StageId = (Symbol, usize);

/// `member.compute_with(host, var)`, checked, with the names of the loops of both stages
/// that become one, outermost first.
struct Fusion {
    member: StageId,
    host: StageId,
    var: Symbol,
    member_loops: Vec<Symbol>,
    host_loops: Vec<Symbol>,
}

impl Fusion {
    /// Checks what `member.compute_with(host, var)` needs of the two stages alone and finds
    /// the loops it fuses.
    fn new(env: &Environment, member: StageId, host: StageId, var: Symbol) -> Result<Fusion> {
        let ((f, f_stage), (g, g_stage)) = (member, host);
        let err = |why: String| Fusion::error(member, host, var, why);
        if !env.funcs.contains_key(&g) {
            return Err(err(format!("{g} is not computed by this pipeline")));
        }
        let (fc, gc) = (env.func(f).read(), env.func(g).read());
        // An output is computed at root whatever its schedule says (inline by default).
        let level = |c: &FunctionContents| {
            if env.is_output(c.name) {
                LoopLevel::Root
            } else {
                c.schedule.compute_level.clone()
            }
        };
        if !same_level(&level(&fc), &level(&gc)) {
            return Err(err(format!(
                "both must be computed at the same loop level, but {f} is computed at {} and {g} at {}",
                level(&fc).describe(),
                level(&gc).describe()
            )));
        }
        if let Some(chain) = gc.schedule.compute_with_of(g_stage) {
            return Err(err(format!(
                "{} is itself computed with {}; compute both with that stage",
                describe_stage(g, g_stage),
                describe_stage(chain.with, chain.with_stage)
            )));
        }
        let f_loops = fused_loops(&fc, f_stage, var).map_err(err)?;
        let g_loops = fused_loops(&gc, g_stage, var).map_err(err)?;
        let kinds = |loops: &[(Symbol, ForKind)]| loops.iter().map(|l| l.1).collect::<Vec<_>>();
        if kinds(&f_loops) != kinds(&g_loops) {
            return Err(err(format!(
                "the loops down to {var} differ: {f} has {} and {g} {}",
                describe(&f_loops),
                describe(&g_loops)
            )));
        }
        let names = |loops: Vec<(Symbol, ForKind)>| loops.into_iter().map(|l| l.0).collect();
        Ok(Fusion {
            member,
            host,
            var,
            member_loops: names(f_loops),
            host_loops: names(g_loops),
        })
    }

    fn error(member: StageId, host: StageId, var: Symbol, why: impl std::fmt::Display) -> Error {
        Error::schedule(format!(
            "{}.compute_with({}, {var}): {why}",
            describe_stage(member.0, member.1),
            describe_stage(host.0, host.1),
        ))
    }

    fn err(&self, why: impl std::fmt::Display) -> Error {
        Fusion::error(self.member, self.host, self.var, why)
    }

    /// How many loops it fuses.
    fn depth(&self) -> usize {
        self.host_loops.len()
    }

    /// Two stages' statements as one loop nest: `a` leads (its loops name the fused ones and
    /// its body runs first in each iteration), `b` joins it; `loops` are the names of the
    /// loops of each to fuse, outermost first. One is the host's statement (perhaps with
    /// other stages fused in already), the other the member's. A specialized stage (`if (c)
    /// nest else other`, each nest keeping the fused loops) has the other stage fused into
    /// each of its nests. `shared` are the Funcs computed in one stage's loops for others
    /// of the group too.
    fn fuse_stages(
        &self,
        a: &Stmt,
        b: &Stmt,
        loops: (&[Symbol], &[Symbol]),
        lets: &mut HashMap<Symbol, Expr>,
        shared: &HashSet<Symbol>,
    ) -> Result<Stmt> {
        if loops.0.is_empty() {
            return Ok(Stmt::block([a.clone(), b.clone()]));
        }
        for (s, is_a) in [(a, true), (b, false)] {
            if let StmtKind::IfThenElse {
                condition,
                then_case,
                else_case: Some(else_case),
            } = s.kind()
            {
                let mut fuse = |branch: &Stmt| {
                    let (a, b) = if is_a { (branch, b) } else { (a, branch) };
                    self.fuse_stages(a, b, loops, lets, shared)
                };
                return Ok(Stmt::new(StmtKind::IfThenElse {
                    condition: condition.clone(),
                    then_case: fuse(then_case)?,
                    else_case: Some(fuse(else_case)?),
                }));
            }
        }
        self.fuse_loops(a, b, loops, 0, (Vec::new(), Vec::new()), lets, shared)
    }

    /// The loop nests `a` (leading) and `b` fused from loop level `depth` down, each body
    /// under the guards of the outer levels (`a_guards`, `b_guards`); `lets` are the lets
    /// in scope, to compare bounds through. Each loop may be found below statements of its
    /// own stage's nest (the productions of Funcs computed at the enclosing level, their
    /// storage, lets): those of `a` enclose those of `b` around the fused loop, each run
    /// under its own stage's guards, but for the productions of `shared` Funcs, which the
    /// other stages read too (their regions cover what every stage needs where it runs).
    #[allow(clippy::too_many_arguments)]
    fn fuse_loops(
        &self,
        a: &Stmt,
        b: &Stmt,
        loops: (&[Symbol], &[Symbol]),
        depth: usize,
        (a_guards, b_guards): (Vec<Expr>, Vec<Expr>),
        lets: &mut HashMap<Symbol, Expr>,
        shared: &HashSet<Symbol>,
    ) -> Result<Stmt> {
        let (a_name, b_name) = (loops.0[depth], loops.1[depth]);
        let missing = |name: Symbol| {
            self.err(format!(
                "the loop {name} is not at the top of its Func's computation (only productions, storage and lets may come before it)"
            ))
        };
        let a_context = Expr::conjunction(a_guards.iter().cloned());
        let b_context = Expr::conjunction(b_guards.iter().cloned());
        let (a_top, b_top) = (Top::new(&a_context, shared), Top::new(&b_context, shared));
        replace_loop(a, a_name, &a_top, lets, &mut |a_loop, lets| {
            replace_loop(b, b_name, &b_top, lets, &mut |b_loop, lets| {
                self.fuse_loop_pair(
                    (a_loop, b_loop),
                    loops,
                    depth,
                    (a_guards.clone(), b_guards.clone()),
                    lets,
                    shared,
                )
            })?
            .ok_or_else(|| missing(b_name))
        })?
        .ok_or_else(|| missing(a_name))
    }

    /// The loops `a_loop` and `b_loop` at level `depth` as one, their bodies fused further
    /// down (see `fuse_loops`). In the innermost, the statements at the top of each body
    /// that make the Funcs computed there (`Top`) enclose both bodies' rest, so `b` reads
    /// what `a` computes for it.
    fn fuse_loop_pair(
        &self,
        (a_loop, b_loop): (&Stmt, &Stmt),
        loops: (&[Symbol], &[Symbol]),
        depth: usize,
        (mut a_guards, mut b_guards): (Vec<Expr>, Vec<Expr>),
        lets: &mut HashMap<Symbol, Expr>,
        shared: &HashSet<Symbol>,
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
        // Inside the fused loop, the joining stage's loop variable is the leading one's.
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
            // A Func computed in these loops for several stages and stored outside them
            // was sized for the loop it was placed in, before the union was known.
            let outside = shared.iter().find(|&&f| {
                let bodies = [&a_body, &b_body];
                bodies.iter().any(|s| produces(s, f)) && !bodies.iter().any(|s| realizes(s, f))
            });
            if let Some(f) = outside {
                return Err(self.err(format!(
                    "{f} is computed inside the fused loops {a_name} and {b_name} for both Funcs and stored outside them, but the loops cover different iterations (from {a_min}, extent {a_extent} and from {b_min}, extent {b_extent}); store {f} inside them, or give the Funcs the same bounds"
                )));
            }
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
        let inner = if depth + 1 < loops.0.len() {
            let guards = (a_guards, b_guards);
            self.fuse_loops(&a_body, &b_body, loops, depth + 1, guards, lets, shared)?
        } else if ![&a_body, &b_body]
            .iter()
            .any(|s| shared.iter().any(|&f| produces(s, f)))
        {
            Stmt::block([
                guarded(a_body, Expr::conjunction(a_guards.iter().cloned())),
                guarded(b_body, Expr::conjunction(b_guards.iter().cloned())),
            ])
        } else {
            let (a_guard, b_guard) = (
                Expr::conjunction(a_guards.iter().cloned()),
                Expr::conjunction(b_guards.iter().cloned()),
            );
            let (a_top, b_top) = (Top::new(&a_guard, shared), Top::new(&b_guard, shared));
            a_top.around_rest(&a_body, &mut |a_rest| {
                b_top.around_rest(&b_body, &mut |b_rest| {
                    Stmt::block([
                        guarded(a_rest.clone(), a_guard.clone()),
                        guarded(b_rest, b_guard.clone()),
                    ])
                })
            })
        };
        let body = Stmt::let_stmt(b_name, i32_var(a_name), inner);
        Ok(Stmt::for_loop(a_name, min, extent, kind, body))
    }
}

/// Funcs linked by `compute_with`, realized as one production.
struct Group {
    /// The Funcs, in realization order.
    members: Vec<Symbol>,
    fusions: Vec<Fusion>,
    /// How many stages each member has.
    stage_counts: HashMap<Symbol, usize>,
    /// The Funcs each member uses, directly or through others.
    uses: HashMap<Symbol, HashSet<Symbol>>,
}

/// A part of a member's production: one fused stage's statement, or the statements of the
/// unfused stages between two fused ones.
struct Unit {
    func: Symbol,
    stage: Option<usize>,
    stmts: Vec<Stmt>,
}

impl Group {
    /// The groups of `env`'s requests, each checked.
    fn all(env: &Environment) -> Result<Vec<Group>> {
        let mut groups: Vec<Group> = Vec::new();
        for (member, host, var) in requests(env) {
            let fusion = Fusion::new(env, member, host, var)?;
            // The groups this one links, merged.
            let (linked, mut rest): (Vec<Group>, Vec<Group>) = groups
                .into_iter()
                .partition(|g| g.members.contains(&member.0) || g.members.contains(&host.0));
            let mut fusions: Vec<Fusion> = linked.into_iter().flat_map(|g| g.fusions).collect();
            fusions.push(fusion);
            let in_group = |f: &Symbol| fusions.iter().any(|x| x.member.0 == *f || x.host.0 == *f);
            let members: Vec<Symbol> = env.order.iter().copied().filter(in_group).collect();
            rest.push(Group {
                stage_counts: members
                    .iter()
                    .map(|&m| (m, env.func(m).read().stage_count()))
                    .collect(),
                uses: members.iter().map(|&m| (m, used_by(env, m))).collect(),
                members,
                fusions,
            });
            groups = rest;
        }
        for group in &groups {
            group.check()?;
        }
        Ok(groups)
    }

    /// Checks what the group needs beyond each pair: no member uses another (it would have
    /// to be computed before it), and a host's members of one Func are fused no deeper in
    /// stage order (a deeper body runs first in each iteration).
    fn check(&self) -> Result<()> {
        for &a in &self.members {
            for &b in &self.members {
                if self.uses[&a].contains(&b) {
                    return Err(self.fusion_of(a).err(format!(
                        "{a} uses {b}, so {b} must be computed before it, not with it (both are in one compute_with group)"
                    )));
                }
            }
        }
        for x in &self.fusions {
            let deeper_later = self.fusions.iter().find(|y| {
                y.host == x.host
                    && y.member.0 == x.member.0
                    && y.member.1 > x.member.1
                    && y.depth() > x.depth()
            });
            if let Some(y) = deeper_later {
                return Err(y.err(format!(
                    "it is fused deeper into {} than the earlier {} (at {}), so it would run before it in each iteration; fuse it at {} or an outer loop",
                    describe_stage(y.host.0, y.host.1),
                    describe_stage(x.member.0, x.member.1),
                    x.var,
                    x.var
                )));
            }
        }
        Ok(())
    }

    /// The first request naming `func`, whose words name the group's errors about it.
    fn fusion_of(&self, func: Symbol) -> &Fusion {
        self.fusions
            .iter()
            .find(|x| x.member.0 == func || x.host.0 == func)
            .unwrap_or(&self.fusions[0])
    }

    /// `s` with the productions of the members fused.
    fn fuse(&self, s: &Stmt) -> Result<Stmt> {
        let Some(first) = first_produced(s, &self.members) else {
            return Ok(s.clone());
        };
        let mut lets = HashMap::new();
        self.rewrite(s, first, &mut lets)?.ok_or_else(|| {
            self.fusion_of(first).err(format!(
                "the other Funcs of its group are not computed next to {first}"
            ))
        })
    }

    /// `s` with the production of `first` hosting those of the other members, if `s` holds
    /// it; `lets` are the lets in scope.
    fn rewrite(
        &self,
        s: &Stmt,
        first: Symbol,
        lets: &mut HashMap<Symbol, Expr>,
    ) -> Result<Option<Stmt>> {
        match s.kind() {
            StmtKind::Block(stmts) => {
                if let Some(i) = stmts.iter().position(|c| is_producer(c, first)) {
                    let StmtKind::ProducerConsumer { body, .. } = stmts[i].kind() else {
                        unreachable!("is_producer matched a production")
                    };
                    let mut bodies = vec![(first, body.clone())];
                    let mut rest = Stmt::block(stmts[i + 1..].iter().cloned());
                    let mut moved = Vec::new();
                    for &m in self.members.iter().filter(|&&m| m != first) {
                        let Some((new_rest, body)) = self.extract(&rest, m, &mut moved)? else {
                            return Err(self.fusion_of(m).err(format!(
                                "{m} is computed inside a loop or branch that {first} is not"
                            )));
                        };
                        rest = new_rest;
                        bodies.push((m, body));
                    }
                    for m in &moved {
                        if let Moved::Let(name, value) = m {
                            lets.insert(*name, value.clone());
                        }
                    }
                    let host = Stmt::new(StmtKind::ProducerConsumer {
                        name: first,
                        is_producer: true,
                        body: self.fuse_productions(bodies, lets)?,
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
                    if let Some(new) = self.rewrite(c, first, lets)? {
                        let mut out = stmts.clone();
                        out[i] = new;
                        return Ok(Some(Stmt::block(out)));
                    }
                }
                Ok(None)
            }
            StmtKind::LetStmt { name, value, body } => {
                lets.insert(*name, value.clone());
                let inner = self.rewrite(body, first, lets)?;
                Ok(inner.map(|b| Stmt::let_stmt(*name, value.clone(), b)))
            }
            _ => {
                let mut children = Vec::new();
                s.for_each_child(|_| {}, |c| children.push(c.clone()));
                let mut found = None;
                for c in &children {
                    if let Some(new) = self.rewrite(c, first, lets)? {
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

    /// The body of the group's production, from each member's production body (in the
    /// order they were produced): the members' units in a stage order, each host stage's
    /// nest with its members' stages fused in.
    fn fuse_productions(
        &self,
        bodies: Vec<(Symbol, Stmt)>,
        lets: &mut HashMap<Symbol, Expr>,
    ) -> Result<Stmt> {
        let shared = self.shared(&bodies);
        let mut all_lets = Vec::new();
        let mut units = Vec::new();
        for (func, body) in bodies {
            let (func_lets, body) = peel_lets(&body);
            for (name, value) in &func_lets {
                lets.insert(*name, value.clone());
            }
            all_lets.extend(func_lets);
            units.extend(self.units(func, &body)?);
        }
        let order = self.stage_order(&units)?;
        let unit_of = |stage: StageId| {
            units
                .iter()
                .position(|u| u.func == stage.0 && u.stage == Some(stage.1))
                .expect("every fused stage has its unit")
        };
        let mut body = Vec::new();
        for &u in &order {
            let Some(stage) = units[u].stage else {
                body.extend(units[u].stmts.iter().cloned());
                continue;
            };
            if self
                .fusions
                .iter()
                .any(|x| x.member == (units[u].func, stage))
            {
                continue; // In its host's nest.
            }
            let mut members: Vec<&Fusion> = self
                .fusions
                .iter()
                .filter(|x| x.host == (units[u].func, stage))
                .collect();
            // The deepest first: fusing it keeps the host's outer loops at the top of the nest
            // (below its guards), where the shallower ones find them.
            members.sort_by_key(|x| (std::cmp::Reverse(x.depth()), unit_of(x.member)));
            let mut nest = units[u].stmts[0].clone();
            // The first unit in the nest (production order, then stage order) leads, so a
            // Func's stages keep their order; `renamed` maps the host's loops to those
            // naming them in the nest.
            let mut nest_first = u;
            let mut renamed: HashMap<Symbol, Symbol> = HashMap::new();
            for x in members {
                let member = unit_of(x.member);
                let member_stmt = &units[member].stmts[0];
                let host_loops: Vec<Symbol> = x
                    .host_loops
                    .iter()
                    .map(|l| *renamed.get(l).unwrap_or(l))
                    .collect();
                nest = if member < nest_first {
                    nest_first = member;
                    renamed.extend(x.host_loops.iter().copied().zip(x.member_loops.clone()));
                    let loops = (&x.member_loops[..], &host_loops[..]);
                    x.fuse_stages(member_stmt, &nest, loops, lets, &shared)?
                } else {
                    let loops = (&host_loops[..], &x.member_loops[..]);
                    x.fuse_stages(&nest, member_stmt, loops, lets, &shared)?
                };
            }
            body.push(nest);
        }
        Ok(all_lets
            .into_iter()
            .rev()
            .fold(Stmt::block(body), |s, (n, v)| Stmt::let_stmt(n, v, s)))
    }

    /// The Funcs computed in one member's production that another member uses (directly
    /// or through other Funcs): computed once, at a fused loop, for all of them.
    fn shared(&self, bodies: &[(Symbol, Stmt)]) -> HashSet<Symbol> {
        let mut shared = HashSet::new();
        for (member, body) in bodies {
            let mut produced = Vec::new();
            collect_produced(body, &mut produced);
            let used_by_others =
                |f: &Symbol| (self.members.iter()).any(|m| m != member && self.uses[m].contains(f));
            shared.extend(produced.into_iter().filter(used_by_others));
        }
        shared
    }

    /// `func`'s production `body` (below its lets) cut into units: its fused stages'
    /// statements and the runs of statements between them.
    fn units(&self, func: Symbol, body: &Stmt) -> Result<Vec<Unit>> {
        let stmts = match body.kind() {
            StmtKind::Block(stmts) => stmts.clone(),
            _ => vec![body.clone()],
        };
        let mut fused: Vec<usize> = self
            .fusions
            .iter()
            .flat_map(|x| [x.member, x.host])
            .filter(|s| s.0 == func)
            .map(|s| s.1)
            .collect();
        fused.sort_unstable();
        fused.dedup();
        let mut units = Vec::new();
        let mut next = 0;
        for stage in fused {
            let at = self.stage_position(func, stage, &stmts)?;
            if at < next {
                return Err(self.fusion_of(func).err(format!(
                    "{} is not computed on its own in the production of {func}",
                    describe_stage(func, stage)
                )));
            }
            if at > next {
                units.push(Unit {
                    func,
                    stage: None,
                    stmts: stmts[next..at].to_vec(),
                });
            }
            units.push(Unit {
                func,
                stage: Some(stage),
                stmts: vec![stmts[at].clone()],
            });
            next = at + 1;
        }
        if next < stmts.len() {
            units.push(Unit {
                func,
                stage: None,
                stmts: stmts[next..].to_vec(),
            });
        }
        Ok(units)
    }

    /// Where stage `stage` of `func` is among `stmts`, its production's statements: the one
    /// holding its loops, or, for a stage without loops, the one writing `func` in its place.
    fn stage_position(&self, func: Symbol, stage: usize, stmts: &[Stmt]) -> Result<usize> {
        let prefix = format!("{func}.s{stage}.");
        if let Some(at) = stmts.iter().position(|s| has_loop_named(s, &prefix)) {
            return Ok(at);
        }
        // The statements of Funcs computed inside the production do not write `func`.
        let own: Vec<usize> = (0..stmts.len())
            .filter(|&i| writes(&stmts[i], func))
            .collect();
        (own.len() == self.stage_counts[&func])
            .then(|| own[stage])
            .ok_or_else(|| {
                self.fusion_of(func).err(format!(
                    "{} is not computed on its own in the production of {func} (a sliding window or skipped stage changed it)",
                    describe_stage(func, stage)
                ))
            })
    }

    /// An order of `units` (Halide's for a fused group): each Func's units in order, a
    /// member stage after its host, and a Func's units before a member stage before that
    /// stage's host, unless they are members of that host too (they are in its nest). Of
    /// the units ready, the first listed goes first.
    fn stage_order(&self, units: &[Unit]) -> Result<Vec<usize>> {
        let unit_of = |stage: StageId| {
            units
                .iter()
                .position(|u| u.func == stage.0 && u.stage == Some(stage.1))
        };
        let host_of = |u: &Unit| {
            let stage = u.stage?;
            self.fusions
                .iter()
                .find(|x| x.member == (u.func, stage))
                .map(|x| x.host)
        };
        let mut before: Vec<Vec<usize>> = vec![Vec::new(); units.len()];
        for (i, u) in units.iter().enumerate() {
            if i > 0 && units[i - 1].func == u.func {
                before[i].push(i - 1);
            }
            let Some(host) = host_of(u) else {
                continue;
            };
            let Some(h) = unit_of(host) else {
                return Err(self.fusion_of(host.0).err(format!(
                    "{} is not computed in the production of {}",
                    describe_stage(host.0, host.1),
                    host.0
                )));
            };
            before[i].push(h);
            for (j, earlier) in units[..i].iter().enumerate() {
                if earlier.func == u.func && host_of(earlier) != Some(host) {
                    before[h].push(j);
                }
            }
        }
        let mut order = Vec::new();
        let mut done = vec![false; units.len()];
        while order.len() < units.len() {
            let ready = (0..units.len()).find(|&i| !done[i] && before[i].iter().all(|&j| done[j]));
            let Some(next) = ready else {
                let waiting: Vec<String> = (0..units.len())
                    .filter(|&i| !done[i])
                    .map(|i| match units[i].stage {
                        Some(stage) => describe_stage(units[i].func, stage),
                        None => format!("the unfused stages of {}", units[i].func),
                    })
                    .collect();
                return Err(self.fusions[0].err(format!(
                    "the fused stages have no order: each of {} must wait for another (a Func's stages run in order, a stage with the one it is computed with, after that one's earlier stages, and the earlier stages of its own Func run before that one)",
                    waiting.join(", ")
                )));
            };
            done[next] = true;
            order.push(next);
        }
        Ok(order)
    }

    /// Finds the production of `member` in `s` (which follows the production of the host)
    /// along lets, storage, consumer marks and blocks: `s` with that production emptied and
    /// the lets and storage on the way removed (pushed to `moved`, outermost first), and the
    /// production's body.
    fn extract(
        &self,
        s: &Stmt,
        member: Symbol,
        moved: &mut Vec<Moved>,
    ) -> Result<Option<(Stmt, Stmt)>> {
        match s.kind() {
            StmtKind::ProducerConsumer {
                name,
                is_producer: true,
                body,
            } if *name == member => Ok(Some((
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
            } => Ok(self.extract(body, member, moved)?.map(|(b, found)| {
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
                let found = self.extract(body, member, moved)?;
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
                let found = self.extract(body, member, moved)?;
                if found.is_none() {
                    moved.pop();
                }
                Ok(found)
            }
            StmtKind::Block(stmts) => {
                for (i, c) in stmts.iter().enumerate() {
                    if let Some((c, found)) = self.extract(c, member, moved)? {
                        // Productions passed on the way now run after the fused one.
                        let mut passed = Vec::new();
                        stmts[..i]
                            .iter()
                            .for_each(|b| collect_produced(b, &mut passed));
                        if let Some(h) = passed.iter().find(|h| self.uses[&member].contains(h)) {
                            return Err(self.fusion_of(member).err(format!(
                                "{member} uses {h}, which is computed between the productions of its group"
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
}

/// What a loop found by `replace_loop` becomes, given the lets in scope.
type LoopReplacement<'a> = dyn FnMut(&Stmt, &mut HashMap<Symbol, Expr>) -> Result<Stmt> + 'a;

/// `s` with the loop `name` replaced by `replace(loop, lets)`, if `s` holds it along lets,
/// storage, production marks and blocks; the lets on the way are added to `lets`, and the
/// other statements of the blocks on the way are run as `top` says.
fn replace_loop(
    s: &Stmt,
    name: Symbol,
    top: &Top,
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
            let body = replace_loop(body, name, top, lets, replace)?;
            Ok(body.map(|b| Stmt::let_stmt(*n, value.clone(), b)))
        }
        StmtKind::Realize { body, .. } | StmtKind::ProducerConsumer { body, .. } => {
            let body = replace_loop(body, name, top, lets, replace)?;
            Ok(body.map(|b| s.map_children(|e| e.clone(), |_| b.clone())))
        }
        StmtKind::Block(stmts) => {
            for (i, c) in stmts.iter().enumerate() {
                if let Some(new) = replace_loop(c, name, top, lets, replace)? {
                    let others = |c: &Stmt| top.run(c);
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

/// How the statements at the top of a stage's nest, above its fused loop or its body in the
/// innermost one (productions of the Funcs computed there, their storage, lets), run once
/// the nests are fused: productions only where the stage's `guard` holds, but those of
/// `shared` Funcs, which other stages read too, everywhere.
struct Top<'a> {
    guard: Option<&'a Expr>,
    shared: &'a HashSet<Symbol>,
}

impl<'a> Top<'a> {
    fn new(guard: &'a Option<Expr>, shared: &'a HashSet<Symbol>) -> Top<'a> {
        Top {
            guard: guard.as_ref(),
            shared,
        }
    }

    /// `s`, a statement beside the way down to the fused loop.
    fn run(&self, s: &Stmt) -> Stmt {
        match s.kind() {
            StmtKind::ProducerConsumer {
                name,
                is_producer: true,
                ..
            } if self.shared.contains(name) => s.clone(),
            _ => guarded(s.clone(), self.guard.cloned()),
        }
    }

    /// `body` with its top (lets, storage, productions and the consumptions enclosing the
    /// rest) kept around `inner(rest)`, the statement below it, the productions run as
    /// `run` says.
    fn around_rest(&self, body: &Stmt, inner: &mut dyn FnMut(Stmt) -> Stmt) -> Stmt {
        match body.kind() {
            StmtKind::LetStmt { name, value, body } => {
                Stmt::let_stmt(*name, value.clone(), self.around_rest(body, inner))
            }
            StmtKind::Realize { body: rest, .. }
            | StmtKind::ProducerConsumer {
                is_producer: false,
                body: rest,
                ..
            } => {
                let rest = self.around_rest(rest, inner);
                body.map_children(|e| e.clone(), |_| rest.clone())
            }
            StmtKind::Block(stmts) if is_productions_then_consumption(stmts) => {
                let (last, before) = stmts.split_last().expect("a block of two or more");
                let last = self.around_rest(last, inner);
                Stmt::block(before.iter().map(|c| self.run(c)).chain([last]))
            }
            _ => inner(body.clone()),
        }
    }
}

/// Whether `stmts` are productions followed by one consumption.
fn is_productions_then_consumption(stmts: &[Stmt]) -> bool {
    let Some((last, before)) = stmts.split_last() else {
        return false;
    };
    let production = |s: &Stmt, producer: bool| matches!(s.kind(), StmtKind::ProducerConsumer { is_producer, .. } if *is_producer == producer);
    !before.is_empty() && production(last, false) && before.iter().all(|s| production(s, true))
}

/// Whether `s` holds the storage of `func`.
fn realizes(s: &Stmt, func: Symbol) -> bool {
    any_stmt(
        s,
        |st| matches!(st.kind(), StmtKind::Realize { func: f, .. } if *f == func),
    )
}

/// Whether `s` computes `func` somewhere.
pub(super) fn produces(s: &Stmt, func: Symbol) -> bool {
    let mut produced = Vec::new();
    collect_produced(s, &mut produced);
    produced.contains(&func)
}

/// `body` run only where `condition` holds, if there is one.
fn guarded(body: Stmt, condition: Option<Expr>) -> Stmt {
    match condition {
        Some(c) => Stmt::if_then(c, body),
        None => body,
    }
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
    any_stmt(
        s,
        |st| matches!(st.kind(), StmtKind::For { name, .. } if name.as_str().starts_with(prefix)),
    )
}

/// Whether `s` writes a point of `func`.
fn writes(s: &Stmt, func: Symbol) -> bool {
    any_stmt(
        s,
        |st| matches!(st.kind(), StmtKind::Provide { func: f, .. } if *f == func),
    )
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

/// Which of `funcs` is produced first in `s`.
fn first_produced(s: &Stmt, funcs: &[Symbol]) -> Option<Symbol> {
    if let StmtKind::ProducerConsumer {
        name,
        is_producer: true,
        ..
    } = s.kind()
    {
        if funcs.contains(name) {
            return Some(*name);
        }
    }
    let mut found = None;
    s.for_each_child(
        |_| {},
        |c| {
            if found.is_none() {
                found = first_produced(c, funcs);
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

fn describe(loops: &[(Symbol, ForKind)]) -> String {
    loops
        .iter()
        .map(|(l, k)| format!("{} {l}", k.keyword()))
        .collect::<Vec<_>>()
        .join(", ")
}
