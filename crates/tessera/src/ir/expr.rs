//! Expression nodes: immutable, shared (`Arc`) trees carrying their type, as in Halide's IR.
//! Binary and unary operators are grouped into `Binary`/`Unary` nodes with an operator tag
//! (one match arm covers them all); everything rarely touched by passes (math functions,
//! absd, saturating casts, lerp) is an `Intrinsic` call.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use super::function::FuncLink;
use super::parameter::{ImageLink, ImageParameter};
use super::reduction::RDomLink;
use super::symbol::Symbol;
use super::types::{Type, TypeCode};

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Min,
    Max,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

impl BinaryOp {
    pub fn is_comparison(self) -> bool {
        use BinaryOp::*;
        matches!(self, Eq | Ne | Lt | Le | Gt | Ge)
    }
    /// The comparison that holds exactly where this one does not (`<` gives `>=`); `None`
    /// for an operator that is not a comparison.
    pub fn negated_comparison(self) -> Option<BinaryOp> {
        use BinaryOp::*;
        Some(match self {
            Lt => Ge,
            Le => Gt,
            Gt => Le,
            Ge => Lt,
            Eq => Ne,
            Ne => Eq,
            _ => return None,
        })
    }
    /// The comparison that holds for `b, a` exactly where this one holds for `a, b` (`<`
    /// gives `>`); `None` for an operator that is not a comparison.
    pub fn swapped_comparison(self) -> Option<BinaryOp> {
        use BinaryOp::*;
        Some(match self {
            Lt => Gt,
            Le => Ge,
            Gt => Lt,
            Ge => Le,
            Eq => Eq,
            Ne => Ne,
            _ => return None,
        })
    }
    pub fn is_logical(self) -> bool {
        matches!(self, BinaryOp::And | BinaryOp::Or)
    }
    pub fn is_commutative(self) -> bool {
        use BinaryOp::*;
        matches!(
            self,
            Add | Mul | Min | Max | Eq | Ne | And | Or | BitAnd | BitOr | BitXor
        )
    }
    /// The infix symbol (or function name for min/max) used by the printer.
    pub fn symbol(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Mod => "%",
            Min => "min",
            Max => "max",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            And => "&&",
            Or => "||",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            Shl => "<<",
            Shr => ">>",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum UnaryOp {
    /// Arithmetic negation (IEEE sign flip for floats, wrapping for integers).
    Neg,
    /// Logical not of a bool.
    Not,
    /// Bitwise complement of an integer.
    BitNot,
}

/// Functions that are calls rather than nodes. Each has fixed semantics in `eval::value`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Intrinsic {
    Abs,
    Absd,
    Sqrt,
    Exp,
    Log,
    Pow,
    Floor,
    Ceil,
    /// Round half to even.
    Round,
    Trunc,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    Sinh,
    Cosh,
    Tanh,
    Hypot,
    IsNan,
    IsInf,
    IsFinite,
    /// Convert to the call's type, clamping to its range first.
    SaturatingCast,
    /// `lerp(a, b, w)`: a*(1-w) + b*w, with Halide's integer-weight rules.
    Lerp,
    PopCount,
    CountLeadingZeros,
    CountTrailingZeros,
    /// Reinterpret the bits of the argument as the call's type (same total bit count).
    Reinterpret,
    /// An identity marker: the value is usually true (guides loop partitioning).
    Likely,
    /// `Likely`, but only for a loop with no loop inside it: the clamp of a ShiftInwards
    /// split, worth a partition in the innermost loop only (an outer one would copy its
    /// whole body for one shifted iteration).
    LikelyIfInnermost,
    /// `interleave(a, b, ..)`: the lanes of its n arguments (vectors of one type) taken in
    /// turn, lane i being lane i / n of argument i % n. The one intrinsic that is not
    /// lane-wise; lowering makes it only as the whole value of a store or of a let statement
    /// (`interleave_stores`, `parity_stores`).
    Interleave,
    /// Halide's `undef()`: no value (no arguments). Definitions take it out of their values —
    /// as a whole Tuple element, or an arm of a select that is one, it means "store nothing
    /// there" (`lang::undef`) — so nothing ever evaluates it.
    Undef,
    /// `promise_clamped(value, min, max)`: the value, which the caller promises lies in
    /// `[min, max]`; interval analysis takes those bounds. The evaluator, the interpreter and
    /// checked native code fail the run where the promise is broken; other native code
    /// trusts it (`lang::promises`).
    PromiseClamped,
    /// `require(condition, value, message values..)`: the value where the condition holds;
    /// elsewhere the run fails with the message, whose text (`message`, with
    /// `MESSAGE_VALUE_MARK` where each value goes) is interned (`lang::require`).
    Require {
        message: Symbol,
    },
    /// `print_when(condition, value, message values..)` (Halide's `print` and `print_when`):
    /// the value; where the condition holds, evaluating it also prints one line, the
    /// message (`message`, interned as `Require`'s, whose first value is `value` itself) with
    /// each value formatted as Halide's runtime does (`lang::print`, `eval::print`). A vector
    /// print prints each lane where the condition's lane holds, lane after lane.
    Print {
        message: Symbol,
    },
    /// `random(tag, seeds..)` of type f32, i32 or u32: a placeholder that `define` and
    /// `update` replace by a hash of the tag, the seeds and the definition's coordinates
    /// (`lang::random`), so nothing evaluates it.
    Random,
    /// `memoize_lookup(bytes, key..)`, made by `lower::memoize` only: whether the compiled
    /// pipeline's cache holds `bytes` bytes under `cache_name` and the key, in which case they
    /// are copied into `buffer`. Without a cache (the interpreter) it is false.
    MemoizeLookup {
        buffer: Symbol,
        cache_name: Symbol,
    },
    /// `memoize_store(bytes, has eviction key, eviction key, key..)`: stores the `bytes` bytes
    /// of `buffer` in the cache under `cache_name` and the key (and the eviction key). True.
    MemoizeStore {
        buffer: Symbol,
        cache_name: Symbol,
    },
    /// `memoize_tag(value, keys..)` (Halide's `memoize_tag`): the value. A memoized Func
    /// reading it keys its cache on the tag instead of what the value reads: on the value
    /// itself without keys, on the keys alone with them (`lang::memoize_tag`). Lowering
    /// takes tags out of the statement once definitions are in it (`lower::memoize`).
    MemoizeTag,
}

/// Where a value goes in a `require` message's interned text.
pub const MESSAGE_VALUE_MARK: char = '\x01';

impl Intrinsic {
    pub fn name(self) -> &'static str {
        use Intrinsic::*;
        match self {
            Abs => "abs",
            Absd => "absd",
            Sqrt => "sqrt",
            Exp => "exp",
            Log => "log",
            Pow => "pow",
            Floor => "floor",
            Ceil => "ceil",
            Round => "round",
            Trunc => "trunc",
            Sin => "sin",
            Cos => "cos",
            Tan => "tan",
            Asin => "asin",
            Acos => "acos",
            Atan => "atan",
            Atan2 => "atan2",
            Sinh => "sinh",
            Cosh => "cosh",
            Tanh => "tanh",
            Hypot => "hypot",
            IsNan => "is_nan",
            IsInf => "is_inf",
            IsFinite => "is_finite",
            SaturatingCast => "saturating_cast",
            Lerp => "lerp",
            PopCount => "popcount",
            CountLeadingZeros => "count_leading_zeros",
            CountTrailingZeros => "count_trailing_zeros",
            Reinterpret => "reinterpret",
            Likely => "likely",
            LikelyIfInnermost => "likely_if_innermost",
            Interleave => "interleave",
            Undef => "undef",
            PromiseClamped => "promise_clamped",
            Require { .. } => "require",
            Print { .. } => "print",
            Random => "random",
            MemoizeLookup { .. } => "memoize_lookup",
            MemoizeStore { .. } => "memoize_store",
            MemoizeTag => "memoize_tag",
        }
    }

