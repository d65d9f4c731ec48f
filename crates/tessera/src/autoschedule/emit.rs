//! Plans as an ordinary schedule: the directives (`ScheduleScript`) that compute each group
//! as its plan says, so that lowering and code generation see nothing but a schedule a
//! person could have written. Every split of the pipeline's output, every split of rows into
//! strips or tiles, and every row's last vector or tile of a Func that reads an input
//! unclamped guards its last piece (`GuardWithIf`), so a schedule made for one size computes
//! any output size correctly; other Funcs shift their last vector and tile inwards, which is
//! cheaper (a tile wider than the whole region is guarded). An output larger than the
//! last-level cache is stored nontemporally. A Func whose values a coordinate's parity
//! selects is computed a residue at a time, unrolled (`parity_unroll`; the pipeline's output
//! so only in a specialization for regions starting at a multiple of the parity), and one whose
//! channels read the same points, every channel of a point at once (`unroll_channels`).

use super::plan::{computed_per_strip, GroupPlan, Strategy};
use super::problem::{FuncInfo, Problem};
use super::reductions;
use super::widths::step_lanes;
use crate::lang::schedule::TailStrategy;
use crate::schedule_script::{Directive, ScheduleScript, SpecializeCondition};

/// The schedule computing `plans` (every Func in exactly one plan or inlined), after the
/// wrappers the problem was made with.
pub fn emit(problem: &Problem, plans: &[GroupPlan]) -> ScheduleScript {
    let mut out: Vec<Directive> = (problem.wrapped.iter())
        .map(|w| Directive::Wrap {
            func: w.func.as_str().to_string(),
            consumer: w.consumer.as_str().to_string(),
            wrapper: w.wrapper.as_str().to_string(),
        })
        .collect();
    for (i, f) in problem.funcs.iter().enumerate() {
        if problem.inlined[i] {
            out.push(Directive::ComputeInline { func: name(f) });
        }
    }
    for plan in plans {
        emit_group(problem, plan, &mut out);
    }
    // An output larger than the last-level cache leaves it before anyone reads it: written
    // past the caches, it costs no read of the lines it overwrites and evicts nothing.
    let output = problem.funcs.iter().find(|f| f.is_output);
    if let Some(f) = output.filter(|f| f.points() * f.bytes > problem.machine.l3_bytes) {
        out.push(Directive::StoreNontemporal { func: name(f) });
    }
    ScheduleScript { directives: out }
}

fn name(f: &FuncInfo) -> String {
    f.name.as_str().to_string()
}

/// A loop name made from `var` that is none of `f`'s Vars.
pub(super) fn loop_name(f: &FuncInfo, var: &str, suffix: &str) -> String {
    let mut n = format!("{var}_{suffix}");
    while f.args.iter().any(|a| a.as_str() == n) {
        n.push('_');
    }
    n
}

fn emit_group(problem: &Problem, plan: &GroupPlan, out: &mut Vec<Directive>) {
    let f = &problem.funcs[plan.output];
    if !f.is_output || f.parity.is_empty() {
        return emit_group_as(problem, plan, f, out);
    }
    // The pipeline's output may not compute past the region asked of it, so its bounds
    // cannot be aligned to its parity: its loops stepping k at a time know each point's
    // residue only where the region starts at a multiple of k. There, a specialization
    // computes it unrolled by its parity; elsewhere it is computed as without one.
    let mut unrolled = Vec::new();
    emit_group_as(problem, plan, f, &mut unrolled);
    let start = out.len();
    let general = FuncInfo {
        parity: Vec::new(),
        ..f.clone()
    };
    emit_group_as(problem, plan, &general, out);
    let own_loops = |ds: &[Directive]| -> Vec<Directive> {
        (ds.iter())
            .filter(|d| d.func() == f.name.as_str() && d.is_pure_loop_directive())
            .cloned()
            .collect()
    };
    let directives = own_loops(&unrolled);
    if directives != own_loops(&out[start..]) {
        let when = (f.parity.iter())
            .map(|&(dim, k)| SpecializeCondition::OutputMinMultiple {
                dim,
                modulus: k as i32,
            })
            .collect();
        let specialize = Directive::Specialize {
            func: name(f),
            when,
            directives,
        };
        // Before the general loops: a specialization starts from a copy of the loops as
        // they are when it is made.
        out.insert(start, specialize);
    }
}

