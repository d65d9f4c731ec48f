//! The loops of a Func's update definitions (reductions, scans, histograms), and what their
//! parallelism buys the cost model. An update runs in parallel over its outermost pure
//! dimension it may run in parallel, fused with the next ones inwards while it alone has too
//! few iterations to balance the threads, and vectorized over x when x is pure and a vector
//! wide. Small channel dimensions (at most `MAX_UNROLLED_CHANNELS` iterations) are unrolled
//! innermost instead of run in parallel, when the other loops keep the threads busy: one
//! iteration then computes what the channels share once (a grid histogram's pixel and bin
//! for its value and its count), and `select`s on the channel fold. An update that scatters
//! (writes at coordinates computed from loaded values) is not vectorized, since AVX2 has no
//! scatter and lanes emulated one by one cost more than they save, and it runs its pure x
//! loop inside its reduction loops, so consecutive read-modify-writes go to different cells
//! rather than wait on each other through one bin. An update whose pure dimensions cannot
//! keep the threads busy (a histogram, `hist(input(r.x, r.y)) += 1`, has none) is factored
//! instead (`rfactor`), as Halide's
//! experts do: its outer reduction loop is split into strips, each strip's partial result is
//! a point of an intermediate Func computed at root in parallel over the strips, and the
//! update then merges the partial results. A factored scatter keeps partial results per
//! residue of its inner reduction loop too (`SCATTER_LANES`), unrolled, as histeq's expert
//! does, so runs of equal values do not serialize on one counter; for that alone a histogram
//! is factored on one thread too.

use super::cost::reads_data;
use super::emit::{fuse_outer, loop_name, vectorize};
use super::footprint::Span;
use super::problem::{FuncInfo, Problem};
use crate::ir::Symbol;
use crate::lang::function::Definition;
use crate::lang::rfactor::is_exact_reduction;
use crate::lang::schedule::TailStrategy;
use crate::schedule_script::Directive;

/// The parallel tasks per thread an update's parallel loop aims for: its tasks are rarely
/// of equal work (a histogram's strips of unequal images, cells with more or fewer pixels),
/// and a thread with several of them evens out what one long task leaves idle.
const TASKS_PER_THREAD: i64 = 8;

/// A strip of a factored update does at least this many parallel tasks' overhead of work.
const TASKS_OF_WORK_PER_STRIP: f64 = 8.0;

/// At most this fraction of an update's iterations is spent merging the partial results of
/// a factored update (strips times the Func's points).
const MERGE_FRACTION: i64 = 16;

/// A factored scatter (a histogram) keeps this many partial results per strip, one per
/// residue of its inner reduction loop, unrolled: consecutive points whose values fall in
/// the same bin then increment different counters, instead of each waiting for the last
/// increment's store.
const SCATTER_LANES: i64 = 4;

/// Channel dimensions of an update with at most this many iterations are unrolled.
const MAX_UNROLLED_CHANNELS: i64 = 4;

/// How one update is computed.
#[derive(Clone, Debug, PartialEq)]
enum UpdatePlan {
    /// Parallel over the pure loops `parallel` (dimensions, innermost first, fused; none:
    /// serial), vectorized over x when `vector`, the channel dimensions `unrolled` innermost
    /// and unrolled, and x inside the reduction loops when `x_inside`.
    Pure {
        parallel: Vec<usize>,
        vector: bool,
        unrolled: Vec<usize>,
        x_inside: bool,
    },
    /// Factored into partial results per strip, the strips in parallel.
    Factored(Factoring),
}

/// An update factored into strips of its outer reduction loop.
#[derive(Clone, Debug, PartialEq)]
struct Factoring {
    /// The outer reduction loop, as the update's loops name it.
    rvar: Symbol,
    /// Its iterations per strip.
    factor: i64,
    /// The number of strips (of partial results).
    strips: i64,
    /// The inner reduction loop whose residues modulo `SCATTER_LANES` keep partial results
    /// of their own (a scatter whose update has no pure loop), as the update's loops name it.
    lanes: Option<Symbol>,
}

/// The pure loops of `update` of `f` (dimensions, innermost first), as its loops are ordered.
fn pure_loops(f: &FuncInfo, update: &Definition) -> Vec<usize> {
    (update.schedule.dims.iter())
        .filter(|d| !d.is_rvar)
        .filter_map(|d| f.args.iter().position(|&a| a == d.name))
        .collect()
}

/// The number of iterations of dimension `d` of `f`'s region (at least 1).
fn extent(f: &FuncInfo, d: usize) -> i64 {
    f.region.get(d).map_or(1, Span::extent).max(1)
}

