//! Tessera: a compiler for image-processing pipelines in the lineage of Halide and PolyMage.
//!
//! Pipelines are written as pure functions over an infinite integer grid (`lang`), represented
//! as immutable expression trees (`ir`), simplified (`simplify`), analysed (`analysis`) and
//! evaluated straight from their definitions (`eval`) as the reference every schedule and
//! backend is checked against. See ARCHITECTURE.md for the whole picture.

#![warn(missing_docs)]

// The compiler's internal layers are exempt from `missing_docs` until the API boundary
// (issue 15, item 7) makes them `pub(crate)`; what stays public gets its rustdoc then.
#[allow(missing_docs)]
pub mod analysis;
pub mod autoschedule;
pub mod bounds_query;
#[allow(missing_docs)]
pub mod codegen;
pub mod error;
pub mod eval;
#[allow(missing_docs)]
pub mod interp;
pub mod io;
#[allow(missing_docs)]
pub mod ir;
pub mod lang;
#[allow(missing_docs)]
pub mod lower;
pub mod pipeline;
pub mod prelude;
#[allow(missing_docs)]
pub mod runtime;
pub mod schedule_script;
pub mod simplify;
#[allow(missing_docs)]
pub mod testing;

pub use error::{Error, Result};

/// README.md's example, run by `cargo test` as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
