//! Common-subexpression elimination (Halide's `CSE`) as a lowering pass: within each
//! statement's own expressions (a store's index and value together, an if's condition, a
//! loop's bounds, ...), every non-trivial subexpression computed more than once is computed
//! once, by a let of a fresh name just outside the statement, and used by that name. The
//! value numbering and what stays unshared are `ir::cse`'s; this pass says where each
//! expression is evaluated (conditionally, as an access's coordinates), and leaves
//! everything under an `Atomic` alone, whose loads belong to its read-modify-write.

use crate::ir::cse::{eliminate, Coordinates, FreshNames, Position};
use crate::ir::visit::{mutate_stmt_children, visit_stmts, Mutator};
use crate::ir::{Expr, MessagePart, Stmt, StmtKind};

/// `s` with the common subexpressions of each statement's expressions computed once.
pub fn common_subexpressions(s: &Stmt) -> Stmt {
    let mut names = FreshNames::default();
    visit_stmts(s, &mut |st| {
        if let StmtKind::LetStmt { name, .. } | StmtKind::For { name, .. } = st.kind() {
            names.taken.insert(*name);
        }
        st.for_each_child(|e| names.take_names_in(e), |_| {});
        true
    });
    CommonSubexpressions { names }.mutate_stmt(s)
}

struct CommonSubexpressions {
    names: FreshNames,
}

impl Mutator for CommonSubexpressions {
    fn mutate_stmt(&mut self, s: &Stmt) -> Stmt {
        if matches!(s.kind(), StmtKind::Atomic { .. }) {
            return s.clone();
        }
        let exprs = positioned_exprs(s);
        if exprs.is_empty() {
            return mutate_stmt_children(self, s);
        }
        let (lets, new_exprs) = eliminate(&exprs, Coordinates::Vector, &mut self.names);
        let mut new_exprs = new_exprs.into_iter();
        let rebuilt = s.map_children(
            |_| {
                new_exprs
                    .next()
                    .expect("one expression out per expression in")
            },
            |c| self.mutate_stmt(c),
        );
        lets.into_iter().rev().fold(rebuilt, |body, (name, value)| {
            Stmt::let_stmt(name, value, body)
        })
    }
}
/// The expressions of `s` itself (not of its child statements), in `Stmt::for_each_child`
/// order, with where each is evaluated.
fn positioned_exprs(s: &Stmt) -> Vec<(Expr, Position)> {
    let plain = Position::default();
    let mut exprs = Vec::new();
    match s.kind() {
        StmtKind::Store {
            index,
            value,
            predicate,
            ..
        } => {
            let conditional = predicate.is_some();
            exprs.push((
                index.clone(),
                Position {
                    conditional,
                    addressing: true,
                },
            ));
            exprs.push((
                value.clone(),
                Position {
                    conditional,
                    addressing: false,
                },
            ));
            if let Some(p) = predicate {
                exprs.push((
                    p.clone(),
                    Position {
                        conditional: false,
                        addressing: true,
                    },
                ));
            }
        }
        StmtKind::Assert { condition, message } => {
            exprs.push((condition.clone(), plain));
            for part in message {
                if let MessagePart::Value(v) = part {
                    let only_on_failure = Position {
                        conditional: true,
                        addressing: false,
                    };
                    exprs.push((v.clone(), only_on_failure));
                }
            }
        }
        StmtKind::Provide { args, values, .. } => {
            let index = Position {
                conditional: false,
                addressing: true,
            };
            exprs.extend(args.iter().map(|a| (a.clone(), index)));
            exprs.extend(values.iter().map(|v| (v.clone(), plain)));
        }
        _ => s.for_each_child(|e| exprs.push((e.clone(), plain)), |_| {}),
    }
    exprs
}
