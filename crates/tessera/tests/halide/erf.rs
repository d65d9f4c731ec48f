//! Halide's `test/correctness/erf.cpp`: `erf` of an f32, vectorized by 8, at 100000 points
//! over [-5, 5), within 4 mantissa bits (15 ulps) of the C library's `erf`.

use crate::{f32_output, realize, ulps_apart};
use tessera::prelude::*;

extern "C" {
    /// The C library's double-precision error function: the reference.
    #[link_name = "erf"]
    fn libm_erf(x: f64) -> f64;
}

#[test]
fn erf_within_four_bits_of_the_c_library() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, erf((x - 50000) / 10000.0f32)).unwrap();
    f.vectorize(x, 8);
    let run = realize(&f, &[100000]);
    let out = f32_output(&run);
    let mut worst = (0, 0.0f32);
    for i in 0..100000 {
        let arg = (i as i32 - 50000) as f32 / 10000.0;
        // SAFETY: `erf` of the C library is a pure function of a double.
        let want = unsafe { libm_erf(f64::from(arg)) } as f32;
        let ulps = ulps_apart(out.get(&[i]), want);
        if ulps > worst.0 {
            worst = (ulps, arg);
        }
    }
    assert!(
        worst.0 <= 15,
        "erf({}) is {} ulps from the C library's",
        worst.1,
        worst.0
    );
}

/// Beyond Halide's test: an f64 argument is refused, naming `erf`.
#[test]
fn erf_of_f64_refused() {
    let x = Var::new("x");
    let f = Func::new("f64_erf");
    let err = f.define(x, erf(cast_to::<f64>(x))).unwrap_err();
    assert!(
        err.to_string().contains("erf needs an f32 argument"),
        "{err}"
    );
}
