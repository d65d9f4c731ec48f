//! Halide's `test/correctness/shifted_image.cpp`: a 4-D buffer whose dimensions start at
//! 100, 300, 500 and 400 (strides 1, 10, 100, 1000) is indexed by absolute coordinates: its
//! first element is at (100, 300, 500, 400). Beyond Halide's test, the buffer is also the
//! input of a pipeline realized over the same box, which must read it the same way.

use crate::lower_common::{check, TestInputs};
use tessera::prelude::*;

fn shifted_buffer() -> Buffer<i32> {
    let dims = vec![
        Dim {
            min: 100,
            extent: 10,
            stride: 1,
        },
        Dim {
            min: 300,
            extent: 10,
            stride: 10,
        },
        Dim {
            min: 500,
            extent: 10,
            stride: 100,
        },
        Dim {
            min: 400,
            extent: 10,
            stride: 1000,
        },
    ];
    let data: Vec<i32> = (0..10_000).collect();
    Buffer::from_parts(data, dims).unwrap()
}

#[test]
fn a_buffer_with_nonzero_mins_is_indexed_by_absolute_coordinates() {
    let mut buf = shifted_buffer();
    buf.data_mut()[0] = 17;
    assert_eq!(buf.get(&[100, 300, 500, 400]), 17);
    assert_eq!(buf.get(&[101, 302, 503, 404]), 1 + 20 + 300 + 4000);
}

#[test]
fn a_pipeline_reads_a_shifted_input() {
    let buf = shifted_buffer();
    let image = ImageParam::new(Type::i32(), 4, "im");
    let (x, y, z, w) = (Var::new("x"), Var::new("y"), Var::new("z"), Var::new("w"));
    let f = Func::new("f");
    f.define((x, y, z, w), image.at((x, y, z, w)) * 2).unwrap();
    let run = check(
        &f,
        &TestInputs::new().image(&image, buf.clone()),
        &[100, 300, 500, 400],
        &[10, 10, 10, 10],
    );
    let out = crate::i32_values(&run);
    buf.for_each_coord(|p| assert_eq!(out.get(p), buf.get(p) * 2, "f{p:?}"));
}
