//! Random schedules from the scheduler's space, for checking and calibrating the cost model
//! (`tessera model-check`, `tessera calibrate`): a random valid grouping (every Func its own
//! group, then a random number of random merges of a group into the single group reading its
//! output, each kept only if `plan::is_valid_group` holds) and a random strategy per group
//! (parallel rows for a Func alone; overlapped tiles or sliding-window strips of random sizes
//! for a group of several), each with the model's predicted terms and time. Sizes are drawn
//! log-uniformly so that small and large tiles are sampled alike.

use std::collections::BTreeSet;

use rand::Rng;

use super::footprint::Span;
use super::plan::{channel_orders, is_valid_group, predict, GroupPlan, Strategy};
use super::problem::Problem;
use super::search::{scheduled, scheduled_consumers};
use crate::error::Result;

/// A random valid grouping of `problem`'s scheduled Funcs with a random strategy per group,
/// producers' groups first, each plan with its predicted terms and time.
pub fn sample_plans(problem: &Problem, rng: &mut impl Rng) -> Result<Vec<GroupPlan>> {
    let funcs = scheduled(problem);
    // Each group: its output and its members.
    let mut groups: Vec<(usize, BTreeSet<usize>)> =
        funcs.iter().map(|&f| (f, BTreeSet::from([f]))).collect();
    let merges = rng.random_range(0..=funcs.len());
    for _ in 0..merges {
        let candidates = valid_merges(problem, &groups);
        if candidates.is_empty() {
            break;
        }
        let (from, into) = candidates[rng.random_range(0..candidates.len())];
        let (_, members) = groups.remove(from);
        let into = if from < into { into - 1 } else { into };
        groups[into].1.extend(members);
    }
    groups.sort_by_key(|(output, _)| *output);
    groups
        .into_iter()
        .map(|(output, members)| {
            let strategy = random_strategy(problem, output, &members, rng);
            let terms = predict(problem, output, &members, strategy)?;
            Ok(GroupPlan {
                output,
                members,
                strategy,
                ns: problem.model.time(&terms),
                terms,
            })
        })
        .collect()
}

/// The merges `(from, into)` of group `from` into group `into`, the only group reading
/// `from`'s output, that make a valid group with a tiled (at least one-dimensional) output.
fn valid_merges(problem: &Problem, groups: &[(usize, BTreeSet<usize>)]) -> Vec<(usize, usize)> {
    let group_of = |f: usize| groups.iter().position(|(_, m)| m.contains(&f));
    let mut merges = Vec::new();
    for (from, (output, members)) in groups.iter().enumerate() {
        let readers: BTreeSet<usize> = (scheduled_consumers(problem, *output).into_iter())
            .filter_map(group_of)
            .collect();
        let [into] = readers.into_iter().collect::<Vec<_>>()[..] else {
            continue;
        };
        let (into_output, into_members) = &groups[into];
        let union: BTreeSet<usize> = members.union(into_members).copied().collect();
        if !problem.funcs[*into_output].args.is_empty()
            && is_valid_group(problem, *into_output, &union)
        {
            merges.push((from, into));
        }
    }
    merges
}

/// A random strategy for a group of `members` with output `output`: rows for a Func alone,
/// else tiles (widths in whole vectors) or, for a two-dimensional output, strips; channels
/// (dimensions beyond the second) inside or outside at random where both are valid
/// (`channel_orders`).
fn random_strategy(
    problem: &Problem,
    output: usize,
    members: &BTreeSet<usize>,
    rng: &mut impl Rng,
) -> Strategy {
    let f = &problem.funcs[output];
    let orders = channel_orders(problem, output, members);
    let channels_inside = match orders {
        [only] => *only,
        _ => rng.random_bool(0.5),
    };
    if members.len() == 1 {
        return Strategy::Rows { channels_inside };
    }
    let extent = |d: usize| f.region.get(d).map_or(1, Span::extent).max(1);
    let vectors = (extent(0) + f.lanes - 1) / f.lanes;
    let two_dimensional = f.args.len() >= 2;
    if two_dimensional && rng.random_bool(0.3) {
        return Strategy::Strips {
            rows: log_uniform(rng, extent(1)),
            channels_inside,
        };
    }
    Strategy::Tiles {
        width: log_uniform(rng, vectors) * f.lanes,
        height: match two_dimensional {
            true => log_uniform(rng, extent(1)),
            false => 1,
        },
        channels_inside,
    }
}