/// The pure loops to run in parallel, of `loops` (innermost first) those in `safe`: the
/// outermost safe one but x (kept for vectors), with the safe loops just inside it while the
/// iterations are fewer than `TASKS_PER_THREAD` per thread; and their iterations.
fn parallel_loops(
    f: &FuncInfo,
    loops: &[usize],
    safe: &[usize],
    threads: i64,
) -> (Vec<usize>, i64) {
    let usable = |k: usize| loops[k] >= 1 && safe.contains(&loops[k]);
    let Some(mut k) = (0..loops.len()).rev().find(|&k| usable(k)) else {
        return (Vec::new(), 1);
    };
    let mut parallel = vec![loops[k]];
    let mut iterations = extent(f, loops[k]);
    while iterations < threads * TASKS_PER_THREAD && k > 0 && usable(k - 1) {
        k -= 1;
        parallel.insert(0, loops[k]);
        iterations *= extent(f, loops[k]);
    }
    (parallel, iterations)
}

/// Whether x is a pure loop of the update, safe to vectorize, and a vector wide.
fn vectorizable(f: &FuncInfo, loops: &[usize], safe: &[usize]) -> bool {
    loops.contains(&0) && safe.contains(&0) && extent(f, 0) >= f.lanes
}

/// The plan for update `u` of Func `i`: its pure parallelism when that keeps the threads
/// busy; else, if it is an exact reduction over a domain long enough, factored into strips.
fn plan_update(problem: &Problem, i: usize, u: usize) -> (UpdatePlan, i64) {
    let f = &problem.funcs[i];
    let definition = &problem.analysis().graph.funcs[i].definitions[u + 1];
    let threads = problem.machine.threads as i64;
    let (loops, safe) = (pure_loops(f, definition), &f.update_pure_dims[u]);
    let channels: Vec<usize> = (loops.iter().copied())
        .filter(|&d| d >= 2 && safe.contains(&d))
        .filter(|&d| (2..=MAX_UNROLLED_CHANNELS).contains(&extent(f, d)))
        .collect();
    let others: Vec<usize> = (loops.iter().copied())
        .filter(|d| !channels.contains(d))
        .collect();
    let (unrolled, (parallel, iterations)) = match parallel_loops(f, &others, safe, threads) {
        (parallel, iterations) if !channels.is_empty() && iterations >= threads => {
            (channels, (parallel, iterations))
        }
        _ => (Vec::new(), parallel_loops(f, &loops, safe, threads)),
    };
    let scatters = definition.args.iter().any(reads_data);
    let pure = UpdatePlan::Pure {
        parallel,
        vector: !scatters && vectorizable(f, &loops, safe),
        unrolled,
        x_inside: scatters && loops.contains(&0) && safe.contains(&0),
    };
    // A scatter with no pure loop (a histogram) may pay to be factored on one thread too:
    // its lanes' separate counters do not wait on each other (histeq at 1 thread ran 1.25
    // times slower unfactored); strips alone buy nothing there.
    let lanes_may_pay = scatters && loops.is_empty();
    if !lanes_may_pay && (iterations >= threads || threads == 1) {
        return (pure, iterations);
    }
    match factoring(problem, i, definition, iterations) {
        Some(factoring) if threads > 1 || factoring.lanes.is_some() => {
            let strips = factoring.strips;
            (UpdatePlan::Factored(factoring), strips)
        }
        _ => (pure, iterations),
    }
}

/// `update` of Func `i` factored into strips of its outer reduction loop, when that pays: it
/// is an exact reduction (`rfactor` accepts it), its loops are not scheduled yet, and there
/// are at least two strips, each worth several tasks (by the cost model), whose merge costs
/// little. `pure_iterations`: the iterations of its pure loops.
fn factoring(
    problem: &Problem,
    i: usize,
    update: &Definition,
    pure_iterations: i64,
) -> Option<Factoring> {
    let f = &problem.funcs[i];
    let exact = is_exact_reduction(update, f.name);
    if !problem.ingredients.rfactor || !exact || !update.schedule.splits.is_empty() {
        return None;
    }
    let rdom = update.rdom.as_ref()?;
    let outer = update.schedule.dims.iter().rev().find(|d| d.is_rvar)?;
    let values = problem.analysis().footprints.estimate_values();
    let size = |e| values.evaluate(e, &String::new).ok();
    let extent = size(&rdom.vars.iter().find(|v| v.name == outer.name)?.extent)?;
    let rdom_size: i64 = (rdom.vars.iter())
        .map(|v| size(&v.extent).map(|e| e.max(1)))
        .product::<Option<i64>>()?;
    // The inner reduction loop, when it is long enough to keep several counters busy.
    let inner = update
        .schedule
        .dims
        .iter()
        .find(|d| d.is_rvar && d.name != outer.name);
    let lanes = inner
        .filter(|d| {
            let scatters = update.args.iter().any(reads_data);
            let long = (rdom.vars.iter().find(|v| v.name == d.name))
                .and_then(|v| size(&v.extent))
                .is_some_and(|e| e >= SCATTER_LANES * f.lanes);
            scatters && long && pure_loops(f, update).is_empty()
        })
        .map(|d| d.short);
    let copies = lanes.map_or(1, |_| SCATTER_LANES);
    let merge_limit = pure_iterations * rdom_size / (MERGE_FRACTION * copies * f.points().max(1));
    let worth = problem.model.time(&f.updates) / (TASKS_OF_WORK_PER_STRIP * problem.model.task_ns);
    let wanted = (problem.machine.threads as i64 * TASKS_PER_THREAD)
        .min(extent)
        .min(merge_limit)
        .min(worth as i64);
    if wanted < 2 {
        return None;
    }
    let factor = (extent + wanted - 1) / wanted;
    Some(Factoring {
        rvar: outer.short,
        factor,
        strips: (extent + factor - 1) / factor,
        lanes,
    })
}