/// `emit_group`, with `f` (the group's output's description) as given.
fn emit_group_as(problem: &Problem, plan: &GroupPlan, f: &FuncInfo, out: &mut Vec<Directive>) {
    let func = name(f);
    if !f.is_output {
        out.push(Directive::ComputeRoot { func: func.clone() });
    }
    let args: Vec<String> = f.args.iter().map(|a| a.as_str().to_string()).collect();
    let split = |var: &str, outer: &str, inner: &str, factor: i64, tail| Directive::Split {
        func: func.clone(),
        update: None,
        var: var.to_string(),
        outer: outer.to_string(),
        inner: inner.to_string(),
        factor: factor as i32,
        tail,
    };
    // Channels (dimensions beyond the second) looped inside each row or tile, innermost
    // first after the first dimension; or outside, as parallel loops.
    let channels: &[String] = args.get(2..).unwrap_or(&[]);
    let (inner_channels, outer_channels) = match plan.strategy.channels_inside() {
        true => (channels, &[][..]),
        false => (&[][..], channels),
    };
    let reorder = |vars: Vec<String>| Directive::Reorder {
        func: func.clone(),
        update: None,
        vars,
    };
    // With channels inside: the first dimension, then the channels, then `rows` (outermost
    // last), as one reorder; nothing to reorder without them.
    let channels_after_x = |rows: &[String]| -> Option<Directive> {
        (!inner_channels.is_empty()).then(|| {
            let order = std::iter::once(&args[0])
                .chain(inner_channels)
                .chain(rows)
                .cloned()
                .collect();
            reorder(order)
        })
    };
    match plan.strategy {
        Strategy::Rows { .. } => {
            out.extend(channels_after_x(args.get(1..2).unwrap_or(&[])));
            let parallel: Vec<String> = (args.get(1).into_iter())
                .chain(outer_channels)
                .cloned()
                .collect();
            if let Some(par) = fuse_outer(f, None, &parallel, out) {
                out.push(Directive::Parallel {
                    func: func.clone(),
                    update: None,
                    var: par,
                });
            }
            unroll_channels(f, args.get(..1).unwrap_or_default(), out);
            vectorize_by_parity(f, false, out);
            reductions::emit_updates(problem, plan.output, out);
        }
        Strategy::Tiles { width, height, .. } => {
            let (xo, xi) = (loop_name(f, &args[0], "o"), loop_name(f, &args[0], "i"));
            out.push(split(&args[0], &xo, &xi, width, tile_tail(f, width)));
            let mut order = vec![xi.clone()];
            let mut outer = vec![xo.clone()];
            if let Some(y) = args.get(1) {
                let (yo, yi) = (loop_name(f, y, "o"), loop_name(f, y, "i"));
                out.push(split(y, &yo, &yi, height, TailStrategy::GuardWithIf));
                order.push(yi);
                outer.push(yo);
            }
            order.extend(inner_channels.iter().cloned());
            order.extend(outer.iter().cloned());
            order.extend(outer_channels.iter().cloned());
            let tile_loops = order[..order.len().min(2)].to_vec();
            out.push(reorder(order));
            unroll_channels(f, &tile_loops, out);
            let parallel: Vec<String> = outer
                .iter()
                .skip(1)
                .chain(outer_channels)
                .cloned()
                .collect();
            let par = fuse_outer(f, None, &parallel, out).unwrap_or_else(|| xo.clone());
            out.push(Directive::Parallel {
                func: func.clone(),
                update: None,
                var: par,
            });
            if width >= f.lanes {
                out.push(Directive::Vectorize {
                    func: func.clone(),
                    update: None,
                    var: xi,
                    width: Some(step_lanes(f, width) as i32),
                });
            }
            for &m in plan.members.iter().filter(|&&m| m != plan.output) {
                let g = &problem.funcs[m];
                out.push(Directive::ComputeAt {
                    func: name(g),
                    consumer: func.clone(),
                    var: xo.clone(),
                });
                member_loops(g, out);
            }
        }
        Strategy::Strips { rows, .. } => {
            // Rows a parity pairs are computed a pair at a time (`parity_unroll`): the
            // strips are split from the pairs.
            let kx = parity_unroll(f, true, out);
            let ky = f.parity_factor(1);
            let y = &args[1];
            let (yo, yi) = (loop_name(f, y, "o"), loop_name(f, y, "i"));
            let strip = (rows / ky).max(1);
            out.push(split(y, &yo, &yi, strip, TailStrategy::GuardWithIf));
            out.extend(channels_after_x(&[yi.clone(), yo.clone()]));
            let parallel: Vec<String> = std::iter::once(yo)
                .chain(outer_channels.iter().cloned())
                .collect();
            let par = fuse_outer(f, None, &parallel, out).expect("a strip loop exists");
            out.push(Directive::Parallel {
                func: func.clone(),
                update: None,
                var: par.clone(),
            });
            unroll_channels(f, &args[..1], out);
            vectorize_at(f, &args[0], (f.lanes / kx).max(1), out);
            let per_strip = computed_per_strip(problem, plan.output, &plan.members);
            for &m in plan.members.iter().filter(|&&m| m != plan.output) {
                let g = &problem.funcs[m];
                let per_row = !per_strip.contains(&m);
                if per_row {
                    out.push(Directive::StoreAt {
                        func: name(g),
                        consumer: func.clone(),
                        var: par.clone(),
                    });
                }
                out.push(Directive::ComputeAt {
                    func: name(g),
                    consumer: func.clone(),
                    var: if per_row { yi.clone() } else { par.clone() },
                });
                member_loops(g, out);
            }
        }
    }
}

