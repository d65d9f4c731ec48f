//! Common-subexpression elimination (Halide's `CSE`) as a lowering pass: within each
//! statement's own expressions (a store's index and value together, an if's condition, a
//! loop's bounds, ...), every non-trivial subexpression computed more than once is computed
//! once, by a let of a fresh name, and used by that name. A let that reads no memory goes
//! where the last of its variables is bound (out of the loops and branches that do not
//! change it), so the statements there share it; one that reads memory stays just outside
//! its statement, as a store elsewhere may change what it reads. A subexpression that an
//! enclosing let already computes (a let of the program, or one this pass made) uses that
//! let's name, so one value gets one name however many statements compute it. Inside a loop,
//! an integer that does not change in it (a row's offset in an index) is lifted too, even
//! if computed once, and so goes out of the loop (Halide's loop-invariant code motion), after
//! sums are regrouped to make their invariant terms one value. The value
//! numbering and what stays unshared are `ir::cse`'s; this pass says where each expression
//! is evaluated (conditionally, as an access's coordinates), and leaves everything under an
//! `Atomic` alone, whose loads belong to its read-modify-write.

// `Expr` keys are sound: hashing and equality are structural and ignore the Func and RDom
// links (the interior mutability clippy sees).
#![allow(clippy::mutable_key_type)]

use std::collections::{HashMap, HashSet};

use crate::ir::cse::{
    eliminate, group_loop_invariants, Coordinates, FreshNames, Lifted, LoopVaries, Position,
    MAX_BOUND_VALUE_NODES,
};
use crate::ir::substitute::free_vars;
use crate::ir::visit::{
    any_node, mutate_stmt_children, reads_memory, tree_nodes_within, visit_stmts, Mutator,
};
use crate::ir::{CallKind, Expr, ExprKind, MessagePart, Stmt, StmtKind, Symbol};

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
    let mut pass = CommonSubexpressions {
        names,
        scopes: Scopes {
            levels: vec![Level::default()],
            ..Scopes::default()
        },
    };
    let body = pass.mutate_stmt(s);
    let top = pass.scopes.levels.pop().expect("the top level");
    wrap(top.lets, body)
}

/// `body` inside `lets` (the first outermost).
fn wrap(lets: Vec<(Symbol, Expr)>, body: Stmt) -> Stmt {
    lets.into_iter().rev().fold(body, |body, (name, value)| {
        Stmt::let_stmt(name, value, body)
    })
}

struct CommonSubexpressions {
    names: FreshNames,
    scopes: Scopes,
}

impl Mutator for CommonSubexpressions {
    fn mutate_stmt(&mut self, s: &Stmt) -> Stmt {
        if matches!(s.kind(), StmtKind::Atomic { .. }) {
            return s.clone();
        }
        let mut exprs = positioned_exprs(s);
        if exprs.is_empty() {
            return mutate_stmt_children(self, s);
        }
        let scopes = &self.scopes;
        let loop_varies = |name| scopes.varies_in_innermost_loop(name);
        let in_loop = !scopes.loops.is_empty();
        if in_loop {
            for (e, _) in &mut exprs {
                *e = group_loop_invariants(e, &loop_varies);
            }
        }
        let (lets, new_exprs) = eliminate(
            &exprs,
            Coordinates::Vector,
            &mut self.names,
            &scopes.by_value,
            in_loop.then_some(&loop_varies as LoopVaries),
        );
        // Lets that read memory or have effects stay just outside the statement (a store
        // elsewhere may change what they read; a `require` moved out of a loop or branch
        // would fail runs that never evaluate it), and so do those using them; the others go
        // to where their variables are bound, which serves every statement there.
        let mut local: Vec<(Symbol, Expr)> = Vec::new();
        for l in lets {
            let free = free_vars(&l.value);
            if !movable(&l.value) || local.iter().any(|(n, _)| free.contains(n)) {
                local.push((l.name, l.value));
            } else {
                self.scopes.place(l, &free);
            }
        }
        let binds = match s.kind() {
            StmtKind::LetStmt { name, value, .. } => Some((*name, Some(value))),
            StmtKind::For { name, .. } => Some((*name, None)),
            _ => None,
        };
        let mut new_exprs = new_exprs.into_iter();
        let rebuilt = s.map_children(
            |_| {
                new_exprs
                    .next()
                    .expect("one expression out per expression in")
            },
            |c| match binds {
                Some((name, value)) => {
                    self.scopes.enter(name, value);
                    let body = self.mutate_stmt(c);
                    let lets = self.scopes.leave();
                    wrap(lets, body)
                }
                None => self.mutate_stmt(c),
            },
        );
        wrap(local, rebuilt)
    }
}

