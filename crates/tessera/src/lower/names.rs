//! The naming scheme lowering passes share (Halide's): a stage's loops and variables are
//! `f.s<k>.<dim>` (`blur_y.s0.y.yi`), the region stage k of f must compute in dimension x is
//! `f.s<k>.x.min` .. `f.s<k>.x.max`, and f's storage covers `f.x.min_realized` with extent
//! `f.x.extent_realized`.

use crate::ir::{Expr, Symbol, Type};

/// `f.s<k>`
pub fn stage_prefix(func: Symbol, stage: usize) -> Symbol {
    func.dot(&format!("s{stage}"))
}

/// The loop (or derived) variable of dimension `dim` of stage `stage`: `f.s<k>.<dim>`.
pub fn stage_var(func: Symbol, stage: usize, dim: Symbol) -> Symbol {
    stage_prefix(func, stage).dot(dim.as_str())
}

pub fn stage_var_expr(func: Symbol, stage: usize, dim: Symbol) -> Expr {
    Expr::var(stage_var(func, stage, dim), Type::i32())
}

/// Smallest coordinate of dimension `var` that stage `stage` of `func` computes.
pub fn region_min(func: Symbol, stage: usize, var: Symbol) -> Symbol {
    stage_var(func, stage, var).dot("min")
}

/// Largest coordinate of dimension `var` that stage `stage` of `func` computes.
pub fn region_max(func: Symbol, stage: usize, var: Symbol) -> Symbol {
    stage_var(func, stage, var).dot("max")
}

/// First coordinate of `func`'s storage in dimension `var`.
pub fn realized_min(func: Symbol, var: Symbol) -> Symbol {
    func.dot(var.as_str()).dot("min_realized")
}

/// Extent of `func`'s storage in dimension `var`.
pub fn realized_extent(func: Symbol, var: Symbol) -> Symbol {
    func.dot(var.as_str()).dot("extent_realized")
}

/// Whether `name` is one of the names above that bounds inference and allocation bounds
/// define (a region's `min`/`max`, storage's `min_realized`/`extent_realized`), which the
/// loops synthesized before them read unbound.
pub fn is_region_or_storage_name(name: Symbol) -> bool {
    [".min", ".max", ".min_realized", ".extent_realized"]
        .iter()
        .any(|suffix| name.as_str().ends_with(suffix))
}

pub fn i32_var(name: Symbol) -> Expr {
    Expr::var(name, Type::i32())
}
