//! Skipping stages (Halide's skip_stages): a Func whose consumers use its values only under a
//! condition they can evaluate before it is computed (an arm of a `select` or a branch of an
//! `if`, on parameters or the variables of loops outside it) is computed only when that
//! condition holds. The condition is bound to a name (`let f.needed = ...`) that the
//! conditions of f's producers read in turn. A Func stored outside the loop it is computed
//! in (sliding, folding), or whose production computes another stored outside it, is
//! skipped only on a condition of parameters alone, which holds in all iterations or in
//! none: otherwise later iterations could rely on what a skipped one did not compute. One
//! sharing loops with another (`compute_with`) is not skipped. A condition varying with a
//! vectorized loop's variable is not used (the production would differ between lanes).
//! A condition may read input images, and Funcs whose production is complete where it is
//! evaluated (inside their `consume` node): process_some_tiles computes only the tiles a
//! bitmap image selects.

use std::collections::{HashMap, HashSet};

use super::realization_order::Environment;
use crate::analysis::values_needed::values_needed;
use crate::ir::substitute::free_vars;
use crate::ir::visit::{any_node, visit_stmts};
use crate::ir::{Expr, ExprKind, ForKind, Stmt, StmtKind, Symbol, Type};
use crate::simplify::simplify;

pub fn skip_stages(s: &Stmt, env: &Environment) -> Stmt {
    let mut skipping = Skipping {
        env,
        vector_loops: Vec::new(),
        scopes: vec![Scope::default()],
        named: HashMap::new(),
        taken: HashSet::new(),
        consumed: Vec::new(),
    };
    let s = skipping.stmt(s);
    let top = skipping.scopes.pop().expect("the pipeline's scope");
    top.bind_around(s)
}

/// The walk placing the guards. A Func's condition is named by a let (`f.needed`) and its
/// producers' conditions name it in turn: spelling out the conditions of the consumers in
/// every producer's would grow them with the depth of the pipeline. The walk goes from the
/// consumers to the producers, so a name is defined by the time its producers' conditions
/// use it; its let goes at the top of the innermost loop or let binding a variable its
/// condition reads, which encloses every production whose condition reads the name.
struct Skipping<'a> {
    env: &'a Environment,
    /// The variables of the vectorized loops around the current statement and the lets
    /// varying with them.
    vector_loops: Vec<Symbol>,
    /// The loops and lets around the current statement, outermost (the whole pipeline)
    /// first, with the conditions named at their tops.
    scopes: Vec<Scope>,
    /// For each name given to a condition whose let is not placed yet: the index of the
    /// scope it goes in, and whether the condition reads parameters only.
    named: HashMap<Symbol, (usize, bool)>,
    /// The names given so far (a Func produced in several branches gets one per branch).
    taken: HashSet<Symbol>,
    /// The Funcs whose `consume` nodes are around the current statement, each with the
    /// number of scopes open where it began: a condition reading one is evaluated inside it
    /// only when its let goes in a later scope.
    consumed: Vec<(Symbol, usize)>,
}

/// A loop or let (or the whole pipeline, unnamed) and the conditions named at its top, in
/// the order they were named: a consumer's before its producers', which read it.
#[derive(Default)]
struct Scope {
    binds: Option<Symbol>,
    conditions: Vec<(Symbol, Expr)>,
}

impl Scope {
    /// `body` inside the lets of the conditions named here.
    fn bind_around(self, body: Stmt) -> Stmt {
        self.conditions
            .into_iter()
            .rev()
            .fold(body, |body, (name, value)| {
                Stmt::let_stmt(name, value, body)
            })
    }
}

