//! `ImageParam`: an input image of a known element type and dimensionality, bound to a buffer
//! when the pipeline runs. Its bounds are available as expressions (`input.width()`) for
//! boundary conditions and reduction domains.

use super::args::{coordinate_args, IntoArgs};
use super::param::InputId;
use crate::ir::{CallKind, Expr, ExprKind, Symbol, Type};

#[derive(Clone, Debug, PartialEq)]
pub struct ImageParam {
    name: Symbol,
    id: InputId,
    ty: Type,
    dims: usize,
}

/// Names of the buffer fields an ImageParam exposes as int32 parameters.
pub fn buffer_field(buffer: Symbol, field: &str, dim: usize) -> Symbol {
    Symbol::new(&format!("{buffer}.{field}.{dim}"))
}

impl ImageParam {
    pub fn new(ty: Type, dims: usize, name: &str) -> ImageParam {
        ImageParam {
            name: Symbol::new(name),
            id: InputId::next(),
            ty: ty.element(),
            dims,
        }
    }
    pub fn name(&self) -> Symbol {
        self.name
    }
    pub fn id(&self) -> InputId {
        self.id
    }
    pub fn ty(&self) -> Type {
        self.ty
    }
    pub fn dimensions(&self) -> usize {
        self.dims
    }

    /// The element at the given coordinates (one per dimension, integers).
    pub fn at(&self, args: impl IntoArgs) -> Expr {
        let args = args.into_args();
        if args.len() != self.dims {
            return Expr::invalid(
                self.ty,
                format!(
                    "image {} has {} dimensions but is called with {} coordinates",
                    self.name,
                    self.dims,
                    args.len()
                ),
            );
        }
        match coordinate_args(self.name.as_str(), args) {
            Ok(args) => Expr::new(
                self.ty,
                ExprKind::Call {
                    name: self.name,
                    kind: CallKind::Image,
                    args,
                    value_index: 0,
                },
            ),
            Err(bad) => bad,
        }
    }

    fn field(&self, field: &str, dim: usize) -> Expr {
        if dim >= self.dims {
            return Expr::invalid(
                Type::i32(),
                format!("image {} has no dimension {dim}", self.name),
            );
        }
        Expr::new(
            Type::i32(),
            ExprKind::Param(buffer_field(self.name, field, dim)),
        )
    }
    /// The smallest coordinate of dimension `dim`.
    pub fn min(&self, dim: usize) -> Expr {
        self.field("min", dim)
    }
    /// The number of coordinates in dimension `dim`.
    pub fn extent(&self, dim: usize) -> Expr {
        self.field("extent", dim)
    }
    /// The largest coordinate of dimension `dim`.
    pub fn max(&self, dim: usize) -> Expr {
        self.min(dim) + self.extent(dim) - 1
    }
    pub fn stride(&self, dim: usize) -> Expr {
        self.field("stride", dim)
    }
    pub fn width(&self) -> Expr {
        self.extent(0)
    }
    pub fn height(&self) -> Expr {
        self.extent(1)
    }
    pub fn channels(&self) -> Expr {
        self.extent(2)
    }
    /// `(min, extent)` of every dimension, as boundary conditions take them.
    pub fn bounds(&self) -> Vec<(Expr, Expr)> {
        (0..self.dims)
            .map(|d| (self.min(d), self.extent(d)))
            .collect()
    }
}
