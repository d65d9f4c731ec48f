//! A group's plan and its predicted time: how a group of Funcs (one output, computed at root,
//! and members computed inside its loops) is computed, and what the cost model says that
//! costs. The strategies are PolyMage's overlapped tiles (members computed per tile of the
//! output, recomputing the tiles' overlap), Halide's sliding window in parallel strips
//! (members stored per strip and computed per row, each row once, storage folded to the rows
//! alive), and, for a group of one Func, plain parallel rows. The best tile or strip size is
//! searched per group: a grid of sizes in whole vectors and powers of two, then refined at
//! sizes between (not only powers of two).
//!
//! The predicted time charges (PolyMage-DP §4): the points computed, overlap and vector tails
//! included, at each Func's per-point cost; the bytes each tile moves from outside the group
//! and writes of its output, at the rate of the cache level the producer's whole region lives
//! in; the members' working set per tile at the rate of the level it fits in; per-tile,
//! per-allocation and per-task overheads; and the parallel loop's balance over the threads.

use std::collections::BTreeSet;
use std::fmt;

use super::footprint::{Region, Span};
use super::problem::{volume, Problem};
use crate::error::Result;

/// How a group is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// One Func alone, over its whole region: parallel over its outer dimensions, vectorized
    /// over its innermost.
    Rows,
    /// Tiles of `width × height` points of the output, in parallel rows of tiles; every member
    /// computed per tile (overlapped tiling).
    Tiles {
        /// Points per tile in dimension 0.
        width: i64,
        /// Points per tile in dimension 1.
        height: i64,
    },
    /// Parallel strips of `rows` rows of the output; members stored per strip and computed
    /// per row (a sliding window).
    Strips {
        /// Rows per strip.
        rows: i64,
    },
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Strategy::Rows => write!(f, "parallel rows"),
            Strategy::Tiles { width, height } => write!(f, "tiles of {width}x{height}"),
            Strategy::Strips { rows } => write!(f, "sliding window in strips of {rows} rows"),
        }
    }
}

/// A group with its chosen strategy and predicted time.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupPlan {
    /// The group's output (the Func computed at root).
    pub output: usize,
    /// Every Func of the group, the output included (not the inlined ones).
    pub members: BTreeSet<usize>,
    /// How it is computed.
    pub strategy: Strategy,
    /// The predicted time, in nanoseconds.
    pub ns: f64,
}

/// The best plan for a group of `members` with output `output`, or `None` if the group
/// cannot be computed as one (a member with updates, or read outside the group).
pub fn best_plan(
    problem: &Problem,
    output: usize,
    members: &BTreeSet<usize>,
) -> Result<Option<GroupPlan>> {
    if !is_valid_group(problem, output, members) {
        return Ok(None);
    }
    let plan = |strategy| -> Result<GroupPlan> {
        Ok(GroupPlan {
            output,
            members: members.clone(),
            strategy,
            ns: predict(problem, output, members, strategy)?,
        })
    };
    let mut best = plan(Strategy::Rows)?;
    if members.len() == 1 {
        return Ok(Some(best));
    }
    best.ns = f64::INFINITY;
    let f = &problem.funcs[output];
    let extent = |d: usize| f.region.get(d).map_or(1, Span::extent).max(1);
    let lanes = f.lanes;
    let widths = candidates(lanes, extent(0));
    let heights = if f.args.len() >= 2 {
        candidates(1, extent(1))
    } else {
        vec![1]
    };
    let consider = |strategy, best: &mut GroupPlan| -> Result<()> {
        let p = plan(strategy)?;
        if p.ns < best.ns {
            *best = p;
        }
        Ok(())
    };
    for &width in &widths {
        for &height in &heights {
            consider(Strategy::Tiles { width, height }, &mut best)?;
        }
    }
    if f.args.len() >= 2 {
        for &rows in &heights {
            consider(Strategy::Strips { rows }, &mut best)?;
        }
    }
    // Refine between the grid's sizes: three quarters and one and a half of the best.
    let refine = |n: i64, unit: i64, most: i64| -> Vec<i64> {
        [n * 3 / 4, n * 3 / 2]
            .into_iter()
            .map(|m| (m / unit).max(1) * unit)
            .filter(|&m| m != n && m <= most.max(unit))
            .collect()
    };
    match best.strategy {
        Strategy::Tiles { width, height } => {
            for w in refine(width, lanes, round_up(extent(0), lanes)) {
                consider(Strategy::Tiles { width: w, height }, &mut best)?;
            }
            let width = match best.strategy {
                Strategy::Tiles { width, .. } => width,
                _ => width,
            };
            for h in refine(height, 1, extent(1)) {
                consider(Strategy::Tiles { width, height: h }, &mut best)?;
            }
        }
        Strategy::Strips { rows } => {
            for r in refine(rows, 1, extent(1)) {
                consider(Strategy::Strips { rows: r }, &mut best)?;
            }
        }
        Strategy::Rows => {}
    }
    Ok(Some(best))
}

/// `unit` times powers of two up to the first at least `extent`.
fn candidates(unit: i64, extent: i64) -> Vec<i64> {
    let mut sizes = vec![unit];
    while *sizes.last().expect("starts non-empty") < extent && sizes.len() < 12 {
        sizes.push(sizes.last().expect("non-empty") * 2);
    }
    sizes
}

fn round_up(n: i64, unit: i64) -> i64 {
    (n + unit - 1) / unit * unit
}

