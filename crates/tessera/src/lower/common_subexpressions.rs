//! Common-subexpression elimination (Halide's `CSE`) as a lowering pass: within each
//! statement's own expressions (a store's index and value together, an if's condition, a
//! loop's bounds, ...), every non-trivial subexpression computed more than once is computed
//! once, by a let of a fresh name just outside the statement, and used by that name. A
//! subexpression that an enclosing let already computes (a let of the program, or one this
//! pass made for an enclosing statement) uses that let's name, so one value gets one name
//! however many statements compute it. The value numbering and what stays unshared are
//! `ir::cse`'s; this pass says where each expression is evaluated (conditionally, as an
//! access's coordinates), and leaves everything under an `Atomic` alone, whose loads belong
//! to its read-modify-write.

use std::collections::HashMap;

use crate::ir::cse::{eliminate, Coordinates, FreshNames, Position, MAX_BOUND_VALUE_NODES};
use crate::ir::substitute::free_vars;
use crate::ir::visit::{
    mutate_stmt_children, prints, reads_memory, tree_nodes_within, visit_stmts, Mutator,
};
use crate::ir::{Expr, MessagePart, Stmt, StmtKind, Symbol};

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
    CommonSubexpressions {
        names,
        bound: BoundValues::default(),
    }
    .mutate_stmt(s)
}

struct CommonSubexpressions {
    names: FreshNames,
    bound: BoundValues,
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
        let (lets, new_exprs) = eliminate(
            &exprs,
            Coordinates::Vector,
            &mut self.names,
            &self.bound.by_value,
        );
        let scope = self.bound.enter();
        for l in &lets {
            self.bound.bind(l.name, Some(&l.expanded));
        }
        match s.kind() {
            StmtKind::LetStmt { name, value, .. } => self.bound.bind(*name, Some(value)),
            StmtKind::For { name, .. } => self.bound.bind(*name, None),
            _ => {}
        }
        let mut new_exprs = new_exprs.into_iter();
        let rebuilt = s.map_children(
            |_| {
                new_exprs
                    .next()
                    .expect("one expression out per expression in")
            },
            |c| self.mutate_stmt(c),
        );
        self.bound.leave(scope);
        lets.into_iter()
            .rev()
            .fold(rebuilt, |body, l| Stmt::let_stmt(l.name, l.value, body))
    }
}

/// The values the enclosing lets bind, written out in full, by the names that hold them
/// (the outermost name where several hold one value). Values that read memory are left out,
/// as a store between the let and a later use may change them, and so are values that print,
/// which print once per evaluation.
#[derive(Default)]
struct BoundValues {
    by_value: HashMap<Expr, Symbol>,
    /// The free variables of each value in `by_value`, so that a new binding of one of them
    /// (or of the name) ends the value's entry.
    free: HashMap<Expr, Vec<Symbol>>,
    /// How many entries name each variable, as a value's free variable or as its name.
    mentions: HashMap<Symbol, usize>,
    /// What was inserted and removed, to be undone when the scope that did it ends.
    undo: Vec<Change>,
}

enum Change {
    Inserted(Expr),
    Removed(Expr, Symbol, Vec<Symbol>),
}

impl BoundValues {
    /// A mark to `leave` at the end of a scope.
    fn enter(&self) -> usize {
        self.undo.len()
    }

    /// Undoes every change since `mark`.
    fn leave(&mut self, mark: usize) {
        while self.undo.len() > mark {
            match self.undo.pop().expect("a change past the mark") {
                Change::Inserted(value) => {
                    let name = self.by_value.remove(&value).expect("an inserted entry");
                    let free = self.free.remove(&value).expect("an inserted entry");
                    self.forget_mentions(name, &free);
                }
                Change::Removed(value, name, free) => {
                    self.remember_mentions(name, &free);
                    self.by_value.insert(value.clone(), name);
                    self.free.insert(value, free);
                }
            }
        }
    }

    /// `name` bound (to `value`, if it is worth looking up): entries naming an earlier
    /// binding of `name` end, and `value` gets an entry.
    fn bind(&mut self, name: Symbol, value: Option<&Expr>) {
        if self.mentions.get(&name).is_some_and(|&n| n > 0) {
            let stale: Vec<Expr> = self
                .by_value
                .iter()
                .filter(|(v, n)| **n == name || self.free[*v].contains(&name))
                .map(|(v, _)| v.clone())
                .collect();
            for v in stale {
                let n = self.by_value.remove(&v).expect("a stale entry");
                let free = self.free.remove(&v).expect("a stale entry");
                self.forget_mentions(n, &free);
                self.undo.push(Change::Removed(v, n, free));
            }
        }
        let Some(value) = value else { return };
        if self.by_value.contains_key(value)
            || !tree_nodes_within([value], MAX_BOUND_VALUE_NODES)
            || reads_memory(value)
            || prints(value)
        {
            return;
        }
        let free: Vec<Symbol> = free_vars(value).into_iter().collect();
        if free.contains(&name) {
            return;
        }
        self.remember_mentions(name, &free);
        self.by_value.insert(value.clone(), name);
        self.free.insert(value.clone(), free);
        self.undo.push(Change::Inserted(value.clone()));
    }