/// Whether `e` may be evaluated elsewhere than where it is: it reads no memory and calls
/// nothing that prints or can fail the run.
fn movable(e: &Expr) -> bool {
    !reads_memory(e)
        && !any_node(
            e,
            |n| matches!(n.kind(), ExprKind::Call { kind: CallKind::Intrinsic(op), .. } if op.has_effects()),
        )
}

/// The binding of one name (a let's or a loop's): where the lets depending on it are placed.
#[derive(Default)]
struct Level {
    /// The lets placed here, in the order made (each free of later ones), to wrap the body in.
    lets: Vec<(Symbol, Expr)>,
    /// The names bound here: the binding's own, and those of the lets placed here.
    names: Vec<Symbol>,
    /// The values entered at this level, whose entries end with it.
    values: Vec<Expr>,
    /// Entries of outer levels naming an earlier binding of this level's name, hidden while
    /// it lasts.
    hidden: Vec<(Expr, Entry)>,
}

/// A value in scope: the name holding it, and its free variables.
struct Entry {
    name: Symbol,
    free: HashSet<Symbol>,
}

/// The enclosing bindings, innermost last, and the values they bind written out in full, by
/// the names holding them (the outermost name where several hold one value). Values that read
/// memory are left out, as a store between the let and a later use may change them, and so
/// are values with effects (a print prints once per evaluation).
#[derive(Default)]
struct Scopes {
    by_value: HashMap<Expr, Symbol>,
    entries: HashMap<Expr, Entry>,
    levels: Vec<Level>,
    /// The levels binding each name, innermost last (a name nobody binds is a parameter).
    bound_at: HashMap<Symbol, Vec<usize>>,
    /// How many entries name each variable (as their name or a free variable), so that a
    /// binding of a name no entry uses looks at none of them.
    mentions: HashMap<Symbol, usize>,
    /// The levels of the enclosing loops, innermost last.
    loops: Vec<usize>,
}

impl Scopes {
    /// Whether `name` is bound by the innermost enclosing loop or inside it, so changes from
    /// one of its iterations to the next.
    fn varies_in_innermost_loop(&self, name: Symbol) -> bool {
        let innermost_binding = self.bound_at.get(&name).and_then(|levels| levels.last());
        matches!((innermost_binding, self.loops.last()), (Some(b), Some(l)) if b >= l)
    }

    /// Enters the body of a binding of `name`: a let's of `value`, or a loop's.
    fn enter(&mut self, name: Symbol, value: Option<&Expr>) {
        let mut level = Level::default();
        if self.mentions.get(&name).is_some_and(|&n| n > 0) {
            let stale: Vec<Expr> = self
                .entries
                .iter()
                .filter(|(_, e)| e.name == name || e.free.contains(&name))
                .map(|(v, _)| v.clone())
                .collect();
            for v in stale {
                let entry = self.remove(&v);
                level.hidden.push((v, entry));
            }
        }
        self.levels.push(level);
        let depth = self.levels.len() - 1;
        self.bind_at(name, depth);
        match value {
            Some(value) => self.insert(value, name, depth),
            None => self.loops.push(depth),
        }
    }

