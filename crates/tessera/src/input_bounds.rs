//! Bounds queries (Halide's `infer_input_bounds`): the region of each input image a run over
//! a given output box reads, and the box the output buffer must have, with the buffers'
//! constraints (`ImageParam::dim`, `Func::output_buffer`) applied.
//!
//! Lowering records both regions as expressions of the buffers' fields and the parameters —
//! the regions the entry assertions check (`Lowered::output_region`,
//! `Lowered::input_regions`) — so a query is no second bounds analysis: it evaluates them.
//! The images already given keep their buffers; for the output and each image not given,
//! the region read (or written) is proposed, passed through the buffer's constraints, which
//! may not make it smaller. A constraint may use another buffer's bounds, and a region may
//! depend on the bounds proposed (a boundary condition clamps to its image's), so the
//! proposals are evaluated again until they stop changing, as Halide reruns its query.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::eval::expr::eval_scalar;
use crate::eval::value::Value;
use crate::ir::{Expr, Symbol, Type};
use crate::lang::buffer::AnyBuffer;
use crate::lang::dimension::Field;
use crate::lang::image_param::{buffer_field, value_buffer, ImageParam};
use crate::lower::buffer_constraints::{
    buffer_constraints, replace_fields, substitution, FieldConstraint,
};
use crate::lower::Lowered;
use crate::pipeline::Inputs;

/// How often a query re-evaluates its proposals before giving up (Halide's limit; chains
/// of constraints settle in a few rounds).
const MAX_ROUNDS: usize = 16;

/// The bounds an input image must have: `[mins, mins + extents)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputBounds {
    /// The image's name.
    pub image: Symbol,
    /// Its element type.
    pub ty: Type,
    /// The min coordinate of each dimension.
    pub mins: Vec<i64>,
    /// The extent of each dimension.
    pub extents: Vec<i64>,
}

impl InputBounds {
    /// A zero-filled dense buffer over these bounds.
    pub fn zeroed(&self) -> Result<AnyBuffer> {
        AnyBuffer::with_mins(self.ty, &self.mins, &self.extents)
            .map_err(|e| e.context(format!("input {}", self.image)))
    }
}

/// What a bounds query found: the output box (the box asked for, changed by the output's
/// constraints) and the bounds of each input image that was not given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InferredBounds {
    /// The output box's min coordinates.
    pub output_mins: Vec<i64>,
    /// The output box's extents.
    pub output_extents: Vec<i64>,
    /// The bounds of each input image not given.
    pub inputs: Vec<InputBounds>,
}

impl InferredBounds {
    /// The bounds inferred for `image` (`None` if it was given, or is not read).
    pub fn input(&self, image: &ImageParam) -> Option<&InputBounds> {
        self.inputs.iter().find(|i| i.image == image.name())
    }
}

/// `(min, extent)` of each dimension.
type Bounds = Vec<(i64, i64)>;

/// A buffer whose bounds the query chooses.
struct Queried<'a> {
    /// "input" or "output", for messages.
    role: &'static str,
    /// The buffer's name (the first output buffer, for a Tuple).
    name: Symbol,
    /// Every buffer given these bounds: the values of a Tuple output share one box.
    buffers: Vec<Symbol>,
    ty: Type,
    /// What the run touches of it, with the constrained fields substituted.
    region: Option<ConstrainedRegion>,
    constraints: Vec<&'a FieldConstraint>,
    bounds: Bounds,
}

struct ConstrainedRegion {
    bounds: Vec<(Expr, Expr)>,
    used: Option<Expr>,
}

impl ConstrainedRegion {
    fn new(bounds: &[(Expr, Expr)], used: Option<&Expr>, fields: &HashMap<Symbol, Expr>) -> Self {
        let constrained = |e: &Expr| replace_fields(e, fields);
        ConstrainedRegion {
            bounds: bounds
                .iter()
                .map(|(min, max)| (constrained(min), constrained(max)))
                .collect(),
            used: used.map(constrained),
        }
    }
}

/// Binds the fields of `buffer` to `bounds`, with the strides of a dense buffer.
pub(crate) fn bind_dense_fields(
    params: &mut HashMap<Symbol, Value>,
    buffer: Symbol,
    bounds: &[(i64, i64)],
) {
    let mut stride = 1;
    for (d, &(min, extent)) in bounds.iter().enumerate() {
        for (field, value) in [("min", min), ("extent", extent), ("stride", stride)] {
            params.insert(buffer_field(buffer, field, d), Value::Int(value));
        }
        stride *= extent.max(1);
    }
}