/// How much faster than serial the updates of Func `i` run as `emit_updates` schedules them
/// (the slowest update's speedup): a parallel loop of `n` iterations on `t` threads takes
/// `ceil(n / t)` rounds, as `plan::predict` balances tasks.
pub fn update_speedup(problem: &Problem, i: usize) -> f64 {
    let threads = problem.machine.threads as i64;
    (0..problem.funcs[i].update_pure_dims.len())
        .map(|u| {
            let (_, iterations) = plan_update(problem, i, u);
            iterations as f64 / ((iterations + threads - 1) / threads) as f64
        })
        .fold(f64::INFINITY, f64::min)
        .min(threads as f64)
        .max(1.0)
}

/// The loops of the updates of Func `i` (computed at root), as `plan_update` plans them.
pub fn emit_updates(problem: &Problem, i: usize, out: &mut Vec<Directive>) {
    let f = &problem.funcs[i];
    let mut taken: Vec<String> = (problem.funcs.iter())
        .map(|g| g.name.as_str().to_string())
        .collect();
    for u in 0..f.update_pure_dims.len() {
        let definition = &problem.analysis().graph.funcs[i].definitions[u + 1];
        match plan_update(problem, i, u).0 {
            UpdatePlan::Pure {
                parallel,
                vector,
                unrolled,
                x_inside,
            } => {
                emit_update_order(f, u, definition, &unrolled, x_inside, out);
                emit_update_loops(f, u, &parallel, vector, out);
            }
            UpdatePlan::Factored(factoring) => {
                let loops = pure_loops(f, &problem.analysis().graph.funcs[i].definitions[u + 1]);
                let intermediate = fresh_name(f, u, &mut taken);
                emit_factored(f, u, &loops, &factoring, intermediate, out);
            }
        }
    }
}

/// `f`'s update `u` (`definition`) with the channels `unrolled` split by their extent, the
/// inner loops unrolled innermost, then x when `x_inside`, then the other loops in their
/// order, the channels' outer loops (one iteration where the extent is as estimated)
/// outermost. Nothing when there is nothing to move.
fn emit_update_order(
    f: &FuncInfo,
    u: usize,
    definition: &Definition,
    unrolled: &[usize],
    x_inside: bool,
    out: &mut Vec<Directive>,
) {
    if unrolled.is_empty() && !x_inside {
        return;
    }
    let func = f.name.as_str().to_string();
    let mut inner = Vec::new();
    let mut outer = Vec::new();
    for &d in unrolled {
        let var = f.args[d].as_str();
        let (o, i) = (loop_name(f, var, "o"), loop_name(f, var, "i"));
        out.push(Directive::Split {
            func: func.clone(),
            update: Some(u),
            var: var.to_string(),
            outer: o.clone(),
            inner: i.clone(),
            factor: extent(f, d) as i32,
            tail: TailStrategy::GuardWithIf,
        });
        out.push(Directive::Unroll {
            func: func.clone(),
            update: Some(u),
            var: i.clone(),
            factor: None,
        });
        inner.push(i);
        outer.push(o);
    }
    let moved: Vec<Symbol> = (unrolled.iter())
        .map(|&d| f.args[d])
        .chain(x_inside.then(|| f.args[0]))
        .collect();
    if x_inside {
        inner.push(f.args[0].as_str().to_string());
    }
    let rest = (definition.schedule.dims.iter())
        .filter(|d| !moved.contains(&d.short))
        .map(|d| d.short.as_str().to_string());
    out.push(Directive::Reorder {
        func,
        update: Some(u),
        vars: inner.into_iter().chain(rest).chain(outer).collect(),
    });
}

