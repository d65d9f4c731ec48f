//! Constraining the buffers a pipeline is given (Halide's `Internal::Dimension`): the min,
//! extent and stride of a dimension of an input image (`ImageParam::dim`) or of the output
//! buffer (`Func::output_buffer`), promised by the caller and kept in the IR's
//! `ir::parameter::BufferConstraints`. Lowering asserts them at entry and substitutes them
//! into the loop nest (`lower::buffer_constraints`), so a constant constraint gives constant
//! loop bounds and strides. As in Halide, every buffer is constrained to be dense in
//! dimension 0 (stride 1, so vector accesses along x are dense loads and stores) until that
//! constraint is replaced (`set_stride`) or removed (`remove_stride_constraint`).

use super::estimate::Estimate;
use super::image_param::buffer_field;
use crate::error::{Error, Result};
use crate::ir::parameter::ImageParameter;
pub use crate::ir::parameter::{BufferConstraints, DimConstraints, SharedConstraints};
use crate::ir::visit::any_node;
use crate::ir::{Expr, ExprKind, Symbol, Type};

/// The three fields of a buffer dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// The min coordinate.
    Min,
    /// The number of coordinates.
    Extent,
    /// The distance between neighbours in elements.
    Stride,
}

impl Field {
    /// The property as messages and symbol names spell it.
    pub fn name(self) -> &'static str {
        match self {
            Field::Min => "min",
            Field::Extent => "extent",
            Field::Stride => "stride",
        }
    }
    fn slot(self, dim: &mut DimConstraints) -> &mut Option<Expr> {
        match self {
            Field::Min => &mut dim.min,
            Field::Extent => &mut dim.extent,
            Field::Stride => &mut dim.stride,
        }
    }
}

/// One dimension of an input image's or the output's buffer: its fields as expressions, and
/// the constraints the caller promises about them. Setters return the handle, so constraints
/// chain (`input.dim(0).set_stride(3).dim(2).set_bounds(0, 3).set_stride(1)`); a mistake (a
/// dimension the buffer lacks, a constraint that is not an integer of Params and buffer
/// bounds) is reported, naming the buffer and the dimension, when the pipeline is lowered.
#[derive(Clone, Debug)]
pub struct Dimension {
    buffer: Symbol,
    /// What the buffer is to the pipeline, for messages: "input" or "output".
    role: &'static str,
    dims: usize,
    dim: usize,
    constraints: SharedConstraints,
    /// The input image whose buffer this is: its fields name it (see `ExprKind::Param`).
    image: Option<ImageParameter>,
}

impl Dimension {
    pub(crate) fn new(
        buffer: Symbol,
        role: &'static str,
        dims: usize,
        dim: usize,
        constraints: SharedConstraints,
        image: Option<ImageParameter>,
    ) -> Dimension {
        Dimension {
            buffer,
            role,
            dims,
            dim,
            constraints,
            image,
        }
    }

    /// Dimension `d` of the same buffer.
    pub fn dim(&self, d: usize) -> Dimension {
        Dimension {
            dim: d,
            ..self.clone()
        }
    }

    fn missing(&self) -> Option<String> {
        (self.dim >= self.dims).then(|| {
            format!(
                "{} `{}` has {} dimensions, so it has no dimension {}",
                self.role, self.buffer, self.dims, self.dim
            )
        })
    }

    pub(crate) fn field(&self, field: Field) -> Expr {
        match self.missing() {
            Some(message) => Expr::invalid(Type::i32(), message),
            None => Expr::new(
                Type::i32(),
                ExprKind::Param(
                    buffer_field(self.buffer, field.name(), self.dim),
                    self.image.clone(),
                ),
            ),
        }
    }
    /// The smallest coordinate of the buffer in this dimension.
    pub fn min(&self) -> Expr {
        self.field(Field::Min)
    }
    /// The number of coordinates of the buffer in this dimension.
    pub fn extent(&self) -> Expr {
        self.field(Field::Extent)
    }
    /// The largest coordinate of the buffer in this dimension.
    pub fn max(&self) -> Expr {
        self.min() + self.extent() - 1
    }
    /// How many elements apart consecutive coordinates of this dimension are.
    pub fn stride(&self) -> Expr {
        self.field(Field::Stride)
    }

    fn constrain(&self, field: Field, value: Option<Expr>) -> &Self {
        let value = value.map(|v| self.checked_constraint(v));
        let mut constraints = self.constraints.write().expect("constraints poisoned");
        *field.slot(constraints.dim_mut(self.dim)) = value;
        self
    }

