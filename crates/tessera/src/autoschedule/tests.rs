//! The analysis on small pipelines whose regions, costs and kinds are derived by hand, the
//! regions also by plain loops over the coordinates each point reads; and the directives a
//! planned sliding window is emitted as, its values checked against plain loops.

use std::collections::BTreeSet;

use super::*;
use crate::prelude::*;
use crate::schedule_script::Directive;

/// The scheduling problem of `analysis` on this host for `threads` threads, with the default
/// cost model.
fn host_problem(analysis: &PipelineAnalysis, threads: usize) -> problem::Problem<'_> {
    let machine = Machine::host(&Target::host(), threads);
    problem::Problem::new(analysis, machine, CostModel::default()).unwrap()
}

fn span(min: i64, extent: i64) -> Span {
    Span::with_extent(min, extent)
}

fn classes(a: &PipelineAnalysis, f: &Func, stage: usize) -> BTreeSet<StageClass> {
    a.classes[&StageId {
        func: f.name(),
        stage,
    }]
        .clone()
}

/// The region of coordinates a tile reads at the given offsets per dimension, by a loop over
/// the tile's points.
fn region_by_loop(tile: &[Span], reads: impl Fn(&[i64]) -> Vec<Vec<i64>>) -> Region {
    let mut region: Option<Region> = None;
    for x in tile[0].min..=tile[0].max {
        for y in tile[1].min..=tile[1].max {
            for c in reads(&[x, y]) {
                let point: Region = c.iter().map(|&v| span(v, 1)).collect();
                region = Some(match region {
                    None => point,
                    Some(r) => r
                        .iter()
                        .zip(&point)
                        .map(|(a, b)| Span {
                            min: a.min.min(b.min),
                            max: a.max.max(b.max),
                        })
                        .collect(),
                });
            }
        }
    }
    region.expect("the tile is not empty")
}