/// Fuses loops `vars` (innermost first, adjacent) of `f`'s pure definition (or of its update
/// `update`) into one; its name, or `None` when there are none.
pub(super) fn fuse_outer(
    f: &FuncInfo,
    update: Option<usize>,
    vars: &[String],
    out: &mut Vec<Directive>,
) -> Option<String> {
    let mut fused = vars.first()?.clone();
    for outer in &vars[1..] {
        let combined = loop_name(f, &format!("{fused}_{outer}"), "f");
        out.push(Directive::Fuse {
            func: name(f),
            update,
            inner: fused,
            outer: outer.clone(),
            fused: combined.clone(),
        });
        fused = combined;
    }
    Some(fused)
}

/// How `f`'s last, partial vector of a row is computed: shifted inwards to end at the
/// region's end where computing past its region is harmless (`FuncInfo::may_compute_past_region`),
/// else guarded (`GuardWithIf`): whole vectors past the end would write past the output's
/// buffer or read past what the pipeline's inputs hold when the output is narrower than
/// planned. Shifted rather than rounded up: a region rounded up to whole vectors is a wider
/// region required of `f`'s producers, and down a pyramid of downsamplings each level
/// doubles the widening of the one below (interpolate's first level computed 2.4 times the
/// points it needed).
fn vector_tail(f: &FuncInfo) -> TailStrategy {
    match f.may_compute_past_region {
        true => TailStrategy::ShiftInwards,
        false => TailStrategy::GuardWithIf,
    }
}

/// How `f`'s last, partial tile of a row `width` wide is computed: shifted inwards to end at
/// the region's end where computing past its region is harmless (rounding up would compute
/// up to a tile of waste), else guarded. A tile wider than the whole (planned) region is
/// guarded too: shifted inwards it would compute a whole tile, and require a tile's width
/// of its producers, where the region is narrower (a coarse level of a pyramid).
fn tile_tail(f: &FuncInfo, width: i64) -> TailStrategy {
    let fits = f.region.first().is_none_or(|s| width <= s.extent());
    match f.may_compute_past_region && fits {
        true => TailStrategy::ShiftInwards,
        false => TailStrategy::GuardWithIf,
    }
}

/// Vectorizes `f`'s loop `x` at its width (`widths`) when its region is at least a vector wide,
/// the last vector of a row as `vector_tail` says.
pub(super) fn vectorize(f: &FuncInfo, x: &str, out: &mut Vec<Directive>) {
    vectorize_at(f, x, f.lanes, out);
}

/// `vectorize`, after unrolling `f`'s first dimension by its parity (`parity_unroll`; `both`:
/// its second too): a vector of x then holds every k-th point, so its k vectors, one per
/// residue, hold `lanes / k` points each and cover as many points as one natural vector.
fn vectorize_by_parity(f: &FuncInfo, both: bool, out: &mut Vec<Directive>) {
    let Some(x) = f.args.first() else {
        return;
    };
    let k = parity_unroll(f, both, out);
    vectorize_at(f, x.as_str(), (f.lanes / k).max(1), out);
}