    /// Leaves the innermost binding: its entries end, the ones it hid return, and the lets
    /// placed at it are returned, to wrap its body in.
    fn leave(&mut self) -> Vec<(Symbol, Expr)> {
        let level = self.levels.pop().expect("a level to leave");
        if self.loops.last() == Some(&self.levels.len()) {
            self.loops.pop();
        }
        for name in &level.names {
            let levels = self.bound_at.get_mut(name).expect("a bound name");
            levels.pop();
            if levels.is_empty() {
                self.bound_at.remove(name);
            }
        }
        for v in &level.values {
            self.remove(v);
        }
        for (v, entry) in level.hidden {
            self.add(v, entry);
        }
        level.lets
    }

    /// Places `l` at the innermost level binding one of its variables (`free`).
    fn place(&mut self, l: Lifted, free: &HashSet<Symbol>) {
        let depth = free
            .iter()
            .filter_map(|v| self.bound_at.get(v).and_then(|levels| levels.last()))
            .copied()
            .max()
            .unwrap_or(0);
        self.bind_at(l.name, depth);
        self.insert(&l.expanded, l.name, depth);
        self.levels[depth].lets.push((l.name, l.value));
    }

    /// An entry for `value`, held by `name` bound at level `depth`, unless the value is too
    /// large to look up (checked first: a value shared as a graph may be exponential as a
    /// tree, which hashing and walking would follow), held already, not movable, or naming
    /// `name` itself (an earlier binding of it).
    fn insert(&mut self, value: &Expr, name: Symbol, depth: usize) {
        if !tree_nodes_within([value], MAX_BOUND_VALUE_NODES)
            || self.by_value.contains_key(value)
            || !movable(value)
        {
            return;
        }
        let free = free_vars(value);
        if free.contains(&name) {
            return;
        }
        self.add(value.clone(), Entry { name, free });
        self.levels[depth].values.push(value.clone());
    }

    fn bind_at(&mut self, name: Symbol, depth: usize) {
        self.bound_at.entry(name).or_default().push(depth);
        self.levels[depth].names.push(name);
    }

    fn add(&mut self, value: Expr, entry: Entry) {
        for v in entry.free.iter().chain([&entry.name]) {
            *self.mentions.entry(*v).or_default() += 1;
        }
        self.by_value.insert(value.clone(), entry.name);
        self.entries.insert(value, entry);
    }

