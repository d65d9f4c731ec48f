//! Linear forms of integer expressions: `c1*t1 + c2*t2 + ... + k` over atoms `t_i` (any
//! subexpression that is not a sum, difference, negation or product by a constant), with
//! exact (i128) coefficients.
//!
//! Two uses:
//! - canonical sums: `+`, `-`, unary `-` and `* constant` are rewritten by collecting their
//!   linear form and rebuilding it in one order. Wrapping integer arithmetic is a ring, so
//!   this never changes a value, whatever the type and whether or not something overflows.
//!   This is what makes `(x + 10) - (x + 3)` become `7`. In a vector sum, the ramps and
//!   broadcasts of scalars and the constant are one ramp (or broadcast) term:
//!   `(v + ramp(a, 1, 8)) - x8(b)` becomes `v + ramp(a - b, 1, 8)`.
//! - exact differences: when both sides are `linear_exact` (see `info.rs`) the difference of
//!   their forms is their difference in unbounded integers, which decides comparisons,
//!   `min`/`max` and divisions the bounds alone cannot.

use super::info::{fits, Info, Origin};
use super::Simplifier;
use super::{mul, order, vector};
use crate::ir::{BinaryOp, Expr, ExprKind, Type, UnaryOp};

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LinearForm {
    /// Atoms with nonzero coefficients, in canonical order, each at most once.
    pub terms: Vec<(Expr, i128)>,
    pub constant: i128,
}

/// Whether `e` is a node linear forms look through.
pub(crate) fn is_linear_node(e: &Expr) -> bool {
    if !e.ty().is_int_or_uint() {
        return false;
    }
    match e.kind() {
        ExprKind::Binary(BinaryOp::Add | BinaryOp::Sub, ..) => true,
        ExprKind::Binary(BinaryOp::Mul, a, b) => a.is_const() || b.is_const(),
        ExprKind::Unary(UnaryOp::Neg, _) => true,
        _ => false,
    }
}

impl LinearForm {
    fn atom(e: &Expr) -> LinearForm {
        LinearForm {
            terms: vec![(e.clone(), 1)],
            constant: 0,
        }
    }

    /// The linear form of integer expression `e`, looking through every linear node
    /// (`None` if a coefficient overflows i128).
    pub fn of(e: &Expr) -> Option<LinearForm> {
        let mut form = LinearForm {
            terms: Vec::new(),
            constant: 0,
        };
        form.add(e, 1)?;
        form.normalize();
        Some(form)
    }

    /// A form whose unbounded value is the value of `e`: the full form when `e` is
    /// linear-exact, else `e` as a single atom.
    pub(super) fn exact(s: &mut Simplifier, e: &Expr) -> LinearForm {
        if s.info(e).linear_exact {
            if let Some(form) = LinearForm::of(e) {
                return form;
            }
        }
        match e.as_int_const() {
            Some(c) => LinearForm {
                terms: Vec::new(),
                constant: c,
            },
            None => LinearForm::atom(e),
        }
    }

    fn add(&mut self, e: &Expr, scale: i128) -> Option<()> {
        if let Some(c) = e.as_int_const() {
            self.constant = self.constant.checked_add(c.checked_mul(scale)?)?;
            return Some(());
        }
        if !is_linear_node(e) {
            self.terms.push((e.clone(), scale));
            return Some(());
        }
        match e.kind() {
            ExprKind::Binary(BinaryOp::Add, a, b) => {
                self.add(a, scale)?;
                self.add(b, scale)
            }
            ExprKind::Binary(BinaryOp::Sub, a, b) => {
                self.add(a, scale)?;
                self.add(b, scale.checked_neg()?)
            }
            ExprKind::Binary(BinaryOp::Mul, a, b) => {
                let (x, c) = if let Some(c) = b.as_int_const() {
                    (a, c)
                } else {
                    (b, a.as_int_const()?)
                };
                self.add(x, scale.checked_mul(c)?)
            }
            ExprKind::Unary(UnaryOp::Neg, a) => self.add(a, scale.checked_neg()?),
            _ => unreachable!("internal error: is_linear_node and add disagree"),
        }
    }

