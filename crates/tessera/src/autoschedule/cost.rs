//! The per-point cost of each stage: the operations one evaluation of its definition performs,
//! counted on its expressions (equal subexpressions are counted once, as common subexpression
//! elimination computes them once: `Ix(x, y) * Ix(x, y)` is one load and a multiply):
//! arithmetic by kind and element type (the type gives the vector width class, `lanes_in`),
//! loads per producer, and calls of transcendental and other math functions. Subexpressions
//! of constants and parameters alone are not counted: lowering hoists them out of the loops
//! (`hoist_loop_invariants`), so they cost nothing per point.

use std::collections::{BTreeMap, HashSet};

use super::graph::Producer;
use crate::ir::visit::any_node;
use crate::ir::{BinaryOp, CallKind, Expr, ExprKind, Intrinsic, Symbol, Type};
use crate::lang::function::Definition;

/// What an arithmetic operation costs, roughly, on a vector unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpKind {
    /// Addition, subtraction, negation, min, max, comparisons, logic, bitwise operations,
    /// shifts, selects.
    Simple,
    /// Multiplication.
    Multiply,
    /// Division and modulo.
    Divide,
    /// Conversions between types.
    Cast,
    /// Math functions computed by a few vector instructions (abs, floor, sqrt, lerp, ...).
    Intrinsic,
    /// Math functions computed by a libm call for each lane (exp, log, sin, pow, ...).
    Transcendental,
}

/// The operations of one point of a stage.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StageCost {
    /// The number of operations of each kind, by element type.
    pub ops: BTreeMap<(OpKind, Type), u32>,
    /// The number of values loaded from each producer (other Funcs and input images).
    pub loads: BTreeMap<Producer, u32>,
    /// The number of values an update loads of its own Func.
    pub self_loads: u32,
    /// The number of values stored (one per Tuple element stored).
    pub stores: u32,
}

impl StageCost {
    /// The counts of `definition` of Func `func` (`images`: the input images' names).
    pub fn of(func: Symbol, definition: &Definition, images: &HashSet<Symbol>) -> StageCost {
        let mut cost = StageCost {
            stores: definition.values.len() as u32,
            ..StageCost::default()
        };
        #[allow(clippy::mutable_key_type)] // structural keys: see `count_tree`
        let mut seen = HashSet::new();
        let exprs = (definition.args.iter())
            .chain(&definition.values)
            .chain(&definition.guard);
        for e in exprs {
            cost.count_tree(func, e, images, &mut seen);
        }
        cost
    }

    /// Counts the nodes of `e` not `seen` yet (compared by structure, not identity). A call's
    /// coordinates count only when they read data: affine coordinates become addressing,
    /// which loops strength-reduce.
    // `Expr` keys are sound: hashing and equality are structural and ignore the Func and RDom
    // links (the interior mutability clippy sees).
    #[allow(clippy::mutable_key_type)]
    fn count_tree(
        &mut self,
        func: Symbol,
        e: &Expr,
        images: &HashSet<Symbol>,
        seen: &mut HashSet<Expr>,
    ) {
        if !seen.insert(e.clone()) || is_loop_invariant(e) {
            return;
        }
        self.count_node(func, e, images);
        match e.kind() {
            ExprKind::Call {
                kind: CallKind::Func(_) | CallKind::Image(_),
                args,
                ..
            } => {
                for a in args.iter().filter(|a| reads_data(a)) {
                    self.count_tree(func, a, images, seen);
                }
            }
            _ => e.for_each_child(|c| self.count_tree(func, c, images, seen)),
        }
    }

