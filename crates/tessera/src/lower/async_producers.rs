//! Asynchronous producers (`Func::async_`, Halide's `AsyncProducers.cpp`): the body of an
//! async Func's realization becomes a `Fork` of two copies of it. The producer's side keeps
//! the Func's productions, and the loops and lets around them, releasing a unit of the
//! semaphore `f.semaphore` after each; the consumer's side keeps everything else, each
//! production replaced by the acquire of a unit, so it reads nothing not yet produced.
//! Where the Func's storage is folded, its folding semaphore (one per folded dimension,
//! holding the fold factor) guards the fold's coordinates: the producer acquires those each
//! iteration of the fold's loop starts using, the consumer releases those it is done with
//! (`storage_folding::FoldWindow`), so the producer never overwrites what the consumer has
//! yet to read. A wait for another semaphore inside the realization (the production of an
//! outer async Func) is made by the producer's side, which relays it to the consumer's
//! through a semaphore of their own, so both sides wait at the same point.
//!
//! Outer realizations fork first; the async Funcs realized inside each side fork within it.
//! What a side is left with nothing to do in (a loop around the other side's work) the
//! simplifier removes.

use std::collections::HashSet;

use super::realization_order::Environment;
use super::storage_folding::FoldWindow;
use crate::ir::substitute::substitute;
use crate::ir::visit::{any_node, visit_stmts};
use crate::ir::{BinaryOp, Expr, ExprKind, Stmt, StmtKind, Symbol};
use crate::simplify::simplify;

/// `s` with the realization of every async Func forked, `windows` the folds of async Funcs
/// that storage folding made.
pub fn async_producers(s: &Stmt, env: &Environment, windows: &[FoldWindow]) -> Stmt {
    match s.kind() {
        StmtKind::Realize {
            func,
            types,
            bounds,
            body,
        } if env.func(*func).read().schedule.async_producer => {
            let fork = Fork::of(*func, windows);
            let body = async_producers(&fork.stmt(body), env, windows);
            Stmt::new(StmtKind::Realize {
                func: *func,
                types: types.clone(),
                bounds: bounds.clone(),
                body: fork.declare_semaphores(body),
            })
        }
        _ => s.map_children(|e| e.clone(), |c| async_producers(c, env, windows)),
    }
}

/// The fork of one async Func's realization.
struct Fork<'a> {
    func: Symbol,
    /// Released once per production, acquired by the consumer before it goes on.
    produced: Symbol,
    /// The folding semaphores, with the windows they guard.
    folds: Vec<(Symbol, &'a FoldWindow)>,
    /// Relays to the consumer's side the waits for other semaphores made by the producer's.
    relay: Symbol,
}