/// An integer in `1..=most` whose logarithm is uniform.
fn log_uniform(rng: &mut impl Rng, most: i64) -> i64 {
    let most = most.max(1);
    let x = rng.random_range(0.0..=(most as f64).ln());
    (x.exp().round() as i64).clamp(1, most)
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    use super::*;
    use crate::autoschedule::{CostModel, Machine, PipelineAnalysis};
    use crate::codegen::target::Target;
    use crate::prelude::*;
    use crate::testing::test_seed;

    /// A diamond of stencils: `a` read by `b` and `c`, both read by `out`, after `pre`; every
    /// stage heavy enough not to be inlined.
    fn diamond() -> Func {
        let input = ImageParam::new(Type::f32(), 2, "input");
        let (x, y) = (Var::new("x"), Var::new("y"));
        let stencil = |name: &str, from: &dyn Fn(Expr, Expr) -> Expr| {
            let f = Func::new(name);
            let mut total = Expr::from(0.0f32);
            for d in -2..=2 {
                let v = from(x.expr() + d, y.expr()) + from(x.expr(), y.expr() + d);
                total += v.clone() * v;
            }
            f.define((x, y), sqrt(total)).unwrap();
            f
        };
        let pre = stencil("pre", &|x, y| input.at((x, y)));
        let a = stencil("a", &|x, y| pre.at((x, y)));
        let b = stencil("b", &|x, y| a.at((x, y)));
        let c = stencil("c", &|x, y| a.at((x, y)) * 2.0f32);
        let out = Func::new("out");
        out.define((x, y), b.at((x, y)) + c.at((x, y))).unwrap();
        out.set_estimates(&[(0, 512), (0, 256)]).unwrap();
        input.set_estimates(&[(-8, 528), (-8, 272)]).unwrap();
        out
    }

    fn samples(problem: &Problem, seed: u64, n: usize) -> Vec<Vec<GroupPlan>> {
        let mut rng = StdRng::seed_from_u64(seed);
        (0..n)
            .map(|_| sample_plans(problem, &mut rng).unwrap())
            .collect()
    }

    #[test]
    fn samples_are_valid_groupings_and_differ_with_the_seed() {
        let out = diamond();
        let analysis = PipelineAnalysis::new(&out, &[]).unwrap();
        let machine = Machine::host(&Target::host(), 2);
        let problem = Problem::new(&analysis, machine, CostModel::default()).unwrap();
        let seed = test_seed("sample", 16);
        let drawn = samples(&problem, seed, 40);
        let mut multi = 0;
        for plans in &drawn {
            let mut seen = BTreeSet::new();
            for p in plans {
                assert!(is_valid_group(&problem, p.output, &p.members), "{p:?}");
                assert!(p.members.iter().all(|&m| seen.insert(m)), "{plans:?}");
                assert_eq!(p.ns, problem.model.time(&p.terms));
                assert_eq!(
                    matches!(p.strategy, Strategy::Rows { .. }),
                    p.members.len() == 1
                );
                if let Strategy::Tiles { width, .. } = p.strategy {
                    assert_eq!(width % problem.funcs[p.output].lanes, 0);
                }
                multi += usize::from(p.members.len() > 1);
            }
            let scheduled: BTreeSet<usize> = (0..problem.funcs.len())
                .filter(|&i| !problem.inlined[i])
                .collect();
            assert_eq!(seen, scheduled);
        }
        assert!(multi > 0, "no sample merged any group");
        assert_ne!(drawn, samples(&problem, seed + 1, 40));
        assert_eq!(drawn, samples(&problem, seed, 40));
    }
}
