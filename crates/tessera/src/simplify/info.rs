//! What the simplifier knows about the value of an integer subexpression: constant bounds,
//! alignment (modulus and remainder), and two facts about overflow that decide which rules may
//! reason in unbounded integers:
//!
//! - `no_wrap`: the node's own operation, applied to its operands' values in unbounded
//!   integers, gives its value (nothing wrapped around). Assumed for the signed 32/64-bit
//!   arithmetic of the input (the overflow contract), proven from bounds everywhere else.
//! - `linear_exact`: the value equals the unbounded-integer value of the node's linear form
//!   (`linear.rs`), so linear forms can be compared in exact arithmetic.
//!
//! Intervals are computed in i128 with saturation (a saturated bound never fits a type, so it
//! only ever makes the result less precise).

use crate::ir::{BinaryOp, Expr, ExprKind, Intrinsic, Type, TypeCode, UnaryOp};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Info {
    /// Every lane's value lies in `[lo, hi]`, within the type's range (unused for floats).
    pub lo: i128,
    pub hi: i128,
    /// Every lane's value is `remainder` modulo `modulus`; modulus 0 means exactly `remainder`.
    pub modulus: i128,
    pub remainder: i128,
    pub no_wrap: bool,
    pub linear_exact: bool,
}

/// Whether a node is part of the input (whose signed 32/64-bit arithmetic is assumed not to
/// overflow), was proven by a rule not to wrap, or was built by a rule with no such proof.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Origin {
    Input,
    Proven,
    Derived,
}

impl Origin {
    fn assumes_no_wrap(self, ty: Type) -> bool {
        match self {
            Origin::Input => ty.is_int() && ty.bits >= 32,
            Origin::Proven => true,
            Origin::Derived => false,
        }
    }
}

impl Info {
    /// Nothing known beyond the type.
    pub fn of_type(ty: Type) -> Info {
        let (lo, hi) = type_range(ty);
        Info {
            lo,
            hi,
            modulus: 1,
            remainder: 0,
            no_wrap: true,
            linear_exact: true,
        }
    }

    pub fn constant(v: i128) -> Info {
        Info {
            lo: v,
            hi: v,
            modulus: 0,
            remainder: v,
            no_wrap: true,
            linear_exact: true,
        }
    }

    /// The given bounds (clipped to the type).
    pub fn bounded(ty: Type, lo: i128, hi: i128) -> Info {
        Info::of_type(ty).with_bounds(ty, lo, hi)
    }

    /// Bounds of a variable whose type is not known yet (clipped when it is looked up).
    pub fn bounded_untyped(lo: i128, hi: i128) -> Info {
        Info {
            lo,
            hi,
            modulus: 1,
            remainder: 0,
            no_wrap: true,
            linear_exact: true,
        }
    }

    /// A value `remainder` modulo `modulus`, of a type not known yet.
    pub fn aligned_untyped(modulus: i128, remainder: i128) -> Info {
        Info {
            modulus,
            remainder,
            ..Info::bounded_untyped(i128::MIN, i128::MAX)
        }
    }

    pub fn as_constant(&self) -> Option<i128> {
        (self.lo == self.hi).then_some(self.lo)
    }

    fn with_bounds(mut self, ty: Type, lo: i128, hi: i128) -> Info {
        let (tlo, thi) = type_range(ty);
        self.lo = lo.max(tlo);
        self.hi = hi.min(thi);
        if self.lo > self.hi {
            // Contradictory facts (unreachable code): keep the type's range.
            self.lo = tlo;
            self.hi = thi;
        }
        self
    }

    /// Both `self` and `other` describe the same value: keep what each knows.
    pub fn meet(self, other: Info, ty: Type) -> Info {
        let mut r = self.with_bounds(ty, self.lo.max(other.lo), self.hi.min(other.hi));
        if align_is_stronger(other.modulus, self.modulus) {
            r.modulus = other.modulus;
            r.remainder = other.remainder;
        }
        r.no_wrap |= other.no_wrap;
        r.linear_exact |= other.linear_exact;
        r
    }

    /// Some lane's value is described by `self`, the others by `other`.
    fn union(self, other: Info) -> Info {
        let (modulus, remainder) = align_union(
            (self.modulus, self.remainder),
            (other.modulus, other.remainder),
        );
        Info {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
            modulus,
            remainder,
            no_wrap: true,
            linear_exact: true,
        }
    }
}

