//! Halide's `test/correctness/vector_tile.cpp`: `tile` with the inner loops keeping the
//! names of the Vars they split (`tile({i, j}, {io, jo}, {i, j}, {8, 8})`), with `RoundUp` tails
//! for both, with the default tails, and on an update stage. Halide's test only realizes
//! them; here the outputs are checked. Its last case, a list of tail strategies of the wrong
//! length, cannot be written with Tessera's API (`tile` takes one pair of Vars) and is left
//! out. Tessera's `tile` takes no tail strategies: the `RoundUp` tile is written as its two
//! splits and the reorder `tile` makes.

use crate::lower_common::{check, TestInputs};
use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;

fn check_product(f: &Func) {
    let run = check(f, &TestInputs::new(), &[0, 0], &[128, 128]);
    let out = crate::i32_values(&run);
    for j in 0..128 {
        for i in 0..128 {
            assert_eq!(i64::from(out.get(&[i, j])), i * j, "f({i}, {j})");
        }
    }
}

#[test]
fn a_tile_with_round_up_tails() {
    let (i, j) = (Var::new("i"), Var::new("j"));
    let f = Func::new("f");
    f.define((i, j), i * j).unwrap();
    f.split_with_tail(i, "io", i, 8, TailStrategy::RoundUp)
        .split_with_tail(j, "jo", j, 8, TailStrategy::RoundUp)
        .reorder((i, j, "io", "jo"));
    check_product(&f);
}

#[test]
fn a_tile_with_the_default_tails() {
    let (i, j) = (Var::new("i"), Var::new("j"));
    let f = Func::new("f");
    f.define((i, j), i * j).unwrap();
    f.tile(i, j, "io", "jo", i, j, 8, 8);
    check_product(&f);
}

#[test]
fn a_tiled_update() {
    let (i, j) = (Var::new("i"), Var::new("j"));
    let f = Func::new("f");
    f.define((i, j), 0).unwrap();
    f.update((i, j), f.at((i, j)) + i * j).unwrap();
    f.update_stage(0).tile(i, j, "io", "jo", i, j, 8, 8);
    check_product(&f);
}
