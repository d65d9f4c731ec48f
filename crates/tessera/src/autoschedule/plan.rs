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
//! included, at each Func's per-point cost, and the steps of its vector loop at its width
//! (`widths`); the bytes each tile moves from outside the group
//! and writes of its output, at the rate of the cache level the producer's whole region lives
//! in; the members' working set per tile at the rate of the level it fits in; per-tile,
//! per-allocation and per-task overheads; and the parallel loop's balance over the threads.

use std::collections::BTreeSet;
use std::fmt;

use super::footprint::{Region, Span};
use super::graph::Producer;
use super::model::{CostTerms, Term};
use super::problem::{volume, Problem};
use super::widths::step_lanes;
use crate::error::Result;

/// How a group is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// One Func alone, over its whole region: parallel over its outer dimensions, vectorized
    /// over its innermost.
    Rows {
        /// Whether the dimensions beyond the second (channels) are looped inside each row.
        channels_inside: bool,
    },
    /// Tiles of `width × height` points of the output, in parallel rows of tiles; every member
    /// computed per tile (overlapped tiling).
    Tiles {
        /// Points per tile in dimension 0.
        width: i64,
        /// Points per tile in dimension 1.
        height: i64,
        /// Whether each tile spans every channel (the dimensions beyond the second).
        channels_inside: bool,
    },
    /// Parallel strips of `rows` rows of the output; members stored per strip and computed
    /// per row (a sliding window).
    Strips {
        /// Rows per strip.
        rows: i64,
        /// Whether each row spans every channel (the dimensions beyond the second).
        channels_inside: bool,
    },
}

