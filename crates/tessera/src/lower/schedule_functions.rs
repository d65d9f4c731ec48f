//! Pass 2, loop synthesis (Halide §4.1): the loop nest of the last output realized, then each
//! other Func (consumers first) injected into it — another output computed at root into its own
//! buffers (no realization), whether anything reads it or not; any other Func inlined, or
//! computed and stored at the loop levels its schedule names, after checking those levels are
//! legal: the compute level must enclose every use, storage must be at or outside it, with no
//! parallel loop in between. A level at the
//! loops of a `compute_with` group is placed for the group (`compute_with::FusedGroups`):
//! used by several of its stages, the Func is placed once, in the loop of the stage that
//! runs first, and the others read it there once the loops are fused.

use super::compute_with::FusedGroups;
use super::inline::inline_in_stmt;
use super::names::{i32_var, realized_extent, realized_min, stage_var};
use super::realization_order::Environment;
use super::stage_loops::build_stage;
use crate::error::{Error, Result};
use crate::ir::cse::common_subexpressions_of_expr;
use crate::ir::visit::{
    distinct_nodes, tree_nodes, tree_nodes_within, visit_stmt_exprs, MAX_TREE_NODES,
};
use crate::ir::{CallKind, Expr, ExprKind, ForKind, Range, Stmt, StmtKind, Symbol};
use crate::lang::func::definition_too_large;
use crate::lang::function::FunctionContents;
use crate::lang::schedule::{find_dim, missing_update, LoopLevel, StageSchedule, OUTERMOST};

/// The statements computing every stage of `f`, in order, as a producer block. Each stage
/// is inside a loop of one iteration, its `Var::outermost()` level (as in Halide), where
/// Funcs may be computed; `strip_outermost_loops` removes them once every Func is placed.
fn build_production(f: &FunctionContents) -> Stmt {
    let stages = (0..f.stage_count()).map(|k| {
        let outermost = stage_var(f.name, k, Symbol::new(OUTERMOST));
        Stmt::for_loop(
            outermost,
            Expr::i32(0),
            Expr::i32(1),
            ForKind::Serial,
            build_stage(f, k),
        )
    });
    Stmt::new(StmtKind::ProducerConsumer {
        name: f.name,
        is_producer: true,
        body: Stmt::block(stages),
    })
}

pub fn schedule_functions(env: &Environment) -> Result<Stmt> {
    // A definition is a tree: a subexpression used twice is copied, so `e = e * e` repeated
    // doubles it each time, and lowering such a value would not finish.
    for &name in &env.order {
        let within = {
            let f = env.func(name);
            let c = f.read();
            let exprs = c
                .pure
                .iter()
                .chain(&c.updates)
                .flat_map(|d| d.args.iter().chain(&d.values));
            tree_nodes_within(exprs, MAX_TREE_NODES)
        };
        if !within {
            return Err(definition_too_large(name));
        }
    }
    let (&last, earlier) = env.order.split_last().expect("a pipeline has an output");
    let mut s = build_production(&env.func(last).read());
    let groups = FusedGroups::new(env);
    for &name in earlier.iter().rev() {
        let f = env.func(name);
        let c = f.read();
        if env.is_output(name) {
            s = produce_then(&c, s);
            continue;
        }
        // A definition that stores only some points or elements (undef) needs storage, like
        // updates.
        let substitutable = c.updates.is_empty() && !c.pure_leaves_points_unstored();
        s = match (&c.schedule.compute_level, substitutable) {
            (LoopLevel::Inlined, true) => inline_shared(&s, &c)?,
            (LoopLevel::Inlined, false) => inject_around_uses(&s, &c),
            _ => inject_realization(&s, &c, env, &groups)?,
        };
    }
    Ok(strip_outermost_loops(&s))
}

fn is_outermost_loop(name: Symbol) -> bool {
    name.as_str()
        .strip_suffix(OUTERMOST)
        .is_some_and(|rest| rest.ends_with('.'))
}

/// `s` without the one-iteration loops of the stages' `Var::outermost()` levels (their
/// variables are used nowhere).
fn strip_outermost_loops(s: &Stmt) -> Stmt {
    match s.kind() {
        StmtKind::For { name, body, .. } if is_outermost_loop(*name) => strip_outermost_loops(body),
        _ => s.map_children(|e| e.clone(), strip_outermost_loops),
    }
}