/// Whether `members` can be one group with output `output`: every member but the output is
/// pure and read only inside the group, and a group of several has a pure output.
pub fn is_valid_group(problem: &Problem, output: usize, members: &BTreeSet<usize>) -> bool {
    if !members.contains(&output) {
        return false;
    }
    if members.len() == 1 {
        return true;
    }
    members.iter().all(|&m| {
        let f = &problem.funcs[m];
        !f.has_updates
            && (m == output
                || f.consumers
                    .iter()
                    .all(|c| members.contains(c) || inlined_into(problem, *c, members)))
    })
}

/// Whether inlined Func `c` is read only inside `members` (through other inlined Funcs).
fn inlined_into(problem: &Problem, c: usize, members: &BTreeSet<usize>) -> bool {
    problem.inlined[c]
        && problem.funcs[c]
            .consumers
            .iter()
            .all(|&d| members.contains(&d) || inlined_into(problem, d, members))
}

/// The predicted time of group `members` with output `output` computed with `strategy`.
pub fn predict(
    problem: &Problem,
    output: usize,
    members: &BTreeSet<usize>,
    strategy: Strategy,
) -> Result<f64> {
    let f = &problem.funcs[output];
    let m = &problem.model;
    let machine = &problem.machine;
    let threads = machine.threads as f64;
    let extents: Vec<i64> = f.region.iter().map(|s| s.extent().max(1)).collect();
    // The tile, the number of tiles, and the parallel loop's trip count.
    let (tile, tiles, parallel): (Region, i64, i64) = match strategy {
        Strategy::Rows => {
            let parallel = extents.iter().skip(1).product::<i64>().max(1);
            (f.region.clone(), 1, parallel)
        }
        Strategy::Tiles { width, height } => {
            let size = [width, height];
            let tile = tile_at_center(&f.region, &size);
            let counts: Vec<i64> = (extents.iter().enumerate())
                .map(|(d, e)| match d {
                    0 | 1 => (e + size[d] - 1) / size[d],
                    _ => *e,
                })
                .collect();
            let parallel = counts.iter().skip(1).product::<i64>().max(1);
            (tile, counts.iter().product(), parallel)
        }
        Strategy::Strips { rows } => {
            let tile = tile_at_center(&f.region, &[extents[0], rows]);
            let strips = (extents[1] + rows - 1) / rows * extents.iter().skip(2).product::<i64>();
            (tile, strips, strips)
        }
    };
    let regions = problem.tile_regions(output, members, &tile)?;
    // Compute: every member's points, rounded up to whole vectors along dimension 0.
    let mut compute = 0.0;
    let mut working_set = 0;
    for (&i, region) in &regions.inside {
        let g = &problem.funcs[i];
        let row = region
            .first()
            .map_or(1, |s| round_up(s.extent().max(1), g.lanes));
        let points = row * volume(&region[1.min(region.len())..]);
        compute += points as f64 * g.point_ns;
        if i != output {
            working_set += volume(region) * g.bytes;
        }
    }
    // A sliding window keeps only the rows one output row needs alive.
    if let Strategy::Strips { .. } = strategy {
        let row = tile_at_center(&f.region, &[extents[0], 1]);
        let per_row = problem.tile_regions(output, members, &row)?;
        working_set = (per_row.inside.iter())
            .filter(|(&i, _)| i != output)
            .map(|(&i, r)| volume(r) * problem.funcs[i].bytes)
            .sum();
    }
    let level_ns = |bytes: i64| -> (f64, bool) {
        if bytes <= machine.l1_bytes {
            (0.0, false)
        } else if bytes <= machine.l2_bytes {
            (m.l2_byte_ns, false)
        } else if bytes * machine.threads as i64 <= machine.l3_bytes {
            (m.l3_byte_ns, false)
        } else {
            (m.memory_byte_ns, true)
        }
    };
    let (mut cached, mut memory) = (0.0, 0.0);
    let mut charge = |bytes: i64, level: (f64, bool)| {
        let ns = bytes as f64 * level.0;
        if level.1 {
            memory += ns;
        } else {
            cached += ns;
        }
    };
    for (&p, region) in &regions.outside {
        let bytes = volume(region) * problem.bytes_of(p);
        charge(bytes, level_ns(problem.total_bytes(p)));
    }
    // Members are written and read back within the tile.
    charge(2 * working_set, level_ns(working_set));
    let out_bytes = volume(&tile) * f.bytes;
    charge(out_bytes, level_ns(f.points() * f.bytes));
    let allocations = (members.len() - 1) as f64 * m.allocation_ns;
    let per_tile = compute + cached + m.tile_ns + allocations;
    let tiles = tiles as f64;
    let balance = {
        let p = parallel as f64;
        ((p / threads).ceil() * threads / p).max(1.0)
    };
    let parallel_time = (per_tile * tiles * balance + m.task_ns * parallel as f64) / threads;
    let memory_time = memory * tiles / threads.min(m.memory_threads).max(1.0);
    let updates = if f.update_pure_dims.iter().all(|d| !d.is_empty()) && f.args.len() >= 2 {
        f.updates_ns / threads
    } else {
        f.updates_ns
    };
    Ok(parallel_time + memory_time + updates)
}

/// A tile of `size` (dimensions 0 and 1; the others one point) at the middle of `region`, so
/// that boundary effects at its edges do not skew the estimate.
fn tile_at_center(region: &[Span], size: &[i64]) -> Region {
    (region.iter().enumerate())
        .map(|(d, s)| {
            let extent = size
                .get(d)
                .copied()
                .unwrap_or(1)
                .clamp(1, s.extent().max(1));
            let min = s.min + (s.extent() - extent) / 2;
            Span::with_extent(min, extent)
        })
        .collect()
}
