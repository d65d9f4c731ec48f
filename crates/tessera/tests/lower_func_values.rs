//! Func values used as coordinates, bounded by the values the Func can take
//! (`lower::clamp_func_values`): the input read covers only those values, the values stay
//! the evaluator's (`check` compares with it, in the interpreter and in checked native
//! code, whose fresh storage holds garbage), every definition of the Func counts, and
//! storage read where nothing was computed indexes nothing outside what was sized.

mod lower_common;

use lower_common::{check, TestInputs};
use tessera::prelude::*;

/// An i32 image over `[min, max]` whose element at `i` is `i * 3 + 1`.
fn image(min: i64, max: i64) -> Buffer<i32> {
    Buffer::from_fn(&[min], &[max - min + 1], |c| (c[0] * 3 + 1) as i32)
}

/// The values of `f`, an i32 output, over `[0, n)`, realized with `inputs` by `check`.
fn values(f: &Func, inputs: &TestInputs, n: i64) -> Vec<i64> {
    let run = check(f, inputs, &[0], &[n]);
    let out = run.i32_values(0);
    (0..n).map(|x| i64::from(out.get(&[x]))).collect()
}

fn expected(n: i64, index: impl Fn(i64) -> i64) -> Vec<i64> {
    (0..n).map(|x| index(x) * 3 + 1).collect()
}

#[test]
fn an_update_widens_the_values_of_its_func() {
    // f is clamp(x, 0, 5) by its pure definition, then 20 + x % 11 over [2, 5): the input is
    // read over the union, [0, 30], and the values the update stores stay what they are.
    let x = Var::new("x");
    let input = ImageParam::new(Type::i32(), 1, "in");
    let f = Func::new("f");
    f.define(x, clamp(x, 0, 5)).unwrap();
    let r = RDom::new([(2, 3)]);
    f.update(r.x(), 20 + r.x() % 11).unwrap();
    f.compute_root();
    let g = Func::new("g");
    g.define(x, input.at(f.at(x))).unwrap();
    let inputs = TestInputs::new().image(&input, image(0, 30));
    let f_value = |x: i64| {
        if (2..5).contains(&x) {
            20 + x
        } else {
            x.clamp(0, 5)
        }
    };
    assert_eq!(values(&g, &inputs, 12), expected(12, f_value));
}

#[test]
fn storage_read_past_the_region_computed_indexes_inside_the_input() {
    // g is computed in whole vectors of 8 over a region of 3 points, so it reads f at 5
    // points nothing computed (garbage in the interpreter); the clamp keeps those reads of
    // the input inside [10, 20].
    let x = Var::new("x");
    let input = ImageParam::new(Type::i32(), 1, "in");
    let f = Func::new("f");
    f.define(x, clamp(x * 2, 10, 20)).unwrap();
    f.compute_root();
    let g = Func::new("g");
    g.define(x, input.at(f.at(x))).unwrap();
    g.compute_root().vectorize(x, 8);
    let h = Func::new("h");
    h.define(x, g.at(x)).unwrap();
    let inputs = TestInputs::new().image(&input, image(10, 20));
    assert_eq!(
        values(&h, &inputs, 3),
        expected(3, |x| (x * 2).clamp(10, 20))
    );
}

#[test]
fn a_select_arm_not_taken_indexes_inside_the_input() {
    // f is computed only where the select takes its first arm, but native code evaluates
    // both, reading f where nothing computed it.
    let x = Var::new("x");
    let input = ImageParam::new(Type::i32(), 1, "in");
    let f = Func::new("f");
    f.define(x, clamp(x - 3, 0, 7)).unwrap();
    f.compute_root();
    let g = Func::new("g");
    g.define(x, select(x.lt(6), input.at(f.at(x)), 0)).unwrap();
    g.vectorize(x, 4);
    let inputs = TestInputs::new().image(&input, image(0, 7));
    let index_or_none = values(&g, &inputs, 16);
    let expected: Vec<i64> = (0..16)
        .map(|x| {
            if x < 6 {
                (x - 3).clamp(0, 7) * 3 + 1
            } else {
                0
            }
        })
        .collect();
    assert_eq!(index_or_none, expected);
}

