//! Boundary conditions (Halide's `BoundaryConditions`): each wraps an image or a Func in a new
//! Func defined on the whole infinite grid, which agrees with the source inside a box and
//! extends it outside:
//! - `repeat_edge`: the nearest edge value (coordinates are clamped into the box);
//! - `constant_exterior`: a given value outside the box;
//! - `repeat_image`: the box tiled periodically;
//! - `mirror_image`: reflected, repeating the edge (`abcd|dcba`);
//! - `mirror_interior`: reflected about the edge, not repeating it (`abcd|cba`).
//!
//! The image versions take the box from the image's own `min`/`extent` Params; the
//! `_with_bounds` versions take any Func and one `(min, extent)` pair per leading dimension
//! (dimensions beyond the list pass through unchanged), the `_with_optional_bounds` versions
//! an optional pair per dimension (`None` passes through: Halide's `{Expr(), Expr()}`). Coordinates use the language's
//! Euclidean `%`, so far-away coordinates work. As in Halide, the in-box case is written as a
//! `likely` clamp, which later lets loop partitioning produce clamp-free steady-state loops;
//! it never reads outside the box, even where both arms of a select are computed.

use super::func::Func;
use super::image_param::ImageParam;
use super::math::{abs, clamp, likely, select};
use super::operators::{coerce, IntoOperand, Operand};
use super::var::Var;
use crate::error::{Error, Result};
use crate::ir::{Expr, ExprKind, Symbol, Type};
use crate::lang::operators::ExprOps;

/// Clamps coordinates into the image.
pub fn repeat_edge(image: &ImageParam) -> Func {
    image_condition(image, "repeat_edge", repeat_edge_coord)
}

/// Tiles the image periodically.
pub fn repeat_image(image: &ImageParam) -> Func {
    image_condition(image, "repeat_image", repeat_image_coord)
}

/// Reflects the image at its edges, repeating the edge pixel (`abcd|dcba`).
pub fn mirror_image(image: &ImageParam) -> Func {
    image_condition(image, "mirror_image", mirror_image_coord)
}

/// Reflects the image about its edge pixels (`abcd|cba`).
pub fn mirror_interior(image: &ImageParam) -> Func {
    image_condition(image, "mirror_interior", mirror_interior_coord)
}

/// The image inside its bounds, `value` outside. An integer literal must fit the image's
/// element type and a float literal needs a float image; an expression must have exactly the
/// image's element type (and may use only Params).
pub fn constant_exterior(image: &ImageParam, value: impl IntoOperand) -> Result<Func> {
    exterior(
        Source::Image(image),
        value.into_operand(),
        &all_bounded(&image.bounds()),
    )
}

/// `repeat_edge` of any Func over explicit bounds.
pub fn repeat_edge_with_bounds(source: &Func, bounds: &[(Expr, Expr)]) -> Result<Func> {
    repeat_edge_with_optional_bounds(source, &all_bounded(bounds))
}

/// `repeat_edge` of any Func over explicit bounds in the dimensions given `Some`.
pub fn repeat_edge_with_optional_bounds(
    source: &Func,
    bounds: &[Option<(Expr, Expr)>],
) -> Result<Func> {
    remapped(
        Source::Func(source),
        "repeat_edge",
        bounds,
        repeat_edge_coord,
    )
}

/// `repeat_image` of any Func over explicit bounds.
pub fn repeat_image_with_bounds(source: &Func, bounds: &[(Expr, Expr)]) -> Result<Func> {
    repeat_image_with_optional_bounds(source, &all_bounded(bounds))
}

/// `repeat_image` of any Func over explicit bounds in the dimensions given `Some`.
pub fn repeat_image_with_optional_bounds(
    source: &Func,
    bounds: &[Option<(Expr, Expr)>],
) -> Result<Func> {
    remapped(
        Source::Func(source),
        "repeat_image",
        bounds,
        repeat_image_coord,
    )
}

/// `mirror_image` of any Func over explicit bounds.
pub fn mirror_image_with_bounds(source: &Func, bounds: &[(Expr, Expr)]) -> Result<Func> {
    mirror_image_with_optional_bounds(source, &all_bounded(bounds))
}

/// `mirror_image` of any Func over explicit bounds in the dimensions given `Some`.
pub fn mirror_image_with_optional_bounds(
    source: &Func,
    bounds: &[Option<(Expr, Expr)>],
) -> Result<Func> {
    remapped(
        Source::Func(source),
        "mirror_image",
        bounds,
        mirror_image_coord,
    )
}

/// `mirror_interior` of any Func over explicit bounds.
pub fn mirror_interior_with_bounds(source: &Func, bounds: &[(Expr, Expr)]) -> Result<Func> {
    mirror_interior_with_optional_bounds(source, &all_bounded(bounds))
}

