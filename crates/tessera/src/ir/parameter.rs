//! Inputs as the IR refers to them (Halide's `Internal::Parameter`): the identity of a declared
//! input, and an input image's shared contents, its name, element type, dimensionality and the
//! constraints the caller promises about its buffer (also used for an output buffer's).
//! The user's `lang::image_param::ImageParam` wraps an `ImageParameter`; a scalar
//! `lang::param::Param` appears in expressions by name alone (`ExprKind::Param(name, None)`).

use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use super::function::Function;
use super::schedule::Estimate;
use super::{Expr, Symbol, Type};

/// The identity of a declared input (a `Param` or an `ImageParam`): two inputs declared
/// with one name are different inputs, which a pipeline cannot tell apart, so binding both
/// is refused.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct InputId(u64);

impl InputId {
    pub(crate) fn next() -> InputId {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        InputId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// What one dimension of a buffer is constrained to (`None`: anything).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DimConstraints {
    /// The required min, if constrained.
    pub min: Option<Expr>,
    /// The required extent, if constrained.
    pub extent: Option<Expr>,
    /// The required stride, if constrained.
    pub stride: Option<Expr>,
    /// The bounds the automatic scheduler may assume (`Dimension::set_estimate`); lowering
    /// neither checks nor uses them.
    pub estimate: Option<Estimate>,
}

/// The constraints on every dimension of one buffer, indexed by dimension. Dimensions past
/// the end are unconstrained; a constraint on a dimension the buffer lacks is reported by
/// lowering.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferConstraints {
    dims: Vec<DimConstraints>,
}

impl Default for BufferConstraints {
    /// Dense in dimension 0 (stride 1), nothing else.
    fn default() -> BufferConstraints {
        BufferConstraints {
            dims: vec![DimConstraints {
                stride: Some(Expr::i32(1)),
                ..DimConstraints::default()
            }],
        }
    }
}

impl BufferConstraints {
    /// The constraints of every dimension that has a slot, in order (possibly past the
    /// buffer's dimensionality, which lowering refuses).
    pub fn dims(&self) -> &[DimConstraints] {
        &self.dims
    }

    /// The constraints of dimension `d`, writable (adding slots up to it).
    pub(crate) fn dim_mut(&mut self, d: usize) -> &mut DimConstraints {
        if self.dims.len() <= d {
            self.dims.resize(d + 1, DimConstraints::default());
        }
        &mut self.dims[d]
    }
}

/// Constraints shared by every handle on one buffer (the ImageParam and its clones, the calls
/// to it, a Func and its output buffer).
pub type SharedConstraints = Arc<RwLock<BufferConstraints>>;

/// What a call to an input image carries of its ImageParam: the ImageParam's identity and
/// the constraints on its buffer (`ImageParam::dim`), which lowering asserts and applies.
/// Two links are equal when they link one ImageParam.
#[derive(Clone)]
pub struct ImageLink {
    id: InputId,
    constraints: SharedConstraints,
    /// `ImageParam::in_all`: the wrapper every consumer reads instead of the image.
    global_wrapper: Arc<RwLock<Option<Function>>>,
}

impl ImageLink {
    /// The link of a new input, with the default constraints (dense in dimension 0).
    pub fn new() -> ImageLink {
        ImageLink {
            id: InputId::next(),
            constraints: Arc::new(RwLock::new(BufferConstraints::default())),
            global_wrapper: Arc::default(),
        }
    }
    /// The identity of the image this link leads to.
    pub fn id(&self) -> InputId {
        self.id
    }
    /// The constraints on the image's buffer, shared with every handle on it.
    pub(crate) fn shared_constraints(&self) -> &SharedConstraints {
        &self.constraints
    }
    /// The wrapper every consumer of the image reads instead of it (`ImageParam::in_all`).
    pub fn global_wrapper(&self) -> Option<Function> {
        let slot = self.global_wrapper.read().expect("wrapper poisoned");
        slot.clone()
    }
    /// Makes `wrapper` the image's global wrapper, unless it has one: returns the one it has.
    pub(crate) fn set_global_wrapper(&self, wrapper: impl FnOnce() -> Function) -> Function {
        let mut slot = self.global_wrapper.write().expect("wrapper poisoned");
        slot.get_or_insert_with(wrapper).clone()
    }
    /// The constraints on the image's buffer now.
    pub fn constraints(&self) -> BufferConstraints {
        self.constraints
            .read()
            .expect("constraints poisoned")
            .clone()
    }
}

impl Default for ImageLink {
    fn default() -> ImageLink {
        ImageLink::new()
    }
}

impl PartialEq for ImageLink {
    fn eq(&self, other: &ImageLink) -> bool {
        self.id == other.id
    }
}
impl Eq for ImageLink {}
impl Hash for ImageLink {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.id.hash(state)
    }
}
impl std::fmt::Debug for ImageLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ImageLink({:?})", self.id)
    }
}

/// An input image as expressions refer to it: its name, its link (identity and buffer
/// constraints), its element type and its number of dimensions. Buffer-field parameters
/// (`input.min.0`) carry it, so that lowering takes the image as an argument and applies its
/// constraints even where none of its elements is read.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ImageParameter {
    name: Symbol,
    link: ImageLink,
    ty: Type,
    dims: usize,
}

impl ImageParameter {
    /// A new input image named `name`, of `dims` dimensions of elements of type `ty`, with
    /// the default constraints.
    pub fn new(ty: Type, dims: usize, name: Symbol) -> ImageParameter {
        ImageParameter {
            name,
            link: ImageLink::new(),
            ty,
            dims,
        }
    }
    /// Its name.
    pub fn name(&self) -> Symbol {
        self.name
    }
    /// Its identity, which stays when names are made unique.
    pub fn id(&self) -> InputId {
        self.link.id
    }
    /// What calls to this image carry: its identity and the constraints on its buffer.
    pub fn link(&self) -> &ImageLink {
        &self.link
    }
    /// Its element type.
    pub fn ty(&self) -> Type {
        self.ty
    }
    /// Its number of dimensions.
    pub fn dimensions(&self) -> usize {
        self.dims
    }
}