    /// `value` as an i32 constraint, or an invalid expression saying why it cannot be one
    /// (lowering reports it, naming the buffer, the dimension and the field). Only
    /// constants, Params and buffer bounds may appear: a constraint is evaluated once,
    /// before anything runs.
    fn checked_constraint(&self, value: Expr) -> Expr {
        if let Some(message) = self.missing() {
            return Expr::invalid(Type::i32(), message);
        }
        let ty = value.ty();
        if !(ty.is_scalar() && ty.is_int_or_uint()) {
            return Expr::invalid(
                Type::i32(),
                format!("it must be an integer, but it is {ty}"),
            );
        }
        let not_fixed = any_node(&value, |n| {
            matches!(
                n.kind(),
                ExprKind::Var(_) | ExprKind::RVar(..) | ExprKind::Call { .. }
            )
        });
        if not_fixed {
            return Expr::invalid(
                Type::i32(),
                format!("it may use only constants, Params and buffer bounds, but it is {value}"),
            );
        }
        if ty == Type::i32() {
            value
        } else {
            Expr::cast(Type::i32(), value)
        }
    }

    /// Promises that the buffer's min in this dimension is `min`.
    pub fn set_min(&self, min: impl Into<Expr>) -> &Self {
        self.constrain(Field::Min, Some(min.into()))
    }
    /// Promises that the buffer's extent in this dimension is `extent`.
    pub fn set_extent(&self, extent: impl Into<Expr>) -> &Self {
        self.constrain(Field::Extent, Some(extent.into()))
    }
    /// Promises both the min and the extent.
    pub fn set_bounds(&self, min: impl Into<Expr>, extent: impl Into<Expr>) -> &Self {
        self.set_min(min).set_extent(extent)
    }
    /// Promises that the buffer's stride in this dimension is `stride` (in dimension 0 this
    /// replaces the default constraint, stride 1).
    pub fn set_stride(&self, stride: impl Into<Expr>) -> &Self {
        self.constrain(Field::Stride, Some(stride.into()))
    }
    /// Accepts any stride in this dimension (Halide's `set_stride(Expr())`): in dimension 0,
    /// buffers that are not dense there, such as interleaved images, are accepted, and their
    /// accesses along x become strided loads and stores.
    pub fn remove_stride_constraint(&self) -> &Self {
        self.constrain(Field::Stride, None)
    }
    /// Tells the automatic scheduler to expect this dimension to span `[min, min + extent)`
    /// (Halide's `Dimension::set_estimate`). Unlike `set_bounds` this promises nothing:
    /// lowering neither checks nor uses it. An error names the buffer and dimension when the
    /// buffer lacks the dimension or the extent is not positive.
    pub fn set_estimate(&self, min: i64, extent: i64) -> Result<&Self> {
        if let Some(message) = self.missing() {
            return Err(Error::schedule(format!(
                "cannot set an estimate: {message}"
            )));
        }
        let estimate = Estimate::new(min, extent).map_err(|why| {
            Error::schedule(format!(
                "the estimate of dimension {} of {} `{}`: {why}",
                self.dim, self.role, self.buffer
            ))
        })?;
        let mut constraints = self.constraints.write().expect("constraints poisoned");
        constraints.dim_mut(self.dim).estimate = Some(estimate);
        Ok(self)
    }
    /// The estimate given with `set_estimate`, if any.
    pub fn estimate(&self) -> Option<Estimate> {
        let constraints = self.constraints.read().expect("constraints poisoned");
        constraints.dims().get(self.dim).and_then(|d| d.estimate)
    }
    /// Leaves this dimension's min and extent unconstrained.
    pub fn remove_bounds_constraints(&self) -> &Self {
        self.constrain(Field::Min, None)
            .constrain(Field::Extent, None)
    }
}

/// The output buffer of a Func (Halide's `Func::output_buffer()`), to constrain its
/// dimensions. The constraints apply when the Func is a pipeline's output, to each of its
/// buffers (one per value of a Tuple).
#[derive(Clone, Debug)]
pub struct OutputBuffer {
    pub(crate) buffer: Symbol,
    pub(crate) dims: usize,
    pub(crate) constraints: SharedConstraints,
}

impl OutputBuffer {
    /// Dimension `d` of the output buffer.
    pub fn dim(&self, d: usize) -> Dimension {
        Dimension::new(
            self.buffer,
            "output",
            self.dims,
            d,
            self.constraints.clone(),
            None,
        )
    }
    /// The number of dimensions.
    pub fn dimensions(&self) -> usize {
        self.dims
    }
}
