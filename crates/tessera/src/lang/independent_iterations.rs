//! Whether the iterations of a reduction loop are independent (Halide's
//! `can_parallelize_rvar`): two iterations with different values of the loop's reduction
//! variables — everything else, other RVars and pure Vars included, free to differ — never
//! store to the same point of the Func, and neither reads a point the other stores. Such a
//! loop may run in parallel or as vector lanes, or move against the other reduction loops.
//!
//! The proof works one coordinate at a time. Two accesses of the Func never meet when, in
//! some coordinate, both are `c * r + k` over the same invariant terms (Params and constants,
//! the same in every iteration) and constants `k` for which `c * (r - r') = k' - k` has no
//! solution with `0 < |r - r'|` under the RVar's extent. It is solved modulo 2^bits, so a
//! coordinate that wraps is no loophole. A store is checked against itself (`2 * r` never
//! stores twice to a point) and against every read (`2 * r + 1` never reads `2 * r'`).

use std::collections::HashMap;

use super::function::Definition;
use super::schedule::{SplitDirective, StageSchedule};
use crate::ir::visit::visit_exprs;
use crate::ir::{CallKind, Expr, ExprKind, Symbol};
use crate::simplify::LinearForm;

/// The reduction variables whose values loop `loop_name` of `s` iterates: the RVar it was
/// split from, or every RVar fused into it. Empty if it is not a reduction loop.
pub(crate) fn loop_rvars(s: &StageSchedule, def: &Definition, loop_name: Symbol) -> Vec<Symbol> {
    let mut origins: HashMap<Symbol, Vec<Symbol>> = rdom_vars(def).map(|v| (v, vec![v])).collect();
    for directive in &s.splits {
        match directive {
            SplitDirective::Split {
                old, outer, inner, ..
            } => {
                let from = origins.get(old).cloned().unwrap_or_default();
                origins.insert(*outer, from.clone());
                origins.insert(*inner, from);
            }
            SplitDirective::Fuse {
                inner,
                outer,
                fused,
            } => {
                let mut from = origins.get(inner).cloned().unwrap_or_default();
                from.extend(origins.get(outer).into_iter().flatten().copied());
                origins.insert(*fused, from);
            }
        }
    }
    origins.remove(&loop_name).unwrap_or_default()
}

/// The reduction variables of `def`'s domain.
pub(crate) fn rdom_vars(def: &Definition) -> impl Iterator<Item = Symbol> + '_ {
    def.rdom.iter().flat_map(|r| r.vars.iter().map(|v| v.name))
}

/// `Ok` when iterations of update `def` of `func` that differ in any of `rvars` are
/// independent; otherwise why that could not be proved, naming the RVar and the access.
pub(crate) fn check_independent(
    def: &Definition,
    func: Symbol,
    rvars: &[Symbol],
) -> Result<(), String> {
    let reads = reads_of(def, func);
    let point = |args: &[Expr]| {
        let coords: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        format!("{func}({})", coords.join(", "))
    };
    for &rvar in rvars {
        let max_step = max_step(def, rvar);
        let separated = |access: &[Expr]| {
            def.args
                .iter()
                .zip(access)
                .any(|(stored, accessed)| never_meet(stored, accessed, rvar, max_step))
        };
        if !separated(&def.args) {
            return Err(format!(
                "two values of {rvar} may store to the same point {}: no coordinate is {rvar} times a constant plus terms every iteration shares",
                point(&def.args)
            ));
        }
        if let Some(read) = reads.iter().find(|read| !separated(read)) {
            return Err(format!(
                "an iteration reads {}, which another value of {rvar} may store",
                point(read)
            ));
        }
    }
    Ok(())
}

/// The coordinates of every read of `func` that an iteration of the update makes (in its
/// coordinates, values, store condition and domain's predicates).
fn reads_of(def: &Definition, func: Symbol) -> Vec<Vec<Expr>> {
    let mut reads = Vec::new();
    for e in def.pointwise_exprs() {
        visit_exprs(e, &mut |n| {
            if let ExprKind::Call {
                name,
                kind: CallKind::Func(_),
                args,
                ..
            } = n.kind()
            {
                if *name == func {
                    reads.push(args.clone());
                }
            }
            true
        });
    }
    reads
}

/// The largest `|r - r'|` of two values of `rvar`: its extent less one when constant, else
/// what any 32-bit extent allows.
fn max_step(def: &Definition, rvar: Symbol) -> i128 {
    def.rdom
        .iter()
        .flat_map(|r| &r.vars)
        .find(|v| v.name == rvar)
        .and_then(|v| v.extent.as_int_const())
        .map_or(i128::from(i32::MAX) - 1, |extent| (extent - 1).max(0))
}

