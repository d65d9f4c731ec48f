//! Program analyses over the IR: interval analysis of expressions (`bounds`), the
//! constant upper bounds it proves (`constant_bound`) and the values Funcs can take
//! (`func_values`), the regions
//! of Funcs and buffers that expressions and statements read or write (`boxes`), which drive
//! bounds inference, when the values read of a Func matter (`values_needed`), and the range of a loop
//! variable where a condition holds (`solve`).

pub mod bounds;
pub mod boxes;
pub mod constant_bound;
mod fold;
pub mod func_values;
pub mod interval;
mod min_max_sums;
pub mod monotonic;
pub mod solve;
pub mod values_needed;

pub use bounds::{bounds_of_expr, bounds_of_expr_unsimplified, Scope};
pub use boxes::{
    box_contains, box_union, boxes_provided_stmt, boxes_required, boxes_required_stmt, Box,
};
pub use interval::Interval;