    /// Counts node `n` alone.
    fn count_node(&mut self, func: Symbol, n: &Expr, images: &HashSet<Symbol>) {
        let ty = n.ty().element();
        let kind = match n.kind() {
            ExprKind::Binary(BinaryOp::Mul, ..) => Some(OpKind::Multiply),
            ExprKind::Binary(BinaryOp::Div | BinaryOp::Mod, ..) => Some(OpKind::Divide),
            ExprKind::Binary(..) | ExprKind::Unary(..) | ExprKind::Select(..) => {
                Some(OpKind::Simple)
            }
            ExprKind::Cast(_) => Some(OpKind::Cast),
            ExprKind::Call {
                kind: CallKind::Intrinsic(i),
                ..
            } => intrinsic_kind(*i),
            ExprKind::Call { name, .. } => {
                if *name == func {
                    self.self_loads += 1;
                } else {
                    let producer = match images.contains(name) {
                        true => Producer::Image(*name),
                        false => Producer::Func(*name),
                    };
                    *self.loads.entry(producer).or_default() += 1;
                }
                None
            }
            _ => None,
        };
        if let Some(kind) = kind {
            *self.ops.entry((kind, ty)).or_default() += 1;
        }
    }

    /// The number of operations of kind `kind`, of any type.
    pub fn count_of(&self, kind: OpKind) -> u32 {
        (self.ops.iter())
            .filter(|((k, _), _)| *k == kind)
            .map(|(_, n)| n)
            .sum()
    }

    /// The number of values loaded from other Funcs and inputs.
    pub fn total_loads(&self) -> u32 {
        self.loads.values().sum()
    }

    /// The operations by vector width class: the number of lanes of each operation's element
    /// type in a vector of `vector_bits` bits (32 lanes of u8 in 256 bits, 8 of f32).
    pub fn ops_by_lanes(&self, vector_bits: u32) -> BTreeMap<u32, u32> {
        let mut by_lanes = BTreeMap::new();
        for ((_, ty), n) in &self.ops {
            *by_lanes.entry(lanes_in(*ty, vector_bits)).or_default() += n;
        }
        by_lanes
    }
}

/// How many lanes of `ty`'s element type a vector of `vector_bits` bits holds (bools count as
/// bytes).
pub fn lanes_in(ty: Type, vector_bits: u32) -> u32 {
    let bits = u32::from(ty.bits).max(8);
    (vector_bits / bits).max(1)
}

/// What an intrinsic costs, or `None` for markers that compute nothing.
fn intrinsic_kind(i: Intrinsic) -> Option<OpKind> {
    use Intrinsic::*;
    match i {
        Exp | Log | Pow | Sin | Cos | Tan | Asin | Acos | Atan | Atan2 | Sinh | Cosh | Tanh
        | Hypot => Some(OpKind::Transcendental),
        Sqrt | Abs | Absd | Floor | Ceil | Round | Trunc | IsNan | IsInf | IsFinite
        | SaturatingCast | Lerp | PopCount | CountLeadingZeros | CountTrailingZeros
        | Interleave => Some(OpKind::Intrinsic),
        Reinterpret
        | Likely
        | LikelyIfInnermost
        | Undef
        | PromiseClamped
        | Require { .. }
        | Print { .. }
        | Random
        | MemoizeLookup { .. }
        | MemoizeStore { .. }
        | MemoizeTag => None,
    }
}

/// Whether `e` has the same value at every point of every loop: it reads no variable (of a
/// loop, a reduction or a let), no data, and draws no random number.
fn is_loop_invariant(e: &Expr) -> bool {
    !any_node(e, |n| match n.kind() {
        ExprKind::Var(_) | ExprKind::RVar(..) | ExprKind::Load { .. } => true,
        ExprKind::Call { kind, .. } => matches!(
            kind,
            CallKind::Func(_)
                | CallKind::Image(_)
                | CallKind::Intrinsic(
                    Intrinsic::Random | Intrinsic::Print { .. } | Intrinsic::Require { .. }
                )
        ),
        _ => false,
    })
}

/// Whether `e` loads values (calls a Func or an image).
pub fn reads_data(e: &Expr) -> bool {
    any_node(e, |n| {
        matches!(
            n.kind(),
            ExprKind::Call {
                kind: CallKind::Func(_) | CallKind::Image(_),
                ..
            }
        )
    })
}
