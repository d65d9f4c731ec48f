//! The declarative description of an app: its name and summary, its input images (name,
//! element type, shape, meaning), the rules its inputs must obey together, its runtime scalar
//! parameters and its default output size. Plain `const` data an app file states once;
//! `app` checks inputs, lists apps and binds parameters from it.

use tessera::eval::value::Value;
use tessera::lang::param::ParamBinding;
use tessera::prelude::AnyBuffer;
use tessera::{Symbol, Type};

/// What an app is, as plain data.
#[derive(Debug)]
pub struct AppDescription {
    /// The name `tessera` and `apps()` know the app by.
    pub name: &'static str,
    /// What the app computes, in one line.
    pub summary: &'static str,
    /// The input images, in the order the pipeline, the reference and the default inputs
    /// take them.
    pub inputs: &'static [InputSpec],
    /// Rules the inputs must obey together beyond each input's own type and shape (equal
    /// sizes, divisibility, a minimum size), checked before anything runs.
    pub rules: &'static [InputRule],
    /// The output's shape (its x and y follow from the inputs' by the app's extent rules).
    pub output: Shape,
    /// Runtime scalar parameters (`--param NAME=VALUE`), with their defaults.
    pub params: &'static [ParamSpec],
    /// The output size `(width, height)` the benchmarks use.
    pub default_size: (i64, i64),
    /// About how many bytes the definition-level evaluator (which memoizes every Func's value
    /// at every point) takes per output pixel; callers refuse outputs whose estimate exceeds
    /// the memory they allow, before evaluating. `TYPICAL_EVAL_BYTES` unless measured.
    pub eval_bytes_per_pixel: i64,
}

/// The evaluator's memory per output pixel for most apps: 0.4 to 1.9 KB measured at
/// 256 x 256 for the apps without pyramids.
pub const TYPICAL_EVAL_BYTES: i64 = 2 << 10;

/// The dimensions of an image: x and y, and a third of a fixed number of channels or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A two-dimensional image (x, y).
    Plane,
    /// A three-dimensional image (x, y, c) with this many channels.
    Channels(i64),
}

impl Shape {
    /// The number of dimensions.
    pub fn dimensions(self) -> usize {
        match self {
            Shape::Plane => 2,
            Shape::Channels(_) => 3,
        }
    }

    /// The extents of an image of this shape with `x` and `y` extents.
    pub fn extents(self, x: i64, y: i64) -> Vec<i64> {
        match self {
            Shape::Plane => vec![x, y],
            Shape::Channels(c) => vec![x, y, c],
        }
    }

    /// Whether an image with extents `extents` has this shape.
    pub fn fits(self, extents: &[i64]) -> bool {
        match self {
            Shape::Plane => extents.len() == 2,
            Shape::Channels(c) => extents.len() == 3 && extents[2] == c,
        }
    }

    /// The shape in words, with the x and y extents written `x` and `y`: `W×H`, `W×H×3`.
    pub fn text(self, x: &str, y: &str) -> String {
        match self {
            Shape::Plane => format!("{x}×{y}"),
            Shape::Channels(c) => format!("{x}×{y}×{c}"),
        }
    }
}

/// One input image of an app.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputSpec {
    /// Its name: the pipeline's `ImageParam` of that name reads it, and `--input NAME=FILE`
    /// gives it.
    pub name: &'static str,
    pub ty: Type,
    pub shape: Shape,
    /// What it holds, in words, e.g. "grayscale, (W+2) × (H+2) for a W × H output".
    pub description: &'static str,
}

/// A rule an app's inputs must obey together, e.g. "img2 must have img1's extents".
#[derive(Clone, Copy, Debug)]
pub struct InputRule {
    /// The input a refusal names (the one that has to change).
    pub input: &'static str,
    /// The rule in words, as the refusal states it.
    pub rule: &'static str,
    /// Whether the inputs (in the app's declared order, each already of its declared type
    /// and shape) obey the rule.
    pub holds: fn(&[AnyBuffer]) -> bool,
}

/// A runtime scalar parameter of an app (`--param NAME=VALUE`).
#[derive(Clone, Debug, PartialEq)]
pub struct ParamSpec {
    pub name: &'static str,
    pub ty: Type,
    pub default: Value,
    pub description: &'static str,
}

impl ParamSpec {
    /// The binding of this parameter to its default value.
    pub fn default_binding(&self) -> ParamBinding {
        ParamBinding {
            name: Symbol::new(self.name),
            ty: self.ty,
            value: self.default,
            origin: None,
        }
    }
}

/// The extents of `image` (x, y[, c]).
pub fn extents(image: &AnyBuffer) -> Vec<i64> {
    image.dims().iter().map(|d| d.extent).collect()
}

/// The mins of `image` (x, y[, c]).
pub fn mins(image: &AnyBuffer) -> Vec<i64> {
    image.dims().iter().map(|d| d.min).collect()
}

/// Whether every input starts at 0 in every dimension: an `InputRule` for apps whose
/// algorithm places boundaries or clamps at coordinate 0.
pub fn all_start_at_zero(inputs: &[AnyBuffer]) -> bool {
    inputs.iter().all(|i| mins(i).iter().all(|&m| m == 0))
}
