//! Halide's `test/correctness/require.cpp`: `require(condition, value, message...)` fails
//! the realization with the message where the condition does not hold (Params that do not
//! add up to a prime, scalar and vectorized by 4 and 32; an extent of a boundary condition
//! that requires two Params to be equal) and is the value where it does. Tessera has no
//! `require`, so the cases are kept ignored.

#[test]
#[ignore = "no require(condition, value, message): no runtime requirement expressions"]
fn a_requirement_on_params() {
    unimplemented!("f(x) = require(p1 + p2 == 7829, (p1 + p2) * 7919 + x, ...): an error for p = (1, 2), values for (1, 7828)");
}

#[test]
#[ignore = "no require(condition, value, message): no runtime requirement expressions"]
fn a_requirement_in_a_boundary_condition_extent() {
    unimplemented!("repeat_edge(input, 0, 64, 0, require(p1 == p2, p1)): an error for (16, 15), none for (16, 16)");
}
