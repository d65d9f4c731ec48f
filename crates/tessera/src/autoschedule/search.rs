//! The two searches over groupings. Both start from the problem's Funcs with inlining decided
//! and return one plan per group, each with its best strategy (`plan::best_plan`).
//!
//! - `greedy` is PolyMage's grouping (ASPLOS'15 §4): start with every Func its own group and
//!   repeatedly merge a group into the single group that reads its output, taking the merge
//!   the cost model says saves the most, until no merge saves anything.
//! - `dynamic_programming` is PolyMage-DP's (TOPLAS'20 §3): over a topological order in
//!   which each Func's producers come right before it (a depth-first post-order, so chains
//!   of stages are contiguous), the best grouping of every prefix is the best over its last
//!   group — a run of at most `MAX_GROUP` consecutive Funcs ending at the prefix's end — of
//!   that group's cost plus the best grouping of what precedes it. The bound on a group's
//!   size keeps the search linear in the number of stages (PolyMage-DP's bounded DP), so
//!   there is no cap on the pipeline's length. A Func's producers can be contiguous with it
//!   only in some orders (each producer's own chain comes between it and the next), so the
//!   programming runs over two depth-first orders and keeps the cheaper grouping: producers
//!   visited as the definitions read them, and producers with the most stages upstream
//!   visited first, which puts last, right before their consumer, the producers whose
//!   upstream stages the big ones have already brought in (a pyramid's finest upsamplings
//!   of levels the coarser ones already needed).

use std::collections::BTreeSet;

use rustc_hash::FxHashMap;

use super::graph::Producer;
use super::plan::{best_plan, GroupPlan};
use super::problem::Problem;
use crate::error::{Error, Result};

/// The most Funcs one group holds (both searches). Bounds the dynamic programming's work per
/// stage, and lowering's: the bounds of a deep nest of Funcs computed inside one another
/// grow with every level.
pub const MAX_GROUP: usize = 8;

/// Best plans, memoized by their members (both searches ask for the same groups repeatedly).
struct Plans<'p, 'a> {
    problem: &'p Problem<'a>,
    memo: FxHashMap<BTreeSet<usize>, Option<GroupPlan>>,
}

impl<'p, 'a> Plans<'p, 'a> {
    fn new(problem: &'p Problem<'a>) -> Self {
        Plans {
            problem,
            memo: FxHashMap::default(),
        }
    }

    fn best(&mut self, output: usize, members: BTreeSet<usize>) -> Result<Option<GroupPlan>> {
        if let Some(p) = self.memo.get(&members) {
            return Ok(p.clone().filter(|p| p.output == output));
        }
        let plan = best_plan(self.problem, output, &members)?;
        self.memo.insert(members, plan.clone());
        Ok(plan)
    }

    fn single(&mut self, f: usize) -> Result<GroupPlan> {
        self.best(f, BTreeSet::from([f]))?
            .ok_or_else(|| Error::Internal("a Func alone is always a group".into()))
    }
}

/// The Funcs (not inlined) that read Func `f`, looking through inlined Funcs.
pub(super) fn scheduled_consumers(problem: &Problem, f: usize) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    for &c in &problem.funcs[f].consumers {
        if problem.inlined[c] {
            out.extend(scheduled_consumers(problem, c));
        } else {
            out.insert(c);
        }
    }
    out
}