    fn remove(&mut self, value: &Expr) -> Entry {
        self.by_value.remove(value);
        let entry = self.entries.remove(value).expect("an entry in scope");
        for v in entry.free.iter().chain([&entry.name]) {
            if let Some(n) = self.mentions.get_mut(v) {
                *n -= 1;
            }
        }
        entry
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
    use crate::ir::test_builders::{add, mul, store, var};
    use crate::ir::{BinaryOp, ExprKind, ForKind, Intrinsic, Type};

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

    #[test]
    fn statements_side_by_side_share_a_let_placed_where_its_variables_are_bound() {
        // Two stores in a loop over i compute x * y + z twice each; the let goes outside the
        // loop, which binds none of its variables, and both use it. Both also compute i * y
        // twice, whose let depends on i and stays in the loop, one for both.
        let (x, y, z) = (var("x"), var("y"), var("z"));
        let i = Symbol::new("i");
        let iv = Expr::var(i, Type::i32());
        let xyz = add(&mul(&x, &y), &z);
        let iy = mul(&iv, &y);
        let value = |k: i32| {
            add(
                &add(&mul(&xyz, &Expr::i32(k)), &xyz),
                &mul(&add(&iy, &Expr::i32(k)), &add(&iy, &Expr::i32(k))),
            )
        };
        let body = Stmt::block([
            store("out", iv.clone(), value(2)),
            store("out2", iv.clone(), value(3)),
        ]);
        let s = Stmt::for_loop(i, Expr::i32(0), var("n"), ForKind::Serial, body);
        let out = common_subexpressions(&s);
        // Before the loop: x * y + z, and (being invariant) each store's x * y + z part.
        let mut outer = Vec::new();
        let mut rest = &out;
        while let StmtKind::LetStmt { name, value, body } = rest.kind() {
            outer.push((*name, value.clone()));
            rest = body;
        }
        let StmtKind::For { body, .. } = rest.kind() else {
            panic!("the loop follows its lets: {out}");
        };
        let (t, _) = *outer
            .iter()
            .find(|(_, v)| *v == xyz)
            .unwrap_or_else(|| panic!("x * y + z is computed before the loop: {out}"));
        let t = Expr::var(t, Type::i32());
        let mut inner = Vec::new();
        visit_stmts(body, &mut |st| {
            if let StmtKind::LetStmt { value, .. } = st.kind() {
                inner.push(value.clone());
            }
            true
        });
        assert_eq!(inner, vec![iy.clone()], "{out}");
        for (v, k) in stored_values(&out).iter().zip([2, 3]) {
            let ExprKind::Binary(BinaryOp::Add, part, _) = v.kind() else {
                panic!("{out}");
            };
            let ExprKind::Var(name) = part.kind() else {
                panic!("the invariant part is a let's: {out}");
            };
            let lifted = outer.iter().find(|(n, _)| n == name).map(|(_, v)| v);
            assert_eq!(lifted, Some(&add(&mul(&t, &Expr::i32(k)), &t)), "{out}");
        }
    }

    #[test]
    fn a_check_repeated_in_a_loop_stays_in_it() {
        // `require(x > 0, x * y)` twice per iteration: computed once, but inside the loop,
        // which may run no iteration (then the run must not fail).
        let (x, y) = (var("x"), var("y"));
        let positive = Expr::binary(BinaryOp::Lt, Expr::i32(0), x.clone());
        let checked = Expr::intrinsic(
            Type::i32(),
            Intrinsic::Require {
                message: Symbol::new("x must be positive"),
            },
            vec![positive, mul(&x, &y)],
        );
        let i = Symbol::new("i");
        let body = store("out", Expr::var(i, Type::i32()), add(&checked, &checked));
        let s = Stmt::for_loop(i, Expr::i32(0), var("n"), ForKind::Serial, body);
        let out = common_subexpressions(&s);
        let StmtKind::For { body, .. } = out.kind() else {
            panic!("nothing is computed before the loop: {out}");
        };
        assert!(
            matches!(body.kind(), StmtKind::LetStmt { value, .. } if *value == checked),
            "{out}"
        );
    }
    #[test]
    fn a_row_offset_computed_once_goes_out_of_the_loop_over_the_row() {
        // for y { for x { out[x + w*y - m] = x } }: the offset w*y - m is the row's, computed
        // once per row outside the loop over x; nothing of the loop over y leaves it.
        let (x, y, w, m) = (var("x"), var("y"), var("w"), var("m"));
        let sub = |p: &Expr, q: &Expr| Expr::binary(BinaryOp::Sub, p.clone(), q.clone());
        let index = sub(&add(&x, &mul(&w, &y)), &m);
        let inner = Stmt::for_loop(
            Symbol::new("x"),
            Expr::i32(0),
            var("n"),
            ForKind::Serial,
            store("out", index, x.clone()),
        );
        let s = Stmt::for_loop(
            Symbol::new("y"),
            Expr::i32(0),
            var("n"),
            ForKind::Serial,
            inner,
        );
        let out = common_subexpressions(&s);
        let StmtKind::For { body: row, .. } = out.kind() else {
            panic!("the loop over y stays outermost: {out}");
        };
        let StmtKind::LetStmt { name, value, body } = row.kind() else {
            panic!("the row's offset is a let in the loop over y: {out}");
        };
        assert_eq!(*value, sub(&mul(&w, &y), &m), "{out}");
        let StmtKind::For {
            body: store_stmt, ..
        } = body.kind()
        else {
            panic!("the loop over x follows the let: {out}");
        };
        let StmtKind::Store { index, .. } = store_stmt.kind() else {
            panic!("the store alone is in the loop over x: {out}");
        };
        assert_eq!(*index, add(&x, &Expr::var(*name, Type::i32())), "{out}");
    }
}
