//! Evaluation straight from the semantics: scalar operations (`value`), which every other
//! component agrees with.

pub mod value;
