//! `Interval`: a symbolic range `[min, max]` of values, whose ends are scalar expressions and
//! may be missing (unbounded below or above), as in Halide's `Interval`. Both ends are
//! inclusive. An interval of a vector expression bounds every lane.

use std::fmt;

use super::fold;
use crate::ir::{BinaryOp, Expr, Type};

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Interval {
    /// The smallest possible value, or `None` when unbounded below.
    pub min: Option<Expr>,
    /// The largest possible value, or `None` when unbounded above.
    pub max: Option<Expr>,
}

impl Interval {
    /// Unbounded on both sides.
    pub fn everything() -> Interval {
        Interval {
            min: None,
            max: None,
        }
    }

    /// Exactly the value of `e`.
    pub fn single_point(e: Expr) -> Interval {
        Interval {
            min: Some(e.clone()),
            max: Some(e),
        }
    }

    /// `[min, max]`, both bounded.
    pub fn new(min: Expr, max: Expr) -> Interval {
        Interval {
            min: Some(min),
            max: Some(max),
        }
    }

    /// `[min, max]` as constants of the scalar type `ty`.
    pub fn from_consts(ty: Type, min: i64, max: i64) -> Interval {
        let ty = ty.element();
        Interval::new(Expr::make_const(ty, min), Expr::make_const(ty, max))
    }

    /// Every value of type `ty`: the type's limits for bools and integers of fewer than 32
    /// bits; unbounded for floats and for 32- and 64-bit integers, as in Halide. A region
    /// spanning a 32-bit type cannot be stored and its extent overflows, so a coordinate
    /// computed from such a value (a data-dependent index) must be clamped to be bounded.
    pub fn type_range(ty: Type) -> Interval {
        let ty = ty.element();
        if ty.is_float() || ty.bits >= 32 {
            return Interval::everything();
        }
        Interval::new(int_const(ty, ty.int_min()), int_const(ty, ty.int_max()))
    }

    /// The smallest interval containing both (missing ends stay missing).
    pub fn union(&self, other: &Interval) -> Interval {
        Interval {
            min: both(BinaryOp::Min, &self.min, &other.min),
            max: both(BinaryOp::Max, &self.max, &other.max),
        }
    }

    /// The values in both (a missing end takes the other interval's).
    pub fn intersect(&self, other: &Interval) -> Interval {
        Interval {
            min: either(BinaryOp::Max, &self.min, &other.min),
            max: either(BinaryOp::Min, &self.max, &other.max),
        }
    }

    pub fn is_bounded(&self) -> bool {
        self.min.is_some() && self.max.is_some()
    }

    pub fn is_everything(&self) -> bool {
        self.min.is_none() && self.max.is_none()
    }

    /// Whether both ends are the same expression (so the interval holds one value).
    pub fn is_single_point(&self) -> bool {
        matches!((&self.min, &self.max), (Some(a), Some(b)) if a == b)
    }
}

/// The integer or bool constant `v` of type `ty` (which must represent it).
pub(crate) fn int_const(ty: Type, v: i128) -> Expr {
    if ty.is_int() {
        Expr::make_const(ty, v as i64)
    } else {
        Expr::u64_const(ty, v as u64)
    }
}

/// `a op b` when both are known, else unknown: for combining ends where a missing one
/// dominates (the min of lower bounds, the max of upper bounds, sums, products).
pub(crate) fn both(op: BinaryOp, a: &Option<Expr>, b: &Option<Expr>) -> Option<Expr> {
    match (a, b) {
        (Some(a), Some(b)) => fold::binary(op, a, b),
        _ => None,
    }
}

/// `a op b` when both are known, else whichever is known: for `min` of upper bounds and
/// `max` of lower bounds, where dropping an operand still gives a valid (looser) bound.
pub(crate) fn either(op: BinaryOp, a: &Option<Expr>, b: &Option<Expr>) -> Option<Expr> {
    match (a, b) {
        (Some(a), Some(b)) => fold::binary(op, a, b),
        (Some(e), None) | (None, Some(e)) => Some(e.clone()),
        (None, None) => None,
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.min {
            Some(e) => write!(f, "[{e}, ")?,
            None => f.write_str("[-inf, ")?,
        }
        match &self.max {
            Some(e) => write!(f, "{e}]"),
            None => f.write_str("+inf]"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Symbol;

    #[test]
    fn union_intersect_and_printing() {
        let a = Interval::from_consts(Type::i32(), 0, 10);
        let b = Interval::from_consts(Type::i32(), 5, 20);
        assert_eq!(a.union(&b), Interval::from_consts(Type::i32(), 0, 20));
        assert_eq!(a.intersect(&b), Interval::from_consts(Type::i32(), 5, 10));
        let half = Interval {
            min: Some(Expr::i32(3)),
            max: None,
        };
        assert_eq!(a.union(&half).to_string(), "[0, +inf]");
        assert_eq!(a.intersect(&half).to_string(), "[3, 10]");
        assert_eq!(Interval::everything().to_string(), "[-inf, +inf]");
        let x = Expr::var(Symbol::new("x"), Type::i32());
        let p = Interval::single_point(x.clone());
        assert!(p.is_single_point() && p.union(&p).is_single_point());
        assert_eq!(a.union(&p).to_string(), "[min(0, x), max(10, x)]");
        assert!(!half.is_bounded() && a.is_bounded());
    }

    #[test]
    fn type_ranges() {
        assert_eq!(
            Interval::type_range(Type::u8()),
            Interval::from_consts(Type::u8(), 0, 255)
        );
        assert!(Interval::type_range(Type::u64()).is_everything());
        assert!(Interval::type_range(Type::i32()).is_everything());
        assert_eq!(
            Interval::type_range(Type::i16().with_lanes(8)),
            Interval::from_consts(Type::i16(), -32768, 32767)
        );
        assert!(Interval::type_range(Type::f32()).is_everything());
        assert_eq!(
            Interval::type_range(Type::bool_()).to_string(),
            "[false, true]"
        );
    }
}