fn eval_int(
    e: &Expr,
    params: &mut HashMap<Symbol, Value>,
    what: &dyn Fn() -> String,
) -> Result<i64> {
    match eval_scalar(e, params) {
        Ok(Value::Int(v)) => Ok(v),
        Ok(Value::Bool(b)) => Ok(i64::from(b)),
        Ok(other) => Err(Error::Runtime(format!(
            "{}: {e} is {other:?}, not an integer",
            what()
        ))),
        Err(err) => Err(Error::Buffer(format!(
            "{}: {err}; bind it in the inputs of the query",
            what()
        ))),
    }
}

impl Queried<'_> {
    fn bind(&self, params: &mut HashMap<Symbol, Value>, bounds: &[(i64, i64)]) {
        for &b in &self.buffers {
            bind_dense_fields(params, b, bounds);
        }
    }

    /// What the run touches of the buffer with every queried buffer bound as in `params`;
    /// its current bounds where it touches nothing.
    fn required(&self, params: &mut HashMap<Symbol, Value>) -> Result<Bounds> {
        let what = || format!("the bounds query of {} `{}`", self.role, self.name);
        let Some(region) = &self.region else {
            return Ok(self.bounds.clone());
        };
        if let Some(used) = &region.used {
            if eval_int(used, params, &what)? == 0 {
                return Ok(self.bounds.clone());
            }
        }
        region
            .bounds
            .iter()
            .map(|(min, max)| {
                let min = eval_int(min, params, &what)?;
                let max = eval_int(max, params, &what)?;
                Ok((min, (max - min + 1).max(0)))
            })
            .collect()
    }

    /// `required` passed through the buffer's constraints on min and extent, evaluated with
    /// the queried buffers bound to what is required of them (`params`), checked to still
    /// cover what is required. Where the min alone is constrained, the extent grows to reach
    /// the required max from it (Halide reports an error there).
    fn proposed(
        &self,
        required: &[(i64, i64)],
        params: &mut HashMap<Symbol, Value>,
    ) -> Result<Bounds> {
        let mut proposed = Vec::with_capacity(required.len());
        for (d, &(req_min, req_extent)) in required.iter().enumerate() {
            let min = match self.constraint(d, Field::Min) {
                Some(c) => evaluate(c, params)?,
                None => req_min,
            };
            let covering = if req_extent > 0 {
                (req_min + req_extent - min).max(0)
            } else {
                req_extent
            };
            for &b in &self.buffers {
                params.insert(buffer_field(b, "min", d), Value::Int(min));
                params.insert(buffer_field(b, "extent", d), Value::Int(covering));
            }
            let extent = match self.constraint(d, Field::Extent) {
                Some(c) => evaluate(c, params)?,
                None => covering,
            };
            if req_extent > 0 && (min > req_min || min + extent < req_min + req_extent) {
                return Err(Error::Buffer(format!(
                    "the constraints on {} `{}` give dimension {d} [{min}, {}], which does not cover the [{req_min}, {}] the run touches",
                    self.role,
                    self.name,
                    min + extent - 1,
                    req_min + req_extent - 1
                )));
            }
            proposed.push((min, extent));
        }
        Ok(proposed)
    }

    fn constraint(&self, d: usize, field: Field) -> Option<&FieldConstraint> {
        self.constraints
            .iter()
            .copied()
            .find(|c| c.dim == d && c.field == field)
    }
}

/// The value constraint `c` gives its field, with the buffers' fields as in `params`.
fn evaluate(c: &FieldConstraint, params: &mut HashMap<Symbol, Value>) -> Result<i64> {
    let what = || {
        format!(
            "the constraint on the {} of dimension {} of {} `{}`",
            c.field.name(),
            c.dim,
            c.role,
            c.buffer
        )
    };
    eval_int(&c.value, params, &what)
}

