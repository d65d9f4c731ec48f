//! Halide's `test/correctness/multi_output_pipeline_with_bad_sizes.cpp`: realizing a Tuple
//! Func `{x, sin(x)}` into two output buffers of different sizes (100 and 101 points) is an
//! error (Halide reports it through its error handler; here `realize_into` returns it).
//! Checked both ways round, natively with and without bounds checks, and the buffers of
//! equal size realize.
//!
//! This port found a bug, fixed: Tessera realized the Tuple over the first buffer's box
//! and accepted a larger second buffer, leaving its 101st point stale.

use tessera::codegen::target::Target;
use tessera::pipeline::{Inputs, Pipeline};
use tessera::prelude::*;

fn realize_into(checked: bool, sizes: (i64, i64)) -> Result<Vec<AnyBuffer>> {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, Tuple(vec![x.expr(), sin(x)])).unwrap();
    let target = Target::host().with_bounds_checks(checked);
    let compiled = Pipeline::new(&f).compile_jit(&target).unwrap();
    let mut outputs = vec![
        AnyBuffer::from(Buffer::<i32>::new(&[sizes.0])),
        AnyBuffer::from(Buffer::<f32>::new(&[sizes.1])),
    ];
    compiled.realize_into(&Inputs::new(), &mut outputs)?;
    Ok(outputs)
}

#[test]
fn outputs_of_different_sizes_are_an_error() {
    for checked in [true, false] {
        for sizes in [(100, 101), (101, 100)] {
            let result = realize_into(checked, sizes);
            assert!(
                result.is_err(),
                "realizing into outputs of {sizes:?} points succeeded (checked: {checked})"
            );
        }
        let outputs = realize_into(checked, (100, 100)).unwrap();
        let AnyBuffer::F32(sines) = &outputs[1] else {
            panic!("the second value is f32");
        };
        for i in 0..100 {
            assert_eq!(outputs[0].get_value(&[i]), Value::Int(i));
            assert!(
                (sines.get(&[i]) - (i as f32).sin()).abs() < 1e-5,
                "sin({i})"
            );
        }
    }
}