/// The range of an integer or bool type; the whole i128 range for floats.
pub(super) fn type_range(ty: Type) -> (i128, i128) {
    if ty.is_float() {
        (i128::MIN, i128::MAX)
    } else {
        (ty.int_min(), ty.int_max())
    }
}

pub(super) fn fits(ty: Type, lo: i128, hi: i128) -> bool {
    let (tlo, thi) = type_range(ty);
    tlo <= lo && hi <= thi
}

pub(crate) fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.min(i128::MAX as u128) as i128
}

fn align(modulus: i128, remainder: i128) -> (i128, i128) {
    if modulus == 0 {
        (0, remainder)
    } else {
        (modulus, remainder.rem_euclid(modulus))
    }
}

/// Modulus 0 (an exact value) is the strongest; otherwise a multiple is stronger.
fn align_is_stronger(a: i128, b: i128) -> bool {
    b != 0 && (a == 0 || (a != b && a % b == 0))
}

fn align_union(a: (i128, i128), b: (i128, i128)) -> (i128, i128) {
    let diff = a.1.checked_sub(b.1).unwrap_or(1);
    align(gcd(gcd(a.0, b.0), diff), a.1)
}

fn align_add(a: (i128, i128), b: (i128, i128), negate_b: bool) -> (i128, i128) {
    let rb = if negate_b {
        b.1.checked_neg()
    } else {
        Some(b.1)
    };
    match rb.and_then(|rb| a.1.checked_add(rb)) {
        Some(r) => align(gcd(a.0, b.0), r),
        None => (1, 0),
    }
}

fn align_mul(a: (i128, i128), b: (i128, i128)) -> (i128, i128) {
    let parts = [
        a.0.checked_mul(b.0),
        a.0.checked_mul(b.1),
        b.0.checked_mul(a.1),
        a.1.checked_mul(b.1),
    ];
    match parts {
        [Some(mm), Some(mr), Some(rm), Some(rr)] => align(gcd(gcd(mm, mr), rm), rr),
        _ => (1, 0),
    }
}

/// The alignment left after reducing modulo 2^bits (what wrapping around preserves).
fn align_wrapped(a: (i128, i128), bits: u8) -> (i128, i128) {
    let m = 1i128 << bits;
    align(gcd(a.0, m), a.1)
}

fn interval_mul(a: (i128, i128), b: (i128, i128)) -> (i128, i128) {
    let c = [
        a.0.saturating_mul(b.0),
        a.0.saturating_mul(b.1),
        a.1.saturating_mul(b.0),
        a.1.saturating_mul(b.1),
    ];
    (*c.iter().min().unwrap(), *c.iter().max().unwrap())
}

/// Euclidean division of every value in `a` by every nonzero value in `b` (and 0 for a zero
/// divisor, as the semantics define).
fn interval_div(a: (i128, i128), b: (i128, i128)) -> (i128, i128) {
    let mut lo = i128::MAX;
    let mut hi = i128::MIN;
    let mut include = |v: i128| {
        lo = lo.min(v);
        hi = hi.max(v);
    };
    if b.0 <= 0 && 0 <= b.1 {
        include(0);
    }
    // On each sign region of the divisor the quotient is monotone in both arguments, so the
    // corners bound it.
    for (blo, bhi) in [(b.0.max(1), b.1), (b.0, b.1.min(-1))] {
        if blo > bhi {
            continue;
        }
        for x in [a.0, a.1] {
            for y in [blo, bhi] {
                include(x.div_euclid(y));
            }
        }
    }
    (lo, hi)
}

fn bit_length(v: i128) -> u32 {
    128 - v.leading_zeros()
}

/// Info of a flagged arithmetic node (one the evaluator checks for signed overflow): exact
/// when the unbounded result fits the type or is assumed/proven not to wrap.
fn arithmetic(ty: Type, z: (i128, i128), alignment: (i128, i128), assumed: bool) -> Info {
    let no_wrap = assumed || fits(ty, z.0, z.1);
    if no_wrap {
        let (modulus, remainder) = alignment;
        Info {
            lo: z.0,
            hi: z.1,
            modulus,
            remainder,
            no_wrap,
            linear_exact: false,
        }
        .with_bounds(ty, z.0, z.1)
    } else {
        let (modulus, remainder) = align_wrapped(alignment, ty.bits);
        Info {
            modulus,
            remainder,
            no_wrap: false,
            linear_exact: false,
            ..Info::of_type(ty)
        }
    }
}