/// The bounds a run of `lowered` over `[mins, mins + extents)` needs of its output and of
/// every input image `inputs` does not give (see the module's doc comment).
pub fn infer_bounds(
    lowered: &Lowered,
    inputs: &Inputs,
    mins: &[i64],
    extents: &[i64],
) -> Result<InferredBounds> {
    let env = &lowered.env;
    let constraints = buffer_constraints(env, &lowered.arguments)?;
    let fields = substitution(&constraints);
    let of = |buffer: Symbol| constraints.iter().filter(|c| c.buffer == buffer).collect();
    // Every output over the one box, as Halide's `realize(sizes)` gives it.
    let mut queried = Vec::new();
    for (&output, region) in env.outputs.iter().zip(&lowered.output_regions) {
        let out = env.func(output).read();
        crate::pipeline::check_box_dimensions(
            out.name,
            out.args.len(),
            "box of the bounds query",
            mins,
            extents,
        )?;
        let values = out.output_types.len();
        let output_buffers: Vec<Symbol> = (0..values)
            .map(|v| value_buffer(out.name, v, values))
            .collect();
        queried.push(Queried {
            role: "output",
            name: output_buffers[0],
            buffers: output_buffers.clone(),
            ty: out.output_types[0],
            region: region
                .as_ref()
                .map(|r| ConstrainedRegion::new(r, None, &fields)),
            constraints: of(output_buffers[0]),
            bounds: mins.iter().copied().zip(extents.iter().copied()).collect(),
        });
    }
    let outputs = queried.len();
    let given = |name: Symbol| inputs.images().iter().any(|(n, _)| *n == name);
    for image in lowered.arguments.images.iter().filter(|i| !given(i.name)) {
        let region = lowered.input_regions.iter().find(|r| r.image == image.name);
        queried.push(Queried {
            role: "input",
            name: image.name,
            buffers: vec![image.name],
            ty: image.ty,
            region: region.map(|r| ConstrainedRegion::new(&r.bounds, r.used.as_ref(), &fields)),
            constraints: of(image.name),
            bounds: vec![(0, 0); image.dims],
        });
    }
    let given_params: HashMap<Symbol, Value> =
        inputs.params().iter().map(|p| (p.name, p.value)).collect();
    for _ in 0..MAX_ROUNDS {
        let mut params = given_params.clone();
        for q in &queried {
            q.bind(&mut params, &q.bounds);
        }
        let required = queried
            .iter()
            .map(|q| q.required(&mut params))
            .collect::<Result<Vec<_>>>()?;
        for (q, r) in queried.iter().zip(&required) {
            q.bind(&mut params, r);
        }
        let proposed = queried
            .iter()
            .zip(&required)
            .map(|(q, r)| q.proposed(r, &mut params))
            .collect::<Result<Vec<_>>>()?;
        let settled = queried.iter().zip(&proposed).all(|(q, p)| q.bounds == *p);
        for (q, p) in queried.iter_mut().zip(proposed) {
            q.bounds = p;
        }
        if settled {
            check_constraints_met(&queried, &given_params)?;
            return Ok(result(&queried, outputs));
        }
    }
    Err(Error::Buffer(format!(
        "the bounds query of `{}` does not settle after {MAX_ROUNDS} rounds: the constraints keep changing the bounds ({})",
        queried[0].name,
        queried
            .iter()
            .map(|q| format!("`{}`: {:?}", q.name, q.bounds))
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

/// Checks that the bounds settled on meet every constraint on min and extent (a
/// constraint that no bounds meet, such as an extent one more than itself, settles
/// anyway, since proposals are evaluated at what is required).
fn check_constraints_met(queried: &[Queried], given: &HashMap<Symbol, Value>) -> Result<()> {
    let mut params = given.clone();
    for q in queried {
        q.bind(&mut params, &q.bounds);
    }
    for q in queried {
        for c in &q.constraints {
            let (min, extent) = q.bounds[c.dim];
            let actual = match c.field {
                Field::Min => min,
                Field::Extent => extent,
                Field::Stride => continue,
            };
            let wanted = evaluate(c, &mut params)?;
            if wanted != actual {
                return Err(Error::Buffer(format!(
                    "no bounds of {} `{}` meet its constraints: the query settles on {} {actual} in dimension {}, but the constraint {} asks for {wanted} there",
                    q.role,
                    q.name,
                    c.field.name(),
                    c.dim,
                    c.value
                )));
            }
        }
    }
    Ok(())
}

/// The bounds settled on: the first output's box, and each input's (after the `outputs`).
fn result(queried: &[Queried], outputs: usize) -> InferredBounds {
    let split = |b: &Bounds| -> (Vec<i64>, Vec<i64>) { b.iter().copied().unzip() };
    let (output_mins, output_extents) = split(&queried[0].bounds);
    InferredBounds {
        output_mins,
        output_extents,
        inputs: queried[outputs..]
            .iter()
            .map(|q| {
                let (mins, extents) = split(&q.bounds);
                InputBounds {
                    image: q.name,
                    ty: q.ty,
                    mins,
                    extents,
                }
            })
            .collect(),
    }
}
