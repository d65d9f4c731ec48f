//! Support for randomized tests across the project: seeded generators of well-typed random
//! expressions, values and variable assignments, and the seed every randomized test runs with.

pub mod random_expr;
#[doc(hidden)]
pub mod seed;

pub use random_expr::{
    edge_values, random_assignment, random_expr, random_expr_with, random_type, random_value,
    GenOptions,
};
#[doc(hidden)]
pub use seed::test_seed;
