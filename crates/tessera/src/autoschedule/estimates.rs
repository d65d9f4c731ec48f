//! The estimates the analysis needs, looked up with errors naming what is missing: the
//! output Func's per-dimension estimates (`Func::set_estimate`, or its output buffer's),
//! each input image's (`ImageParam::set_estimates`), and the values of the parameters and
//! buffer fields (`input.extent.0`) the definitions use, from the Params' estimates
//! (`Param::estimate`) and the images' and output's estimates.

use std::collections::HashMap;

use super::graph::StageGraph;
use crate::error::{Error, Result};
use crate::ir::visit::{mutate_exprs, visit_exprs};
use crate::ir::{CallKind, Expr, ExprKind, Intrinsic, Symbol, Type};
use crate::lang::estimate::Estimate;
use crate::lang::function::Function;
use crate::lang::image_param::{buffer_field, field_image, value_buffer};
use crate::lang::param::ParamBinding;
use crate::simplify::simplify;

/// The estimate of every dimension of Func `f`, from `Func::set_estimate` or else its output
/// buffer's `Dimension::set_estimate`; an error names the Func, the dimension and its Var
/// when one is missing.
pub fn func_estimates(f: &Function) -> Result<Vec<Estimate>> {
    let c = f.read();
    let buffer = c.output_constraints();
    (0..c.args.len())
        .map(|d| {
            let own = c.estimates.get(d).copied().flatten();
            let of_buffer = buffer.dims().get(d).and_then(|b| b.estimate);
            own.or(of_buffer).ok_or_else(|| {
                Error::schedule(format!(
                    "Func {} has no estimate for dimension {d} (Var {}); the automatic scheduler needs one: {}.set_estimate({}, min, extent)",
                    c.name, c.args[d], c.name, c.args[d]
                ))
            })
        })
        .collect()
}

/// The estimate of every dimension of the input image `name` (`dims` dimensions, with the
/// buffer constraints `link`); an error names the input and the dimension when one is
/// missing.
pub fn image_estimates(
    name: Symbol,
    dims: usize,
    link: &crate::lang::image_param::ImageLink,
) -> Result<Vec<Estimate>> {
    let constraints = link.constraints();
    (0..dims)
        .map(|d| {
            constraints
                .dims()
                .get(d)
                .and_then(|c| c.estimate)
                .ok_or_else(|| missing_image_estimate(name, d))
        })
        .collect()
}

fn missing_image_estimate(image: impl std::fmt::Display, d: usize) -> Error {
    Error::schedule(format!(
        "input `{image}` has no estimate for dimension {d}; the automatic scheduler needs one: {image}.dim({d}).set_estimate(min, extent)"
    ))
}

/// The values the analysis assumes for the parameters and buffer fields the definitions use.
#[derive(Clone, Debug, Default)]
pub struct EstimateValues {
    values: HashMap<Symbol, Expr>,
}

impl EstimateValues {
    /// The values of `graph`'s parameters from `params` (the Params' estimates, or any
    /// bindings), and of the buffer fields of its inputs and output from their estimates.
    /// Nothing is required here: a value missing is an error only where it is needed
    /// (`evaluate`).
    pub fn new(graph: &StageGraph, params: &[ParamBinding]) -> EstimateValues {
        let mut values = HashMap::new();
        for p in params {
            values.insert(p.name, p.value.to_expr(p.ty));
        }
        let mut add_buffer = |buffer: Symbol, estimates: &[Option<Estimate>]| {
            let mut stride = 1;
            for (d, e) in estimates.iter().enumerate() {
                let Some(e) = e else { break };
                for (field, v) in [("min", e.min), ("extent", e.extent), ("stride", stride)] {
                    values.insert(
                        buffer_field(buffer, field, d),
                        Expr::make_const(Type::i32(), v),
                    );
                }
                stride *= e.extent;
            }
        };
        for input in &graph.inputs {
            let constraints = input.link.constraints();
            let estimates: Vec<Option<Estimate>> = (0..input.dimensions)
                .map(|d| constraints.dims().get(d).and_then(|c| c.estimate))
                .collect();
            add_buffer(input.name, &estimates);
        }
        if let Some(out) = graph.func(graph.output) {
            let c = out.function.read();
            let estimates: Vec<Option<Estimate>> = (0..c.args.len())
                .map(|d| c.estimates.get(d).copied().flatten())
                .collect();
            let count = c.output_types.len();
            for i in 0..count {
                add_buffer(value_buffer(c.name, i, count), &estimates);
            }
        }
        EstimateValues { values }
    }

    /// `e` with every parameter and buffer field that has a value replaced by it (a declared
    /// range's promise around it goes too: the value is a constant).
    pub fn substitute(&self, e: &Expr) -> Expr {
        if self.values.is_empty() {
            return e.clone();
        }
        mutate_exprs(e, &mut |n| match n.kind() {
            ExprKind::Param(p, _) => self.values.get(p).cloned(),
            ExprKind::Call {
                kind: CallKind::Intrinsic(Intrinsic::PromiseClamped),
                args,
                ..
            } => match args[0].kind() {
                ExprKind::Param(p, _) => self.values.get(p).cloned(),
                _ => None,
            },
            _ => None,
        })
    }

    /// The integer value of `e` with the estimates substituted, or an error saying which
    /// estimate is missing (the parameter, or the input or Func and dimension of a buffer
    /// field) for `what` (e.g. "the region of f read by g").
    pub fn evaluate(&self, e: &Expr, what: &dyn Fn() -> String) -> Result<i64> {
        let value = simplify(&self.substitute(e));
        if let Some(v) = value.as_int_const() {
            return i64::try_from(v)
                .map_err(|_| Error::schedule(format!("{}: {v} does not fit in 64 bits", what())));
        }
        let mut unknown = None;
        visit_exprs(&value, &mut |n| {
            if let ExprKind::Param(p, _) | ExprKind::Var(p) = n.kind() {
                unknown.get_or_insert(*p);
            }
            unknown.is_none()
        });
        Err(Error::schedule(match unknown {
            Some(field) if field_image(field).is_some() => {
                let image = field_image(field).unwrap_or_default();
                let dim = field.as_str().rsplit('.').next().unwrap_or_default();
                format!(
                    "{} depends on the bounds of `{image}`, which has no estimate for dimension {dim}: set one with {image}.dim({dim}).set_estimate(min, extent) (or set_estimate on the Func)",
                    what()
                )
            }
            Some(p) => format!(
                "{} depends on {p}, which has no estimate: set one with {p}.set_estimate(value)",
                what()
            ),
            None => format!("{} is not a constant: {value}", what()),
        }))
    }
}
