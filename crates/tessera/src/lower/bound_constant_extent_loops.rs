//! Constant extents for unrolled and vectorized loops (Halide's
//! `BoundConstantExtentLoops`): a loop the schedule unrolls or vectorizes whole may have an
//! extent that is a constant only once the lets around it are substituted (a producer
//! computed per tile of its consumer), or no constant at all but a constant upper bound (a
//! sliding producer computes fewer points after the first iteration, the last piece of a
//! `GuardWithIf` split is shorter), found with the enclosing loops' ranges. The extent becomes
//! that constant; with only an upper bound, the body is guarded by the loop's true extent.
//! Anything else is left for `unroll_loops` and `vectorize_loops` to refuse.

use crate::analysis::bounds::Scope;
use crate::analysis::constant_bound::constant_upper_bound;
use crate::analysis::Interval;
use crate::ir::substitute::{free_vars, substitute};
use crate::ir::visit::{node_count, reads_memory};
use crate::ir::{BinaryOp, Expr, ForKind, Stmt, StmtKind, Symbol, Type};
use crate::simplify::simplify;

/// The most copies of a body an upper bound may ask for: a bound found by interval
/// analysis can be far looser than the loop's real extent.
const MAX_BOUNDED_EXTENT: i128 = 1024;

/// An expanded extent bigger than this is not worth simplifying.
const MAX_EXPANDED_NODES: usize = 4096;

pub fn bound_constant_extent_loops(s: &Stmt) -> Stmt {
    bound_loops(s, &mut Vec::new(), &mut Scope::new())
}

/// `s` with its unrolled and vectorized loops bounded; `lets` holds the pure lets around it,
/// innermost last, and `loops` the ranges of the loop variables around it.
fn bound_loops(s: &Stmt, lets: &mut Vec<(Symbol, Expr)>, loops: &mut Scope) -> Stmt {
    match s.kind() {
        StmtKind::LetStmt { name, value, body } => {
            let pure = !reads_memory(value);
            if pure {
                lets.push((*name, value.clone()));
            }
            let body = bound_loops(body, lets, loops);
            if pure {
                lets.pop();
            }
            Stmt::let_stmt(*name, value.clone(), body)
        }
        StmtKind::For {
            name,
            min,
            extent,
            kind: kind @ (ForKind::Unrolled | ForKind::Vectorized),
            body,
        } if extent.as_int_const().is_none() => {
            let body = in_loop(*name, min, extent, loops, |loops| {
                bound_loops(body, lets, loops)
            });
            let Some(expanded) = expand(extent, lets) else {
                return Stmt::for_loop(*name, min.clone(), extent.clone(), *kind, body);
            };
            if expanded.as_int_const().is_some() {
                return Stmt::for_loop(*name, min.clone(), expanded, *kind, body);
            }
            let bound = constant_upper_bound(&expanded, loops)
                .filter(|&m| (1..=MAX_BOUNDED_EXTENT).contains(&m));
            let Some(bound) = bound else {
                return Stmt::for_loop(*name, min.clone(), extent.clone(), *kind, body);
            };
            // Iterations past the loop's true extent do nothing.
            let end = Expr::binary(BinaryOp::Add, min.clone(), extent.clone());
            let inside = Expr::binary(BinaryOp::Lt, Expr::var(*name, Type::i32()), end);
            let body = Stmt::if_then(inside, body);
            Stmt::for_loop(*name, min.clone(), Expr::i32(bound as i32), *kind, body)
        }
        StmtKind::For {
            name,
            min,
            extent,
            kind,
            body,
        } => {
            let body = in_loop(*name, min, extent, loops, |loops| {
                bound_loops(body, lets, loops)
            });
            Stmt::for_loop(*name, min.clone(), extent.clone(), *kind, body)
        }
        _ => s.map_children(|e| e.clone(), |c| bound_loops(c, lets, loops)),
    }
}

/// `visit(loops)` with the variable of the loop `name` over `[min, min + extent)` in `loops`.
fn in_loop<R>(
    name: Symbol,
    min: &Expr,
    extent: &Expr,
    loops: &mut Scope,
    visit: impl FnOnce(&mut Scope) -> R,
) -> R {
    let last = Expr::binary(
        BinaryOp::Sub,
        Expr::binary(BinaryOp::Add, min.clone(), extent.clone()),
        Expr::make_const(min.ty(), 1),
    );
    let outer = loops.insert(name, Interval::new(min.clone(), last));
    let out = visit(loops);
    match outer {
        Some(interval) => loops.insert(name, interval),
        None => loops.remove(name),
    };
    out
}

/// `e` with the lets it uses substituted, innermost first, simplified; `None` if that grows
/// too big.
fn expand(e: &Expr, lets: &[(Symbol, Expr)]) -> Option<Expr> {
    let mut e = simplify(e);
    let mut uses = free_vars(&e);
    for (name, value) in lets.iter().rev() {
        if !uses.contains(name) {
            continue;
        }
        e = simplify(&substitute(&e, *name, value));
        if node_count(&e) > MAX_EXPANDED_NODES {
            return None;
        }
        uses = free_vars(&e);
    }
    Some(e)
}