/// Vectorizes `f`'s loop `x` with `lanes` lanes per natural vector, times the natural vectors
/// a step of `f` computes over its row (`widths::step_lanes`), when its region is at least a
/// natural vector wide, the last vector of a row as `vector_tail` says.
fn vectorize_at(f: &FuncInfo, x: &str, lanes: i64, out: &mut Vec<Directive>) {
    let extent = f.region.first().map_or(0, |s| s.extent());
    if extent < f.lanes {
        return;
    }
    let lanes = lanes * step_lanes(f, extent) / f.lanes;
    let (xo, xi) = (loop_name(f, x, "v"), loop_name(f, x, "vi"));
    out.push(Directive::Split {
        func: name(f),
        update: None,
        var: x.to_string(),
        outer: xo,
        inner: xi.clone(),
        factor: lanes as i32,
        tail: vector_tail(f),
    });
    out.push(Directive::Vectorize {
        func: name(f),
        update: None,
        var: xi,
        width: None,
    });
}

/// A member's own loops (in their default order: x, y, then the channels): its channels
/// computed together, its parities unrolled, its rows vectorized.
fn member_loops(g: &FuncInfo, out: &mut Vec<Directive>) {
    let xy: Vec<String> = (g.args.iter().take(2))
        .map(|a| a.as_str().to_string())
        .collect();
    unroll_channels(g, &xy, out);
    vectorize_by_parity(g, true, out);
}

/// Computes every channel of a point of `f` together (`FuncInfo::channels`), so that
/// common-subexpression elimination shares what they read: its channel dimension split by
/// its extent (guarded, so any extent stays correct), the inner loop unrolled innermost,
/// inside `inner` (loops of `f`, innermost first, ahead of the channels in its order).
fn unroll_channels(f: &FuncInfo, inner: &[String], out: &mut Vec<Directive>) {
    let Some((d, extent)) = f.channels else {
        return;
    };
    let c = f.args[d].as_str();
    let (co, ci) = (loop_name(f, c, "o"), loop_name(f, c, "i"));
    out.push(Directive::Split {
        func: name(f),
        update: None,
        var: c.to_string(),
        outer: co.clone(),
        inner: ci.clone(),
        factor: extent as i32,
        tail: TailStrategy::GuardWithIf,
    });
    let inner = inner.iter().cloned();
    out.push(Directive::Reorder {
        func: name(f),
        update: None,
        vars: std::iter::once(ci.clone())
            .chain(inner)
            .chain([co])
            .collect(),
    });
    out.push(Directive::Unroll {
        func: name(f),
        update: None,
        var: ci,
        factor: None,
    });
}

/// Computes `f` k points at a time along each dimension of `f.parity` (`both`: x and y,
/// else x alone), one point per residue unrolled innermost: its bounds aligned to k, each
/// dimension split by k, the residue loops unrolled inside the other loops. Each unrolled
/// point's coordinate then has a constant residue, so selects on it fold and reads at
/// `x / k` become dense. Lowering does the rest (Halide's expert camera pipe does the same
/// by hand). The pipeline's output is not aligned (its region is the caller's): its last
/// group is guarded, and `emit_group` uses these loops only where its min is a multiple of
/// k. The factor x is unrolled by (1: not unrolled).
fn parity_unroll(f: &FuncInfo, both: bool, out: &mut Vec<Directive>) -> i64 {
    let dims: Vec<(usize, i64)> = (f.parity.iter().copied())
        .filter(|&(d, _)| d == 0 || (both && d == 1))
        .collect();
    if dims.is_empty() {
        return 1;
    }
    let mut residues = Vec::new();
    for &(d, k) in &dims {
        let var = f.args[d].as_str().to_string();
        let residue = loop_name(f, &var, "pair");
        // The output computes exactly its region, in groups of k starting at its min (a
        // multiple of k where `emit_group` specializes it so), its last group guarded.
        let tail = match f.is_output {
            true => TailStrategy::GuardWithIf,
            false => TailStrategy::RoundUp,
        };
        if !f.is_output {
            out.push(Directive::AlignBounds {
                func: name(f),
                var: var.clone(),
                modulus: k as i32,
            });
        }
        out.push(Directive::Split {
            func: name(f),
            update: None,
            var: var.clone(),
            outer: var,
            inner: residue.clone(),
            factor: k as i32,
            tail,
        });
        residues.push(residue);
    }
    let coordinates = dims.iter().map(|&(d, _)| f.args[d].as_str().to_string());
    out.push(Directive::Reorder {
        func: name(f),
        update: None,
        vars: residues.iter().cloned().chain(coordinates).collect(),
    });
    for residue in residues {
        out.push(Directive::Unroll {
            func: name(f),
            update: None,
            var: residue,
            factor: None,
        });
    }
    f.parity_factor(0)
}