/// `mirror_interior` of any Func over explicit bounds in the dimensions given `Some`.
pub fn mirror_interior_with_optional_bounds(
    source: &Func,
    bounds: &[Option<(Expr, Expr)>],
) -> Result<Func> {
    remapped(
        Source::Func(source),
        "mirror_interior",
        bounds,
        mirror_interior_coord,
    )
}

/// `constant_exterior` of any Func over explicit bounds; every Tuple element is `value`
/// outside (converted to the element's type as described at `constant_exterior`).
pub fn constant_exterior_with_bounds(
    source: &Func,
    value: impl IntoOperand,
    bounds: &[(Expr, Expr)],
) -> Result<Func> {
    constant_exterior_with_optional_bounds(source, value, &all_bounded(bounds))
}

/// `constant_exterior` of any Func over explicit bounds in the dimensions given `Some`:
/// `value` where a coordinate of those dimensions is outside its bounds.
pub fn constant_exterior_with_optional_bounds(
    source: &Func,
    value: impl IntoOperand,
    bounds: &[Option<(Expr, Expr)>],
) -> Result<Func> {
    exterior(Source::Func(source), value.into_operand(), bounds)
}

/// Bounds for the leading dimensions, each bounded.
fn all_bounded(bounds: &[(Expr, Expr)]) -> Vec<Option<(Expr, Expr)>> {
    bounds.iter().cloned().map(Some).collect()
}

/// What a boundary condition reads.
#[derive(Clone, Copy)]
enum Source<'a> {
    Image(&'a ImageParam),
    Func(&'a Func),
}

impl Source<'_> {
    fn name(self) -> Symbol {
        match self {
            Source::Image(i) => i.name(),
            Source::Func(f) => f.name(),
        }
    }
    fn check_defined(self, condition: &str) -> Result<()> {
        match self {
            Source::Func(f) if !f.is_defined() => Err(Error::Definition(format!(
                "{condition} of Func {} needs {} to be defined first",
                f.name(),
                f.name()
            ))),
            _ => Ok(()),
        }
    }
    fn types(self) -> Vec<Type> {
        match self {
            Source::Image(i) => vec![i.ty()],
            Source::Func(f) => f.output_types(),
        }
    }
    /// The pure Vars of the bounded Func: the source Func's own, or `_0, _1, ...` for images.
    fn vars(self) -> Vec<Var> {
        match self {
            Source::Image(i) => (0..i.dimensions())
                .map(|d| Var::new(&format!("_{d}")))
                .collect(),
            Source::Func(f) => f.args(),
        }
    }
    /// Every value of the source at `coords`.
    fn call(self, coords: Vec<Expr>) -> Vec<Expr> {
        match self {
            Source::Image(i) => vec![i.at(coords)],
            Source::Func(f) => f.tuple_at(coords),
        }
    }
}

/// The image conditions cannot fail: the bounds are the image's own int32 Params.
fn image_condition(image: &ImageParam, condition: &str, coord: CoordMap) -> Func {
    remapped(
        Source::Image(image),
        condition,
        &all_bounded(&image.bounds()),
        coord,
    )
    .unwrap_or_else(|e| panic!("internal error: {condition} of image {}: {e}", image.name()))
}

/// How a condition maps an outside coordinate `x` into `[min, min + extent)`.
type CoordMap = fn(x: Expr, min: Expr, extent: Expr) -> Expr;

/// `x` clamped into the box, marked as the likely case.
fn clamped(x: &Expr, min: &Expr, extent: &Expr) -> Expr {
    clamp(likely(x), min, min + extent - 1)
}

fn outside(x: &Expr, min: &Expr, extent: &Expr) -> Expr {
    x.lt(min).or(x.ge(min + extent))
}

/// Halide's shape for the periodic conditions: `coord` outside the box, a likely clamp inside.
fn outside_or_clamped(x: &Expr, min: &Expr, extent: &Expr, coord: Expr) -> Expr {
    select(
        outside(x, min, extent),
        coord,
        likely(clamped(x, min, extent)),
    )
}

fn repeat_edge_coord(x: Expr, min: Expr, extent: Expr) -> Expr {
    clamped(&x, &min, &extent)
}

fn repeat_image_coord(x: Expr, min: Expr, extent: Expr) -> Expr {
    let coord = (&x - &min) % &extent + &min;
    outside_or_clamped(&x, &min, &extent, coord)
}

fn mirror_image_coord(x: Expr, min: Expr, extent: Expr) -> Expr {
    // Position in the doubled period [0, 2 * extent), folded back onto [0, extent).
    let period = (&x - &min) % (2 * &extent);
    let folded = select((&period).ge(&extent), 2 * &extent - 1 - &period, &period);
    let coord = clamp(folded + &min, &min, &min + &extent - 1);
    outside_or_clamped(&x, &min, &extent, coord)
}