    pub fn normalize(&mut self) {
        self.terms.sort_by(|a, b| order::compare(&a.0, &b.0));
        let mut merged: Vec<(Expr, i128)> = Vec::with_capacity(self.terms.len());
        for (t, c) in self.terms.drain(..) {
            match merged.last_mut() {
                Some((last, lc)) if *last == t => *lc = lc.saturating_add(c),
                _ => merged.push((t, c)),
            }
        }
        merged.retain(|(_, c)| *c != 0);
        self.terms = merged;
        self.recombine_div_mod();
    }

    /// Replaces `(a / c) * (k*c) + (a % c) * k` by `a * k` (Euclidean division, `c > 0`),
    /// for an atom `a`.
    fn recombine_div_mod(&mut self) {
        let pair = self.terms.iter().enumerate().find_map(|(i, (q, kq))| {
            let ExprKind::Binary(BinaryOp::Div, a, c) = q.kind() else {
                return None;
            };
            if is_linear_node(a) {
                return None;
            }
            let divisor = c.as_int_const().filter(|d| *d > 0)?;
            let k = kq.checked_div(divisor).filter(|k| k * divisor == *kq)?;
            let remainder = Expr::binary(BinaryOp::Mod, a.clone(), c.clone());
            let j = self
                .terms
                .iter()
                .position(|(t, kr)| *kr == k && *t == remainder)?;
            Some((i, j, a.clone(), k))
        });
        if let Some((i, j, a, k)) = pair {
            self.terms.remove(i.max(j));
            self.terms.remove(i.min(j));
            self.terms.push((a, k));
            self.normalize();
        }
    }

    /// `self - other`.
    pub fn minus(&self, other: &LinearForm) -> Option<LinearForm> {
        let mut terms = self.terms.clone();
        for (t, c) in &other.terms {
            terms.push((t.clone(), c.checked_neg()?));
        }
        let mut form = LinearForm {
            terms,
            constant: self.constant.checked_sub(other.constant)?,
        };
        form.normalize();
        Some(form)
    }

    /// For a vector form: its ramps and broadcasts of scalars and its constant, merged into
    /// one term, `ramp(Σ k*base + Σ k*value + constant, Σ k*stride)` (a broadcast without
    /// ramps), lane by lane the same sum modulo 2^bits. `None` if there is nothing to merge.
    fn merge_lanes(&self, s: &mut Simplifier, ty: Type) -> Option<LinearForm> {
        let scalar = ty.element();
        let affine = |t: &Expr| match t.kind() {
            ExprKind::Ramp(b, _) | ExprKind::Broadcast(b) => b.ty().is_scalar(),
            _ => false,
        };
        let (merged, rest): (Vec<_>, Vec<_>) =
            self.terms.iter().cloned().partition(|(t, _)| affine(t));
        if merged.is_empty() || merged.len() + usize::from(self.constant != 0) < 2 {
            return None;
        }
        // `acc + e * k`, simplified (coefficients reduced modulo 2^bits: the sum is too).
        let add_scaled = |s: &mut Simplifier, acc: Expr, e: &Expr, k: i128| {
            let k = Expr::make_const(scalar, k as i64);
            let product = s.make(Expr::binary(BinaryOp::Mul, e.clone(), k));
            s.make(Expr::binary(BinaryOp::Add, acc, product))
        };
        let zero = Expr::make_const(scalar, 0);
        let mut base = Expr::make_const(scalar, self.constant as i64);
        let mut stride = None;
        for (t, k) in &merged {
            match t.kind() {
                ExprKind::Ramp(b, st) => {
                    base = add_scaled(s, base, b, *k);
                    let acc = stride.take().unwrap_or_else(|| zero.clone());
                    stride = Some(add_scaled(s, acc, st, *k));
                }
                ExprKind::Broadcast(b) => base = add_scaled(s, base, b, *k),
                _ => unreachable!("internal error: merged a term that is not a ramp or broadcast"),
            }
        }
        let term = match stride {
            Some(stride) => s.make(Expr::ramp(base, stride, ty.lanes)),
            None => s.make(base.broadcast_to(ty.lanes)),
        };
        let mut form = LinearForm {
            terms: rest,
            constant: 0,
        };
        form.add(&term, 1)?;
        form.normalize();
        Some(form)
    }