/// Whether coordinate `stored` of one iteration never equals coordinate `accessed` of an
/// iteration with a different value of `rvar` (at most `max_step` away).
fn never_meet(stored: &Expr, accessed: &Expr, rvar: Symbol, max_step: i128) -> bool {
    let ty = stored.ty();
    if ty != accessed.ty() || !ty.is_int_or_uint() || !ty.is_scalar() || ty.bits > 32 {
        return false;
    }
    let (Some(s), Some(a)) = (LinearForm::of(stored), LinearForm::of(accessed)) else {
        return false;
    };
    let coefficient = |form: &LinearForm| {
        form.terms
            .iter()
            .find(|(atom, _)| is_rvar(atom, rvar))
            .map_or(0, |(_, c)| *c)
    };
    let shared_otherwise = |form: &LinearForm| {
        form.terms
            .iter()
            .all(|(atom, _)| is_rvar(atom, rvar) || is_invariant(atom))
    };
    if coefficient(&s) != coefficient(&a) || !shared_otherwise(&s) || !shared_otherwise(&a) {
        return false;
    }
    match s.minus(&a) {
        Some(difference) if difference.terms.is_empty() => {
            !has_nonzero_step(coefficient(&s), difference.constant, ty.bits, max_step)
        }
        _ => false,
    }
}

fn is_rvar(e: &Expr, rvar: Symbol) -> bool {
    matches!(e.kind(), ExprKind::RVar(r, _) if *r == rvar)
}

/// Whether `e` has the same value in every iteration: it reads no variable and no memory.
fn is_invariant(e: &Expr) -> bool {
    let mut invariant = true;
    visit_exprs(e, &mut |n| {
        invariant &= !matches!(
            n.kind(),
            ExprKind::Var(_)
                | ExprKind::RVar(..)
                | ExprKind::Let(..)
                | ExprKind::Load { .. }
                | ExprKind::Call { .. }
        );
        invariant
    });
    invariant
}

/// Whether `coefficient * step ≡ difference (mod 2^bits)` for some `step` with
/// `0 < |step| <= max_step`.
fn has_nonzero_step(coefficient: i128, difference: i128, bits: u8, max_step: i128) -> bool {
    if max_step < 1 {
        return false;
    }
    let modulus = 1i128 << bits;
    let (c, d) = (
        coefficient.rem_euclid(modulus),
        difference.rem_euclid(modulus),
    );
    if c == 0 {
        return d == 0;
    }
    // c = 2^twos * odd: solvable only if 2^twos divides d, and then every solution is
    // `base + k * period` for the period 2^(bits - twos).
    let twos = c.trailing_zeros();
    if d % (1i128 << twos) != 0 {
        return false;
    }
    let period = modulus >> twos;
    let base = ((d >> twos) * inverse_of_odd(c >> twos, period)).rem_euclid(period);
    let nearest = if base == 0 {
        period
    } else {
        base.min(period - base)
    };
    nearest <= max_step
}

/// The inverse of odd `u` modulo `period`, a power of two up to 2^32 (Newton's iteration,
/// each step doubling the correct low bits from the 3 that `u * u ≡ 1 (mod 8)` gives).
fn inverse_of_odd(u: i128, period: i128) -> i128 {
    let u = u as u64;
    let mut x = u;
    for _ in 0..5 {
        x = x.wrapping_mul(2u64.wrapping_sub(u.wrapping_mul(x)));
    }
    i128::from(x) & (period - 1)
}

#[cfg(test)]
mod tests {
    use super::has_nonzero_step;

    /// Brute force over every step, for small moduli where that is cheap.
    fn brute(c: i128, d: i128, bits: u8, max_step: i128) -> bool {
        let m = 1i128 << bits;
        (1..=max_step).any(|s| (c * s - d).rem_euclid(m) == 0 || (-c * s - d).rem_euclid(m) == 0)
    }

    #[test]
    fn steps_agree_with_brute_force() {
        for bits in [4u8, 6, 8] {
            let m = 1i128 << bits;
            for c in -m..m {
                for d in [-5i128, -1, 0, 1, 2, 3, 7, 16, 100] {
                    for max_step in [0i128, 1, 2, 5, 15, 40, 300] {
                        assert_eq!(
                            has_nonzero_step(c, d, bits, max_step),
                            brute(c, d, bits, max_step),
                            "c {c} d {d} bits {bits} max_step {max_step}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn multiples_of_the_rvar_are_injective_at_32_bits() {
        // 2r and 5r never repeat over 16 values; 2r + 1 never meets 2r'.
        assert!(!has_nonzero_step(2, 0, 32, 15));
        assert!(!has_nonzero_step(5, 0, 32, 15));
        assert!(!has_nonzero_step(2, 1, 32, 15));
        // r + 20 is beyond 12 values of r; r - 1 is not.
        assert!(!has_nonzero_step(1, 20, 32, 11));
        assert!(has_nonzero_step(1, 1, 32, 11));
        // 4r wraps after 2^30 values, which an unknown 32-bit extent allows.
        assert!(has_nonzero_step(4, 0, 32, i128::from(i32::MAX) - 1));
        assert!(!has_nonzero_step(2, 0, 32, i128::from(i32::MAX) - 1));
    }
}