fn mirror_interior_coord(x: Expr, min: Expr, extent: Expr) -> Expr {
    // The period is 2 * (extent - 1); an extent of 1 gives `% 0`, which is 0: the one pixel.
    let limit = &extent - 1;
    let centered = (&x - &min) % (2 * &limit) - &limit;
    let coord = &limit - abs(centered) + &min;
    outside_or_clamped(&x, &min, &extent, coord)
}

/// The bounds as int32 expressions, checked against the source's dimensions.
fn int32_bounds(
    source: Source,
    condition: &str,
    bounds: &[Option<(Expr, Expr)>],
) -> Result<Vec<Option<(Expr, Expr)>>> {
    source.check_defined(condition)?;
    let dims = source.vars().len();
    if bounds.len() > dims {
        return Err(Error::Definition(format!(
            "{condition} of {} is given {} bounds, but {} has only {dims} dimensions",
            source.name(),
            bounds.len(),
            source.name()
        )));
    }
    let as_int32 = |d: usize, e: &Expr| {
        if let ExprKind::Invalid(msg) = e.kind() {
            return Err(Error::Type(format!(
                "bound of dimension {d} of {condition} of {}: {msg}",
                source.name()
            )));
        }
        if !e.ty().is_int_or_uint() || e.ty().is_vector() {
            return Err(Error::Type(format!(
                "the bounds of {condition} of {} must be integers, but dimension {d} has {e} of type {}",
                source.name(),
                e.ty()
            )));
        }
        Ok(Expr::cast(Type::i32(), e.clone()))
    };
    bounds
        .iter()
        .enumerate()
        .map(|(d, bound)| {
            bound
                .as_ref()
                .map(|(min, extent)| Ok((as_int32(d, min)?, as_int32(d, extent)?)))
                .transpose()
        })
        .collect()
}

fn bounded_func(source: Source, condition: &str) -> Func {
    // Pipelines number same-named Funcs (`lang::naming`).
    Func::new(&format!("{}${condition}", source.name()))
}

/// A condition that only changes coordinates: `bounded(x..) = source(coord(x, min, extent)..)`.
fn remapped(
    source: Source,
    condition: &str,
    bounds: &[Option<(Expr, Expr)>],
    coord: CoordMap,
) -> Result<Func> {
    let bounds = int32_bounds(source, condition, bounds)?;
    let vars = source.vars();
    let coords = vars
        .iter()
        .enumerate()
        .map(|(d, v)| match bounds.get(d).cloned().flatten() {
            Some((min, extent)) => coord(v.expr(), min, extent),
            None => v.expr(),
        })
        .collect();
    let f = bounded_func(source, condition);
    f.define(vars, source.call(coords))?;
    Ok(f)
}

fn exterior(source: Source, value: Operand, bounds: &[Option<(Expr, Expr)>]) -> Result<Func> {
    let condition = "constant_exterior";
    let bounds = int32_bounds(source, condition, bounds)?;
    let vars = source.vars();
    let mut out_of_bounds = Expr::bool_(false);
    let mut coords = Vec::with_capacity(vars.len());
    for (d, v) in vars.iter().enumerate() {
        let x = v.expr();
        match bounds.get(d).and_then(Option::as_ref) {
            Some((min, extent)) => {
                out_of_bounds = out_of_bounds.or(outside(&x, min, extent));
                coords.push(clamped(&x, min, extent));
            }
            None => coords.push(x),
        }
    }
    let values = source
        .call(coords)
        .into_iter()
        .zip(source.types())
        .map(|(inside, ty)| {
            let value = exterior_value(source, &value, ty)?;
            Ok(select(out_of_bounds.clone(), value, likely(inside)))
        })
        .collect::<Result<Vec<_>>>()?;
    let f = bounded_func(source, condition);
    f.define(vars, values)?;
    Ok(f)
}

/// The exterior value as an expression of type `ty`.
fn exterior_value(source: Source, value: &Operand, ty: Type) -> Result<Expr> {
    let v = match value {
        Operand::Expr(e) => e.clone(),
        literal => {
            coerce(
                "constant_exterior",
                literal.clone(),
                Operand::Expr(Expr::zero(ty)),
            )
            .0
        }
    };
    if let ExprKind::Invalid(msg) = v.kind() {
        return Err(Error::Type(format!(
            "the exterior value of constant_exterior of {}: {msg}",
            source.name()
        )));
    }
    if v.ty() != ty {
        return Err(Error::Type(format!(
            "the exterior value {v} of constant_exterior has type {}, but {} has type {ty}; cast it",
            v.ty(),
            source.name()
        )));
    }
    Ok(v)
}