/// The info of node `e` from the infos of its children (`child` looks them up).
pub(super) fn node_info(e: &Expr, origin: Origin, child: &mut dyn FnMut(&Expr) -> Info) -> Info {
    let ty = e.ty().element();
    if ty.is_float() {
        return Info::of_type(ty);
    }
    let assumed = origin.assumes_no_wrap(ty);
    match e.kind() {
        ExprKind::IntImm(v) => Info::constant(*v as i128),
        ExprKind::UIntImm(v) => Info::constant(*v as i128),
        ExprKind::Broadcast(v) => child(v),
        ExprKind::Unary(op, a) => unary_info(*op, ty, child(a), assumed),
        ExprKind::Binary(op, a, b) => {
            let operand_ty = a.ty().element();
            if operand_ty.is_float() {
                return Info::of_type(ty);
            }
            let (ia, ib) = (child(a), child(b));
            let mut info = binary_info(*op, operand_ty, ty, ia, ib, assumed);
            // Sums and products by constants are linear nodes; everything else is an atom
            // of the linear forms, trivially equal to itself.
            info.linear_exact = if crate::simplify::linear::is_linear_node(e) {
                info.no_wrap && ia.linear_exact && ib.linear_exact
            } else {
                true
            };
            info
        }
        ExprKind::Select(_, t, f) => child(t).union(child(f)),
        ExprKind::Cast(a) => cast_info(a.ty().element(), ty, child(a)),
        ExprKind::Ramp(base, stride) => {
            let (b, s) = (child(base), child(stride));
            let steps = (e.ty().lanes / base.ty().lanes) as i128 - 1;
            let z = (
                b.lo.saturating_add(0.min(s.lo.saturating_mul(steps))),
                b.hi.saturating_add(0.max(s.hi.saturating_mul(steps))),
            );
            let (m, r) = align(gcd(b.modulus, gcd(s.modulus, s.remainder)), b.remainder);
            let mut info = arithmetic(ty, z, (m, r), assumed);
            info.linear_exact = true;
            info
        }
        ExprKind::Call {
            kind: crate::ir::CallKind::Intrinsic(op),
            args,
            ..
        } => intrinsic_info(*op, ty, args, child),
        _ => Info::of_type(ty),
    }
}

fn unary_info(op: UnaryOp, ty: Type, a: Info, assumed: bool) -> Info {
    match op {
        UnaryOp::Neg => {
            let z = (a.hi.saturating_neg(), a.lo.saturating_neg());
            let alignment = align(a.modulus, a.remainder.saturating_neg());
            let mut info = arithmetic(ty, z, alignment, assumed);
            info.linear_exact = info.no_wrap && a.linear_exact;
            info
        }
        UnaryOp::Not => {
            if let Some(v) = a.as_constant() {
                Info::constant(1 - v)
            } else {
                Info::of_type(ty)
            }
        }
        UnaryOp::BitNot => {
            // ~x is -x - 1 for signed types and max - x for unsigned ones: never wraps.
            let (lo, hi) = if ty.is_uint() {
                let max = ty.int_max();
                (max - a.hi, max - a.lo)
            } else {
                (-a.hi - 1, -a.lo - 1)
            };
            Info::bounded(ty, lo, hi)
        }
    }
}

