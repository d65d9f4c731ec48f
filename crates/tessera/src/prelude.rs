//! Everything a pipeline author needs, in one import: `use tessera::prelude::*;` — the
//! language (Funcs, Vars, RDoms, inputs, boundary conditions, math), the schedule's types,
//! and what compiles and runs a pipeline (`Pipeline`, `Inputs`, `Target`, `Compiled`,
//! `Evaluator`, buffers).

pub use crate::codegen::target::Target;
pub use crate::error::{Error, Result};
pub use crate::eval::print::PrintHandler;
pub use crate::eval::realize::Evaluator;
pub use crate::eval::value::Value;
pub use crate::ir::MessagePart;
pub use crate::ir::{Expr, MemoryType, Type};
pub use crate::lang::autodiff::{propagate_adjoints, propagate_adjoints_with, Derivative};
pub use crate::lang::boundary::{
    constant_exterior, constant_exterior_with_bounds, constant_exterior_with_optional_bounds,
    mirror_image, mirror_image_with_bounds, mirror_image_with_optional_bounds, mirror_interior,
    mirror_interior_with_bounds, mirror_interior_with_optional_bounds, repeat_edge,
    repeat_edge_with_bounds, repeat_edge_with_optional_bounds, repeat_image,
    repeat_image_with_bounds, repeat_image_with_optional_bounds,
};
pub use crate::lang::buffer::{AnyBuffer, Buffer, Dim};
pub use crate::lang::func::{Func, Tuple};
pub use crate::lang::image_param::ImageParam;
pub use crate::lang::inline_reductions::{
    argmax, argmax_named, argmax_over, argmin, argmin_named, argmin_over, maximum, maximum_named,
    maximum_over, minimum, minimum_named, minimum_over, product, product_named, product_over, sum,
    sum_named, sum_over,
};
pub use crate::lang::math::*;
pub use crate::lang::memoize_tag::{memoize_tag, memoize_tag_with};
pub use crate::lang::operators::ExprOps;
pub use crate::lang::param::{Param, ParamBinding};
pub use crate::lang::print::{print, print_when};
pub use crate::lang::promises::{promise_clamped, unsafe_promise_clamped};
pub use crate::lang::random::{random_float, random_int};
pub use crate::lang::rdom::{RDom, RVar};
pub use crate::lang::require::require;
pub use crate::lang::scalar::Scalar;
pub use crate::lang::schedule::{PrefetchBoundStrategy, TailStrategy};
pub use crate::lang::stage::{DimList, DimName, LoopOwner, Prefetchable, Stage};
pub use crate::lang::undef::{undef, undef_of};
pub use crate::lang::var::Var;
pub use crate::pipeline::{Compiled, Inputs, Pipeline};
/// The 16-bit float element type (Halide's `float16_t`), from the `half` crate.
pub use half::f16;
