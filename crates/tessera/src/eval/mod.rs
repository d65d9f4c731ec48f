//! Evaluation straight from the semantics: scalar operations (`value`) and expression trees
//! (`expr`), which every other component is checked against.

pub mod expr;
pub mod print;
pub mod realize;
pub mod value;
