//! With float multiply-adds fused (`Target::float_contraction`, the CLI's `--fp-contract`,
//! what the benchmarks compare against Halide's default), every float app's `manual`
//! schedule still computes its specified output within the specification's tolerance (1e-4
//! of the largest output magnitude) on its built-in test image.

mod common;

use common::assert_close_image;
use tessera::pipeline::Pipeline;
use tessera::Target;

#[test]
fn fused_float_apps_stay_within_the_specified_tolerance() {
    for name in ["unsharp", "harris", "bilateral_grid", "interpolate"] {
        let app = tessera_apps::find(name).expect("a built-in app");
        let input = app.default_inputs(200, 136).expect("the default input");
        let (mins, extents) = app.check_inputs(&input).expect("the input fits");
        let pipeline = app.build_scheduled("manual").expect("manual builds");
        let target = Target::host().with_float_contraction(true);
        let compiled = Pipeline::new(&pipeline.output)
            .compile_jit(&target)
            .expect("compiles");
        let inputs = app.inputs(&pipeline, &input, &[]);
        let got = compiled
            .realize(&inputs, &mins, &extents)
            .expect("runs")
            .swap_remove(0);
        let want = app.reference(&input, &[]).expect("the reference runs");
        assert_close_image(&got, &want, 1e-4, name);
    }
}