/// `f`'s loops of update `u`: `parallel` (innermost first) fused and run in parallel, x
/// vectorized when `vector`.
fn emit_update_loops(
    f: &FuncInfo,
    u: usize,
    parallel: &[usize],
    vector: bool,
    out: &mut Vec<Directive>,
) {
    let func = f.name.as_str().to_string();
    let names: Vec<String> = (parallel.iter())
        .map(|&d| f.args[d].as_str().to_string())
        .collect();
    if let Some(var) = fuse_outer(f, Some(u), &names, out) {
        out.push(Directive::Parallel {
            func: func.clone(),
            update: Some(u),
            var,
        });
    }
    if vector {
        out.push(Directive::Vectorize {
            func,
            update: Some(u),
            var: f.args[0].as_str().to_string(),
            width: Some(f.lanes as i32),
        });
    }
}

/// A name for the intermediate of `f`'s update `u` that no Func of the pipeline (nor an
/// intermediate named before) has; it is added to `taken`.
fn fresh_name(f: &FuncInfo, u: usize, taken: &mut Vec<String>) -> String {
    let mut name = match u {
        0 => format!("{}_intm", f.name),
        _ => format!("{}_intm{u}", f.name),
    };
    while taken.contains(&name) {
        name.push('_');
    }
    taken.push(name.clone());
    name
}

/// `f`'s update `u` factored: its outer reduction loop split into strips, the strip index
/// the outermost pure Var of the Func `intermediate`, computed at root in parallel over the
/// strips and vectorized over x where x allows; the update then merges the partial results
/// per point (each point its own, so in parallel as any update may be) vectorized over x.
/// `loops`: the update's pure loops, innermost first.
fn emit_factored(
    f: &FuncInfo,
    u: usize,
    loops: &[usize],
    factoring: &Factoring,
    intermediate: String,
    out: &mut Vec<Directive>,
) {
    let split = |var: &Symbol, factor: i64, out: &mut Vec<Directive>| {
        let base = var.as_str().replace('.', "_");
        let (outer, inner) = (loop_name(f, &base, "o"), loop_name(f, &base, "i"));
        out.push(Directive::Split {
            func: f.name.as_str().to_string(),
            update: Some(u),
            var: var.as_str().to_string(),
            outer: outer.clone(),
            inner: inner.clone(),
            factor: factor as i32,
            tail: TailStrategy::GuardWithIf,
        });
        (base, outer, inner)
    };
    let (base, outer, inner) = split(&factoring.rvar, factoring.factor, out);
    let strip = loop_name(f, &base, "strip");
    let mut preserved = vec![(outer, strip.clone())];
    // The loops of the intermediate's update, innermost first, when they are reordered for
    // the lanes: the lane, the rest of the inner loop, the rest of the strip's, the strip.
    let mut lane_order = None;
    if let Some(rvar) = factoring.lanes {
        let (base, rest, lane_residue) = split(&rvar, SCATTER_LANES, out);
        let lane = loop_name(f, &base, "lane");
        preserved.push((lane_residue, lane.clone()));
        lane_order = Some(vec![lane, rest, inner, strip.clone()]);
    }
    out.push(Directive::Rfactor {
        func: f.name.as_str().to_string(),
        update: u,
        preserved,
        intermediate: intermediate.clone(),
    });
    // The intermediate as the scheduler sees a Func: f's dimensions, then the strips (and
    // the lanes).
    let mut partial = f.clone();
    partial.name = Symbol::new(&intermediate);
    partial.args.push(Symbol::new(&strip));
    partial.region.push(Span::with_extent(0, factoring.strips));
    if let Some(order) = &lane_order {
        partial.args.push(Symbol::new(&order[0]));
        partial.region.push(Span::with_extent(0, SCATTER_LANES));
        out.push(Directive::Reorder {
            func: intermediate.clone(),
            update: Some(0),
            vars: order.clone(),
        });
        out.push(Directive::Unroll {
            func: intermediate.clone(),
            update: Some(0),
            var: order[0].clone(),
            factor: None,
        });
    }
    partial.is_output = false;
    out.push(Directive::ComputeRoot {
        func: intermediate.clone(),
    });
    out.push(Directive::Parallel {
        func: intermediate,
        update: None,
        var: strip,
    });
    if let Some(x) = f.args.first() {
        vectorize(&partial, x.as_str(), out);
    }
    let safe = &f.update_pure_dims[u];
    let vector = vectorizable(f, loops, safe);
    let strip_dim = f.args.len();
    emit_update_loops(&partial, 0, &[strip_dim], vector, out);
    let all: Vec<usize> = (0..f.args.len()).collect();
    emit_update_loops(f, u, &[], vectorizable(f, &all, &all), out);
}