fn binary_info(op: BinaryOp, ty: Type, result: Type, a: Info, b: Info, assumed: bool) -> Info {
    use BinaryOp::*;
    let (za, zb) = ((a.lo, a.hi), (b.lo, b.hi));
    let (aa, ab) = ((a.modulus, a.remainder), (b.modulus, b.remainder));
    match op {
        Add => arithmetic(
            ty,
            (a.lo.saturating_add(b.lo), a.hi.saturating_add(b.hi)),
            align_add(aa, ab, false),
            assumed,
        ),
        Sub => arithmetic(
            ty,
            (a.lo.saturating_sub(b.hi), a.hi.saturating_sub(b.lo)),
            align_add(aa, ab, true),
            assumed,
        ),
        Mul => arithmetic(ty, interval_mul(za, zb), align_mul(aa, ab), assumed),
        Div => {
            let alignment = match b.as_constant() {
                Some(c) if c > 0 && a.modulus != 0 && a.modulus % c == 0 => {
                    (a.modulus / c, a.remainder.div_euclid(c))
                }
                _ => (1, 0),
            };
            let mut info = arithmetic(ty, interval_div(za, zb), alignment, assumed);
            if !info.no_wrap {
                (info.modulus, info.remainder) = (1, 0);
            }
            info
        }
        Mod => mod_info(ty, a, b),
        Min => Info {
            lo: a.lo.min(b.lo),
            hi: a.hi.min(b.hi),
            ..a.union(b)
        },
        Max => Info {
            lo: a.lo.max(b.lo),
            hi: a.hi.max(b.hi),
            ..a.union(b)
        },
        Eq | Ne | Lt | Le | Gt | Ge => match decide_comparison(op, &a, &b) {
            Some(v) => Info::constant(v as i128),
            None => Info::of_type(result),
        },
        And | Or => Info::of_type(result),
        BitAnd => match (a.lo >= 0, b.lo >= 0) {
            (true, true) => Info::bounded(ty, 0, a.hi.min(b.hi)),
            (true, false) => Info::bounded(ty, 0, a.hi),
            (false, true) => Info::bounded(ty, 0, b.hi),
            (false, false) => Info::of_type(ty),
        },
        BitOr | BitXor if a.lo >= 0 && b.lo >= 0 => {
            let top = (1i128 << bit_length(a.hi.max(b.hi))) - 1;
            let lo = if op == BitOr { a.lo.max(b.lo) } else { 0 };
            Info::bounded(ty, lo, top)
        }
        Shl => match b.as_constant() {
            Some(c) if (0..ty.bits as i128).contains(&c) => {
                let scale = 1i128 << c;
                let z = (a.lo.saturating_mul(scale), a.hi.saturating_mul(scale));
                let alignment = align_mul(aa, (0, scale));
                let mut info = arithmetic(ty, z, alignment, false);
                info.no_wrap = true;
                info
            }
            _ => Info::of_type(ty),
        },
        Shr => match b.as_constant() {
            Some(c) if (0..ty.bits as i128).contains(&c) => {
                let scale = 1i128 << c;
                Info::bounded(ty, a.lo.div_euclid(scale), a.hi.div_euclid(scale))
            }
            _ => Info::of_type(ty),
        },
        BitOr | BitXor => Info::of_type(ty),
    }
}

fn mod_info(ty: Type, a: Info, b: Info) -> Info {
    if let Some(c) = b.as_constant() {
        if c == 0 {
            return Info::constant(0);
        }
        let m = c.abs();
        if a.modulus == 0 || (a.modulus % m == 0) {
            return Info::constant(a.remainder.rem_euclid(m));
        }
        if a.lo >= 0 && a.hi < m {
            return Info {
                linear_exact: true,
                ..a
            };
        }
        let g = gcd(a.modulus, m);
        let (modulus, remainder) = align(g, a.remainder);
        let hi = if a.lo >= 0 { a.hi.min(m - 1) } else { m - 1 };
        return Info {
            modulus,
            remainder,
            ..Info::bounded(ty, 0, hi)
        };
    }
    let largest_divisor = b.lo.saturating_neg().max(b.hi);
    let mut hi = largest_divisor.saturating_sub(1).max(0);
    if a.lo >= 0 {
        hi = hi.min(a.hi);
    }
    Info::bounded(ty, 0, hi)
}