/// `s` with `f` inlined. Each use copies `f`'s definition, so Funcs each using the one before
/// twice double as trees at every level. Where the result is large as trees and mostly
/// repetition, its repeated parts are computed once, by lets (Halide's passes share them):
/// sharing at the first large tree, rather than at the limit, keeps each later inlining
/// small. An error where the result is too large even shared (a pyramid whose uses read
/// different points).
fn inline_shared(s: &Stmt, f: &FunctionContents) -> Result<Stmt> {
    /// Trees this small are left as they are, whatever they repeat.
    const SHARED_FROM: usize = 1 << 14;
    /// Trees at least this many times their shared form are mostly repetition.
    const REPETITION: usize = 4;
    let inlined = inline_in_stmt(s, f);
    let exprs = whole_expressions(&inlined);
    let tree = tree_nodes(&exprs, MAX_TREE_NODES);
    if tree <= SHARED_FROM {
        return Ok(inlined);
    }
    // Value numbering takes time and memory in the distinct nodes.
    if distinct_nodes(&exprs, MAX_TREE_NODES) <= MAX_TREE_NODES {
        let shared = share_repeats(&inlined);
        let shared_tree = tree_nodes(&whole_expressions(&shared), MAX_TREE_NODES);
        if shared_tree.saturating_mul(REPETITION) <= tree
            || (tree > MAX_TREE_NODES && shared_tree <= MAX_TREE_NODES)
        {
            return Ok(shared);
        }
    }
    if tree <= MAX_TREE_NODES {
        return Ok(inlined);
    }
    let name = f.name;
    Err(Error::schedule(format!(
        "inlining {name} makes expressions of more than {MAX_TREE_NODES} nodes, even with their repeated parts computed once (each use of an inlined Func copies its definition, so a deep pyramid grows exponentially); compute {name}, or a Func it uses, at a loop level"
    )))
}

/// `s` with the repeated parts of each of its expressions computed once, by lets.
fn share_repeats(s: &Stmt) -> Stmt {
    s.map_children(common_subexpressions_of_expr, share_repeats)
}

/// The expressions of `s`, each whole (not descending into them).
fn whole_expressions(s: &Stmt) -> Vec<Expr> {
    let mut exprs = Vec::new();
    visit_stmt_exprs(s, &mut |e| {
        exprs.push(e.clone());
        false
    });
    exprs
}

/// `Realize f { produce f { .. } consume f { body } }`, or just the producer/consumer pair
/// when `realize` is false (storage is placed further out).
fn produce_then(f: &FunctionContents, body: Stmt) -> Stmt {
    let consume = Stmt::new(StmtKind::ProducerConsumer {
        name: f.name,
        is_producer: false,
        body,
    });
    Stmt::block([build_production(f), consume])
}

fn realize(f: &FunctionContents, body: Stmt) -> Stmt {
    let bounds = f
        .args
        .iter()
        .map(|&a| Range {
            min: i32_var(realized_min(f.name, a)),
            extent: i32_var(realized_extent(f.name, a)),
        })
        .collect();
    Stmt::new(StmtKind::Realize {
        func: f.name,
        types: f.output_types.clone(),
        bounds,
        body,
    })
}

fn uses_func(s: &Stmt, f: Symbol) -> bool {
    let mut found = false;
    visit_stmt_exprs(s, &mut |e| {
        if let ExprKind::Call {
            kind: CallKind::Func(link),
            ..
        } = e.kind()
        {
            found |= link.name() == f;
        }
        !found
    });
    found
}

/// A Func with updates cannot be substituted into its uses; scheduled inline, it is computed
/// right around each statement that uses it (as in Halide).
fn inject_around_uses(s: &Stmt, f: &FunctionContents) -> Stmt {
    match s.kind() {
        StmtKind::Provide { func, .. } if *func != f.name && uses_func(s, f.name) => {
            realize(f, produce_then(f, s.clone()))
        }
        _ => s.map_children(|e| e.clone(), |c| inject_around_uses(c, f)),
    }
}

/// One loop of the nest, as a place a Func may be computed or stored.
#[derive(Clone, Debug, PartialEq)]
struct Site {
    loop_name: Symbol,
    parallel: bool,
}

/// The loops enclosing each use of `f` in `s`, outermost first, one list per distinct
/// loop nest around uses (a specialization's branch is a nest of its own); empty if `f` is
/// not used.
fn use_sites(s: &Stmt, f: Symbol) -> Vec<Vec<Site>> {
    fn walk(s: &Stmt, f: Symbol, stack: &mut Vec<Site>, nests: &mut Vec<Vec<Site>>) {
        let mut exprs_use = false;
        let mut children = Vec::new();
        s.for_each_child(
            |e| {
                crate::ir::visit::visit_exprs(e, &mut |n| {
                    if let ExprKind::Call {
                        kind: CallKind::Func(link),
                        ..
                    } = n.kind()
                    {
                        exprs_use |= link.name() == f;
                    }
                    !exprs_use
                })
            },
            |c| children.push(c.clone()),
        );
        if exprs_use && !nests.contains(stack) {
            nests.push(stack.clone());
        }
        let pushed = if let StmtKind::For { name, kind, .. } = s.kind() {
            stack.push(Site {
                loop_name: *name,
                parallel: matches!(kind, ForKind::Parallel | ForKind::Vectorized),
            });
            true
        } else {
            false
        };
        for c in &children {
            walk(c, f, stack, nests);
        }
        if pushed {
            stack.pop();
        }
    }
    let mut nests = Vec::new();
    walk(s, f, &mut Vec::new(), &mut nests);
    nests
}