impl<'a> Fork<'a> {
    fn of(func: Symbol, windows: &'a [FoldWindow]) -> Fork<'a> {
        let folds = windows
            .iter()
            .filter(|w| w.func == func)
            .map(|w| {
                (
                    Symbol::new(&format!("{func}.folding_semaphore.{}", w.dim)),
                    w,
                )
            })
            .collect();
        Fork {
            func,
            produced: Symbol::new(&format!("{func}.semaphore")),
            folds,
            relay: Symbol::new(&format!("{func}.relay_semaphore")),
        }
    }

    /// `body` forked into the producer's side and the consumer's.
    fn stmt(&self, body: &Stmt) -> Stmt {
        let body = self.guard_folds(body);
        Stmt::new(StmtKind::Fork {
            first: self.producer_side(&body),
            rest: self.consumer_side(&body),
        })
    }

    /// `body` inside the declarations of the fork's semaphores (the relay's only where a
    /// wait is relayed).
    fn declare_semaphores(&self, body: Stmt) -> Stmt {
        let mut seen = HashSet::new();
        let folds = self
            .folds
            .iter()
            .filter(|(name, _)| seen.insert(*name))
            .map(|(name, w)| (*name, w.factor));
        let relay = uses_semaphore(&body, self.relay).then_some((self.relay, 0));
        [(self.produced, 0)]
            .into_iter()
            .chain(relay)
            .chain(folds)
            .fold(body, |body, (name, initial)| {
                Stmt::new(StmtKind::Semaphore {
                    name,
                    initial: Expr::i32(initial),
                    body,
                })
            })
    }

    fn is_fold_semaphore(&self, name: Symbol) -> bool {
        self.folds.iter().any(|(s, _)| *s == name)
    }

    /// Each loop a fold is made over, with every iteration first acquiring the coordinates
    /// of its window beyond the previous iteration's (all of it on the first), and last
    /// releasing those the next iteration no longer uses (all of it on the last). The
    /// windows only move forward (one moving backwards is given mirrored, see `FoldWindow`),
    /// so the coordinates held never exceed the fold factor.
    fn guard_folds(&self, s: &Stmt) -> Stmt {
        let s = s.map_children(|e| e.clone(), |c| self.guard_folds(c));
        let StmtKind::For {
            name,
            min,
            extent,
            kind,
            body,
        } = s.kind()
        else {
            return s;
        };
        let windows: Vec<_> = self
            .folds
            .iter()
            .filter(|(_, w)| w.loop_var == *name)
            .collect();
        if windows.is_empty() {
            return s;
        }
        let v = Expr::var(*name, min.ty());
        let shifted = |e: &Expr, by: i32| {
            substitute(
                e,
                *name,
                &Expr::binary(BinaryOp::Add, v.clone(), Expr::i32(by)),
            )
        };
        let sub = |a: Expr, b: Expr| Expr::binary(BinaryOp::Sub, a, b);
        let last = sub(
            Expr::binary(BinaryOp::Add, min.clone(), extent.clone()),
            Expr::i32(1),
        );
        let mut acquires = Vec::new();
        let mut releases = Vec::new();
        for (semaphore, w) in windows {
            let whole = Expr::binary(BinaryOp::Add, sub(w.hi.clone(), w.lo.clone()), Expr::i32(1));
            let newly_used = sub(w.hi.clone(), shifted(&w.hi, -1));
            let done_with = sub(shifted(&w.lo, 1), w.lo.clone());
            let not_first = Expr::binary(BinaryOp::Gt, v.clone(), min.clone());
            let not_last = Expr::binary(BinaryOp::Lt, v.clone(), last.clone());
            acquires.push(Stmt::new(StmtKind::Acquire {
                semaphore: *semaphore,
                count: simplify(&Expr::select(not_first, newly_used, whole.clone())),
            }));
            releases.push(Stmt::new(StmtKind::Release {
                semaphore: *semaphore,
                count: simplify(&Expr::select(not_last, done_with, whole)),
            }));
        }
        let body = Stmt::block(acquires.into_iter().chain([body.clone()]).chain(releases));
        Stmt::for_loop(*name, min.clone(), extent.clone(), *kind, body)
    }

    /// The productions of the Func, each followed by a release of `produced`, with the
    /// loops, lets and conditions around them, the fold acquires, and the waits for other
    /// semaphores (relayed to the consumer).
    fn producer_side(&self, s: &Stmt) -> Stmt {
        match s.kind() {
            StmtKind::ProducerConsumer {
                name,
                is_producer: true,
                ..
            } if *name == self.func => Stmt::block([
                s.clone(),
                Stmt::new(StmtKind::Release {
                    semaphore: self.produced,
                    count: Expr::i32(1),
                }),
            ]),
            StmtKind::Acquire { semaphore, .. } if self.is_fold_semaphore(*semaphore) => s.clone(),
            StmtKind::Acquire { count, .. } => Stmt::block([
                s.clone(),
                Stmt::new(StmtKind::Release {
                    semaphore: self.relay,
                    count: count.clone(),
                }),
            ]),
            StmtKind::Realize { func, body, .. } => {
                let body = self.producer_side(body);
                if uses_func(&body, *func) {
                    s.map_children(|e| e.clone(), |_| body.clone())
                } else {
                    body
                }
            }
            StmtKind::LetStmt { .. }
            | StmtKind::For { .. }
            | StmtKind::IfThenElse { .. }
            | StmtKind::Block(_)
            | StmtKind::ProducerConsumer { .. }
            | StmtKind::Semaphore { .. }
            | StmtKind::Fork { .. }
            | StmtKind::Atomic { .. }
            | StmtKind::Allocate { .. } => s.map_children(|e| e.clone(), |c| self.producer_side(c)),
            StmtKind::Assert { .. }
            | StmtKind::Store { .. }
            | StmtKind::Provide { .. }
            | StmtKind::Free { .. }
            | StmtKind::Evaluate(_)
            | StmtKind::Prefetch { .. }
            | StmtKind::Release { .. } => Stmt::empty(),
        }
    }

    /// Everything but the productions, each replaced by the acquire of a unit of
    /// `produced`, and the fold acquires; the waits for other semaphores relayed.
    fn consumer_side(&self, s: &Stmt) -> Stmt {
        match s.kind() {
            StmtKind::ProducerConsumer {
                name,
                is_producer: true,
                ..
            } if *name == self.func => Stmt::new(StmtKind::Acquire {
                semaphore: self.produced,
                count: Expr::i32(1),
            }),
            StmtKind::Acquire { semaphore, .. } if self.is_fold_semaphore(*semaphore) => {
                Stmt::empty()
            }
            StmtKind::Acquire { count, .. } => Stmt::new(StmtKind::Acquire {
                semaphore: self.relay,
                count: count.clone(),
            }),
            _ => s.map_children(|e| e.clone(), |c| self.consumer_side(c)),
        }
    }
}

/// Whether `s` acquires or releases `semaphore`.
fn uses_semaphore(s: &Stmt, semaphore: Symbol) -> bool {
    let mut used = false;
    visit_stmts(s, &mut |c| {
        used |= matches!(c.kind(),
            StmtKind::Acquire { semaphore: name, .. } | StmtKind::Release { semaphore: name, .. }
                if *name == semaphore);
        !used
    });
    used
}

/// Whether `s` computes, stores to or reads `func`.
fn uses_func(s: &Stmt, func: Symbol) -> bool {
    let mut used = false;
    visit_stmts(s, &mut |c| {
        used |= matches!(c.kind(),
            StmtKind::Provide { func: name, .. } | StmtKind::ProducerConsumer { name, .. }
                if *name == func);
        c.for_each_child(
            |e| {
                used = used
                    || any_node(
                        e,
                        |n| matches!(n.kind(), ExprKind::Call { name, .. } if *name == func),
                    )
            },
            |_| {},
        );
        !used
    });
    used
}