    /// Whether lane i of the result depends only on lane i of the arguments.
    pub fn is_lanewise(self) -> bool {
        self != Intrinsic::Interleave
    }

    /// Whether a call has a value to compute or fold: `undef` and `random` (replaced by
    /// definitions) have none.
    pub fn has_value(self) -> bool {
        !matches!(self, Intrinsic::Undef | Intrinsic::Random)
    }

    /// Whether evaluating the call does more than compute its value: it may fail the run (a
    /// requirement or a promise checked) or print. Constant arguments must not fold it away,
    /// nor common-subexpression elimination evaluate it where the original does not.
    pub fn has_effects(self) -> bool {
        matches!(
            self,
            Intrinsic::PromiseClamped
                | Intrinsic::Require { .. }
                | Intrinsic::Print { .. }
                | Intrinsic::MemoizeLookup { .. }
                | Intrinsic::MemoizeStore { .. }
        )
    }
}

/// What a `Call` node calls.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum CallKind {
    /// A value of a Func at multi-dimensional coordinates (before storage flattening).
    Func(FuncLink),
    /// An element of an input image (ImageParam) at multi-dimensional coordinates.
    Image(ImageLink),
    Intrinsic(Intrinsic),
}

/// An f64 compared and hashed by its bits, so that `Expr` can be `Eq + Hash`.
#[derive(Clone, Copy, Debug)]
pub struct FloatBits(pub f64);

