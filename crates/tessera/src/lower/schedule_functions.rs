//! Pass 2, loop synthesis (Halide §4.1): the loop nest of the output, then each other Func
//! (consumers first) injected into it — inlined, or computed and stored at the loop levels its
//! schedule names, after checking those levels are legal: the compute level must enclose every
//! use, storage must be at or outside it, with no parallel loop in between.

use super::inline::inline_in_stmt;
use super::names::{i32_var, realized_extent, realized_min, stage_var};
use super::realization_order::Environment;
use super::stage_loops::build_stage;
use crate::error::{Error, Result};
use crate::ir::visit::{tree_nodes_within, visit_stmt_exprs, MAX_TREE_NODES};
use crate::ir::{CallKind, Expr, ExprKind, ForKind, Range, Stmt, StmtKind, Symbol};
use crate::lang::func::definition_too_large;
use crate::lang::function::FunctionContents;
use crate::lang::schedule::{find_dim, LoopLevel, OUTERMOST};

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
    let output = env.func(env.output).read();
    let mut s = build_production(&output);
    drop(output);
    for &name in env.order.iter().rev().skip(1) {
        let f = env.func(name);
        let c = f.read();
        // A definition that stores only some points or elements (undef) needs storage, like
        // updates.
        let substitutable = c.updates.is_empty() && !c.pure_leaves_points_unstored();
        s = match (&c.schedule.compute_level, substitutable) {
            (LoopLevel::Inlined, true) => {
                let inlined = inline_in_stmt(&s, &c);
                if !expressions_within(&inlined, MAX_TREE_NODES) {
                    return Err(Error::Schedule(format!(
                        "inlining {name} makes expressions of more than {MAX_TREE_NODES} nodes (each use of an inlined Func copies its definition, so a deep pyramid grows exponentially); compute {name}, or a Func it uses, at a loop level"
                    )));
                }
                inlined
            }
            (LoopLevel::Inlined, false) => inject_around_uses(&s, &c),
            _ => inject_realization(&s, &c, env)?,
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

/// Whether the expressions of `s` have at most `limit` nodes in all (counting stops there).
fn expressions_within(s: &Stmt, limit: usize) -> bool {
    // The statement's expressions, each whole (not descending into them).
    let mut exprs = Vec::new();
    visit_stmt_exprs(s, &mut |e| {
        exprs.push(e.clone());
        false
    });
    tree_nodes_within(exprs.iter(), limit)
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
#[derive(Clone, Debug)]
struct Site {
    loop_name: Symbol,
    parallel: bool,
}

/// The loops enclosing every use of `f` in `s`, outermost first.
fn legal_sites(s: &Stmt, f: Symbol) -> Option<Vec<Site>> {
    fn walk(s: &Stmt, f: Symbol, stack: &mut Vec<Site>, common: &mut Option<Vec<Site>>) {
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
        if exprs_use {
            *common = Some(match common.take() {
                None => stack.clone(),
                Some(prev) => prev
                    .into_iter()
                    .zip(stack.iter())
                    .take_while(|(a, b)| a.loop_name == b.loop_name)
                    .map(|(a, _)| a)
                    .collect(),
            });
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
            walk(c, f, stack, common);
        }
        if pushed {
            stack.pop();
        }
    }
    let mut common = None;
    walk(s, f, &mut Vec::new(), &mut common);
    common
}

/// The loop name a `LoopLevel::At` refers to, among the legal sites; an error lists them.
/// The loops a level `At { consumer, stage, var }` may denote: loop `var` of the stage named,
/// or of each stage of `consumer` when none is (with why a stage has no such loop).
pub(super) fn level_loops(
    consumer: &FunctionContents,
    stage: Option<usize>,
    var: Symbol,
) -> Vec<std::result::Result<Symbol, String>> {
    let stages: Vec<usize> = match stage {
        Some(k) => vec![k],
        None => (0..consumer.stage_count()).collect(),
    };
    stages
        .into_iter()
        .filter_map(|k| {
            let dims = &consumer.stage(k)?.schedule.dims;
            if var.as_str() == OUTERMOST {
                return Some(Ok(stage_var(consumer.name, k, var)));
            }
            Some(find_dim(dims, var).map(|i| stage_var(consumer.name, k, dims[i].name)))
        })
        .collect()
}

fn resolve_level(
    level: &LoopLevel,
    what: &str,
    f: Symbol,
    sites: &[Site],
    env: &Environment,
) -> Result<Option<usize>> {
    let LoopLevel::At {
        func, stage, var, ..
    } = level
    else {
        return Ok(None);
    };
    let legal = || {
        let mut names: Vec<String> = sites
            .iter()
            .filter(|s| !is_outermost_loop(s.loop_name))
            .map(|s| format!("{what}_at({})", describe_site(s.loop_name)))
            .collect();
        names.insert(0, format!("{what}_root()"));
        names.join(", ")
    };
    let consumer = env.funcs.get(func).ok_or_else(|| {
        Error::Schedule(format!("{f}.{what}_at({func}, {var}): {func} is not part of this pipeline; legal choices for {f}: {}", legal()))
    })?;
    let c = consumer.read();
    let mut missing = None;
    for candidate in level_loops(&c, *stage, *var) {
        match candidate {
            Ok(loop_name) => {
                if let Some(pos) = sites.iter().position(|s| s.loop_name == loop_name) {
                    return Ok(Some(pos));
                }
            }
            Err(msg) => missing = Some(msg),
        }
    }
    let why = match missing {
        Some(msg) if stage.is_some() => format!("{func} has no such loop ({msg})"),
        _ => format!("that loop does not enclose every use of {f}"),
    };
    Err(Error::Schedule(format!(
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

fn inject_realization(s: &Stmt, f: &FunctionContents, env: &Environment) -> Result<Stmt> {
    let Some(sites) = legal_sites(s, f.name) else {
        // Nothing uses f any more (every use was in an inlined branch that vanished).
        return Ok(s.clone());
    };
    let compute = resolve_level(&f.schedule.compute_level, "compute", f.name, &sites, env)?;
    let store = resolve_level(f.schedule.store_level(), "store", f.name, &sites, env)?;
    let store_depth = store.map_or(0, |i| i + 1);
    let compute_depth = compute.map_or(0, |i| i + 1);
    if store_depth > compute_depth {
        return Err(Error::Schedule(format!(
            "{} is stored at {} but computed at {}, outside it; storage must be at or outside the compute level",
            f.name,
            f.schedule.store_level().describe(),
            f.schedule.compute_level.describe()
        )));
    }
    if let Some(site) = sites[store_depth..compute_depth]
        .iter()
        .find(|s| s.parallel)
    {
        return Err(Error::Schedule(format!(
            "{} is stored outside the parallel loop {} but computed inside it, so iterations would race on its storage; store it inside that loop",
            f.name,
            describe_site(site.loop_name)
        )));
    }
    let compute_loop = compute.map(|i| sites[i].loop_name);
    let store_loop = store.map(|i| sites[i].loop_name);
    let s = match compute_loop {
        None => produce_then(f, s.clone()),
        Some(l) => inject_at_loop(s, l, &|body| produce_then(f, body)),
    };
    Ok(match store_loop {
        None => realize(f, s),
        Some(l) => inject_at_loop(&s, l, &|body| realize(f, body)),
    })
}

/// Wraps the body of loop `loop_name` (below the lets at its top) with `wrap`.
fn inject_at_loop(s: &Stmt, loop_name: Symbol, wrap: &dyn Fn(Stmt) -> Stmt) -> Stmt {
    match s.kind() {
        StmtKind::For {
            name,
            min,
            extent,
            kind,
            body,
        } if *name == loop_name => Stmt::for_loop(
            *name,
            min.clone(),
            extent.clone(),
            *kind,
            wrap_below_lets(body, wrap),
        ),
        _ => s.map_children(|e| e.clone(), |c| inject_at_loop(c, loop_name, wrap)),
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