impl Skipping<'_> {
    /// `s` with its productions skipped where not needed.
    fn stmt(&mut self, s: &Stmt) -> Stmt {
        match s.kind() {
            StmtKind::For { name, kind, .. } => {
                let vectorized = *kind == ForKind::Vectorized;
                self.binding(s, *name, vectorized)
            }
            StmtKind::LetStmt { name, value, .. } => {
                let varying = free_vars(value)
                    .iter()
                    .any(|v| self.vector_loops.contains(v));
                self.binding(s, *name, varying)
            }
            StmtKind::ProducerConsumer {
                name,
                is_producer: false,
                ..
            } => {
                self.consumed.push((*name, self.scopes.len()));
                let s = s.map_children(|e| e.clone(), |c| self.stmt(c));
                self.consumed.pop();
                s
            }
            StmtKind::Block(stmts) => {
                let mut stmts: Vec<Stmt> = stmts.iter().map(|c| self.stmt(c)).collect();
                for i in 1..stmts.len() {
                    if let Some(guarded) = self.guarded_production(&stmts[i - 1], &stmts[i]) {
                        stmts[i - 1] = guarded;
                    }
                }
                Stmt::new(StmtKind::Block(stmts))
            }
            _ => s.map_children(|e| e.clone(), |c| self.stmt(c)),
        }
    }

    /// `s`, a loop or let binding `name`, with its body walked and the conditions named in
    /// it that read `name` bound at the top of its body; `vectorized` when `name` varies
    /// with a vectorized loop.
    fn binding(&mut self, s: &Stmt, name: Symbol, vectorized: bool) -> Stmt {
        if vectorized {
            self.vector_loops.push(name);
        }
        self.scopes.push(Scope {
            binds: Some(name),
            conditions: Vec::new(),
        });
        let s = s.map_children(|e| e.clone(), |c| self.stmt(c));
        let scope = self.scopes.pop().expect("the scope pushed above");
        if vectorized {
            self.vector_loops.pop();
        }
        for (named, _) in &scope.conditions {
            self.named.remove(named);
        }
        if scope.conditions.is_empty() {
            return s;
        }
        let (StmtKind::For { body, .. } | StmtKind::LetStmt { body, .. }) = s.kind() else {
            unreachable!("a binding is a loop or a let");
        };
        let body = scope.bind_around(body.clone());
        s.map_children(|e| e.clone(), |_| body.clone())
    }

    /// `produce f { if (f.needed) { ... } }` for a `produce f; consume f` pair whose
    /// consumers need f's values only when `f.needed` holds.
    fn guarded_production(&mut self, produce: &Stmt, consume: &Stmt) -> Option<Stmt> {
        let StmtKind::ProducerConsumer {
            name,
            is_producer: true,
            body,
        } = produce.kind()
        else {
            return None;
        };
        let StmtKind::ProducerConsumer {
            name: consumed,
            is_producer: false,
            body: consumers,
        } = consume.kind()
        else {
            return None;
        };
        if consumed != name || self.env.is_output(*name) {
            return None;
        }
        let f = self.env.func(*name).read();
        if !f.schedule.compute_with.is_empty() {
            return None;
        }
        let computed: HashSet<Symbol> = self.consumed.iter().map(|&(g, _)| g).collect();
        let needed = simplify(&values_needed(consumers, *name, &computed)?);
        let reads = free_vars(&needed);
        if reads.iter().any(|v| self.vector_loops.contains(v)) {
            return None;
        }
        let scope = self.condition_scope(&reads);
        let outside_a_consume = self.consumed.iter().any(|&(g, opened)| {
            scope < opened
                && any_node(
                    &needed,
                    |n| matches!(n.kind(), ExprKind::Call { name, .. } if *name == g),
                )
        });
        if outside_a_consume {
            return None;
        }
        // A condition on parameters only holds in every iteration or in none, so even storage
        // kept across iterations is all computed or all skipped.
        let own_storage = f.schedule.store_level() == &f.schedule.compute_level
            && f.schedule.folds.is_empty()
            && stored_inside(body);
        if !own_storage && !self.on_parameters_only(&needed) {
            return None;
        }
        let condition = if needed.is_const() {
            needed
        } else {
            self.name_condition(*name, needed, scope)
        };
        Some(Stmt::new(StmtKind::ProducerConsumer {
            name: *name,
            is_producer: true,
            body: Stmt::if_then(condition, body.clone()),
        }))
    }

    /// The scope a condition reading `reads` is named in: the innermost binding something it
    /// reads.
    fn condition_scope(&self, reads: &HashSet<Symbol>) -> usize {
        reads
            .iter()
            .map(|v| match self.named.get(v) {
                Some(&(scope, _)) => scope,
                None => self
                    .scopes
                    .iter()
                    .rposition(|s| s.binds == Some(*v))
                    .unwrap_or(0),
            })
            .max()
            .unwrap_or(0)
    }

    /// A variable standing for `condition` (of `func`), its let placed in scope `scope`.
    fn name_condition(&mut self, func: Symbol, condition: Expr, scope: usize) -> Expr {
        let base = func.dot("needed");
        let name = Symbol::first_untaken(base.as_str(), |n| self.taken.contains(&n));
        self.taken.insert(name);
        let on_parameters = self.on_parameters_only(&condition);
        self.named.insert(name, (scope, on_parameters));
        self.scopes[scope].conditions.push((name, condition));
        Expr::var(name, Type::bool_())
    }

    /// Whether `e` reads only parameters, constants and names of conditions on them.
    fn on_parameters_only(&self, e: &Expr) -> bool {
        !any_node(e, |n| match n.kind() {
            ExprKind::Var(v) => !self
                .named
                .get(v)
                .is_some_and(|&(_, on_parameters)| on_parameters),
            ExprKind::RVar(..) => true,
            _ => false,
        })
    }
}

/// Whether every Func produced in `s` is also stored in it (none keeps what it computed
/// across the productions of the Func `s` produces: one sliding over them would miss the
/// points a skipped production did not compute).
fn stored_inside(s: &Stmt) -> bool {
    let (mut produced, mut stored) = (Vec::new(), Vec::new());
    visit_stmts(s, &mut |c| {
        match c.kind() {
            StmtKind::ProducerConsumer {
                name,
                is_producer: true,
                ..
            } => produced.push(*name),
            StmtKind::Realize { func, .. } => stored.push(*func),
            _ => {}
        }
        true
    });
    produced.iter().all(|p| stored.contains(p))
}