impl Strategy {
    /// Whether the dimensions beyond the second are looped inside each row or tile, so that
    /// a point reading several channels of a producer (an alpha channel read with every
    /// colour) finds them computed or cached once for all, rather than once per channel.
    pub fn channels_inside(self) -> bool {
        match self {
            Strategy::Rows { channels_inside }
            | Strategy::Tiles {
                channels_inside, ..
            }
            | Strategy::Strips {
                channels_inside, ..
            } => channels_inside,
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Strategy::Rows { .. } => write!(f, "parallel rows"),
            Strategy::Tiles { width, height, .. } => write!(f, "tiles of {width}x{height}"),
            Strategy::Strips { rows, .. } => write!(f, "sliding window in strips of {rows} rows"),
        }?;
        match self.channels_inside() {
            true => write!(f, ", channels inside"),
            false => Ok(()),
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
    /// The terms that time is made of.
    pub terms: CostTerms,
}

/// Where a group's channels (dimensions beyond the second) may be looped, `true` inside each
/// row or tile: only where there are channels (an order of loops, not a new plan), and always
/// inside where a member computes its channels together (`FuncInfo::channels`): its
/// per-point cost counts what they share, and its channel loop is unrolled innermost, so it
/// cannot also be fused into the parallel loop outside.
pub(super) fn channel_orders(
    problem: &Problem,
    output: usize,
    members: &BTreeSet<usize>,
) -> &'static [bool] {
    let together = members.iter().any(|&m| problem.funcs[m].channels.is_some());
    match (problem.funcs[output].args.len() > 2, together) {
        (true, false) => &[false, true],
        (true, true) => &[true],
        (false, _) => &[false],
    }
}

/// The best plan for a group of `members` with output `output`, or `None` if the group
/// cannot be computed as one (a member with updates, or read outside the group), or not with
/// the problem's ingredients.
pub fn best_plan(
    problem: &Problem,
    output: usize,
    members: &BTreeSet<usize>,
) -> Result<Option<GroupPlan>> {
    let ingredients = problem.ingredients;
    let fused = members.len() > 1;
    if !is_valid_group(problem, output, members) || (fused && !ingredients.fusion) {
        return Ok(None);
    }
    let plan = |strategy| -> Result<GroupPlan> {
        let terms = predict(problem, output, members, strategy)?;
        Ok(GroupPlan {
            output,
            members: members.clone(),
            strategy,
            ns: problem.model.time(&terms),
            terms,
        })
    };
    let f = &problem.funcs[output];
    let channel_orders = channel_orders(problem, output, members);
    let mut best: Option<GroupPlan> = None;
    for &channels_inside in channel_orders {
        let p = plan(Strategy::Rows { channels_inside })?;
        if best.as_ref().is_none_or(|b| p.ns < b.ns) {
            best = Some(p);
        }
    }
    let mut best = best.expect("channels outside is always an order");
    if members.len() == 1 {
        return Ok(Some(best));
    }
    best.ns = f64::INFINITY;
    let extent = |d: usize| f.region.get(d).map_or(1, Span::extent).max(1);
    let lanes = f.lanes;
    let two_dimensional = f.args.len() >= 2;
    // A coarse grid of sizes (powers of four, in whole vectors across), then a descent
    // through neighbouring sizes (halves, doubles, three quarters, one and a half: sizes
    // that are not powers of two are reached).
    let widths = candidates(lanes, round_up(extent(0), lanes), 4);
    let heights = match two_dimensional {
        true => candidates(1, extent(1), 4),
        false => vec![1],
    };
    // Strips of an output computed a pair of rows at a time (its parity) hold whole pairs.
    let row_unit = f.parity_factor(1);
    let strip_rows = candidates(row_unit, round_up(extent(1), row_unit), 4);
    let mut seen = std::collections::HashSet::new();
    let mut consider = |strategy, best: &mut GroupPlan| -> Result<bool> {
        if !seen.insert(strategy) {
            return Ok(false);
        }
        let p = plan(strategy)?;
        let better = p.ns < best.ns;
        if better {
            *best = p;
        }
        Ok(better)
    };
    for &channels_inside in channel_orders {
        for &width in widths.iter().filter(|_| ingredients.overlapped_tiles) {
            for &height in &heights {
                let tiles = Strategy::Tiles {
                    width,
                    height,
                    channels_inside,
                };
                consider(tiles, &mut best)?;
            }
        }
        if two_dimensional && ingredients.sliding_windows {
            for &rows in &strip_rows {
                consider(
                    Strategy::Strips {
                        rows,
                        channels_inside,
                    },
                    &mut best,
                )?;
            }
        }
    }
    let neighbours = |n: i64, unit: i64, most: i64| -> Vec<i64> {
        [n / 2, n * 2, n * 3 / 4, n * 3 / 2]
            .into_iter()
            .map(|m| (m / unit).max(1) * unit)
            .filter(|&m| m != n && m <= most)
            .collect()
    };
    let (most_x, most_y) = (round_up(extent(0), lanes), extent(1));
    if best.ns.is_infinite() {
        return Ok(None);
    }
    if !ingredients.size_refinement {
        return Ok(Some(best));
    }
    loop {
        let mut improved = false;
        match best.strategy {
            Strategy::Tiles {
                width,
                height,
                channels_inside,
            } => {
                let tiles = |width, height| Strategy::Tiles {
                    width,
                    height,
                    channels_inside,
                };
                for w in neighbours(width, lanes, most_x) {
                    improved |= consider(tiles(w, height), &mut best)?;
                }
                for h in neighbours(height, 1, most_y) {
                    improved |= consider(tiles(width, h), &mut best)?;
                }
            }
            Strategy::Strips {
                rows,
                channels_inside,
            } => {
                for rows in neighbours(rows, row_unit, round_up(most_y, row_unit)) {
                    let strips = Strategy::Strips {
                        rows,
                        channels_inside,
                    };
                    improved |= consider(strips, &mut best)?;
                }
            }
            Strategy::Rows { .. } => {}
        }
        if !improved {
            return Ok(Some(best));
        }
    }
}

/// `unit` times powers of `ratio` below `most`, and `most`.
fn candidates(unit: i64, most: i64, ratio: i64) -> Vec<i64> {
    let mut sizes = vec![];
    let mut size = unit;
    while size < most {
        sizes.push(size);
        size *= ratio;
    }
    sizes.push(most.max(unit));
    sizes
}

/// `n` rounded up to a multiple of `unit`.
pub(super) fn round_up(n: i64, unit: i64) -> i64 {
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

/// The predicted terms of group `members` with output `output` computed with `strategy`,
/// per thread.
pub fn predict(
    problem: &Problem,
    output: usize,
    members: &BTreeSet<usize>,
    strategy: Strategy,
) -> Result<CostTerms> {
    let f = &problem.funcs[output];
    let machine = &problem.machine;
    let threads = machine.threads as f64;
    let extents: Vec<i64> = f.region.iter().map(|s| s.extent().max(1)).collect();
    // A tile's size in each dimension: the first two as the strategy says; the channels
    // whole when they are looped inside it, else one.
    let channels = strategy.channels_inside();
    let sized = |x: i64, y: i64| -> Vec<i64> {
        (extents.iter().enumerate())
            .map(|(d, &e)| match d {
                0 => x,
                1 => y,
                _ if channels => e,
                _ => 1,
            })
            .collect()
    };
    let extent = |d: usize| extents.get(d).copied().unwrap_or(1);
    let size = match strategy {
        Strategy::Rows { .. } => sized(extent(0), extent(1)),
        Strategy::Tiles { width, height, .. } => sized(width, height),
        Strategy::Strips { rows, .. } => sized(extent(0), rows),
    };
    // The tile, the number of tiles, and the parallel loop's trip count: the rows of tiles
    // and the channels looped outside them (a parallel loop over rows runs each row alone).
    let tile = tile_at_center(&f.region, &size);
    let counts: Vec<i64> = (extents.iter().zip(&size))
        .map(|(e, s)| (e + s - 1) / s)
        .collect();
    let tiles = counts.iter().product::<i64>();
    let parallel = match strategy {
        // Rows are the tasks of a Func alone, with the channels looped outside them.
        Strategy::Rows { .. } => extent(1) * counts.iter().skip(2).product::<i64>(),
        _ => counts.iter().skip(1).product::<i64>(),
    }
    .max(1);
    let regions = problem.tile_regions(output, members, &tile)?;
    // Compute: every member's points, rounded up to whole steps of its vector loop along
    // dimension 0, and those steps.
    let mut per_tile = CostTerms::default();
    let mut working_set = 0;
    for (&i, region) in &regions.inside {
        let g = &problem.funcs[i];
        let extent = region.first().map_or(1, |s| s.extent().max(1));
        let lanes = step_lanes(g, extent);
        let rows = volume(&region[1.min(region.len())..]);
        let points = round_up(extent, lanes) * rows;
        per_tile.add_scaled(&g.point, points as f64);
        per_tile.add(Term::VectorStep, (points / lanes) as f64);
        if i != output {
            working_set += volume(region) * g.bytes;
        }
    }
    // A sliding window keeps only the rows one output row needs alive; the members that
    // do not slide (`computed_per_strip`) keep their whole strip.
    if let Strategy::Strips { .. } = strategy {
        let row = tile_at_center(&f.region, &sized(extent(0), 1));
        let per_row = problem.tile_regions(output, members, &row)?;
        let per_strip = computed_per_strip(problem, output, members);
        working_set = (members.iter())
            .filter(|&&i| i != output)
            .map(|i| {
                let rows = match per_strip.contains(i) {
                    true => &regions.inside,
                    false => &per_row.inside,
                };
                rows.get(i)
                    .map_or(0, |r| volume(r) * problem.funcs[*i].bytes)
            })
            .sum();
    }
    let level = |bytes: i64| -> Term {
        if bytes <= machine.l1_bytes {
            Term::Load
        } else if bytes <= machine.l2_bytes {
            Term::L2Byte
        } else if bytes * machine.threads as i64 <= machine.l3_bytes {
            Term::L3Byte
        } else {
            Term::MemoryByte
        }
    };
    // Bytes from L1 are already counted as the loads of the points computed.
    let mut charge = |bytes: i64, term: Term| {
        if term != Term::Load {
            per_tile.add(term, bytes as f64);
        }
    };
    for (&p, region) in &regions.outside {
        let bytes = volume(region) * problem.bytes_of(p);
        charge(bytes, level(problem.total_bytes(p)));
    }
    // Members are written and read back within the tile.
    charge(2 * working_set, level(working_set));
    charge(volume(&tile) * f.bytes, level(f.points() * f.bytes));
    per_tile.add(Term::Tile, 1.0);
    per_tile.add(Term::Allocation, (members.len() - 1) as f64);
    let balance = {
        let p = parallel as f64;
        ((p / threads).ceil() * threads / p).max(1.0)
    };
    let mut terms = per_tile.scaled(tiles as f64 * balance / threads);
    terms.add(Term::Task, parallel as f64 / threads);
    terms.add_scaled(
        &f.updates,
        1.0 / super::reductions::update_speedup(problem, output),
    );
    Ok(terms)
}

/// The members of a group in strips computed once per strip rather than sliding down its
/// rows: Funcs of one dimension, which have no rows to slide along (a lookup table; per row,
/// sliding would have to happen along its only dimension, which its rounded-up vector split
/// cannot); Funcs computed two rows at a time for their parities (`parity_unroll`), whose
/// window would realign to a pair of rows at each row; and, so that each is computed where
/// its consumers' loops enclose it, the members these read, directly or through inlined
/// Funcs.
pub fn computed_per_strip(
    problem: &Problem,
    output: usize,
    members: &BTreeSet<usize>,
) -> BTreeSet<usize> {
    let mut per_strip: BTreeSet<usize> = (members.iter().copied())
        .filter(|&m| m != output)
        .filter(|&m| {
            let g = &problem.funcs[m];
            g.args.len() < 2 || g.parity.iter().any(|&(d, _)| d == 1)
        })
        .collect();
    let mut pending: Vec<usize> = per_strip.iter().copied().collect();
    while let Some(m) = pending.pop() {
        let mut reads: Vec<usize> = Vec::new();
        let mut through = vec![m];
        while let Some(c) = through.pop() {
            for p in &problem.funcs[c].producers {
                let Producer::Func(name) = p else { continue };
                let Some(i) = problem.func_index(*name) else {
                    continue;
                };
                match problem.inlined[i] {
                    true => through.push(i),
                    false => reads.push(i),
                }
            }
        }
        for i in reads {
            if members.contains(&i) && i != output && per_strip.insert(i) {
                pending.push(i);
            }
        }
    }
    per_strip
}

/// A tile of `size` (one point in dimensions it does not give) at the middle of `region`, so
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
