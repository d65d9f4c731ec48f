//! Halide's `test/correctness/split_fuse_rvar.cpp`: a fused RVar split again, and a split
//! RVar fused again (its outer loop as the fused loop's inner part). The pure definitions are
//! `undef`, as Halide's: every point of the update overwrites them.

use crate::lower_common::{check, TestInputs};
use tessera::lang::stage::DimName;
use tessera::prelude::*;

#[test]
fn a_fused_rvar_split_again() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define(x, Expr::from(x)).unwrap();
    let g = Func::new("g");
    g.define((x, y), undef::<i32>()).unwrap();
    let r = RDom::new([(0, 4), (0, 4)]);
    g.update((r.x(), r.y()), f.at(r.y() * 4 + r.x())).unwrap();
    g.update_stage(0)
        .fuse(DimName(r.x().name()), DimName(r.y().name()), "rxy")
        .split("rxy", "rxyo", "rxyi", 2);
    let run = check(&g, &TestInputs::new(), &[0, 0], &[4, 4]);
    let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
        panic!("g is i32");
    };
    for i in 0..4 {
        for j in 0..4 {
            assert_eq!(out.get(&[j, i]) as i64, i * 4 + j, "at ({j}, {i})");
        }
    }
}

#[test]
fn a_split_rvar_fused_again() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, Expr::from(x)).unwrap();
    let g = Func::new("g");
    g.define(x, undef::<i32>()).unwrap();
    let r = RDom::new([(0, 16)]);
    g.update(r.x(), f.at(r.x())).unwrap();
    g.update_stage(0)
        .split(DimName(r.x().name()), "ro", "ri", 2)
        .fuse("ro", "ri", "roi");
    let run = check(&g, &TestInputs::new(), &[0], &[16]);
    let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
        panic!("g is i32");
    };
    for i in 0..16 {
        assert_eq!(out.get(&[i]) as i64, i, "at {i}");
    }
}