/// The value of `a op b` when the bounds and alignments decide it.
pub(super) fn decide_comparison(op: BinaryOp, a: &Info, b: &Info) -> Option<bool> {
    use BinaryOp::*;
    let lt = if a.hi < b.lo {
        Some(true)
    } else if a.lo >= b.hi {
        Some(false)
    } else {
        None
    };
    let le = if a.hi <= b.lo {
        Some(true)
    } else if a.lo > b.hi {
        Some(false)
    } else {
        None
    };
    let eq = if a.lo == a.hi && b.lo == b.hi {
        Some(a.lo == b.lo)
    } else if a.hi < b.lo || b.hi < a.lo || alignments_differ(a, b) {
        Some(false)
    } else {
        None
    };
    match op {
        Lt => lt,
        Le => le,
        Gt => decide_comparison(Lt, b, a),
        Ge => decide_comparison(Le, b, a),
        Eq => eq,
        Ne => eq.map(|v| !v),
        _ => None,
    }
}

/// Whether no value can satisfy both alignments.
fn alignments_differ(a: &Info, b: &Info) -> bool {
    let g = gcd(a.modulus, b.modulus);
    match a.remainder.checked_sub(b.remainder) {
        Some(d) if g != 0 => d.rem_euclid(g) != 0,
        _ => false,
    }
}

fn cast_info(from: Type, to: Type, a: Info) -> Info {
    match (from.code, to.code) {
        (TypeCode::Float, _) => Info::of_type(to),
        (_, TypeCode::Bool) => {
            if a.lo > 0 || a.hi < 0 {
                Info::constant(1)
            } else if a.lo == 0 && a.hi == 0 {
                Info::constant(0)
            } else {
                Info::of_type(to)
            }
        }
        _ if fits(to, a.lo, a.hi) => Info {
            no_wrap: true,
            linear_exact: true,
            ..a
        },
        _ => {
            let (modulus, remainder) = align_wrapped((a.modulus, a.remainder), to.bits);
            Info {
                modulus,
                remainder,
                ..Info::of_type(to)
            }
        }
    }
}

fn intrinsic_info(
    op: Intrinsic,
    ty: Type,
    args: &[Expr],
    child: &mut dyn FnMut(&Expr) -> Info,
) -> Info {
    let Some(arg_ty) = args.first().map(|a| a.ty().element()) else {
        return Info::of_type(ty);
    };
    if arg_ty.is_float() && op != Intrinsic::SaturatingCast {
        return Info::of_type(ty);
    }
    match op {
        Intrinsic::Abs => {
            let a = child(&args[0]);
            let (lo, hi) = if a.lo >= 0 {
                (a.lo, a.hi)
            } else if a.hi <= 0 {
                (-a.hi, -a.lo)
            } else {
                (0, a.hi.max(-a.lo))
            };
            Info::bounded(ty, lo, hi)
        }
        Intrinsic::Absd => {
            let (a, b) = (child(&args[0]), child(&args[1]));
            let hi = (a.hi - b.lo).abs().max((a.lo - b.hi).abs());
            let lo = if a.lo > b.hi {
                a.lo - b.hi
            } else if b.lo > a.hi {
                b.lo - a.hi
            } else {
                0
            };
            Info::bounded(ty, lo, hi)
        }
        Intrinsic::SaturatingCast if !arg_ty.is_float() && !ty.is_bool() => {
            let a = child(&args[0]);
            let (tlo, thi) = type_range(ty);
            Info::bounded(ty, a.lo.clamp(tlo, thi), a.hi.clamp(tlo, thi))
        }
        Intrinsic::Likely | Intrinsic::LikelyIfInnermost | Intrinsic::MemoizeTag => child(&args[0]),
        Intrinsic::PopCount | Intrinsic::CountLeadingZeros | Intrinsic::CountTrailingZeros => {
            Info::bounded(ty, 0, arg_ty.bits as i128)
        }
        _ => Info::of_type(ty),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn division_intervals_cover_every_sign_of_the_divisor() {
        assert_eq!(interval_div((-7, 7), (2, 2)), (-4, 3));
        assert_eq!(interval_div((-7, 7), (-2, -2)), (-3, 4));
        assert_eq!(interval_div((10, 10), (-1, 1)), (-10, 10));
    }

    #[test]
    fn alignment_arithmetic() {
        assert_eq!(align_add((4, 1), (0, 2), false), (4, 3));
        assert_eq!(align_mul((0, 3), (2, 1)), (6, 3));
        assert_eq!(align_union((8, 3), (8, 7)), (4, 3));
        assert_eq!(align_wrapped((3, 1), 8), (1, 0));
        assert_eq!(align_wrapped((0, 260), 8), (256, 4));
    }
}