/// The loops a level `At { consumer, stage, var }` may denote: loop `var` of the stage named,
/// or of each stage of `consumer` when none is, in its loop structure and in each of its
/// specializations' (with why a structure has no such loop).
pub(super) fn level_loops(
    consumer: &FunctionContents,
    stage: Option<usize>,
    var: Symbol,
) -> Vec<std::result::Result<Symbol, String>> {
    fn structure_loops(
        schedule: &StageSchedule,
        name: &dyn Fn(Symbol) -> Symbol,
        var: Symbol,
        out: &mut Vec<std::result::Result<Symbol, String>>,
    ) {
        let found = find_dim(&schedule.dims, var).map(|i| name(schedule.dims[i].name));
        if !out.contains(&found) {
            out.push(found);
        }
        for spec in &schedule.specializations {
            structure_loops(&spec.schedule, name, var, out);
        }
    }
    let stages: Vec<usize> = match stage {
        Some(k) => vec![k],
        None => (0..consumer.stage_count()).collect(),
    };
    let mut loops = Vec::new();
    for k in stages {
        let Some(definition) = consumer.stage(k) else {
            continue;
        };
        if var.as_str() == OUTERMOST {
            loops.push(Ok(stage_var(consumer.name, k, var)));
        } else {
            let name = |dim| stage_var(consumer.name, k, dim);
            structure_loops(&definition.schedule, &name, var, &mut loops);
        }
    }
    loops
}

/// Where a level places a Func in each loop nest around its uses: the position in the nest
/// of the outermost loop the level denotes, or `None` for the root level. An error when a
/// nest has no such loop lists the loops common to every nest.
fn resolve_level(
    level: &LoopLevel,
    what: &str,
    f: Symbol,
    nests: &[Vec<Site>],
    env: &Environment,
    groups: &FusedGroups,
) -> Result<Option<Vec<usize>>> {
    let LoopLevel::At {
        func, stage, var, ..
    } = level
    else {
        return Ok(None);
    };
    let legal = || {
        let common = nests[0]
            .iter()
            .filter(|s| !is_outermost_loop(s.loop_name))
            .filter(|s| {
                nests
                    .iter()
                    .all(|nest| nest.iter().any(|t| t.loop_name == s.loop_name))
            });
        let mut names: Vec<String> = common
            .map(|s| format!("{what}_at({})", describe_site(s.loop_name)))
            .collect();
        names.insert(0, format!("{what}_root()"));
        names.join(", ")
    };
    let consumer = env.funcs.get(func).ok_or_else(|| {
        Error::schedule(format!("{f}.{what}_at({func}, {var}): {func} is not part of this pipeline; legal choices for {f}: {}", legal()))
    })?;
    let c = consumer.read();
    if let Some(k) = stage.filter(|k| c.stage(*k).is_none()) {
        return Err(Error::schedule(format!(
            "{f}.{what}_at({func}, {var}): {}",
            missing_update(*func, k, c.updates.len())
        )));
    }
    let mut candidates = level_loops(&c, *stage, *var);
    // The loops fused with the one named are that loop too.
    let fused: Vec<Symbol> = candidates
        .iter()
        .flatten()
        .flat_map(|name| groups.fused_with(*name))
        .collect();
    candidates.extend(fused.into_iter().map(Ok));
    let positions: Option<Vec<usize>> = nests
        .iter()
        .map(|nest| {
            nest.iter().position(|site| {
                candidates
                    .iter()
                    .any(|c| c.as_ref().is_ok_and(|name| *name == site.loop_name))
            })
        })
        .collect();
    if let Some(positions) = positions {
        return Ok(Some(positions));
    }
    let missing = candidates.iter().all(|c| c.is_err());
    let why = match candidates.into_iter().find_map(|c| c.err()) {
        Some(msg) if stage.is_some() && missing => format!("{func} has no such loop ({msg})"),
        _ => format!("that loop does not enclose every use of {f}"),
    };
    Err(Error::schedule(format!(
        "{f}.{what}_at({func}, {var}) is not a legal location: {why}. Legal locations for {f}: {}",
        legal()
    )))
}

