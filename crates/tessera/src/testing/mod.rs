//! Support for randomized tests across the project: seeded generators of well-typed random
//! expressions, values and variable assignments.

pub mod random_expr;

pub use random_expr::{
    edge_values, random_assignment, random_expr, random_expr_with, random_type, random_value,
    GenOptions,
};