/// The Funcs (not inlined) Func `f` reads, looking through inlined Funcs.
fn scheduled_producers(problem: &Problem, f: usize) -> Vec<usize> {
    let mut out = Vec::new();
    for p in &problem.funcs[f].producers {
        let Producer::Func(name) = p else { continue };
        let Some(i) = problem.func_index(*name) else {
            continue;
        };
        if problem.inlined[i] {
            out.extend(scheduled_producers(problem, i));
        } else if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// The Funcs that are not inlined, in the problem's order.
pub(super) fn scheduled(problem: &Problem) -> Vec<usize> {
    (0..problem.funcs.len())
        .filter(|&i| !problem.inlined[i])
        .collect()
}

/// PolyMage's greedy grouping.
pub fn greedy(problem: &Problem) -> Result<Vec<GroupPlan>> {
    let mut plans = Plans::new(problem);
    let mut groups = Vec::new();
    for f in scheduled(problem) {
        groups.push(plans.single(f)?);
    }
    loop {
        let group_of =
            |f: usize, groups: &[GroupPlan]| groups.iter().position(|g| g.members.contains(&f));
        let mut best: Option<(f64, usize, usize, GroupPlan)> = None;
        for (gi, g) in groups.iter().enumerate() {
            let consumers: BTreeSet<usize> = (scheduled_consumers(problem, g.output).into_iter())
                .filter_map(|c| group_of(c, &groups))
                .collect();
            let [ci] = consumers.into_iter().collect::<Vec<_>>()[..] else {
                continue;
            };
            let c = &groups[ci];
            let members: BTreeSet<usize> = g.members.union(&c.members).copied().collect();
            if members.len() > MAX_GROUP {
                continue;
            }
            let Some(merged) = plans.best(c.output, members)? else {
                continue;
            };
            let saving = g.ns + c.ns - merged.ns;
            if saving > 0.0 && best.as_ref().is_none_or(|b| saving > b.0) {
                best = Some((saving, gi, ci, merged));
            }
        }
        let Some((_, gi, ci, merged)) = best else {
            return Ok(groups);
        };
        groups[ci] = merged;
        groups.remove(gi);
    }
}

/// PolyMage-DP's dynamic programming over groupings of consecutive Funcs in a producer-first
/// depth-first order, run over each of `depth_first_orders`; the cheapest grouping wins (the
/// first order on a tie).
pub fn dynamic_programming(problem: &Problem) -> Result<Vec<GroupPlan>> {
    let mut plans = Plans::new(problem);
    let mut best: Option<(f64, Vec<GroupPlan>)> = None;
    for order in depth_first_orders(problem) {
        let (ns, groups) = best_grouping(&mut plans, &order)?;
        if best.as_ref().is_none_or(|b| ns < b.0) {
            best = Some((ns, groups));
        }
    }
    Ok(best.map(|(_, groups)| groups).unwrap_or_default())
}

/// The least predicted time of Funcs `order` in groups of consecutive Funcs, and its groups.
fn best_grouping(plans: &mut Plans, order: &[usize]) -> Result<(f64, Vec<GroupPlan>)> {
    let n = order.len();
    // best[i]: the least time of the first i Funcs, and where its last group starts.
    let mut best: Vec<(f64, usize, Option<GroupPlan>)> = vec![(0.0, 0, None)];
    for i in 1..=n {
        let output = order[i - 1];
        let mut choice: (f64, usize, Option<GroupPlan>) = (f64::INFINITY, i - 1, None);
        let mut members = BTreeSet::new();
        for j in (i.saturating_sub(MAX_GROUP)..i).rev() {
            members.insert(order[j]);
            let Some(plan) = plans.best(output, members.clone())? else {
                continue;
            };
            let total = best[j].0 + plan.ns;
            if total < choice.0 {
                choice = (total, j, Some(plan));
            }
        }
        best.push(choice);
    }
    let mut groups = Vec::new();
    let mut i = n;
    while i > 0 {
        let (_, start, plan) = &best[i];
        groups.push(
            plan.clone()
                .ok_or_else(|| Error::Internal("a Func alone is always a group".into()))?,
        );
        i = *start;
    }
    groups.reverse();
    Ok((best[n].0, groups))
}

/// The scheduled Funcs in topological orders where each Func comes right after its
/// producers' chains (depth-first post-orders from the output): producers visited in the
/// order the definitions read them, then (when it differs) those with the most scheduled
/// stages upstream first.
fn depth_first_orders(problem: &Problem) -> Vec<Vec<usize>> {
    let as_read = depth_first_order(problem, |producers| producers);
    let upstream = upstream_counts(problem);
    let largest_upstream_first = depth_first_order(problem, |mut producers| {
        // Stable: producers with as many stages upstream keep the order they are read in.
        producers.sort_by_key(|&p| std::cmp::Reverse(upstream[p]));
        producers
    });
    if largest_upstream_first == as_read {
        vec![as_read]
    } else {
        vec![as_read, largest_upstream_first]
    }
}

/// A depth-first post-order from the output, each Func's scheduled producers visited in the
/// order `visit_order` puts them.
fn depth_first_order(
    problem: &Problem,
    visit_order: impl Fn(Vec<usize>) -> Vec<usize>,
) -> Vec<usize> {
    let mut order = Vec::new();
    let mut visited = vec![false; problem.funcs.len()];
    let roots: Vec<usize> = scheduled(problem)
        .into_iter()
        .filter(|&f| scheduled_consumers(problem, f).is_empty())
        .collect();
    for root in roots {
        visit(problem, root, &visit_order, &mut visited, &mut order);
    }
    order
}

fn visit(
    problem: &Problem,
    f: usize,
    visit_order: &impl Fn(Vec<usize>) -> Vec<usize>,
    visited: &mut [bool],
    order: &mut Vec<usize>,
) {
    if visited[f] {
        return;
    }
    visited[f] = true;
    for p in visit_order(scheduled_producers(problem, f)) {
        visit(problem, p, visit_order, visited, order);
    }
    order.push(f);
}

/// For each Func, how many scheduled Funcs it depends on, directly or not.
fn upstream_counts(problem: &Problem) -> Vec<usize> {
    fn upstream(
        problem: &Problem,
        f: usize,
        memo: &mut [Option<BTreeSet<usize>>],
    ) -> BTreeSet<usize> {
        if let Some(set) = &memo[f] {
            return set.clone();
        }
        let mut set = BTreeSet::new();
        for p in scheduled_producers(problem, f) {
            set.insert(p);
            set.extend(upstream(problem, p, memo));
        }
        memo[f] = Some(set.clone());
        set
    }
    let mut memo = vec![None; problem.funcs.len()];
    (0..problem.funcs.len())
        .map(|f| upstream(problem, f, &mut memo).len())
        .collect()
}
