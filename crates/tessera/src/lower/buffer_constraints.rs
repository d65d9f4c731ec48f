//! Buffer constraints (the part of Halide's AddImageChecks that applies `Dimension`
//! constraints): what the caller promises about the input images' and the output's buffers
//! (`ImageParam::dim`, `Func::output_buffer`; by default, stride 1 in dimension 0) is
//! asserted before anything runs, with a message naming the buffer, the dimension and the
//! constraint, and substituted into the rest of the pipeline, so that a constant constraint
//! makes loop bounds and strides constants. The pass runs after storage flattening, which
//! addresses every buffer through its `stride` fields; the default constraint turns the
//! first dimension's stride back into the constant 1 there, so vector accesses along x stay
//! dense loads and stores.

use std::collections::HashMap;

use super::arguments::Arguments;
use super::names::i32_var;
use super::realization_order::Environment;
use crate::error::{Error, Result};
use crate::ir::visit::{mutate_exprs, visit_exprs, Mutator};
use crate::ir::{BinaryOp, Expr, ExprKind, MessagePart, Stmt, StmtKind, Symbol};
use crate::lang::dimension::{BufferConstraints, Field};
use crate::lang::image_param::{buffer_field, value_buffer};

/// One constrained field of one buffer: `buffer.field.dim == value`.
#[derive(Clone, Debug)]
pub struct FieldConstraint {
    /// "input" or "output", for messages.
    pub role: &'static str,
    pub buffer: Symbol,
    pub dim: usize,
    pub field: Field,
    pub value: Expr,
}

impl FieldConstraint {
    fn name(&self) -> Symbol {
        buffer_field(self.buffer, self.field.name(), self.dim)
    }

    /// Whether this is the default constraint: dense in dimension 0.
    fn is_dense_default(&self) -> bool {
        self.dim == 0 && self.field == Field::Stride && self.value.as_int_const() == Some(1)
    }

    /// The assertion that the buffer passed in meets the constraint.
    pub fn assertion(&self) -> Stmt {
        let actual = i32_var(self.name());
        let text = |t: String| MessagePart::Text(t.into());
        let (role, buffer, d, field) = (self.role, self.buffer, self.dim, self.field.name());
        let message = if self.is_dense_default() {
            vec![
                text(format!(
                    "{role} `{buffer}` must be dense in dimension 0 (stride 1), but its stride there is "
                )),
                MessagePart::Value(actual.clone()),
                text(
                    "; constrain its stride with `dim(0).set_stride(..)` or `dim(0).remove_stride_constraint()` to accept it"
                        .to_string(),
                ),
            ]
        } else {
            let required = match self.value.as_int_const() {
                Some(_) => String::new(),
                None => format!("{} = ", self.value),
            };
            vec![
                text(format!(
                    "{role} `{buffer}` breaks a constraint: its {field} in dimension {d} is "
                )),
                MessagePart::Value(actual.clone()),
                text(format!(", but it must be {required}")),
                MessagePart::Value(self.value.clone()),
            ]
        };
        Stmt::new(StmtKind::Assert {
            condition: Expr::binary(BinaryOp::Eq, actual, self.value.clone()),
            message,
        })
    }
}

/// The constraints of one buffer of `dims` dimensions, refusing a constraint that could not
/// be made (the message it carries) or one on a dimension the buffer lacks.
pub fn field_constraints(
    role: &'static str,
    buffer: Symbol,
    dims: usize,
    constraints: &BufferConstraints,
) -> Result<Vec<FieldConstraint>> {
    let mut out = Vec::new();
    for (d, dim) in constraints.dims().iter().enumerate() {
        for (field, value) in [
            (Field::Min, &dim.min),
            (Field::Extent, &dim.extent),
            (Field::Stride, &dim.stride),
        ] {
            let Some(value) = value else {
                continue;
            };
            let constraint = FieldConstraint {
                role,
                buffer,
                dim: d,
                field,
                value: value.clone(),
            };
            let context = || {
                format!(
                    "the constraint on the {} of dimension {d} of {role} `{buffer}`",
                    field.name()
                )
            };
            if let Some(message) = first_invalid(value) {
                return Err(Error::Definition(format!("{}: {message}", context())));
            }
            if d >= dims {
                // A zero-dimensional buffer has no stride to be dense in.
                if constraint.is_dense_default() {
                    continue;
                }
                return Err(Error::Definition(format!(
                    "{}: {role} `{buffer}` has {dims} dimensions, so it has no dimension {d}",
                    context()
                )));
            }
            out.push(constraint);
        }
    }
    Ok(out)
}

fn first_invalid(e: &Expr) -> Option<String> {
    let mut message = None;
    visit_exprs(e, &mut |n| {
        if let ExprKind::Invalid(m) = n.kind() {
            message.get_or_insert_with(|| m.to_string());
        }
        message.is_none()
    });
    message
}

/// Every constraint on the pipeline's buffers: each input image's, then each output
/// buffer's (the output Func's constraints apply to each value of a Tuple).
pub fn buffer_constraints(env: &Environment, args: &Arguments) -> Result<Vec<FieldConstraint>> {
    let mut out = Vec::new();
    for image in &args.images {
        out.extend(field_constraints(
            "input",
            image.name,
            image.dims,
            &image.link.constraints(),
        )?);
    }
    for &output in &env.outputs {
        let func = env.func(output).read();
        let values = func.output_types.len();
        let constraints = func.output_constraints();
        for v in 0..values {
            let buffer = value_buffer(func.name, v, values);
            out.extend(field_constraints(
                "output",
                buffer,
                func.args.len(),
                &constraints,
            )?);
        }
    }
    Ok(out)
}

/// `e` with the fields in `map` replaced by their values.
pub(crate) fn replace_fields(e: &Expr, map: &HashMap<Symbol, Expr>) -> Expr {
    mutate_exprs(e, &mut |n| match n.kind() {
        ExprKind::Var(name) | ExprKind::Param(name, _) => map.get(name).cloned(),
        _ => None,
    })
}

/// What each constrained field may be replaced by once the constraints are checked: its
/// constraint, with the other constrained fields it uses replaced in turn, so that a chain
/// (an output bounded by an input bounded by constants) ends in constants. A field whose
/// constraint uses the field itself (an extent rounded down to a multiple of 8) keeps it.
pub(crate) fn substitution(constraints: &[FieldConstraint]) -> HashMap<Symbol, Expr> {
    let mut map: HashMap<Symbol, Expr> = constraints
        .iter()
        .map(|c| (c.name(), c.value.clone()))
        .collect();
    // Each round resolves one more link of every chain; a cycle stops growing after one.
    for _ in 0..map.len() {
        let previous = map.clone();
        let mut changed = false;
        for (name, value) in map.iter_mut() {
            let mut others = previous.clone();
            others.remove(name);
            let resolved = replace_fields(value, &others);
            if resolved != *value {
                *value = resolved;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    map
}

struct ReplaceFields(HashMap<Symbol, Expr>);

impl Mutator for ReplaceFields {
    fn mutate_expr(&mut self, e: &Expr) -> Expr {
        replace_fields(e, &self.0)
    }
}

/// `s` preceded by the assertions of `constraints`, and with the constrained fields replaced
/// by their constraints after them.
pub fn add_buffer_constraints(s: &Stmt, constraints: &[FieldConstraint]) -> Stmt {
    let body = ReplaceFields(substitution(constraints)).mutate_stmt(s);
    Stmt::block(
        constraints
            .iter()
            .map(FieldConstraint::assertion)
            .chain([body]),
    )
}