    fn remember_mentions(&mut self, name: Symbol, free: &[Symbol]) {
        for v in free.iter().chain([&name]) {
            *self.mentions.entry(*v).or_default() += 1;
        }
    }

    fn forget_mentions(&mut self, name: Symbol, free: &[Symbol]) {
        for v in free.iter().chain([&name]) {
            if let Some(n) = self.mentions.get_mut(v) {
                *n -= 1;
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinaryOp, ForKind, Type};

    fn var(name: &str) -> Expr {
        Expr::var(Symbol::new(name), Type::i32())
    }
    fn mul(a: &Expr, b: &Expr) -> Expr {
        Expr::binary(BinaryOp::Mul, a.clone(), b.clone())
    }
    fn add(a: &Expr, b: &Expr) -> Expr {
        Expr::binary(BinaryOp::Add, a.clone(), b.clone())
    }
    fn store(buffer: &str, index: Expr, value: Expr) -> Stmt {
        Stmt::new(StmtKind::Store {
            buffer: Symbol::new(buffer),
            index,
            value,
            predicate: None,
        })
    }
    /// The values of the stores in `s`, in order.
    fn stored_values(s: &Stmt) -> Vec<Expr> {
        let mut values = Vec::new();
        visit_stmts(s, &mut |st| {
            if let StmtKind::Store { value, .. } = st.kind() {
                values.push(value.clone());
            }
            true
        });
        values
    }

    #[test]
    fn a_value_an_enclosing_let_computes_is_used_by_its_name() {
        let (x, y, z) = (var("x"), var("y"), var("z"));
        let xyz = add(&mul(&x, &y), &z);
        let s = Stmt::let_stmt(
            Symbol::new("a"),
            xyz.clone(),
            store("out", Expr::i32(0), mul(&xyz, &Expr::i32(3))),
        );
        let out = common_subexpressions(&s);
        assert_eq!(
            stored_values(&out),
            vec![mul(&var("a"), &Expr::i32(3))],
            "{out}"
        );
    }

    #[test]
    fn a_let_made_for_one_statement_serves_the_statements_inside_it() {
        // The loop's bounds compute x * y + z twice: a let made for them is in scope in the
        // body, whose store uses it too.
        let (x, y, z) = (var("x"), var("y"), var("z"));
        let xyz = add(&mul(&x, &y), &z);
        let i = Symbol::new("i");
        let body = store("out", Expr::var(i, Type::i32()), add(&xyz, &Expr::i32(1)));
        let s = Stmt::for_loop(i, xyz.clone(), xyz.clone(), ForKind::Serial, body);
        let out = common_subexpressions(&s);
        let StmtKind::LetStmt { name, .. } = out.kind() else {
            panic!("the bounds' repeat is a let: {out}");
        };
        let t = Expr::var(*name, Type::i32());
        assert_eq!(stored_values(&out), vec![add(&t, &Expr::i32(1))], "{out}");
    }

    #[test]
    fn a_name_rebound_since_the_let_ends_its_use() {
        // Inside the loop over x, x * y is not what `a` holds.
        let (x, y) = (var("x"), var("y"));
        let body = store("out", var("x"), add(&mul(&x, &y), &Expr::i32(1)));
        let lp = Stmt::for_loop(
            Symbol::new("x"),
            Expr::i32(0),
            Expr::i32(4),
            ForKind::Serial,
            body,
        );
        let s = Stmt::let_stmt(Symbol::new("a"), mul(&x, &y), lp);
        let out = common_subexpressions(&s);
        assert_eq!(
            stored_values(&out),
            vec![add(&mul(&x, &y), &Expr::i32(1))],
            "{out}"
        );
    }

    #[test]
    fn values_that_read_memory_and_lets_out_of_scope_are_computed_again() {
        let x = var("x");
        let load = Expr::load(Type::i32(), Symbol::new("buf"), x.clone());
        let loaded_plus_x = add(&load, &mul(&x, &x));
        let xx_plus_one = add(&mul(&x, &x), &Expr::i32(1));
        // `a` reads memory that the store in between changes; `b`'s scope ends before the
        // last store.
        let inner = Stmt::block([
            store("buf", x.clone(), Expr::i32(5)),
            store("out", Expr::i32(0), add(&loaded_plus_x, &Expr::i32(2))),
        ]);
        let s = Stmt::block([
            Stmt::let_stmt(Symbol::new("a"), loaded_plus_x.clone(), inner),
            Stmt::let_stmt(
                Symbol::new("b"),
                xx_plus_one.clone(),
                store("out", Expr::i32(1), var("b")),
            ),
            store("out", Expr::i32(2), mul(&xx_plus_one, &Expr::i32(2))),
        ]);
        let out = common_subexpressions(&s);
        let values = stored_values(&out);
        assert_eq!(values[1], add(&loaded_plus_x, &Expr::i32(2)), "{out}");
        assert_eq!(values[3], mul(&xx_plus_one, &Expr::i32(2)), "{out}");
    }
}
