//! Halide's `test/correctness/bounds.cpp`: `max`, `min` and `clamp` of the coordinates over a
//! 32 x 32 output. Halide runs the three with an 8 x 8 GPU tiling on GPU targets; here the
//! GPU schedule is left out and the same 8 x 8 tiling is tried on the CPU instead.

use crate::i32_values;
use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

/// The value of a Func at `(x, y)`, in plain Rust.
type Reference = fn(i32, i32) -> i32;

fn check_all(tiled: bool) {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), max(x, y)).unwrap();
    let g = Func::new("g");
    g.define((x, y), min(x, y)).unwrap();
    let h = Func::new("h");
    h.define((x, y), clamp(x + y, 20, 100)).unwrap();
    let references: [(&Func, Reference); 3] = [
        (&f, |i, j| if i > j { i } else { j }),
        (&g, |i, j| if i < j { i } else { j }),
        (&h, |i, j| (i + j).clamp(20, 100)),
    ];
    for (func, reference) in references {
        if tiled {
            func.tile(x, y, "xo", "yo", "xi", "yi", 8, 8);
        }
        let run = check(func, &TestInputs::new(), &[0, 0], &[32, 32]);
        let out = i32_values(&run);
        for j in 0..32 {
            for i in 0..32 {
                assert_eq!(
                    out.get(&[i as i64, j as i64]),
                    reference(i, j),
                    "{}({i}, {j})",
                    func.name()
                );
            }
        }
    }
}

#[test]
fn min_max_and_clamp_of_the_coordinates() {
    check_all(false);
}

#[test]
fn min_max_and_clamp_tiled() {
    check_all(true);
}
