//! Halide's `test/correctness/unique_func_image.cpp`: Funcs given the same name (`ext`) are
//! distinct Funcs, each realizing its own definition, and a Func named `ext` can read an image
//! (Halide: the realized output of another `ext`) through a Func of the same name. Halide
//! asserts the two Funcs' names differ; Tessera keeps the names given and makes them unique
//! when a pipeline is built, so here the two are also used in one pipeline. Halide wraps the
//! realized buffer in a Func; here the buffer is bound to an ImageParam read by a Func named
//! `ext`, and `add2` adds 2 to it in another Func named `ext` (which Tessera refused as a
//! recursive pure definition until this port: fixed, with the wrong value below).

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

#[test]
fn funcs_of_one_name_are_distinct() {
    let x = Var::new("x");
    let ext1 = Func::new("ext");
    ext1.define(x, x + 1).unwrap();
    let ext2 = Func::new("ext");
    ext2.define(x, x + 2).unwrap();
    for (f, offset) in [(&ext1, 1), (&ext2, 2)] {
        let run = check(f, &TestInputs::new(), &[0], &[10]);
        let out = crate::i32_values(&run);
        for i in 0..10 {
            assert_eq!(out.get(&[i]), i as i32 + offset, "ext + {offset} at {i}");
        }
    }
    // Both in one pipeline.
    let g = Func::new("g");
    g.define(x, ext1.at(x) * 100 + ext2.at(x)).unwrap();
    ext1.compute_root();
    let run = check(&g, &TestInputs::new(), &[0], &[10]);
    let out = crate::i32_values(&run);
    for i in 0..10 {
        assert_eq!(out.get(&[i]), (i as i32 + 1) * 100 + i as i32 + 2, "g({i})");
    }
}

#[test]
fn a_func_of_one_name_reading_another() {
    let x = Var::new("x");
    let out1 = ImageParam::new(Type::i32(), 1, "out1");
    let out1_as_func = Func::new("ext");
    out1_as_func.define(x, out1.at(x)).unwrap();
    let ext3 = Func::new("ext");
    let rest = Var::placeholder();
    ext3.define(rest, out1_as_func.at(rest) + 2).unwrap();
    let image = Buffer::<i32>::from_fn(&[0], &[10], |p| p[0] as i32 + 1);
    let run = check(&ext3, &TestInputs::new().image(&out1, image), &[0], &[10]);
    let out = crate::i32_values(&run);
    for i in 0..10 {
        assert_eq!(out.get(&[i]), i as i32 + 3, "add2 at {i}");
    }
}

/// Not in Halide's test: an update of one `ext` reading another. (It found a wrong value,
/// fixed: the update took the other Func for a call to itself, by name, and computed
/// `2x` instead of `11x`.)
#[test]
fn an_update_reading_another_func_of_its_name() {
    let x = Var::new("x");
    let other = Func::new("ext");
    other.define(x, x * 10).unwrap();
    let f = Func::new("ext");
    f.define(x, x).unwrap();
    f.update(x, f.at(x) + other.at(x)).unwrap();
    let run = check(&f, &TestInputs::new(), &[0], &[10]);
    let out = crate::i32_values(&run);
    for i in 0..10 {
        assert_eq!(out.get(&[i]), 11 * i as i32, "at {i}");
    }
}
