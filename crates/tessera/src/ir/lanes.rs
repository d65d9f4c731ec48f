//! Lane extraction: the expression computing lanes `start, start + stride, ...` (`count` of
//! them) of a vector expression, made of the same operations on narrower vectors. Every IR
//! operation is lane-wise, so each node's lanes come from its operands' same lanes; ramps and
//! broadcasts, which define the lanes, become narrower ramps and broadcasts. Code generation
//! uses it to compute the even and odd lanes of a value separately where they differ in kind
//! (upsampling's `x / 2` and `x % 2`; see `codegen::llvm::parity`).

use super::visit::visit_exprs;
use super::{CallKind, Expr, ExprKind, Symbol};

/// Lanes `start + stride * i` of `e` for `i < count` (`start + stride * (count - 1)` must be
/// a lane of `e`), or `None` for an expression it cannot take apart: a vector variable bound
/// outside `e`, a ramp of floats, a call to a Func or an image, lanes of a ramp or broadcast
/// of vectors (nested vectorization) that span more than one copy of its vector.
pub fn extract_lanes(e: &Expr, start: u16, stride: u16, count: u16) -> Option<Expr> {
    Extractor {
        start,
        stride,
        count,
        vector_lets: Vec::new(),
    }
    .lanes(e)
}

/// Whether `e` has a ramp in it (its lanes vary).
pub fn contains_ramp(e: &Expr) -> bool {
    let mut found = false;
    visit_exprs(e, &mut |n| {
        found |= matches!(n.kind(), ExprKind::Ramp(..));
        !found
    });
    found
}

struct Extractor {
    start: u16,
    stride: u16,
    count: u16,
    /// The vector lets of `e` around the current node, whose variables stand for the same
    /// lanes of their (extracted) values.
    vector_lets: Vec<Symbol>,
}

impl Extractor {
    fn lanes(&mut self, e: &Expr) -> Option<Expr> {
        let ty = e.ty();
        // A scalar is the same in every lane (a ramp's base, a broadcast's value, a let).
        if ty.is_scalar() {
            return Some(e.clone());
        }
        let narrow = ty.with_lanes(self.count);
        Some(match e.kind() {
            ExprKind::Var(name) if self.vector_lets.contains(name) => Expr::var(*name, narrow),
            ExprKind::Ramp(base, step) if base.ty().is_vector() => {
                // Lane `m` is `base[m % k] + step[m % k] * (m / k)`: lanes within one copy of
                // the base are that copy's lanes of `base + step * copy`.
                let k = base.ty().lanes;
                let copy = self.within_one_copy(k)?;
                let (base, step) = (self.copy_lanes(base, k)?, self.copy_lanes(step, k)?);
                let t = base.ty();
                Expr::binary(
                    super::BinaryOp::Add,
                    base,
                    Expr::binary(
                        super::BinaryOp::Mul,
                        step,
                        Expr::make_const(t.element(), i64::from(copy)).broadcast_to(t.lanes),
                    ),
                )
            }
            ExprKind::Broadcast(v) if v.ty().is_vector() => {
                let k = v.ty().lanes;
                self.within_one_copy(k)?;
                self.copy_lanes(v, k)?
            }
            ExprKind::Ramp(base, step) => {
                let t = base.ty();
                if !t.is_int_or_uint() {
                    return None;
                }
                let scaled = |k: u16| {
                    Expr::binary(
                        super::BinaryOp::Mul,
                        step.clone(),
                        Expr::make_const(t, i64::from(k)),
                    )
                };
                let first = Expr::binary(super::BinaryOp::Add, base.clone(), scaled(self.start));
                Expr::ramp(first, scaled(self.stride), self.count)
            }
            ExprKind::Broadcast(v) if v.ty().is_scalar() => v.clone().broadcast_to(self.count),
            ExprKind::Cast(a) => Expr::cast(narrow, self.lanes(a)?),
            ExprKind::Unary(op, a) => Expr::unary(*op, self.lanes(a)?),
            ExprKind::Binary(op, a, b) => Expr::binary(*op, self.lanes(a)?, self.lanes(b)?),
            ExprKind::Select(c, t, f) => {
                Expr::select(self.lanes(c)?, self.lanes(t)?, self.lanes(f)?)
            }
            ExprKind::Let(name, value, body) => {
                let is_vector = value.ty().is_vector();
                let value = self.lanes(value)?;
                if is_vector {
                    self.vector_lets.push(*name);
                }
                let body = self.lanes(body);
                if is_vector {
                    self.vector_lets.pop();
                }
                Expr::let_in(*name, value, body?)
            }
            ExprKind::Load {
                buffer,
                index,
                predicate,
            } => {
                let predicate = match predicate {
                    Some(p) => Some(self.lanes(p)?),
                    None => None,
                };
                Expr::new(
                    narrow,
                    ExprKind::Load {
                        buffer: *buffer,
                        index: self.lanes(index)?,
                        predicate,
                    },
                )
            }
            ExprKind::Call {
                kind: CallKind::Intrinsic(op),
                args,
                ..
            } if op.is_lanewise() => {
                let args = args.iter().map(|a| self.lanes(a)).collect::<Option<_>>()?;
                Expr::intrinsic(narrow, *op, args)
            }
            _ => return None,
        })
    }

    /// Which copy of a `k`-lane vector repeated (by a ramp or broadcast of it) the lanes
    /// taken lie in, if all lie in one.
    fn within_one_copy(&self, k: u16) -> Option<u16> {
        let last = self.start + self.stride * (self.count - 1);
        (self.start / k == last / k).then_some(self.start / k)
    }

    /// The lanes taken, as lanes of `e` (of `k` lanes, repeated around them).
    fn copy_lanes(&self, e: &Expr, k: u16) -> Option<Expr> {
        Extractor {
            start: self.start % k,
            stride: self.stride,
            count: self.count,
            vector_lets: self.vector_lets.clone(),
        }
        .lanes(e)
    }
}
