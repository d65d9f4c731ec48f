//! Halide's `test/correctness/interval.cpp`: the predicates of symbolic intervals
//! (everything, bounded below or above by a Var, a single point) and their unions and
//! intersections, including intervals with constant and infinite ends and disjoint ones
//! (whose intersection is `[9, 4]`). Here on Tessera's `analysis::Interval`, whose missing
//! ends stand for Halide's infinities.
//!
//! Left out: Halide's empty interval (`Interval::nothing()`, `is_empty`) and the five
//! checks that use it — Tessera's intervals have no empty value (an interval whose min is
//! above its max, like `[9, 4]`, is what an empty intersection gives).

use tessera::analysis::Interval;
use tessera::prelude::*;

fn x() -> Expr {
    Var::new("x").expr()
}

fn at_least(e: impl Into<Expr>) -> Interval {
    Interval {
        min: Some(e.into()),
        max: None,
    }
}

fn at_most(e: impl Into<Expr>) -> Interval {
    Interval {
        min: None,
        max: Some(e.into()),
    }
}

fn between(min: i32, max: i32) -> Interval {
    Interval::new(min.into(), max.into())
}

/// Halide's predicates: everything, bounded above, bounded below, bounded, a single point.
fn predicates(i: &Interval) -> [bool; 5] {
    [
        i.is_everything(),
        i.max.is_some(),
        i.min.is_some(),
        i.is_bounded(),
        i.is_single_point(),
    ]
}

#[test]
fn predicates_of_unbounded_half_bounded_and_point_intervals() {
    assert_eq!(
        predicates(&Interval::everything()),
        [true, false, false, false, false]
    );
    assert_eq!(
        predicates(&at_least(x())),
        [false, false, true, false, false]
    );
    assert_eq!(
        predicates(&at_most(x())),
        [false, true, false, false, false]
    );
    assert_eq!(
        predicates(&Interval::single_point(x())),
        [false, true, true, true, true]
    );
}

#[test]
fn unions_and_intersections_of_symbolic_intervals() {
    let (e, xp, xn) = (Interval::everything(), at_least(x()), at_most(x()));
    assert_eq!(xp.union(&xn), e);
    assert_eq!(e.union(&xn), e);
    assert_eq!(xn.union(&e), e);
    assert_eq!(xp.union(&xp), xp);

    assert_eq!(xp.intersect(&xn), Interval::single_point(x()));
    assert_eq!(e.intersect(&xn), xn);
    assert_eq!(xn.intersect(&e), xn);
    assert_eq!(xp.intersect(&xp), xp);
}

#[test]
fn unions_and_intersections_of_constant_intervals() {
    assert_eq!(at_least(3).union(&at_least(5)), at_least(3));
    assert_eq!(at_least(3).intersect(&at_least(5)), at_least(5));
    assert_eq!(at_most(3).union(&at_most(5)), at_most(5));
    assert_eq!(at_most(3).intersect(&at_most(5)), at_most(3));
    assert_eq!(between(3, 4).union(&between(9, 10)), between(3, 10));
    assert_eq!(between(3, 4).intersect(&between(9, 10)), between(9, 4));
    assert_eq!(between(3, 9).union(&between(4, 10)), between(3, 10));
    assert_eq!(between(3, 9).intersect(&between(4, 10)), between(4, 9));
}
