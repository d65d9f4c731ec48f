//! Halide's `test/correctness/vectorized_load_from_vectorized_allocation.cpp`: an update
//! vectorized over `r.z` loads a producer computed per `r.y` at `g(r.x * r.z, r.y, r.z)`, a
//! gather from a vectorized allocation. Halide bounds the producer's x extent with
//! `bound_extent(x, size²)`; Tessera has only `bound(x, min, extent)`, given min 0 (the min
//! the reads need). 16³ instead of 80³.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn a_vectorized_gather_from_a_vectorized_allocation() {
    const SIZE: i64 = 16;
    let (x, y, z) = (Var::new("x"), Var::new("y"), Var::new("z"));
    let g = Func::new("g");
    g.define((x, y, z), x).unwrap();
    let f = Func::new("f");
    f.define((x, y, z), 100).unwrap();
    let n = SIZE as i32;
    let r = RDom::new([(0, n), (0, n), (0, n)]);
    f.update(
        (r.x(), r.y(), r.z()),
        f.at((r.x(), r.y(), r.z())) + 2 * g.at((r.x() * r.z(), r.y(), r.z())),
    )
    .unwrap();
    f.update_stage(0).vectorize(r.z(), 8);
    g.compute_at(&f, r.y()).bound(x, 0, n * n);
    let run = check(&f, &TestInputs::new(), &[0, 0, 0], &[SIZE, SIZE, SIZE]);
    let out = crate::i32_values(&run);
    for zz in 0..SIZE {
        for yy in 0..SIZE {
            for xx in 0..SIZE {
                let want = 100 + 2 * xx * zz;
                assert_eq!(
                    i64::from(out.get(&[xx, yy, zz])),
                    want,
                    "f({xx}, {yy}, {zz})"
                );
            }
        }
    }
}
