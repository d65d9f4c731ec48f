//! Tessera: a compiler for image-processing pipelines in the lineage of Halide and PolyMage.
//!
//! Pipelines are written as pure functions over an infinite integer grid ([`lang`]), given a
//! schedule, and compiled and run by a [`Pipeline`]; the [`Evaluator`] computes them straight
//! from their definitions, the reference every schedule and backend is checked against.
//! `use tessera::prelude::*;` brings in everything a pipeline author needs. See
//! ARCHITECTURE.md for the whole picture, and its section "The public API" for which modules
//! are public, which are hidden (our own tools' and tests', without a stability promise) and
//! which are private to the crate.

#![warn(missing_docs)]

// The user's API: documented, and what the prelude re-exports.
pub mod autoschedule;
pub mod error;
pub mod eval;
pub mod io;
pub mod lang;
pub mod pipeline;
pub mod prelude;
pub mod schedule_script;

// The compiler's internal layers: public only because our own apps, command line and
// integration tests reach into them; hidden from the documentation, with no stability
// promise. What users need of them is re-exported below and in the prelude.
#[doc(hidden)]
pub mod analysis;
#[doc(hidden)]
pub mod codegen;
#[doc(hidden)]
pub mod interp;
#[doc(hidden)]
pub mod ir;
#[doc(hidden)]
pub mod lower;
#[doc(hidden)]
pub mod runtime;
#[doc(hidden)]
pub mod simplify;
#[cfg(any(test, feature = "testing"))]
#[doc(hidden)]
pub mod testing;

mod input_bounds;

/// The old home of the bounds query's results, kept for this release so code written against
/// it migrates with warnings.
#[doc(hidden)]
#[deprecated(note = "use tessera::InferredBounds and tessera::InputBounds")]
pub mod bounds_query {
    /// Moved to [`crate::InferredBounds`].
    #[deprecated(note = "use tessera::InferredBounds")]
    pub type InferredBounds = crate::InferredBounds;
    /// Moved to [`crate::InputBounds`].
    #[deprecated(note = "use tessera::InputBounds")]
    pub type InputBounds = crate::InputBounds;
}

pub use codegen::target::Target;
pub use error::{Error, Result};
pub use eval::print::PrintHandler;
pub use eval::realize::Evaluator;
pub use eval::value::Value;
pub use input_bounds::{InferredBounds, InputBounds};
pub use interp::InterpStats;
pub use ir::{Symbol, Type, TypeCode};
pub use lang::autodiff::{propagate_adjoints, propagate_adjoints_with, Derivative};
pub use lower::{LowerOptions, Lowered, PassRecord};
pub use pipeline::{Compiled, Inputs, Pipeline, Realization};

/// README.md's example, run by `cargo test` as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
