//! The embedded language users write pipelines in: Vars, Exprs with operators, Funcs with pure
//! and update definitions, reduction domains, parameters, images and buffers.

pub mod args;
pub mod autodiff;
pub mod boundary;
pub mod buffer;
pub mod compound_updates;
pub mod dimension;
pub mod estimate;
pub mod func;
pub mod function;
pub mod image_param;
pub mod implicit;
pub(crate) mod independent_iterations;
pub mod inline_reductions;
pub mod math;
pub mod memoize_tag;
pub mod naming;
pub mod operators;
pub mod param;
pub mod print;
pub mod promises;
pub mod random;
pub mod rdom;
pub mod require;
pub mod rfactor;
pub mod scalar;
pub mod schedule;
pub mod stage;
pub mod undef;
pub mod var;
pub mod wrapper;
