//! `random_float(seeds)` and `random_int(seeds)` (Halide's): pseudo-random values that are
//! a pure function of where they are computed. A call is a placeholder until `define` or
//! `update` replaces it (`place_random`) by a hash of the Func's name, the stage, which
//! random call of the definition it is, the seeds and the definition's coordinates (its
//! pure Vars, and the reduction variables of an update), in u32 arithmetic. The values are
//! therefore ordinary expressions: bit-identical in the evaluator, the interpreter and native
//! code under every schedule, and the same in every process. One placeholder used twice in
//! a definition is one value (`r + r`); two calls are independent values.

use std::sync::atomic::{AtomicU64, Ordering};

use super::math::cast;
use crate::ir::visit::{mutate_exprs, visit_exprs};
use crate::ir::{BinaryOp, CallKind, Expr, ExprKind, Intrinsic, Symbol, Type};

/// A float uniformly distributed in `[0, 1)` (23 random mantissa bits), different at every
/// point of the Func it is defined in and for every value of the seeds (i32 or u32 Exprs).
pub fn random_float(seeds: &[Expr]) -> Expr {
    placeholder(Type::f32(), seeds)
}

/// An i32 whose 32 bits are uniformly random (see `random_float`).
pub fn random_int(seeds: &[Expr]) -> Expr {
    placeholder(Type::i32(), seeds)
}

/// The call `random(identity, seeds..)`: the identity tells calls apart until `place_random`
/// numbers them in the order a definition uses them.
fn placeholder(ty: Type, seeds: &[Expr]) -> Expr {
    static NEXT_IDENTITY: AtomicU64 = AtomicU64::new(0);
    let identity = NEXT_IDENTITY.fetch_add(1, Ordering::Relaxed);
    if let Some(bad) = seeds
        .iter()
        .find(|s| s.ty() != Type::i32() && s.ty() != Type::u32())
    {
        return Expr::invalid(
            ty,
            format!(
                "a random seed must be an i32 or u32 scalar, not {} ({bad})",
                bad.ty()
            ),
        );
    }
    let args = std::iter::once(Expr::u64_const(Type::u64(), identity))
        .chain(seeds.iter().cloned())
        .collect();
    Expr::intrinsic(ty, Intrinsic::Random, args)
}

/// `values` with each random placeholder replaced by its hash for the definition `stage`
/// (0 the pure one, k the k-th update) of Func `func`, whose coordinates are `coordinates`
/// (Var or RVar expressions).
pub(crate) fn place_random(
    func: Symbol,
    stage: usize,
    coordinates: &[Expr],
    values: &[Expr],
) -> Vec<Expr> {
    let mut identities: Vec<Expr> = Vec::new();
    let func_tag = fnv1a(func.as_str());
    values
        .iter()
        .map(|v| {
            mutate_exprs(v, &mut |e| {
                let ExprKind::Call {
                    kind: CallKind::Intrinsic(Intrinsic::Random),
                    args,
                    ..
                } = e.kind()
                else {
                    return None;
                };
                let ordinal = match identities.iter().position(|i| *i == args[0]) {
                    Some(k) => k,
                    None => {
                        identities.push(args[0].clone());
                        identities.len() - 1
                    }
                };
                let tags = [func_tag, stage as u32, ordinal as u32];
                let inputs: Vec<Expr> = args[1..].iter().chain(coordinates).cloned().collect();
                Some(random_value(e.ty(), &tags, &inputs))
            })
        })
        .collect()
}

/// The distinct Var and RVar nodes of `exprs`, in order of appearance: a definition's
/// coordinates.
pub(crate) fn coordinates_of<'a>(exprs: impl IntoIterator<Item = &'a Expr>) -> Vec<Expr> {
    let mut out: Vec<Expr> = Vec::new();
    for e in exprs {
        visit_exprs(e, &mut |n| {
            if matches!(n.kind(), ExprKind::Var(_) | ExprKind::RVar(..)) && !out.contains(n) {
                out.push(n.clone());
            }
            true
        });
    }
    out
}

/// The value of type `ty` (f32 or i32) the hash of `tags` and `inputs` gives.
fn random_value(ty: Type, tags: &[u32], inputs: &[Expr]) -> Expr {
    let bits = hash(tags, inputs);
    if ty.is_float() {
        // Exponent 0 and 23 random mantissa bits: a float in [1, 2), minus 1.
        let shift = Expr::u64_const(Type::u32(), 9);
        let one_exponent = Expr::u64_const(Type::u32(), 0x3f80_0000);
        let mantissa = Expr::binary(BinaryOp::Shr, bits, shift);
        let in_one_two = Expr::intrinsic(
            Type::f32(),
            Intrinsic::Reinterpret,
            vec![Expr::binary(BinaryOp::BitOr, mantissa, one_exponent)],
        );
        Expr::binary(BinaryOp::Sub, in_one_two, Expr::f32(1.0))
    } else {
        cast(ty, bits)
    }
}

const COEFFICIENTS: [u32; 3] = [576_942_909, 1_121_052_041, 1_040_796_640];

/// Halide's permutation of u32: the quadratic `(C2 x + C1) x + C0` modulo 2^32, a
/// permutation since C1 is odd and C2 even.
fn permute(x: u32) -> u32 {
    let [c0, c1, c2] = COEFFICIENTS;
    c2.wrapping_mul(x)
        .wrapping_add(c1)
        .wrapping_mul(x)
        .wrapping_add(c0)
}

/// Halide's hash: each input added to the running value, then permuted. The constant
/// inputs (`tags`, first) are hashed here; each other input doubles the expression's tree
/// (the permutation uses its argument twice), and definitions have few coordinates.
fn hash(tags: &[u32], inputs: &[Expr]) -> Expr {
    let u32_const = |v: u32| Expr::u64_const(Type::u32(), v as u64);
    let mut running = u32_const(tags.iter().fold(0, |h, &t| permute(h.wrapping_add(t))));
    for input in inputs {
        let x = Expr::binary(BinaryOp::Add, running, cast(Type::u32(), input.clone()));
        let [c0, c1, c2] = COEFFICIENTS.map(u32_const);
        let linear = Expr::binary(
            BinaryOp::Add,
            Expr::binary(BinaryOp::Mul, c2, x.clone()),
            c1,
        );
        running = Expr::binary(BinaryOp::Add, Expr::binary(BinaryOp::Mul, linear, x), c0);
    }
    running
}

/// FNV-1a of a name, folded to 32 bits.
fn fnv1a(name: &str) -> u32 {
    name.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ b as u32).wrapping_mul(0x0100_0193)
    })
}
