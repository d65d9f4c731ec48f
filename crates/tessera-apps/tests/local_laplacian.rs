//! The local Laplacian filter, evaluated by the definition-level evaluator, matches the
//! plain-Rust reference (at most 0.1% of the pixels may differ, by more than 1): as specified
//! (J = 8 pyramid levels) on the built-in test image, and with a shallower pyramid (J = 4,
//! which computes a region 2^4 times narrower) on random images of several shapes and
//! shifted mins, with random values of the runtime parameters levels, alpha and beta. Every
//! schedule of a pipeline with J = 3, lowered once, run on the Stmt interpreter and compiled
//! by the JIT, matches the reference the same way.

mod common;

use common::{seeded_rng, Scheduled};
use rand::Rng;
use tessera::lang::param::ParamBinding;
use tessera::prelude::*;
use tessera_apps::local_laplacian::{self, LocalLaplacian, Parameters};
use tessera_apps::App;

/// A pyramid deep enough for every kind of stage, shallow enough to evaluate quickly.
const SHALLOW: LocalLaplacian = LocalLaplacian { pyramid_levels: 4 };

/// The depth the schedules are checked at: the shallowest with a level in strips and the
/// coarsest at root in `manual` (lowering takes over two minutes a schedule at depth 4).
const SCHEDULED: LocalLaplacian = LocalLaplacian { pyramid_levels: 3 };

/// Panics unless `got` and `want` cover the same box and at most 0.1% of their elements
/// differ by more than 1.
fn assert_matches(got: &AnyBuffer, want: &Buffer<u16>, context: &str) {
    let got: Buffer<u16> = got.clone().try_into().expect("the output is u16");
    assert_eq!(
        (got.mins(), got.extents()),
        (want.mins(), want.extents()),
        "region; {context}"
    );
    let mut far = Vec::new();
    want.for_each_coord(|c| {
        if got.get(c).abs_diff(want.get(c)) > 1 {
            far.push((c.to_vec(), got.get(c), want.get(c)));
        }
    });
    let allowed = want.len() / 1000;
    assert!(
        far.len() <= allowed,
        "{} of {} elements differ by more than 1 (at most {allowed} may), e.g. at {:?} the pipeline gives {} but the reference {}; {context}",
        far.len(),
        want.len(),
        far[0].0,
        far[0].1,
        far[0].2
    );
}

fn bindings(p: Parameters) -> Vec<ParamBinding> {
    vec![
        Param::<i32>::new("levels").bind(p.levels),
        Param::<f32>::new("alpha").bind(p.alpha),
        Param::<f32>::new("beta").bind(p.beta),
    ]
}

fn random_parameters(rng: &mut impl Rng) -> Parameters {
    Parameters {
        levels: rng.random_range(2..=8),
        alpha: rng.random_range(0.0..2.0),
        beta: rng.random_range(0.5..1.5),
    }
}

#[test]
fn as_specified_on_the_built_in_test_image() {
    let app = LocalLaplacian::STANDARD;
    let input = app.default_inputs(12, 8).expect("the default input");
    let got = app.evaluate(&input, &[]).expect("evaluates");
    let input: Buffer<u16> = input[0].clone().try_into().expect("u16 input");
    let want = local_laplacian::reference(&input, Parameters::default(), local_laplacian::J)
        .expect("reference");
    assert_matches(&got, &want, "default input and parameters");
}

#[test]
fn random_images_shapes_and_parameters() {
    let (seed, mut rng) = seeded_rng(0x11);
    for (mins, extents) in [
        ([0, 0], [9, 7]),
        ([0, 0], [1, 1]),
        ([-5, 3], [6, 11]),
        ([2, -7], [13, 4]),
    ] {
        let p = random_parameters(&mut rng);
        let input = Buffer::from_fn(&[mins[0], mins[1], 0], &[extents[0], extents[1], 3], |_| {
            rng.random::<u16>()
        });
        let got = SHALLOW
            .evaluate(&[input.clone().into()], &bindings(p))
            .expect("evaluates");
        let want =
            local_laplacian::reference(&input, p, SHALLOW.pyramid_levels).expect("reference");
        let context =
            format!("mins {mins:?}, extents {extents:?}, {p:?}, seed {seed} (TESSERA_SEED={seed})");
        assert_matches(&got, &want, &context);
    }
}

#[test]
fn smooth_images_with_strong_detail_boost() {
    // The built-in image (smooth regions, edges, noise) with alpha and beta far from 1.
    let input = SHALLOW.default_inputs(16, 10).expect("the default input");
    for p in [
        Parameters {
            levels: 2,
            alpha: 3.0,
            beta: 0.25,
        },
        Parameters {
            levels: 5,
            alpha: 0.0,
            beta: 1.0,
        },
    ] {
        let got = SHALLOW.evaluate(&input, &bindings(p)).expect("evaluates");
        let want = SHALLOW.reference(&input, &bindings(p)).expect("reference");
        let want: Buffer<u16> = want.try_into().expect("u16 output");
        assert_matches(&got, &want, &format!("{p:?}"));
    }
}

/// Schedule `name` on the interpreter and the JIT against the reference, on two random
/// images and parameter sets.
fn check_schedule(name: &str) {
    let (seed, mut rng) = seeded_rng(0x12);
    let info = SCHEDULED
        .schedule_info(name)
        .expect("a schedule of the app");
    let scheduled = Scheduled::new(&SCHEDULED, info.name);
    let (w, h) = info.min_output;
    for (mins, extents) in [([0, 0], [w.max(16), h.max(8)]), ([-7, 4], [w + 3, h + 10])] {
        let p = random_parameters(&mut rng);
        let input = Buffer::from_fn(&[mins[0], mins[1], 0], &[extents[0], extents[1], 3], |_| {
            rng.random::<u16>()
        });
        let want =
            local_laplacian::reference(&input, p, SCHEDULED.pyramid_levels).expect("reference");
        for (backend, got) in scheduled.run(&SCHEDULED, &[input.into()], &bindings(p)) {
            let context = format!(
                "schedule {} on the {backend}, mins {mins:?}, extents {extents:?}, {p:?}, seed {seed} (TESSERA_SEED={seed})",
                info.name
            );
            assert_matches(&got, &want, &context);
        }
    }
}

#[test]
fn every_schedule_on_the_interpreter_and_the_jit() {
    for info in SCHEDULED.schedules() {
        check_schedule(info.name);
    }
}

/// Fully inlined, the pyramid is an exponentially large expression: lowering refuses it at
/// once with an error naming a Func to compute instead (it used to exhaust memory).
#[test]
fn the_fully_inlined_pipeline_is_refused() {
    let funcs = local_laplacian::funcs(SCHEDULED.pyramid_levels).expect("the algorithm");
    tessera_apps::schedule::inline(&funcs);
    let e = tessera::pipeline::Pipeline::new(&funcs.output)
        .lower(&tessera::LowerOptions::default())
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        e.contains("makes expressions of more than") && e.contains("compute"),
        "{e}"
    );
}
