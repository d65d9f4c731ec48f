//! When the values a statement reads of a Func matter: a read in one arm of a `select` or
//! inside an `if` matters only when that arm or branch is taken (Halide's skip_stages). This
//! is not when the Func's memory is touched: native code evaluates both arms of a `select`,
//! so bounds and buffer checks count every read (`boxes`); a Func's values, though, need not
//! be computed for reads whose results are thrown away. A condition may read input images
//! and the Funcs the caller says are computed already (Halide's process_some_tiles skips
//! the tiles a bitmap image does not select).

use std::collections::HashSet;

use crate::ir::substitute::free_vars;
use crate::ir::visit::{any_node, reads_memory};
use crate::ir::{BinaryOp, CallKind, Expr, ExprKind, Stmt, StmtKind, Symbol, UnaryOp};

/// A condition under which the values `s` reads of `func` matter, to be evaluated before `s`:
/// `None` when they may always matter. A condition naming something bound inside `s` (a
/// loop variable, a let), or reading memory other than input images and the Funcs in
/// `computed` (whose values are final before `s`), counts as possibly true. A condition read
/// itself only under other conditions counts as possibly true when it reads memory: the
/// others may be what keeps its reads inside their buffers.
pub fn values_needed(s: &Stmt, func: Symbol, computed: &HashSet<Symbol>) -> Option<Expr> {
    let mut walk = Walk {
        func,
        computed,
        guards: 0,
        bound_inside: HashSet::new(),
        conditions: Vec::new(),
        needed: Some(Vec::new()),
    };
    walk.stmt(s);
    let reads = walk.needed?;
    reads
        .into_iter()
        .map(|conjunction| {
            conjunction
                .into_iter()
                .reduce(|a, b| Expr::binary(BinaryOp::And, a, b))
                .expect("an unconditional read ends the walk")
        })
        .reduce(|a, b| Expr::binary(BinaryOp::Or, a, b))
        .or_else(|| Some(Expr::bool_(false)))
}

struct Walk<'a> {
    func: Symbol,
    computed: &'a HashSet<Symbol>,
    /// How many conditions, usable or not, the current point is under.
    guards: usize,
    bound_inside: HashSet<Symbol>,
    /// The usable conditions around the current point.
    conditions: Vec<Expr>,
    /// For each read so far, the conditions under which it matters; `None` once one read
    /// matters always.
    needed: Option<Vec<Vec<Expr>>>,
}

impl Walk<'_> {
    fn stmt(&mut self, s: &Stmt) {
        if self.needed.is_none() {
            return;
        }
        match s.kind() {
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                self.expr(condition);
                self.under(condition.clone(), |w| w.stmt(then_case));
                if let Some(e) = else_case {
                    self.under(negated(condition), |w| w.stmt(e));
                }
            }
            StmtKind::For { name, .. } | StmtKind::LetStmt { name, .. } => {
                let newly = self.bound_inside.insert(*name);
                self.children(s);
                if newly {
                    self.bound_inside.remove(name);
                }
            }
            _ => self.children(s),
        }
    }

    fn children(&mut self, s: &Stmt) {
        let (mut exprs, mut stmts) = (Vec::new(), Vec::new());
        s.for_each_child(|e| exprs.push(e.clone()), |c| stmts.push(c.clone()));
        exprs.iter().for_each(|e| self.expr(e));
        stmts.iter().for_each(|c| self.stmt(c));
    }

    fn expr(&mut self, e: &Expr) {
        if self.needed.is_none() {
            return;
        }
        match e.kind() {
            ExprKind::Select(c, t, f) => {
                self.expr(c);
                self.under(c.clone(), |w| w.expr(t));
                self.under(negated(c), |w| w.expr(f));
            }
            ExprKind::Let(name, value, body) => {
                self.expr(value);
                let newly = self.bound_inside.insert(*name);
                self.expr(body);
                if newly {
                    self.bound_inside.remove(name);
                }
            }
            ExprKind::Call {
                name,
                kind: CallKind::Func(_),
                args,
                ..
            } => {
                for a in args {
                    self.expr(a);
                }
                if *name == self.func {
                    match (&mut self.needed, self.conditions.is_empty()) {
                        (_, true) => self.needed = None,
                        (Some(reads), false) => reads.push(self.conditions.clone()),
                        (None, false) => {}
                    }
                }
            }
            _ => e.for_each_child(|c| self.expr(c)),
        }
    }

    /// Runs `f` with `condition` holding, when it can be evaluated before the statement.
    fn under(&mut self, condition: Expr, f: impl FnOnce(&mut Self)) {
        let usable = self.reads_final_values(&condition)
            && free_vars(&condition)
                .iter()
                .all(|v| !self.bound_inside.contains(v));
        if usable {
            self.conditions.push(condition);
        }
        self.guards += 1;
        f(self);
        self.guards -= 1;
        if usable {
            self.conditions.pop();
        }
    }
}

impl Walk<'_> {
    /// Whether `condition` reads no memory, or, read unconditionally, only input images and
    /// computed Funcs.
    fn reads_final_values(&self, condition: &Expr) -> bool {
        if !reads_memory(condition) {
            return true;
        }
        self.guards == 0
            && !any_node(condition, |n| match n.kind() {
                ExprKind::Load { .. } => true,
                ExprKind::Call {
                    name,
                    kind: CallKind::Func(_),
                    ..
                } => !self.computed.contains(name),
                _ => false,
            })
    }
}

fn negated(condition: &Expr) -> Expr {
    Expr::unary(UnaryOp::Not, condition.clone())
}