#[test]
fn a_scatter_through_a_func_value_stays_inside_its_func() {
    // The histogram's bins are a Func's values in [0, 7], so its storage covers 8 bins.
    let x = Var::new("x");
    let bin = Func::new("bin");
    bin.define(x, (x * 5) % 8).unwrap();
    bin.compute_root();
    let hist = Func::new("hist");
    hist.define(x, 0).unwrap();
    let r = RDom::new([(0, 100)]);
    hist.update(bin.at(r.x()), hist.at(bin.at(r.x())) + 1)
        .unwrap();
    let run = check(&hist, &TestInputs::new(), &[0], &[8]);
    let out = run.i32_values(0);
    for b in 0..8 {
        let count = (0..100).filter(|i| i * 5 % 8 == b).count();
        assert_eq!(out.get(&[b]), count as i32, "bin {b}");
    }
}

/// Whether the lowered code of `g` clamps a load of `f`.
fn clamps_loads_of_f(g: &Func) -> bool {
    let lowered = tessera::pipeline::Pipeline::new(g)
        .lower_to_string()
        .unwrap();
    // A clamp of the load itself: `min(f[..], ..)`, not `min(f[..] + 1, ..)`.
    ["min(f[", "max(f["].iter().any(|call| {
        lowered.match_indices(call).any(|(at, _)| {
            let index = &lowered[at + call.len()..];
            let mut depth = 1;
            let close = index.find(|c| {
                depth += match c {
                    '[' => 1,
                    ']' => -1,
                    _ => 0,
                };
                depth == 0
            });
            close.is_some_and(|end| index[end + 1..].starts_with(", "))
        })
    })
}

#[test]
fn a_func_spanning_its_type_is_read_unclamped() {
    // A u8 Func's values span its type: nothing to clamp, the lowered code reads it as is.
    let x = Var::new("x");
    let input = ImageParam::new(Type::i32(), 1, "in");
    let f = Func::new("f");
    f.define(x, cast(Type::u8(), x)).unwrap();
    f.compute_root();
    let g = Func::new("g");
    g.define(x, input.at(f.at(x))).unwrap();
    assert!(!clamps_loads_of_f(&g));
    let inputs = TestInputs::new().image(&input, image(0, 255));
    assert_eq!(values(&g, &inputs, 300), expected(300, |x| x % 256));
}

#[test]
fn a_coordinate_clamped_already_is_read_unclamped() {
    // The lookup's own clamp bounds it as tightly as f's values would: f's load stays as it
    // is. Without that clamp, f's values bound the coordinate, through a clamp of the load.
    let x = Var::new("x");
    let input = ImageParam::new(Type::i32(), 1, "in");
    let f = Func::new("f");
    f.define(x, clamp(x - 50, -50, 100)).unwrap();
    f.compute_root();
    let g = Func::new("g");
    g.define(x, input.at(clamp(f.at(x) + 1, 0, 15))).unwrap();
    assert!(!clamps_loads_of_f(&g));
    let inputs = TestInputs::new().image(&input, image(0, 15));
    assert_eq!(
        values(&g, &inputs, 80),
        expected(80, |x| ((x - 50).clamp(-50, 100) + 1).clamp(0, 15))
    );
    let h = Func::new("h");
    h.define(x, input.at(f.at(x) + 1)).unwrap();
    assert!(clamps_loads_of_f(&h));
    let inputs = TestInputs::new().image(&input, image(-49, 101));
    assert_eq!(
        values(&h, &inputs, 80),
        expected(80, |x| (x - 50).clamp(-50, 100) + 1)
    );
}
