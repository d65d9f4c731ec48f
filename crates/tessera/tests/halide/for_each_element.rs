//! Halide's `test/correctness/for_each_element.cpp`: visiting every element of a 3-D buffer
//! whose mins are not zero (a crop of a larger one) in several ways — a callback per
//! coordinate, then loops over each dimension's range — sees each once with the values
//! written before; and a zero-dimensional buffer has exactly one element. Here Tessera's
//! `Buffer` is visited with `for_each_coord` and plain loops over its dims. Halide's
//! 800 x 600 x 3 crop is 80 x 60 x 3 here; the `(x, y)` callback form (Tessera has none) is
//! a loop over the channels inside a visit of the 2-D crop.

use tessera::lang::buffer::for_each_coord_in;
use tessera::prelude::*;

fn value(p: &[i64]) -> i32 {
    (10 * p[0] + 5 * p[1] + p[2]) as i32
}

#[test]
fn every_element_of_a_buffer_with_nonzero_mins() {
    let (mins, extents) = ([100, 200, 0], [80, 60, 3]);
    let mut im = Buffer::<i32>::with_mins(&mins, &extents);
    for_each_coord_in(&mins, &extents, &mut |p| im.set(p, value(p)));
    let mut visits = 0;
    for_each_coord_in(&mins, &extents, &mut |p| {
        assert_eq!(im.get(p), value(p), "at {p:?}");
        im.set(p, im.get(p) * 3);
        visits += 1;
    });
    assert_eq!(visits, 80 * 60 * 3);
    for_each_coord_in(&mins[..2], &extents[..2], &mut |p| {
        for c in 0..3 {
            let q = [p[0], p[1], c];
            assert_eq!(im.get(&q), value(&q) * 3, "at {q:?}");
            im.set(&q, im.get(&q) * 2);
        }
    });
    let dims = im.dims().to_vec();
    for c in dims[2].min..dims[2].min + dims[2].extent {
        for y in dims[1].min..dims[1].min + dims[1].extent {
            for x in dims[0].min..dims[0].min + dims[0].extent {
                let q = [x, y, c];
                assert_eq!(im.get(&q), value(&q) * 6, "at {q:?}");
                im.set(&q, im.get(&q) * 2);
            }
        }
    }
    im.for_each_coord(|q| assert_eq!(im.get(q), value(q) * 12, "at {q:?}"));
}

#[test]
fn a_zero_dimensional_buffer_has_one_element() {
    let mut scalar = Buffer::<i32>::new(&[]);
    scalar.set(&[], 5);
    let mut visits = 0;
    for_each_coord_in(&[], &[], &mut |p| {
        scalar.set(p, scalar.get(p) + 1);
        visits += 1;
    });
    assert_eq!((visits, scalar.get(&[])), (1, 6));
}
