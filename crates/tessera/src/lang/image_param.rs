//! `ImageParam`: an input image of a known element type and dimensionality, bound to a buffer
//! when the pipeline runs. Its bounds are available as expressions (`input.width()`) for
//! boundary conditions and reduction domains.

use super::args::{coordinate_args, IntoArgs};
use super::buffer::AnyBuffer;
use super::dimension::{Dimension, Field};
use super::implicit::expand_call;
use super::param::{InputId, ParamBinding};
use crate::eval::value::Value;
pub use crate::ir::parameter::ImageLink;
use crate::ir::parameter::ImageParameter;
use crate::ir::{CallKind, Expr, ExprKind, Symbol, Type};

/// An input image of the pipeline (Halide's `ImageParam`): its type and dimension count
/// are fixed, the buffer is bound for each run with
/// [`Inputs::image`](crate::pipeline::Inputs::image). A handle on the IR's
/// [`ImageParameter`], which its expressions carry.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ImageParam(ImageParameter);

/// Names of the buffer fields an ImageParam exposes as int32 parameters.
pub fn buffer_field(buffer: Symbol, field: &str, dim: usize) -> Symbol {
    Symbol::new(&format!("{buffer}.{field}.{dim}"))
}

/// The flat buffer holding value `index` of Func `func` (which has `outputs` values): an
/// output's buffers, whose fields (`buffer_field`) give its bounds.
pub fn value_buffer(func: Symbol, index: usize, outputs: usize) -> Symbol {
    if outputs == 1 {
        func
    } else {
        func.dot(&index.to_string())
    }
}

/// The image a buffer-field name (`buffer_field`) belongs to.
pub fn field_image(field: Symbol) -> Option<&'static str> {
    let (rest, dim) = field.as_str().rsplit_once('.')?;
    let (image, name) = rest.rsplit_once('.')?;
    let is_field = matches!(name, "min" | "extent" | "stride") && dim.parse::<usize>().is_ok();
    is_field.then_some(image)
}

/// The values of the buffer fields (`min`, `extent`, `stride` of each dimension) of image
/// `image` bound to `buffer`, as parameter bindings: a pipeline may use an image's bounds
/// without reading any of its elements.
pub fn buffer_field_bindings(image: Symbol, buffer: &AnyBuffer) -> Vec<ParamBinding> {
    let mut bindings = Vec::new();
    for (d, dim) in buffer.dims().iter().enumerate() {
        for (field, v) in [
            ("min", dim.min),
            ("extent", dim.extent),
            ("stride", dim.stride),
        ] {
            bindings.push(ParamBinding {
                name: buffer_field(image, field, d),
                ty: Type::i32(),
                value: Value::Int(v),
                origin: None,
            });
        }
    }
    bindings
}

impl ImageParam {
    /// An input image of `dims` dimensions of elements of type `ty`, named `name`.
    pub fn new(ty: Type, dims: usize, name: &str) -> ImageParam {
        ImageParam(ImageParameter::new(ty.element(), dims, Symbol::new(name)))
    }
    /// Its name.
    pub fn name(&self) -> Symbol {
        self.0.name()
    }
    /// Its identity, which stays when names are made unique.
    pub fn id(&self) -> InputId {
        self.0.id()
    }
    /// What calls to this image carry: its identity and the constraints on its buffer.
    pub fn link(&self) -> &ImageLink {
        self.0.link()
    }
    /// Dimension `dim` of the image's buffer: its bounds as expressions, and the constraints
    /// the caller promises about them (Halide's `ImageParam::dim`).
    pub fn dim(&self, dim: usize) -> Dimension {
        Dimension::new(
            self.name(),
            "input",
            self.dimensions(),
            dim,
            self.link().shared_constraints().clone(),
            Some(self.0.clone()),
        )
    }
    /// Its element type.
    pub fn ty(&self) -> Type {
        self.0.ty()
    }
    /// Its number of dimensions.
    pub fn dimensions(&self) -> usize {
        self.0.dimensions()
    }

    /// The element at the given coordinates (one per dimension, integers; a placeholder
    /// `Var::placeholder()` stands for the dimensions the others leave out).
    pub fn at(&self, args: impl IntoArgs) -> Expr {
        let args = match expand_call(self.name(), self.dimensions(), args.into_args()) {
            Ok(args) => args,
            Err(msg) => return Expr::invalid(self.ty(), msg),
        };
        if args.len() != self.dimensions() {
            return Expr::invalid(
                self.ty(),
                format!(
                    "image {} has {} dimensions but is called with {} coordinates",
                    self.name(),
                    self.dimensions(),
                    args.len()
                ),
            );
        }
        match coordinate_args(self.name().as_str(), args) {
            Ok(args) => Expr::new(
                self.ty(),
                ExprKind::Call {
                    name: self.name(),
                    kind: CallKind::Image(self.link().clone()),
                    args,
                    value_index: 0,
                },
            ),
            Err(bad) => bad,
        }
    }

    /// The smallest coordinate of dimension `dim`.
    pub fn min(&self, dim: usize) -> Expr {
        self.dim(dim).field(Field::Min)
    }
    /// The number of coordinates in dimension `dim`.
    pub fn extent(&self, dim: usize) -> Expr {
        self.dim(dim).field(Field::Extent)
    }
    /// The largest coordinate of dimension `dim`.
    pub fn max(&self, dim: usize) -> Expr {
        self.min(dim) + self.extent(dim) - 1
    }
    /// The stride of dimension `dim` of the bound buffer, in elements.
    pub fn stride(&self, dim: usize) -> Expr {
        self.dim(dim).field(Field::Stride)
    }
    /// The extent of dimension 0 of the bound buffer.
    pub fn width(&self) -> Expr {
        self.extent(0)
    }
    /// The extent of dimension 1 of the bound buffer.
    pub fn height(&self) -> Expr {
        self.extent(1)
    }
    /// The extent of dimension 2 of the bound buffer.
    pub fn channels(&self) -> Expr {
        self.extent(2)
    }
    /// `(min, extent)` of every dimension, as boundary conditions take them.
    pub fn bounds(&self) -> Vec<(Expr, Expr)> {
        (0..self.dimensions())
            .map(|d| (self.min(d), self.extent(d)))
            .collect()
    }
}