    pub fn as_constant(&self) -> Option<i128> {
        self.terms.is_empty().then_some(self.constant)
    }

    /// Bounds of the form's unbounded value, given the bounds of its atoms.
    pub(super) fn bounds(&self, s: &mut Simplifier) -> (i128, i128) {
        let (mut lo, mut hi) = (self.constant, self.constant);
        for (t, c) in &self.terms {
            let i = s.info(t);
            let (a, b) = (i.lo.saturating_mul(*c), i.hi.saturating_mul(*c));
            lo = lo.saturating_add(a.min(b));
            hi = hi.saturating_add(a.max(b));
        }
        (lo, hi)
    }
}

/// A sum being rebuilt, with whether every coefficient was representable (if one had to be
/// reduced modulo 2^bits the value is unchanged but the unbounded value is not).
struct SumBuilder<'a> {
    s: &'a mut Simplifier,
    ty: Type,
    acc: Option<Expr>,
    exact: bool,
}

impl SumBuilder<'_> {
    /// A constant of the type for `v`, reduced modulo 2^bits if it does not fit.
    fn constant(&mut self, v: i128) -> Expr {
        if !fits(self.ty, v, v) {
            self.exact = false;
        }
        Expr::make_const(self.ty, v as i64)
    }

    /// `a op b`, as a broadcast if both are broadcasts (then the sum's linear form is no
    /// longer exactly the form being rebuilt).
    fn node(&mut self, op: BinaryOp, a: Expr, b: Expr) -> Expr {
        let e = Expr::binary(op, a, b);
        self.s.record(&e, Origin::Derived);
        match vector::lift_broadcasts(self.s, &e) {
            Some(lifted) => {
                self.exact = false;
                lifted
            }
            None => e,
        }
    }

    /// `t * c`, with the multiplication rules applied (a ramp times a constant is a ramp);
    /// if one applies, the sum's linear form is no longer exactly the form being rebuilt.
    fn scaled(&mut self, t: &Expr, c: i128) -> Expr {
        if c == 1 {
            return t.clone();
        }
        let k = self.constant(c);
        let product = self.node(BinaryOp::Mul, t.clone(), k);
        match mul::rules().apply(self.s, &product) {
            Some(r) => {
                self.exact = false;
                r
            }
            None => product,
        }
    }

    /// Adds `c * t`, written as a subtraction when the coefficient is negative.
    fn push(&mut self, t: &Expr, c: i128) {
        let (op, magnitude) = if c < 0 && fits(self.ty, -c, -c) {
            (BinaryOp::Sub, -c)
        } else {
            (BinaryOp::Add, c)
        };
        self.acc = Some(match self.acc.take() {
            // A leading negative term: `-x`, `x * -3` (or `-(x * 3)` when -3 does not fit).
            None if op == BinaryOp::Sub && (magnitude == 1 || !fits(self.ty, c, c)) => {
                let term = self.scaled(t, magnitude);
                let negated = Expr::unary(UnaryOp::Neg, term);
                self.s.record(&negated, Origin::Derived);
                negated
            }
            None if op == BinaryOp::Sub => self.scaled(t, c),
            None => self.scaled(t, magnitude),
            Some(acc) => {
                let term = self.scaled(t, magnitude);
                self.node(op, acc, term)
            }
        });
    }

    fn push_constant(&mut self, v: i128) {
        let Some(acc) = self.acc.take() else {
            self.acc = Some(self.constant(v));
            return;
        };
        // The canonical constant offset is added (`x + -32`, printed `x - 32`), so that rules
        // written for `x + c0` see every offset; a type that cannot hold `v` (an unsigned
        // type's negative offset) subtracts its magnitude instead.
        let (op, magnitude) = if v < 0 && !fits(self.ty, v, v) && fits(self.ty, -v, -v) {
            (BinaryOp::Sub, -v)
        } else {
            (BinaryOp::Add, v)
        };
        let k = self.constant(magnitude);
        self.acc = Some(self.node(op, acc, k));
    }
}