/// `input` copied, then blurred by a 3 × 3 box.
fn box_blur() -> (ImageParam, Func, Func) {
    let input = ImageParam::new(Type::f32(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let copy = Func::new("copy");
    copy.define((x, y), input.at((x, y))).unwrap();
    let blur = Func::new("blur");
    let mut total = Expr::from(0.0f32);
    for dy in -1..=1 {
        for dx in -1..=1 {
            total += copy.at((x.expr() + dx, y.expr() + dy));
        }
    }
    blur.define((x, y), total / 9.0f32).unwrap();
    (input, copy, blur)
}

#[test]
fn blur_footprints_are_the_tile_plus_the_stencil() {
    let (_, copy, blur) = box_blur();
    blur.set_estimates(&[(0, 64), (0, 48)]).unwrap();
    let a = PipelineAnalysis::new(&blur, &[]).unwrap();
    let names: Vec<_> = a.graph.funcs.iter().map(|f| f.name.to_string()).collect();
    assert_eq!(names, ["copy", "blur"]);
    assert_eq!(a.graph.inputs.len(), 1);
    let tile = [span(0, 32), span(0, 8)];
    let needed = a
        .region_needed(Producer::Func(copy.name()), &blur, &tile)
        .unwrap()
        .unwrap();
    assert_eq!(footprint::extents(&needed), [34, 10]);
    assert_eq!(needed, [span(-1, 34), span(-1, 10)]);
    let by_loop = region_by_loop(&tile, |p| {
        (-1..=1)
            .flat_map(|dy| (-1..=1).map(move |dx| vec![p[0] + dx, p[1] + dy]))
            .collect()
    });
    assert_eq!(needed, by_loop);
    // Elsewhere, and for a tile of another size.
    let moved = [span(100, 7), span(-20, 3)];
    let needed = a
        .region_needed(Producer::Func(copy.name()), &blur, &moved)
        .unwrap()
        .unwrap();
    assert_eq!(needed, [span(99, 9), span(-21, 5)]);
    let overlap = a
        .footprints
        .overlap(Producer::Func(copy.name()), blur.name(), &tile)
        .unwrap();
    assert_eq!(overlap, Some(vec![2, 2]));
    // blur does not read the input itself.
    let direct = a
        .region_needed(Producer::Image(Symbol::new("input")), &blur, &tile)
        .unwrap();
    assert_eq!(direct, None);
    // What the output's estimates need of each.
    let required = |p| a.footprints.required(p).cloned().unwrap();
    assert_eq!(
        required(Producer::Func(blur.name())),
        [span(0, 64), span(0, 48)]
    );
    assert_eq!(
        required(Producer::Func(copy.name())),
        [span(-1, 66), span(-1, 50)]
    );
    assert_eq!(
        required(Producer::Image(Symbol::new("input"))),
        [span(-1, 66), span(-1, 50)]
    );
    assert_eq!(classes(&a, &blur, 0), BTreeSet::from([StageClass::Stencil]));
    assert_eq!(
        classes(&a, &copy, 0),
        BTreeSet::from([StageClass::Pointwise])
    );
    let cost = &a.costs[&StageId {
        func: blur.name(),
        stage: 0,
    }];
    assert_eq!(cost.loads.get(&Producer::Func(copy.name())), Some(&9));
    assert_eq!(cost.count_of(OpKind::Simple), 9, "nine additions");
    assert_eq!(cost.count_of(OpKind::Divide), 1);
}

use crate::ir::Symbol;

#[test]
fn upsample_and_downsample_regions_are_scaled() {
    let input = ImageParam::new(Type::f32(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (base, up, down) = (Func::new("base"), Func::new("up"), Func::new("down"));
    base.define((x, y), input.at((x, y)) * 2.0f32).unwrap();
    up.define((x, y), base.at((x.expr() / 2, y))).unwrap();
    down.define((x, y), up.at((x.expr() * 2 + 1, y))).unwrap();
    down.set_estimates(&[(0, 16), (0, 4)]).unwrap();
    let a = PipelineAnalysis::new(&down, &[]).unwrap();
    assert_eq!(classes(&a, &up, 0), BTreeSet::from([StageClass::Upsample]));
    assert_eq!(
        classes(&a, &down, 0),
        BTreeSet::from([StageClass::Downsample])
    );
    let tile = [span(0, 16), span(0, 4)];
    let of_up = a
        .region_needed(Producer::Func(up.name()), &down, &tile)
        .unwrap()
        .unwrap();
    assert_eq!(of_up, [span(1, 31), span(0, 4)]);
    assert_eq!(
        of_up,
        region_by_loop(&tile, |p| vec![vec![2 * p[0] + 1, p[1]]])
    );
    let up_tile = [span(0, 32), span(0, 4)];
    let of_base = a
        .region_needed(Producer::Func(base.name()), &up, &up_tile)
        .unwrap()
        .unwrap();
    assert_eq!(of_base, [span(0, 16), span(0, 4)]);
    assert_eq!(
        of_base,
        region_by_loop(&up_tile, |p| vec![vec![p[0].div_euclid(2), p[1]]])
    );
    // Neighbouring tiles share nothing along x; each reads all its rows again along y's
    // diagonal neighbour (none: the neighbour is shifted in y too).
    let overlap = a
        .footprints
        .overlap(Producer::Func(up.name()), down.name(), &tile)
        .unwrap();
    assert_eq!(overlap, Some(vec![0, 0]));
    let required = |f: &Func| {
        a.footprints
            .required(Producer::Func(f.name()))
            .cloned()
            .unwrap()
    };
    assert_eq!(required(&up), [span(1, 31), span(0, 4)]);
    assert_eq!(required(&base), [span(0, 16), span(0, 4)]);
}

/// A histogram of `input` (u8, a W × H image) into 256 bins.
fn histogram() -> (ImageParam, Func) {
    let input = ImageParam::new(Type::u8(), 2, "input");
    let r = RDom::new([
        (input.min(0), input.width()),
        (input.min(1), input.height()),
    ]);
    let (x, i) = (Var::new("x"), Var::new("i"));
    let hist = Func::new("hist");
    hist.define(i, 0).unwrap();
    let bin = clamp(cast(Type::i32(), input.at((r.x(), r.y()))), 0, 255);
    hist.update(bin.clone(), hist.at(bin) + 1).unwrap();
    let out = Func::new("out");
    out.define(x, hist.at(x)).unwrap();
    (input, out)
}

#[test]
fn histogram_is_a_data_dependent_reduction_over_the_input() {
    let (input, out) = histogram();
    out.set_estimate(&Var::new("x"), 0, 256).unwrap();
    // The reduction domain spans the input, whose size only its estimate gives.
    let err = PipelineAnalysis::new(&out, &[]).unwrap_err().to_string();
    assert!(
        err.contains("`input`") && err.contains("dimension 0") && err.contains("set_estimate"),
        "{err}"
    );
    input.set_estimates(&[(0, 640), (0, 480)]).unwrap();
    let a = PipelineAnalysis::new(&out, &[]).unwrap();
    let hist = Symbol::new("hist");
    let update = a.classes[&StageId {
        func: hist,
        stage: 1,
    }]
        .clone();
    assert_eq!(
        update,
        BTreeSet::from([StageClass::Reduction, StageClass::DataDependent])
    );
    let required = |p| a.footprints.required(p).cloned().unwrap();
    assert_eq!(
        required(Producer::Image(input.name())),
        [span(0, 640), span(0, 480)]
    );
    // The pure stage covers the bins the update may write.
    assert_eq!(required(Producer::Func(hist)), [span(0, 256)]);
    // Any tile of the output reads its own bins; the update reads the whole input.
    let tile = [span(10, 4)];
    let bins = a
        .region_needed(Producer::Func(hist), &out, &tile)
        .unwrap()
        .unwrap();
    assert_eq!(bins, [span(10, 4)]);
    let whole = a
        .footprints
        .region_needed(Producer::Image(input.name()), hist, &[span(0, 1)]);
    assert_eq!(whole.unwrap().unwrap(), [span(0, 640), span(0, 480)]);
    let cost = &a.costs[&StageId {
        func: hist,
        stage: 1,
    }];
    assert_eq!(
        (cost.self_loads, cost.total_loads()),
        (1, 1),
        "the bin index is shared"
    );
}

#[test]
fn an_unbounded_read_takes_the_producers_estimate() {
    let input = ImageParam::new(Type::f32(), 1, "input");
    let (x, lut, out) = (Var::new("x"), Func::new("lut"), Func::new("out"));
    lut.define(x, x.expr() * x.expr()).unwrap();
    out.define(x, lut.at(cast(Type::i32(), input.at(x))))
        .unwrap();
    out.set_estimate(&x, 0, 100).unwrap();
    let err = PipelineAnalysis::new(&out, &[]).unwrap_err().to_string();
    assert!(
        err.contains("reads Func lut")
            && err.contains("dimension 0")
            && err.contains("Func lut has no estimate"),
        "{err}"
    );
    lut.set_estimate(&x, -5, 20).unwrap();
    let a = PipelineAnalysis::new(&out, &[]).unwrap();
    assert_eq!(
        classes(&a, &out, 0),
        BTreeSet::from([StageClass::DataDependent])
    );
    let needed = a
        .region_needed(Producer::Func(lut.name()), &out, &[span(0, 8)])
        .unwrap();
    assert_eq!(needed, Some(vec![span(-5, 20)]));
    let needed = a
        .region_needed(Producer::Image(input.name()), &out, &[span(3, 8)])
        .unwrap();
    assert_eq!(needed, Some(vec![span(3, 8)]));
}

#[test]
fn pointwise_chain_costs_count_each_operation() {
    let input = ImageParam::new(Type::u8(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let (widened, root, out) = (Func::new("widened"), Func::new("root"), Func::new("out"));
    widened
        .define((x, y), cast(Type::f32(), input.at((x, y))))
        .unwrap();
    root.define((x, y), sqrt(widened.at((x, y)) + 1.0f32))
        .unwrap();
    // Two separate but equal calls: common subexpression elimination computes one.
    out.define((x, y), cast(Type::u16(), root.at((x, y)) * root.at((x, y))))
        .unwrap();
    out.set_estimates(&[(0, 32), (0, 32)]).unwrap();
    let a = PipelineAnalysis::new(&out, &[]).unwrap();
    for f in [&widened, &root, &out] {
        assert_eq!(
            classes(&a, f, 0),
            BTreeSet::from([StageClass::Pointwise]),
            "{}",
            f.name()
        );
        let tile = [span(4, 8), span(2, 2)];
        let consumer_of = |p: &Func| {
            a.graph
                .consumers_of(Producer::Func(p.name()))
                .next()
                .map(|e| e.consumer.func)
        };
        if let Some(c) = consumer_of(f) {
            let overlap = a
                .footprints
                .overlap(Producer::Func(f.name()), c, &tile)
                .unwrap();
            assert_eq!(overlap, Some(vec![0, 0]));
        }
    }
    let cost = |f: &Func| {
        a.costs[&StageId {
            func: f.name(),
            stage: 0,
        }]
            .clone()
    };
    let widened = cost(&widened);
    assert_eq!(widened.ops.get(&(OpKind::Cast, Type::f32())), Some(&1));
    assert_eq!(widened.loads.get(&Producer::Image(input.name())), Some(&1));
    let root = cost(&root);
    assert_eq!(root.ops.get(&(OpKind::Intrinsic, Type::f32())), Some(&1));
    assert_eq!(root.ops.get(&(OpKind::Simple, Type::f32())), Some(&1));
    let out = cost(&out);
    assert_eq!(out.ops.get(&(OpKind::Multiply, Type::f32())), Some(&1));
    assert_eq!(out.ops.get(&(OpKind::Cast, Type::u16())), Some(&1));
    assert_eq!(out.total_loads(), 1, "equal calls load once");
    assert_eq!(
        out.ops_by_lanes(256),
        [(8, 1), (16, 1)].into_iter().collect()
    );
}

#[test]
fn a_recurrence_is_a_scan_sized_by_its_parameter() {
    let input = ImageParam::new(Type::f32(), 1, "input");
    let mut length = Param::<i32>::new("length");
    let (x, r) = (Var::new("x"), RDom::new([(1, length.expr())]));
    let running = Func::new("running");
    running.define(x, input.at(x)).unwrap();
    running
        .update(r.x(), running.at(r.x().expr() - 1) + input.at(r.x()))
        .unwrap();
    running.set_estimate(&x, 0, 10).unwrap();
    let err = PipelineAnalysis::new(&running, &[])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("length") && err.contains("set_estimate(value)"),
        "{err}"
    );
    length.set_estimate(50);
    let a = PipelineAnalysis::new(&running, &[length.estimate().unwrap()]).unwrap();
    assert_eq!(classes(&a, &running, 1), BTreeSet::from([StageClass::Scan]));
    // The scan writes and reads [0, 50], beyond the output's estimate.
    let required = |p| a.footprints.required(p).cloned().unwrap();
    assert_eq!(required(Producer::Func(running.name())), [span(0, 51)]);
    assert_eq!(required(Producer::Image(input.name())), [span(0, 51)]);
}

#[test]
fn a_missing_output_estimate_names_the_func_and_var() {
    let (_, _, blur) = box_blur();
    blur.set_estimate(&Var::new("x"), 0, 64).unwrap();
    let err = PipelineAnalysis::new(&blur, &[]).unwrap_err().to_string();
    assert!(
        err.contains("Func blur has no estimate for dimension 1 (Var y)"),
        "{err}"
    );
}

/// A histogram of a 512 × 512 image and its running sum (a scan, `cdf(s) = cdf(s - 1) +
/// cdf(s)`), and the scheduling problem of them on `threads` threads.
fn histogram_and_scan(threads: usize, check: impl FnOnce(&problem::Problem, usize, usize)) {
    let input = ImageParam::new(Type::u8(), 2, "input");
    let r = RDom::named("r", [(0, input.width()), (0, input.height())]);
    let i = Var::new("i");
    let hist = Func::new("hist");
    hist.define(i, 0).unwrap();
    let bin = cast_to::<i32>(input.at((r.x(), r.y())));
    hist.update(bin.clone(), hist.at(bin) + 1).unwrap();
    let s = RDom::named("s", [(1, 255)]);
    let cdf = Func::new("cdf");
    cdf.define(i, hist.at(i)).unwrap();
    cdf.update(s.x(), cdf.at(s.x() - 1) + cdf.at(s.x()))
        .unwrap();
    cdf.set_estimates(&[(0, 256)]).unwrap();
    input.set_estimates(&[(0, 512), (0, 512)]).unwrap();
    let analysis = PipelineAnalysis::new(&cdf, &[]).unwrap();
    let problem = host_problem(&analysis, threads);
    let index = |f: &Func| problem.func_index(f.name()).unwrap();
    check(&problem, index(&hist), index(&cdf));
}

#[test]
fn the_cost_model_sees_a_factored_histogram_in_parallel_and_a_scan_serial() {
    histogram_and_scan(4, |problem, hist, cdf| {
        // 16 strips of 32 rows, each with 4 partial histograms (one per residue of x): the
        // merge of 64 partial histograms of 256 bins is 1/16 of the 512 × 512 updates.
        // 4 rounds of 4 tasks.
        assert_eq!(reductions::update_speedup(problem, hist), 4.0);
        assert_eq!(reductions::update_speedup(problem, cdf), 1.0);
        let mut directives = Vec::new();
        reductions::emit_updates(problem, hist, &mut directives);
        assert!(
            directives.iter().any(|d| matches!(d,
                Directive::Split { func, update: Some(0), var, factor: 32, .. }
                    if func == "hist" && var == "r.y")),
            "{directives:?}"
        );
        assert!(
            directives.iter().any(|d| matches!(d,
                Directive::Split { func, update: Some(0), var, factor: 4, .. }
                    if func == "hist" && var == "r.x")),
            "{directives:?}"
        );
        let mut directives = Vec::new();
        reductions::emit_updates(problem, cdf, &mut directives);
        assert_eq!(directives, [], "the scan is not factored");
    });
    histogram_and_scan(1, |problem, hist, cdf| {
        assert_eq!(reductions::update_speedup(problem, hist), 1.0);
        let mut directives = Vec::new();
        reductions::emit_updates(problem, hist, &mut directives);
        // One thread gains nothing from strips, but its partial histograms per residue of x
        // still keep runs of equal values from waiting on one counter.
        assert!(
            directives.iter().any(|d| matches!(d,
                Directive::Split { func, update: Some(0), var, factor: 4, .. }
                    if func == "hist" && var == "r.x")),
            "{directives:?}"
        );
        assert!(
            (directives.iter()).any(|d| matches!(d, Directive::Rfactor { .. })),
            "{directives:?}"
        );
        let mut directives = Vec::new();
        reductions::emit_updates(problem, cdf, &mut directives);
        assert_eq!(
            directives,
            [],
            "the scan is not factored on one thread either"
        );
    });
}

/// A lookup table `lut(i)` read at data-dependent coordinates by `a`, and `out` reading `a`
/// at rows y ± 1, all over a clamped u8 input.
fn table_and_stencil() -> (ImageParam, Func, Func, Func) {
    let input = ImageParam::new(Type::u8(), 2, "input");
    let (x, y, i) = (Var::new("x"), Var::new("y"), Var::new("i"));
    let clamped = Func::new("clamped");
    let (cx, cy) = (
        clamp(x, 0, input.dim(0).max()),
        clamp(y, 0, input.dim(1).max()),
    );
    clamped.define((x, y), input.at((cx, cy))).unwrap();
    let lut = Func::new("lut");
    lut.define(i, (i * 7 + 3) % 251).unwrap();
    let a = Func::new("a");
    let at = |dx: i32| cast_to::<i32>(clamped.at((x + dx, y)));
    a.define((x, y), lut.at(at(0)) + at(1)).unwrap();
    let out = Func::new("out");
    out.define((x, y), a.at((x, y - 1)) + a.at((x, y + 1)))
        .unwrap();
    (input, lut, a, out)
}

#[test]
fn a_lookup_table_in_a_sliding_window_is_computed_once_per_strip() {
    let (input, lut, a, out) = table_and_stencil();
    out.set_estimates(&[(0, 256), (0, 64)]).unwrap();
    input.set_estimates(&[(0, 256), (0, 64)]).unwrap();
    let analysis = PipelineAnalysis::new(&out, &[]).unwrap();
    let mut problem = host_problem(&analysis, 2);
    let index = |f: &Func| problem.func_index(f.name()).unwrap();
    let (lut_i, a_i, out_i) = (index(&lut), index(&a), index(&out));
    // Whatever inlining decided, this test plans both as members of out's sliding window.
    problem.inlined[lut_i] = false;
    problem.inlined[a_i] = false;
    let plan = plan::GroupPlan {
        output: out_i,
        members: BTreeSet::from([lut_i, a_i, out_i]),
        strategy: Strategy::Strips {
            rows: 16,
            channels_inside: false,
        },
        ns: 0.0,
        terms: model::CostTerms::default(),
    };
    let script = emit::emit(&problem, &[plan]);
    let placements = |func: &str| -> Vec<(bool, String)> {
        (script.directives.iter())
            .filter_map(|d| match d {
                Directive::StoreAt { func: f, var, .. } if f == func => Some((true, var.clone())),
                Directive::ComputeAt { func: f, var, .. } if f == func => {
                    Some((false, var.clone()))
                }
                _ => None,
            })
            .collect()
    };
    // The table: computed per strip, never per row (it has no rows to slide along).
    assert_eq!(
        placements("lut"),
        [(false, "y_o".to_string())],
        "{script:?}"
    );
    // The stencil's producer: stored per strip, computed per row (the sliding window).
    assert_eq!(
        placements("a"),
        [(true, "y_o".to_string()), (false, "y_i".to_string())],
        "{script:?}"
    );
    // And the schedule computes what plain loops do, at the planned size and a smaller one.
    script.apply(&out).unwrap();
    let compiled = Pipeline::new(&out).compile_jit(&Target::host()).unwrap();
    for (w, h) in [(256, 64), (37, 5)] {
        let data =
            Buffer::<u8>::from_fn(&[0, 0], &[w, h], |c| ((c[0] * 31 + c[1] * 17) % 256) as u8);
        let pixel = |x: i64, y: i64| i32::from(data.get(&[x.clamp(0, w - 1), y.clamp(0, h - 1)]));
        let a_at = |x: i64, y: i64| (pixel(x, y) * 7 + 3) % 251 + pixel(x + 1, y);
        let inputs = Inputs::new().image(&input, data.clone());
        let mut outs = compiled.realize(&inputs, &[0, 0], &[w, h]).unwrap();
        let got = Buffer::<i32>::try_from(outs.remove(0)).unwrap();
        got.for_each_coord(|c| {
            let want = a_at(c[0], c[1] - 1) + a_at(c[0], c[1] + 1);
            assert_eq!(got.get(c), want, "{w}x{h} at {c:?}");
        });
    }
}

/// `out = (p + 1) * (p * 2)` through two Funcs, `a = p + 1` and `b = p * 2`, both reading
/// `p = sqrt(input)` at the point computed.
fn diamond() -> (ImageParam, Func, Func, Func, Func) {
    let input = ImageParam::new(Type::f32(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let p = Func::new("p");
    p.define((x, y), sqrt(input.at((x, y)))).unwrap();
    let a = Func::new("a");
    a.define((x, y), p.at((x, y)) + 1.0f32).unwrap();
    let b = Func::new("b");
    b.define((x, y), p.at((x, y)) * 2.0f32).unwrap();
    let out = Func::new("out");
    out.define((x, y), a.at((x, y)) * b.at((x, y))).unwrap();
    out.set_estimates(&[(0, 256), (0, 64)]).unwrap();
    input.set_estimates(&[(0, 256), (0, 64)]).unwrap();
    (input, p, a, b, out)
}

#[test]
fn a_func_read_at_one_point_through_two_inlined_consumers_is_evaluated_once() {
    let (_, p, a, b, out) = diamond();
    let analysis = PipelineAnalysis::new(&out, &[]).unwrap();
    let problem = host_problem(&analysis, 2);
    let index = |f: &Func| problem.func_index(f.name()).unwrap();
    for f in [&p, &a, &b] {
        assert!(problem.inlined[index(f)], "{} is not inlined", f.name());
    }
    // One square root per point of out (a vector of `lanes` points), not one per path.
    let o = &problem.funcs[index(&out)];
    let per_point = o.point.get(model::Term::Intrinsic);
    assert_eq!(per_point, 1.0 / o.lanes as f64, "{:?}", o.point);
}

#[test]
fn transcendentals_cost_per_lane_and_invariant_ones_nothing() {
    let input = ImageParam::new(Type::f32(), 2, "input");
    let mut gamma = Param::<f32>::new("gamma");
    gamma.set_estimate(2.2);
    let (x, y) = (Var::new("x"), Var::new("y"));
    let narrow = Func::new("narrow");
    // `pow(2, gamma)` is the same at every point: lowering hoists it out of the loops.
    let per_point = pow(input.at((x, y)), 1.0f32 / gamma.expr());
    let invariant = pow(Expr::f32(2.0), gamma.expr());
    narrow.define((x, y), per_point + invariant).unwrap();
    let wide = Func::new("wide");
    wide.define((x, y), exp(cast_to::<f64>(narrow.at((x, y)))))
        .unwrap();
    wide.set_estimates(&[(0, 64), (0, 64)]).unwrap();
    input.set_estimates(&[(0, 64), (0, 64)]).unwrap();
    let analysis = PipelineAnalysis::new(&wide, &[]).unwrap();
    let cost = |f: &Func| {
        analysis.costs[&StageId {
            func: f.name(),
            stage: 0,
        }]
            .count_of(OpKind::Transcendental)
    };
    assert_eq!((cost(&narrow), cost(&wide)), (1, 1));
    let problem = host_problem(&analysis, 2);
    let index = |f: &Func| problem.func_index(f.name()).unwrap();
    let (narrow_i, wide_i) = (index(&narrow), index(&wide));
    // A libm call for each lane, whatever the vector width: a 64-bit one counts as two.
    let calls = |i: usize| problem.funcs[i].point.get(model::Term::Transcendental);
    let inlined = if problem.inlined[narrow_i] { 1.0 } else { 0.0 };
    assert_eq!((calls(narrow_i), calls(wide_i)), (1.0, 2.0 + inlined));
}

/// `rows(x, y)`, whose values the parity of y selects (computed two rows at a time, so per
/// strip rather than sliding), read by `out` at rows y ± 1.
fn row_parity_and_stencil() -> (ImageParam, Func, Func) {
    let input = ImageParam::new(Type::u16(), 2, "input");
    let (x, y) = (Var::new("x"), Var::new("y"));
    let clamped = Func::new("clamped");
    let (cx, cy) = (
        clamp(x, 0, input.dim(0).max()),
        clamp(y, 0, input.dim(1).max()),
    );
    clamped.define((x, y), input.at((cx, cy))).unwrap();
    let at = |dx: i32, dy: i32| cast_to::<i32>(clamped.at((x + dx, y + dy)));
    let rows = Func::new("rows");
    let even = at(-1, 0) + at(1, 0) + at(0, -1) + at(0, 1);
    let odd = at(-1, -1) * 3 + at(1, 1) * 5 + at(0, 0);
    rows.define((x, y), select((y % 2).eq_(0), even, odd))
        .unwrap();
    let out = Func::new("out");
    out.define((x, y), rows.at((x, y - 1)) + rows.at((x, y + 1)))
        .unwrap();
    (input, rows, out)
}

#[test]
fn members_computed_per_strip_keep_their_whole_strip_in_the_working_set() {
    let (input, rows, out) = row_parity_and_stencil();
    let (w, h) = (4096, 4096);
    out.set_estimates(&[(0, w), (0, h)]).unwrap();
    input.set_estimates(&[(0, w), (0, h)]).unwrap();
    let analysis = PipelineAnalysis::new(&out, &[]).unwrap();
    let machine = Machine::host(&Target::host(), 2);
    let (l2, threads) = (machine.l2_bytes, machine.threads as f64);
    let problem = problem::Problem::new(&analysis, machine, CostModel::default()).unwrap();
    let (rows_i, out_i) = (
        problem.func_index(rows.name()).unwrap(),
        problem.func_index(out.name()).unwrap(),
    );
    assert!(
        !problem.inlined[rows_i],
        "the test plans `rows` as a member"
    );
    let members = BTreeSet::from([rows_i, out_i]);
    assert_eq!(
        plan::computed_per_strip(&problem, out_i, &members),
        BTreeSet::from([rows_i]),
        "`rows` is computed a pair of rows at a time: {:?}",
        problem.funcs[rows_i].parity
    );
    let beyond_l2 = |strip_rows: i64| {
        let strategy = Strategy::Strips {
            rows: strip_rows,
            channels_inside: false,
        };
        let terms = plan::predict(&problem, out_i, &members, strategy).unwrap();
        terms.get(model::Term::L3Byte) + terms.get(model::Term::MemoryByte)
    };
    // A strip of 1024 rows of `rows` (16 MiB of i32) is far beyond L2 and is written and
    // read back once per strip; one of 8 rows (128 KiB) stays in L2.
    let strip_bytes = 1024 * w * 4;
    assert!(strip_bytes > l2 && 8 * w * 4 <= l2);
    let written_and_read = 2.0 * (w * h * 4) as f64 / threads;
    // (8-row strips re-read more of the input's rows from L3, hence not all of it.)
    let extra = beyond_l2(1024) - beyond_l2(8);
    assert!(
        extra >= 0.75 * written_and_read,
        "1024-row strips move {extra} more bytes beyond L2 than 8-row ones; `rows` alone \
         moves {written_and_read} per thread"
    );
}

/// `mixed(x, y, c)`, a 3 × 3 colour matrix over `input`'s three channels (each channel
/// selected by `c`, so that each reads all three), read by `out` at four neighbours.
fn colour_matrix() -> (ImageParam, Func, Func) {
    let input = ImageParam::new(Type::f32(), 3, "input");
    let (x, y, c) = (Var::new("x"), Var::new("y"), Var::new("c"));
    let clamped = Func::new("clamped");
    let (cx, cy) = (
        clamp(x, 0, input.dim(0).max()),
        clamp(y, 0, input.dim(1).max()),
    );
    clamped.define((x, y, c), input.at((cx, cy, c))).unwrap();
    let channel = |k: i32| clamped.at((x, y, Expr::from(k)));
    let row = |k: f32| channel(0) * k + channel(1) * (k + 1.0) + channel(2) * (k + 2.0);
    let mixed = Func::new("mixed");
    let value = select(
        c.expr().eq_(0),
        row(1.0),
        select(c.expr().eq_(1), row(2.0), row(3.0)),
    );
    mixed.define((x, y, c), value).unwrap();
    let at = |dx: i32, dy: i32| mixed.at((x + dx, y + dy, c));
    let out = Func::new("out");
    out.define((x, y, c), at(-1, 0) + at(1, 0) + at(0, -1) + at(0, 1))
        .unwrap();
    out.set_estimates(&[(0, 512), (0, 256), (0, 3)]).unwrap();
    input.set_estimates(&[(0, 512), (0, 256), (0, 3)]).unwrap();
    (input, mixed, out)
}

#[test]
fn channels_that_read_the_same_points_are_computed_together() {
    let (input, mixed, out) = colour_matrix();
    let analysis = PipelineAnalysis::new(&out, &[]).unwrap();
    let problem = host_problem(&analysis, 2);
    let (mixed_i, out_i) = (
        problem.func_index(mixed.name()).unwrap(),
        problem.func_index(out.name()).unwrap(),
    );
    assert!(!problem.inlined[mixed_i], "the test reads `mixed` stored");
    // Each channel of `mixed` reads all three of `clamped`: computed together, they read
    // each once. `out` reads one channel of `mixed` per channel: nothing to share.
    assert_eq!(problem.funcs[mixed_i].channels, Some((2, 3)));
    assert_eq!(problem.funcs[out_i].channels, None);
    let options = AutoScheduleOptions {
        threads: 2,
        ..AutoScheduleOptions::default()
    };
    let auto = auto_schedule(&out, &Target::host(), &options).unwrap();
    let unrolled = |func: &str| {
        (auto.schedule.directives.iter()).any(
            |d| matches!(d, Directive::Unroll { func: f, var, .. } if f == func && var == "c_i"),
        )
    };
    assert!(unrolled("mixed") && !unrolled("out"), "{:?}", auto.schedule);
    // The values of plain loops, at the planned size and smaller ones, with fewer channels
    // than planned too (the channel split is guarded).
    let compiled = Pipeline::new(&out).compile_jit(&Target::host()).unwrap();
    for (w, h, channels) in [(512, 256, 3), (37, 5, 3), (19, 7, 2)] {
        let data = Buffer::<f32>::from_fn(&[0, 0, 0], &[w, h, 3], |p| {
            ((p[0] * 31 + p[1] * 17 + p[2] * 7) % 97) as f32
        });
        let pixel = |x: i64, y: i64, c: i64| data.get(&[x.clamp(0, w - 1), y.clamp(0, h - 1), c]);
        let mixed_at = |x: i64, y: i64, c: i64| {
            let k = (c + 1) as f32;
            pixel(x, y, 0) * k + pixel(x, y, 1) * (k + 1.0) + pixel(x, y, 2) * (k + 2.0)
        };
        let inputs = Inputs::new().image(&input, data.clone());
        let mut outs = compiled
            .realize(&inputs, &[0, 0, 0], &[w, h, channels])
            .unwrap();
        let got = Buffer::<f32>::try_from(outs.remove(0)).unwrap();
        got.for_each_coord(|p| {
            let (x, y, c) = (p[0], p[1], p[2]);
            let want = mixed_at(x - 1, y, c)
                + mixed_at(x + 1, y, c)
                + mixed_at(x, y - 1, c)
                + mixed_at(x, y + 1, c);
            assert_eq!(got.get(p), want, "{w}x{h}x{channels} at {p:?}");
        });
    }
}

/// The sampler's plans are plans the search could make: a group whose member computes its
/// channels together loops them inside (`plan::channel_orders`), so that member's channel
/// loop, unrolled innermost, is not also fused into the parallel loop. Before, half such
/// samples emitted `split(c, ...)` after `fuse(y, c)` and the schedule was refused.
#[test]
fn every_sampled_plan_emits_a_schedule_that_applies_and_lowers() {
    use rand::{rngs::StdRng, SeedableRng};

    let (_, _, analysed) = colour_matrix();
    let analysis = PipelineAnalysis::new(&analysed, &[]).unwrap();
    let problem = host_problem(&analysis, 2);
    let mut rng = StdRng::seed_from_u64(16);
    let mut channels_outside = 0;
    for i in 0..48 {
        let plans = sample::sample_plans(&problem, &mut rng).unwrap();
        channels_outside += (plans.iter())
            .filter(|p| !p.strategy.channels_inside())
            .count();
        let script = emit::emit(&problem, &plans);
        let (_, _, out) = colour_matrix();
        script
            .apply(&out)
            .unwrap_or_else(|e| panic!("sample {i}: {e}\n{}", script.to_rust()));
        Pipeline::new(&out)
            .lower_to_string()
            .unwrap_or_else(|e| panic!("sample {i}: {e}\n{}", script.to_rust()));
    }
    assert!(channels_outside > 0, "no sample looped channels outside");
}
