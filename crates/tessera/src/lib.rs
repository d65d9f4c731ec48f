//! Tessera: a compiler for image-processing pipelines in the lineage of Halide and PolyMage.
//!
//! Pipelines are written as pure functions over an infinite integer grid (`lang`), represented
//! as immutable expression trees (`ir`), simplified (`simplify`), analysed (`analysis`) and
//! evaluated straight from their definitions (`eval`) as the reference every schedule and
//! backend is checked against. See ARCHITECTURE.md for the whole picture.

pub mod analysis;
pub mod autoschedule;
pub mod bounds_query;
pub mod codegen;
pub mod error;
pub mod eval;
pub mod interp;
pub mod io;
pub mod ir;
pub mod lang;
pub mod lower;
pub mod pipeline;
pub mod prelude;
pub mod runtime;
pub mod simplify;
pub mod testing;

pub use error::{Error, Result};

/// README.md's example, run by `cargo test` as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