/// `f.s0.y.yi` → `f, yi` as a user writes it in compute_at.
fn describe_site(loop_name: Symbol) -> String {
    let s = loop_name.as_str();
    let func = s.split(".s").next().unwrap_or(s);
    let var = s.rsplit('.').next().unwrap_or(s);
    format!("{func}, {var}")
}

/// `level`, or where a fused group is computed if `level` is the `Var::outermost()` level of
/// a fused stage and every use (each nest in `nests`) is in the group: the group's members
/// share that level, where Halide computes the group as one unit.
fn group_level(
    level: &LoopLevel,
    nests: &[Vec<Site>],
    env: &Environment,
    groups: &FusedGroups,
) -> LoopLevel {
    let LoopLevel::At {
        func, stage, var, ..
    } = level
    else {
        return level.clone();
    };
    let Some(consumer) = env.funcs.get(func).filter(|_| var.as_str() == OUTERMOST) else {
        return level.clone();
    };
    let Some(host) = level_loops(&consumer.read(), *stage, *var)
        .into_iter()
        .flatten()
        .find_map(|name| groups.group_of_outermost(name))
    else {
        return level.clone();
    };
    let in_group = nests.iter().all(|nest| {
        nest.iter()
            .any(|site| groups.group_of_outermost(site.loop_name) == Some(host))
    });
    match &env.func(host).read().schedule.compute_level {
        host_level @ (LoopLevel::Root | LoopLevel::At { .. }) if in_group => host_level.clone(),
        _ => level.clone(),
    }
}

fn inject_realization(
    s: &Stmt,
    f: &FunctionContents,
    env: &Environment,
    groups: &FusedGroups,
) -> Result<Stmt> {
    let nests = use_sites(s, f.name);
    if nests.is_empty() {
        // Nothing uses f any more (every use was in an inlined branch that vanished).
        return Ok(s.clone());
    }
    let compute_level = group_level(&f.schedule.compute_level, &nests, env, groups);
    let store_level = group_level(f.schedule.store_level(), &nests, env, groups);
    let compute = resolve_level(&compute_level, "compute", f.name, &nests, env, groups)?;
    let store = resolve_level(&store_level, "store", f.name, &nests, env, groups)?;
    let mut compute_loops = Vec::new();
    let mut store_loops = Vec::new();
    for (n, nest) in nests.iter().enumerate() {
        let store_depth = store.as_ref().map_or(0, |p| p[n] + 1);
        let compute_depth = compute.as_ref().map_or(0, |p| p[n] + 1);
        if store_depth > compute_depth {
            return Err(Error::schedule(format!(
                "{} is stored at {} but computed at {}, outside it; storage must be at or outside the compute level",
                f.name,
                f.schedule.store_level().describe(),
                f.schedule.compute_level.describe()
            )));
        }
        if let Some(site) = nest[store_depth..compute_depth].iter().find(|s| s.parallel) {
            return Err(Error::schedule(format!(
                "{} is stored outside the parallel loop {} but computed inside it, so iterations would race on its storage; store it inside that loop",
                f.name,
                describe_site(site.loop_name)
            )));
        }
        compute_loops.extend(compute.as_ref().map(|p| nest[p[n]].loop_name));
        store_loops.extend(store.as_ref().map(|p| nest[p[n]].loop_name));
    }
    // Used by several stages fused at the level: computed (and stored) once for them all.
    let compute_loops = groups.placed_once(&compute_loops);
    let store_loops = groups.placed_once(&store_loops);
    let s = match compute {
        None => produce_then(f, s.clone()),
        Some(_) => inject_at_loops(s, &compute_loops, &|body| produce_then(f, body)),
    };
    Ok(match store {
        None => realize(f, s),
        Some(_) => inject_at_loops(&s, &store_loops, &|body| realize(f, body)),
    })
}

/// Wraps the body of each outermost loop named in `loop_names` (below the lets at its top)
/// with `wrap`.
fn inject_at_loops(s: &Stmt, loop_names: &[Symbol], wrap: &dyn Fn(Stmt) -> Stmt) -> Stmt {
    match s.kind() {
        StmtKind::For {
            name,
            min,
            extent,
            kind,
            body,
        } if loop_names.contains(name) => Stmt::for_loop(
            *name,
            min.clone(),
            extent.clone(),
            *kind,
            wrap_below_lets(body, wrap),
        ),
        _ => s.map_children(|e| e.clone(), |c| inject_at_loops(c, loop_names, wrap)),
    }
}

fn wrap_below_lets(s: &Stmt, wrap: &dyn Fn(Stmt) -> Stmt) -> Stmt {
    match s.kind() {
        StmtKind::LetStmt { name, value, body } => {
            Stmt::let_stmt(*name, value.clone(), wrap_below_lets(body, wrap))
        }
        _ => wrap(s.clone()),
    }
}
