//! The public API's homes (ARCHITECTURE.md, "The public API"): a pipeline written with the
//! prelude, then lowered, bounds-queried, compiled and evaluated through the crate root's
//! re-exports alone, its values checked against a plain Rust loop; and the bounds query's
//! old path, kept deprecated for a release, still naming the same types.

use tessera::prelude::*;
use tessera::{InferredBounds, InputBounds, LowerOptions, Lowered, PassRecord, Symbol};

/// `out(x) = in(x) + 3 * in(x + 2)` over a 1-D `i32` image.
fn stencil() -> (ImageParam, Func) {
    let input = ImageParam::new(Type::i32(), 1, "in");
    let x = Var::new("x");
    let out = Func::new("out");
    out.define(x, input.at(x) + 3 * input.at(x + 2)).unwrap();
    (input, out)
}

fn plain_rust_stencil(input: impl Fn(i64) -> i32, mins: i64, extent: i64) -> Vec<i32> {
    (mins..mins + extent)
        .map(|x| input(x) + 3 * input(x + 2))
        .collect()
}

#[test]
fn a_pipeline_runs_through_the_crate_roots_reexports_alone() {
    let (input, out) = stencil();
    let pipeline = Pipeline::new(&out);

    let options = LowerOptions {
        record_ir: true,
        ..LowerOptions::default()
    };
    let lowered: Lowered = pipeline.lower(&options).unwrap();
    let passes: &[PassRecord] = &lowered.passes;
    assert!(passes.iter().any(|pass| pass.ir.is_some()));
    assert!(lowered.stmt.to_string().contains("out"));

    let (mins, extents) = ([4], [10]);
    let bounds: InferredBounds = pipeline
        .infer_input_bounds(&Inputs::new(), &mins, &extents)
        .unwrap();
    let needed: &InputBounds = bounds.input(&input).unwrap();
    assert_eq!(needed.image, Symbol::new("in"));
    assert_eq!(
        (needed.mins.as_slice(), needed.extents.as_slice()),
        (&[4][..], &[12][..])
    );

    let image = |x: i64| (x * x % 17 - 5) as i32;
    let data = Buffer::<i32>::from_fn(&needed.mins, &needed.extents, |c| image(c[0]));
    let expected = plain_rust_stencil(image, mins[0], extents[0]);

    let compiled = pipeline.compile_jit(&Target::host()).unwrap();
    let inputs = Inputs::new().image(&input, data.clone());
    let native = compiled
        .realize_as::<i32>(&inputs, &mins, &extents)
        .unwrap();
    let evaluated = Evaluator::new()
        .with_input(&input, data)
        .realize_as::<i32>(&out, &mins, &extents)
        .unwrap();
    for (i, want) in expected.iter().enumerate() {
        let coord = [mins[0] + i as i64];
        assert_eq!(native.get(&coord), *want, "compiled, at {coord:?}");
        assert_eq!(evaluated.get(&coord), *want, "evaluated, at {coord:?}");
    }
}

#[test]
#[allow(deprecated)]
fn the_bounds_querys_old_path_names_the_same_types() {
    let (input, out) = stencil();
    let old: tessera::bounds_query::InferredBounds = Pipeline::new(&out)
        .infer_input_bounds(&Inputs::new(), &[0], &[8])
        .unwrap();
    let needed: &tessera::bounds_query::InputBounds = old.input(&input).unwrap();
    assert_eq!(needed.extents, vec![10]);
}