/// A linear form rebuilt as an expression.
pub(super) struct Rebuilt {
    pub expr: Expr,
    /// Whether the expression's linear form is exactly the form (no coefficient needed
    /// reducing modulo 2^bits).
    pub exact: bool,
    /// Whether the expression is a new node rather than one of the form's atoms.
    pub fresh: bool,
}

/// Rebuilds `form` as an expression of type `ty`: positive terms first, then subtracted
/// ones, then the constant.
pub(super) fn rebuild(s: &mut Simplifier, form: &LinearForm, ty: Type) -> Rebuilt {
    let mut b = SumBuilder {
        s,
        ty,
        acc: None,
        exact: true,
    };
    let (positive, negative): (Vec<_>, Vec<_>) = form.terms.iter().partition(|(_, c)| *c > 0);
    // A sum with only subtracted terms starts from its constant: `10 - x`, not `-x + 10`.
    if positive.is_empty() && form.constant != 0 {
        let k = b.constant(form.constant);
        b.acc = Some(k);
        for (t, c) in &negative {
            b.push(t, *c);
        }
    } else {
        for (t, c) in positive.iter().chain(&negative) {
            b.push(t, *c);
        }
        if form.constant != 0 || b.acc.is_none() {
            b.push_constant(form.constant);
        }
    }
    let exact = b.exact;
    let expr = b.acc.expect("internal error: empty sum");
    let fresh = !matches!(form.terms.as_slice(), [(t, 1)] if form.constant == 0 && *t == expr);
    Rebuilt { expr, exact, fresh }
}

/// Canonicalizes a sum, difference, negation or product by a constant of integer type:
/// `None` when `e` is already in canonical form.
pub(super) fn canonicalize(s: &mut Simplifier, e: &Expr) -> Option<Expr> {
    if !is_linear_node(e) {
        return None;
    }
    let form = LinearForm::of(e)?;
    let merged = if e.ty().is_vector() {
        form.merge_lanes(s, e.ty())
    } else {
        None
    };
    let same_form = merged.is_none();
    let mut rebuilt = rebuild(s, merged.as_ref().unwrap_or(&form), e.ty());
    if rebuilt.expr == *e {
        return None;
    }
    // Same linear form (when no coefficient was reduced and no lanes merged), so the same
    // unbounded value too.
    rebuilt.exact &= same_form && s.info(e).linear_exact;
    Some(s.refine_rebuilt(e, rebuilt))
}

impl Simplifier {
    /// Records that `rebuilt` has the value of `before` (and, if `rebuilt.exact`, that it is
    /// linear-exact), then simplifies it. Existing atoms are returned as they are: what is
    /// known about `before` may rest on where it is evaluated, so it must not leak to a node
    /// used elsewhere.
    pub(super) fn refine_rebuilt(&mut self, before: &Expr, rebuilt: Rebuilt) -> Expr {
        if !rebuilt.fresh {
            return rebuilt.expr;
        }
        let e = rebuilt.expr;
        let computed = self.info(&e);
        let mut info: Info = computed.meet(self.info(before), e.ty().element());
        info.linear_exact = computed.linear_exact || rebuilt.exact;
        // A linear-exact sum of linear-exact operands computes exactly their unbounded sum:
        // its own operation does not wrap (so `a - 32` rebuilt as `a + -32` keeps what the
        // input's overflow contract said about it).
        let mut operands = Vec::new();
        e.for_each_child(|c| operands.push(c.clone()));
        let operands_exact = operands.iter().all(|c| self.info(c).linear_exact);
        info.no_wrap = computed.no_wrap || (rebuilt.exact && is_linear_node(&e) && operands_exact);
        self.set_info(&e, info);
        self.rewrite(&e)
    }
}