impl PartialEq for FloatBits {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}
impl Eq for FloatBits {}
impl Hash for FloatBits {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state)
    }
}

/// One piece of an assertion's message: literal text or a value printed at run time.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum MessagePart {
    Text(Arc<str>),
    Value(Expr),
}

impl MessagePart {
    /// The message as an interned text with `MESSAGE_VALUE_MARK` where each value goes, and
    /// its values (how a `require` call carries its message).
    pub fn intern(parts: &[MessagePart]) -> (Symbol, Vec<Expr>) {
        let mut text = String::new();
        let mut values = Vec::new();
        for part in parts {
            match part {
                MessagePart::Text(t) => text.extend(t.chars().filter(|&c| c != MESSAGE_VALUE_MARK)),
                MessagePart::Value(v) => {
                    text.push(MESSAGE_VALUE_MARK);
                    values.push(v.clone());
                }
            }
        }
        (Symbol::new(&text), values)
    }

    /// The parts of a message `intern` made (its values in order).
    pub fn from_interned(text: Symbol, values: &[Expr]) -> Vec<MessagePart> {
        let mut parts = Vec::new();
        let mut values = values.iter();
        for (i, piece) in text.as_str().split(MESSAGE_VALUE_MARK).enumerate() {
            if i > 0 {
                if let Some(v) = values.next() {
                    parts.push(MessagePart::Value(v.clone()));
                }
            }
            if !piece.is_empty() {
                parts.push(MessagePart::Text(piece.into()));
            }
        }
        parts
    }
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum ExprKind {
    /// A signed integer constant, stored sign-extended from the node's bit width.
    IntImm(i64),
    /// An unsigned integer or bool constant, stored zero-extended.
    UIntImm(u64),
    /// A float constant; for f32 nodes the value is exactly representable as f32.
    FloatImm(FloatBits),
    /// A pure variable, loop variable, let-bound name or buffer field (`input.min.0`).
    Var(Symbol),
    /// A variable of a reduction domain; the link finds the domain it belongs to.
    RVar(Symbol, RDomLink),
    /// A scalar runtime parameter. A field of an input image's buffer (`input.min.0`) carries
    /// the image's parameter, so that lowering takes the image as an argument and applies its
    /// constraints even when the pipeline never loads from it.
    Param(Symbol, Option<ImageParameter>),
    /// Conversion to the node's type (wrapping for integers, saturating from floats).
    Cast(Expr),
    Unary(UnaryOp, Expr),
    Binary(BinaryOp, Expr, Expr),
    Select(Expr, Expr, Expr),
    Let(Symbol, Expr, Expr),
    /// `base + stride * [0, 1, ..., lanes-1]`; the lane count is the node type's.
    Ramp(Expr, Expr),
    /// A scalar repeated over the node type's lanes.
    Broadcast(Expr),
    /// A flat load from an allocation or buffer, after storage flattening.
    Load {
        buffer: Symbol,
        index: Expr,
        predicate: Option<Expr>,
    },
    Call {
        name: Symbol,
        kind: CallKind,
        args: Vec<Expr>,
        /// Which element of a Tuple-valued Func is read.
        value_index: usize,
    },
    /// A mistake the front end could only detect while overloading an operator (which cannot
    /// return a `Result`). Defining a Func with such an expression fails with this message, so
    /// it never reaches lowering.
    Invalid(Arc<str>),
}

#[derive(PartialEq, Eq, Hash, Debug)]
pub struct ExprNode {
    pub ty: Type,
    pub kind: ExprKind,
}

#[cfg(test)]
thread_local! {
    static CHILD_WALK_STEPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many nodes this thread's walks over expression trees have stepped into (calls of
/// `Expr::for_each_child`): tests assert that a pass does work linear in its input, where a
/// wall-clock time would be flaky.
#[cfg(test)]
pub(crate) fn child_walk_steps() -> u64 {
    CHILD_WALK_STEPS.with(std::cell::Cell::get)
}

/// A shared, immutable, typed expression tree.
#[derive(Clone)]
pub struct Expr(Arc<ExprNode>);

impl PartialEq for Expr {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || *self.0 == *other.0
    }
}
impl Eq for Expr {}
impl Hash for Expr {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state)
    }
}
impl fmt::Debug for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Expr {
    pub fn new(ty: Type, kind: ExprKind) -> Expr {
        Expr(Arc::new(ExprNode { ty, kind }))
    }
    pub fn ty(&self) -> Type {
        self.0.ty
    }
    pub fn kind(&self) -> &ExprKind {
        &self.0.kind
    }
    /// Whether both handles point at the same node (cheap identity, used to skip rebuilding).
    pub fn same_as(&self, other: &Expr) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
    /// The identity of the node this handle points at (shared subexpressions have one).
    pub fn node_id(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    // ---- constants -------------------------------------------------------------------

    /// The constant `v` of type `ty` (wrapped to the type's width; broadcast for vectors).
    pub fn make_const(ty: Type, v: i64) -> Expr {
        let scalar = match ty.code {
            TypeCode::Int => Expr::new(
                ty.element(),
                ExprKind::IntImm(sign_extend(v as u64, ty.bits)),
            ),
            TypeCode::UInt | TypeCode::Bool => Expr::new(
                ty.element(),
                ExprKind::UIntImm(zero_extend(v as u64, ty.bits)),
            ),
            TypeCode::Float => Expr::new(
                ty.element(),
                ExprKind::FloatImm(FloatBits(round_to_float_type(v as f64, ty.bits))),
            ),
        };
        scalar.broadcast_to(ty.lanes)
    }
    /// A float constant of type `ty` (rounded to f32 for 32-bit types).
    pub fn make_float(ty: Type, v: f64) -> Expr {
        debug_assert!(ty.is_float());
        Expr::new(
            ty.element(),
            ExprKind::FloatImm(FloatBits(round_to_float_type(v, ty.bits))),
        )
        .broadcast_to(ty.lanes)
    }
    pub fn int(v: i64, bits: u8) -> Expr {
        Expr::make_const(Type::int(bits), v)
    }
    pub fn i32(v: i32) -> Expr {
        Expr::make_const(Type::i32(), v as i64)
    }
    pub fn u64_const(ty: Type, v: u64) -> Expr {
        debug_assert!(!ty.is_float() && !ty.is_int());
        Expr::new(ty.element(), ExprKind::UIntImm(zero_extend(v, ty.bits))).broadcast_to(ty.lanes)
    }
    pub fn f32(v: f32) -> Expr {
        Expr::new(Type::f32(), ExprKind::FloatImm(FloatBits(v as f64)))
    }
    pub fn f64(v: f64) -> Expr {
        Expr::new(Type::f64(), ExprKind::FloatImm(FloatBits(v)))
    }
    pub fn bool_(v: bool) -> Expr {
        Expr::new(Type::bool_(), ExprKind::UIntImm(v as u64))
    }
    pub fn zero(ty: Type) -> Expr {
        Expr::make_const(ty, 0)
    }
    pub fn one(ty: Type) -> Expr {
        Expr::make_const(ty, 1)
    }

    /// The value of a scalar integer or bool constant (looking through broadcasts).
    pub fn as_int_const(&self) -> Option<i128> {
        match self.kind() {
            ExprKind::IntImm(v) => Some(*v as i128),
            ExprKind::UIntImm(v) => Some(*v as i128),
            ExprKind::Broadcast(v) => v.as_int_const(),
            _ => None,
        }
    }
    /// The value of a float constant (looking through broadcasts).
    pub fn as_float_const(&self) -> Option<f64> {
        match self.kind() {
            ExprKind::FloatImm(v) => Some(v.0),
            ExprKind::Broadcast(v) => v.as_float_const(),
            _ => None,
        }
    }
    pub fn is_const(&self) -> bool {
        match self.kind() {
            ExprKind::IntImm(_) | ExprKind::UIntImm(_) | ExprKind::FloatImm(_) => true,
            ExprKind::Broadcast(v) => v.is_const(),
            _ => false,
        }
    }
    pub fn is_const_value(&self, v: i64) -> bool {
        self.as_int_const() == Some(v as i128) || self.as_float_const() == Some(v as f64)
    }
    pub fn is_zero(&self) -> bool {
        self.is_const_value(0)
    }
    pub fn is_one(&self) -> bool {
        self.is_const_value(1)
    }
    /// The operands of the `&&` chain this bool expression is (itself alone if it is no `&&`).
    pub fn conjuncts(&self) -> Vec<Expr> {
        match self.kind() {
            ExprKind::Binary(BinaryOp::And, a, b) => {
                let mut out = a.conjuncts();
                out.extend(b.conjuncts());
                out
            }
            _ => vec![self.clone()],
        }
    }
    /// `a && b && ...` of `conditions`, or `None` when there are none.
    pub fn conjunction(conditions: impl IntoIterator<Item = Expr>) -> Option<Expr> {
        conditions
            .into_iter()
            .reduce(|x, y| Expr::binary(BinaryOp::And, x, y))
    }
    pub fn as_var(&self) -> Option<Symbol> {
        match self.kind() {
            ExprKind::Var(s) => Some(*s),
            _ => None,
        }
    }

    // ---- structural constructors (operands must already have matching types) ----------

    pub fn var(name: impl Into<Symbol>, ty: Type) -> Expr {
        Expr::new(ty, ExprKind::Var(name.into()))
    }
    pub fn binary(op: BinaryOp, a: Expr, b: Expr) -> Expr {
        assert_eq!(
            a.ty(),
            b.ty(),
            "internal error: operands of {op:?} differ in type: {a} vs {b}"
        );
        let ty = if op.is_comparison() {
            Type::bool_().with_lanes(a.ty().lanes)
        } else {
            a.ty()
        };
        Expr::new(ty, ExprKind::Binary(op, a, b))
    }
    pub fn unary(op: UnaryOp, a: Expr) -> Expr {
        Expr::new(a.ty(), ExprKind::Unary(op, a))
    }
    pub fn cast(ty: Type, a: Expr) -> Expr {
        if a.ty() == ty {
            return a;
        }
        assert_eq!(
            ty.lanes,
            a.ty().lanes,
            "internal error: cast changes lane count"
        );
        Expr::new(ty, ExprKind::Cast(a))
    }
    pub fn select(c: Expr, t: Expr, f: Expr) -> Expr {
        assert_eq!(t.ty(), f.ty(), "internal error: select arms differ in type");
        assert!(
            c.ty().is_bool(),
            "internal error: select condition is not bool"
        );
        Expr::new(t.ty(), ExprKind::Select(c, t, f))
    }
    pub fn let_in(name: Symbol, value: Expr, body: Expr) -> Expr {
        Expr::new(body.ty(), ExprKind::Let(name, value, body))
    }
    pub fn ramp(base: Expr, stride: Expr, lanes: u16) -> Expr {
        assert_eq!(base.ty(), stride.ty());
        Expr::new(
            base.ty().with_lanes(base.ty().lanes * lanes),
            ExprKind::Ramp(base, stride),
        )
    }
    /// `self` repeated `lanes` times (identity when `lanes` is 1).
    pub fn broadcast_to(self, lanes: u16) -> Expr {
        if lanes == 1 {
            return self;
        }
        Expr::new(
            self.ty().with_lanes(self.ty().lanes * lanes),
            ExprKind::Broadcast(self),
        )
    }
    pub fn intrinsic(ty: Type, op: Intrinsic, args: Vec<Expr>) -> Expr {
        Expr::new(
            ty,
            ExprKind::Call {
                name: Symbol::new(op.name()),
                kind: CallKind::Intrinsic(op),
                args,
                value_index: 0,
            },
        )
    }
    pub fn load(ty: Type, buffer: Symbol, index: Expr) -> Expr {
        Expr::predicated_load(ty, buffer, index, None)
    }
    /// A load of the lanes where `predicate` holds (all of them for `None`).
    pub fn predicated_load(ty: Type, buffer: Symbol, index: Expr, predicate: Option<Expr>) -> Expr {
        Expr::new(
            ty,
            ExprKind::Load {
                buffer,
                index,
                predicate,
            },
        )
    }
    pub fn invalid(ty: Type, message: impl Into<Arc<str>>) -> Expr {
        Expr::new(ty, ExprKind::Invalid(message.into()))
    }

    // ---- traversal -------------------------------------------------------------------

    /// Calls `f` on each direct child, in evaluation order.
    pub fn for_each_child(&self, mut f: impl FnMut(&Expr)) {
        #[cfg(test)]
        CHILD_WALK_STEPS.with(|steps| steps.set(steps.get() + 1));
        match self.kind() {
            ExprKind::IntImm(_)
            | ExprKind::UIntImm(_)
            | ExprKind::FloatImm(_)
            | ExprKind::Var(_)
            | ExprKind::RVar(..)
            | ExprKind::Param(..)
            | ExprKind::Invalid(_) => {}
            ExprKind::Cast(a) | ExprKind::Unary(_, a) | ExprKind::Broadcast(a) => f(a),
            ExprKind::Binary(_, a, b) | ExprKind::Ramp(a, b) | ExprKind::Let(_, a, b) => {
                f(a);
                f(b)
            }
            ExprKind::Select(c, t, e) => {
                f(c);
                f(t);
                f(e)
            }
            ExprKind::Load {
                index, predicate, ..
            } => {
                f(index);
                if let Some(p) = predicate {
                    f(p)
                }
            }
            ExprKind::Call { args, .. } => args.iter().for_each(f),
        }
    }

    /// Rebuilds this node with each child replaced by `f(child)`; returns `self` (shared)
    /// when no child changed.
    pub fn map_children(&self, mut f: impl FnMut(&Expr) -> Expr) -> Expr {
        let mut changed = false;
        let mut m = |e: &Expr| {
            let n = f(e);
            changed |= !n.same_as(e);
            n
        };
        let kind = match self.kind() {
            ExprKind::IntImm(_)
            | ExprKind::UIntImm(_)
            | ExprKind::FloatImm(_)
            | ExprKind::Var(_)
            | ExprKind::RVar(..)
            | ExprKind::Param(..)
            | ExprKind::Invalid(_) => return self.clone(),
            ExprKind::Cast(a) => ExprKind::Cast(m(a)),
            ExprKind::Unary(op, a) => ExprKind::Unary(*op, m(a)),
            ExprKind::Broadcast(a) => ExprKind::Broadcast(m(a)),
            ExprKind::Binary(op, a, b) => {
                let (a, b) = (m(a), m(b));
                ExprKind::Binary(*op, a, b)
            }
            ExprKind::Ramp(a, b) => {
                let (a, b) = (m(a), m(b));
                ExprKind::Ramp(a, b)
            }
            ExprKind::Let(n, a, b) => {
                let (a, b) = (m(a), m(b));
                ExprKind::Let(*n, a, b)
            }
            ExprKind::Select(c, t, e) => {
                let (c, t, e) = (m(c), m(t), m(e));
                ExprKind::Select(c, t, e)
            }
            ExprKind::Load {
                buffer,
                index,
                predicate,
            } => {
                let index = m(index);
                let predicate = predicate.as_ref().map(&mut m);
                ExprKind::Load {
                    buffer: *buffer,
                    index,
                    predicate,
                }
            }
            ExprKind::Call {
                name,
                kind,
                args,
                value_index,
            } => ExprKind::Call {
                name: *name,
                kind: kind.clone(),
                args: args.iter().map(&mut m).collect(),
                value_index: *value_index,
            },
        };
        if !changed {
            return self.clone();
        }
        // Children may change type only if the caller keeps types consistent (e.g. the
        // vectorizer widens them); the node's own type follows its operands then.
        let ty = match &kind {
            ExprKind::Binary(op, a, _) if op.is_comparison() => {
                Type::bool_().with_lanes(a.ty().lanes)
            }
            ExprKind::Binary(_, a, _) | ExprKind::Unary(_, a) => a.ty(),
            ExprKind::Select(_, t, _) => t.ty(),
            ExprKind::Let(_, _, b) => b.ty(),
            _ => self.ty(),
        };
        Expr::new(ty, kind)
    }
}

/// Sign-extends the low `bits` bits of `v`.
pub fn sign_extend(v: u64, bits: u8) -> i64 {
    if bits >= 64 {
        return v as i64;
    }
    let shift = 64 - bits as u32;
    ((v << shift) as i64) >> shift
}

/// Keeps the low `bits` bits of `v`.
pub fn zero_extend(v: u64, bits: u8) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

/// Rounds `v` to the nearest value of a `bits`-wide float type (f16, f32 or f64).
pub fn round_to_float_type(v: f64, bits: u8) -> f64 {
    match bits {
        16 => super::float16::f16_from_f64(v).to_f64(),
        32 => v as f32 as f64,
        _ => v,
    }
}

#[cfg(test)]
mod tests {
    use super::BinaryOp::{self, *};

    /// `a op b` on plain integers, written out independently of the tables under test.
    fn holds(op: BinaryOp, a: i32, b: i32) -> bool {
        match op {
            Lt => a < b,
            Le => a <= b,
            Gt => a > b,
            Ge => a >= b,
            Eq => a == b,
            Ne => a != b,
            _ => unreachable!("{op:?} is not a comparison"),
        }
    }

    #[test]
    fn negated_and_swapped_comparisons_agree_with_integer_comparison() {
        for op in [Lt, Le, Gt, Ge, Eq, Ne] {
            let negated = op.negated_comparison().unwrap();
            let swapped = op.swapped_comparison().unwrap();
            for a in -2..=2 {
                for b in -2..=2 {
                    assert_eq!(holds(negated, a, b), !holds(op, a, b), "{op:?} {a} {b}");
                    assert_eq!(holds(swapped, b, a), holds(op, a, b), "{op:?} {a} {b}");
                }
            }
        }
        for op in [Add, Min, And, BitXor] {
            assert_eq!(op.negated_comparison(), None);
            assert_eq!(op.swapped_comparison(), None);
        }
    }
}
