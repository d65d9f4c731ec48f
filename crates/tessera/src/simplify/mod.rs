//! The expression and statement simplifier: constant folding, canonical forms and algebraic
//! rewriting, as in Halide's `Simplify`. It never changes a value (under the overflow
//! contract: signed 32/64-bit arithmetic of the input is assumed not to overflow).
//!
//! The driver here walks the tree bottom-up: children first, then the node's `Info` (constant
//! bounds, alignment, overflow facts, `info.rs`), then the node's family — one module per
//! operator family, each mostly a list of rules in the notation of `rules.rs`. Sums are put in
//! a canonical linear form (`linear.rs`), so that equal values become structurally equal and
//! differences of expressions that differ by a constant fold to that constant.

mod info;
mod linear;
mod order;
#[cfg(test)]
mod rule_check;
mod rule_parser;
#[macro_use]
mod rules;
mod add;
mod bitwise;
mod cast;
mod compare;
mod div_mod;
mod fold;
mod intrinsic;
mod let_and_vars;
mod load;
mod logical;
mod min_max;
mod mul;
mod select;
mod stmt;
mod sub;
mod vector;

use rustc_hash::FxHashMap;
use std::collections::HashMap;

use crate::ir::{BinaryOp, Expr, ExprKind, Stmt, Symbol, UnaryOp};
pub(crate) use info::gcd;
use info::{Info, Origin};
pub(crate) use linear::{is_linear_node, LinearForm};
pub(crate) use stmt::var_bound;

/// `e` simplified.
pub fn simplify(e: &Expr) -> Expr {
    Simplifier::new().expr(e)
}

/// `e` simplified, knowing that each integer variable in `bounds` lies in the given inclusive
/// range (for example loop variables).
pub fn simplify_with_bounds(e: &Expr, bounds: &HashMap<Symbol, (i64, i64)>) -> Expr {
    let mut s = Simplifier::new();
    for (&name, &(lo, hi)) in bounds {
        s.push_binding(Binding::refinement(
            name,
            Info::bounded_untyped(lo as i128, hi as i128),
        ));
    }
    s.expr(e)
}

/// Whether the bool expression `e` simplifies to the constant true (false means "could not
/// prove", not "false").
pub fn can_prove(e: &Expr) -> bool {
    let r = simplify(e);
    r.ty().is_bool() && r.is_const() && r.as_int_const() == Some(1)
}

/// `s` simplified: every expression simplified, constant conditions decided, dead loops and
/// branches, empty blocks and unused lets dropped, using what enclosing `if` conditions and
/// loop bounds say.
pub fn simplify_stmt(s: &Stmt) -> Stmt {
    Simplifier::new().stmt(s)
}

/// A name in scope: a let-bound or loop variable, or more knowledge about a variable.
struct Binding {
    name: Symbol,
    /// What the name stands for when it is substituted (a constant or another variable).
    replacement: Option<Expr>,
    /// What is known about its value.
    info: Info,
    /// Whether this binds a new variable (a let or a loop) rather than refining what is known
    /// about the variable already in scope.
    rebinds: bool,
}

impl Binding {
    /// A let- or loop-bound variable.
    fn new_variable(name: Symbol, replacement: Option<Expr>, info: Info) -> Binding {
        Binding {
            name,
            replacement,
            info,
            rebinds: true,
        }
    }

    /// Bounds known for a variable of the enclosing scope.
    fn refinement(name: Symbol, info: Info) -> Binding {
        Binding {
            name,
            replacement: None,
            info,
            rebinds: false,
        }
    }
}

/// A condition known to have a value, learned when the scope had `scope_len` bindings.
struct Fact {
    condition: Expr,
    value: bool,
    scope_len: usize,
}

/// How deeply rewrites may nest before the rules are declared to loop.
const REWRITE_DEPTH_LIMIT: u32 = 400;

/// A node (kept alive, so its address stays its key) and what is known about it.
type MemoEntry = (Expr, Info);

struct Simplifier {
    scope: Vec<Binding>,
    /// The info of every node produced so far, by node address (the node is kept alive).
    /// What is known about a node depends on the bindings of its variables, so leaving a
    /// scope drops what was learned in it; what was known outside stays valid inside (an
    /// inner binding only adds knowledge, or rebinds a name, and nodes naming the new
    /// variable are recorded anew when visited).
    memo: FxHashMap<usize, MemoEntry>,
    /// Per scope binding (plus the outermost), the entries of `memo` recorded in it, each
    /// with the entry it replaced: leaving the scope restores them. (One map, not one per
    /// scope: a lookup under a deep nest of lets stays one probe.)
    memo_undo: Vec<Vec<(usize, Option<MemoEntry>)>>,
    /// Bool expressions known to have a value here (from enclosing `if` conditions).
    facts: Vec<Fact>,
    depth: u32,
    /// How often each name occurs in the expressions of the statement nodes built so far
    /// (`stmt.rs`): a let's simplified body uses its name exactly when the count grew while
    /// the body was simplified, which tells without walking the body (a walk per let is
    /// quadratic in the depth of a nest of lets).
    stmt_mentions: FxHashMap<Symbol, usize>,
}

fn address(e: &Expr) -> usize {
    e.kind() as *const ExprKind as usize
}

impl Simplifier {
    fn new() -> Simplifier {
        Simplifier {
            scope: Vec::new(),
            memo: FxHashMap::default(),
            memo_undo: vec![Vec::new()],
            facts: Vec::new(),
            depth: 0,
            stmt_mentions: FxHashMap::default(),
        }
    }

    fn push_binding(&mut self, b: Binding) {
        self.scope.push(b);
        self.memo_undo.push(Vec::new());
    }

    fn pop_binding(&mut self) {
        self.truncate_scope(self.scope.len() - 1);
    }

    /// Leaves every scope entered since the scope had `len` bindings.
    fn truncate_scope(&mut self, len: usize) {
        self.scope.truncate(len);
        while self.memo_undo.len() > len + 1 {
            let layer = self.memo_undo.pop().expect("a layer above the outermost");
            for (key, replaced) in layer.into_iter().rev() {
                match replaced {
                    Some(entry) => self.memo.insert(key, entry),
                    None => self.memo.remove(&key),
                };
            }
        }
    }

    /// What is known about `e`, computing it (conservatively) if `e` was not produced here.
    fn info(&mut self, e: &Expr) -> Info {
        let key = address(e);
        if let Some((_, i)) = self.memo.get(&key) {
            return *i;
        }
        self.record(e, Origin::Derived)
    }

    /// Computes and remembers the info of node `e` (whose children are already known).
    fn record(&mut self, e: &Expr, origin: Origin) -> Info {
        let i = match e.kind() {
            // A Param is known by its refinements too (a specialization's condition).
            ExprKind::Var(name) | ExprKind::Param(name, _) => {
                let_and_vars::var_info(self, *name, e.ty())
            }
            ExprKind::Let(..) => Info::of_type(e.ty().element()),
            _ => info::node_info(e, origin, &mut |c| self.info(c)),
        };
        self.set_info(e, i);
        i
    }

    fn set_info(&mut self, e: &Expr, i: Info) {
        let key = address(e);
        let replaced = self.memo.insert(key, (e.clone(), i));
        self.memo_undo
            .last_mut()
            .expect("internal error: no memo layer")
            .push((key, replaced));
    }

    /// `e` simplified (the visitor).
    fn expr(&mut self, e: &Expr) -> Expr {
        match e.kind() {
            ExprKind::IntImm(_) | ExprKind::UIntImm(_) | ExprKind::FloatImm(_) => e.clone(),
            ExprKind::Var(_) => let_and_vars::var(self, e),
            ExprKind::Let(..) => let_and_vars::let_expr(self, e),
            _ => {
                let n = e.map_children(|c| self.expr(c));
                self.record(&n, Origin::Input);
                self.rewrite(&n)
            }
        }
    }

    /// Simplifies node `e`, whose children are simplified and whose info is recorded.
    fn rewrite(&mut self, e: &Expr) -> Expr {
        self.depth += 1;
        if self.depth > REWRITE_DEPTH_LIMIT {
            panic!("internal error: simplifier rules rewrite in a loop at {e}");
        }
        let r = self.rewrite_node(e);
        self.depth -= 1;
        r
    }

    fn rewrite_node(&mut self, e: &Expr) -> Expr {
        if let Some(c) = fold::fold(e) {
            return c;
        }
        if let Some(v) = self.known_fact(e) {
            return v;
        }
        if let Some(v) = self.known_constant(e) {
            return v;
        }
        let e = &self.canonical_operand_order(e);
        if e.ty().is_vector() {
            if let Some(r) = vector::simplify(self, e) {
                return r;
            }
        }
        let r = match e.kind() {
            ExprKind::Binary(op, ..) => match op {
                BinaryOp::Add => add::simplify(self, e),
                BinaryOp::Sub => sub::simplify(self, e),
                BinaryOp::Mul => mul::simplify(self, e),
                BinaryOp::Div | BinaryOp::Mod => div_mod::simplify(self, e),
                BinaryOp::Min | BinaryOp::Max => min_max::simplify(self, e),
                BinaryOp::And | BinaryOp::Or => logical::simplify(self, e),
                BinaryOp::BitAnd
                | BinaryOp::BitOr
                | BinaryOp::BitXor
                | BinaryOp::Shl
                | BinaryOp::Shr => bitwise::simplify(self, e),
                _ => compare::simplify(self, e),
            },
            ExprKind::Unary(UnaryOp::Neg, _) => sub::simplify(self, e),
            ExprKind::Unary(UnaryOp::Not, _) => logical::simplify(self, e),
            ExprKind::Unary(UnaryOp::BitNot, _) => bitwise::simplify(self, e),
            ExprKind::Select(..) => select::simplify(self, e),
            ExprKind::Cast(_) => cast::simplify(self, e),
            ExprKind::Call {
                kind: crate::ir::CallKind::Intrinsic(_),
                ..
            } => intrinsic::simplify(self, e),
            ExprKind::Load { .. } => load::simplify(e),
            _ => None,
        };
        r.unwrap_or_else(|| e.clone())
    }

    /// Records that the new node `e` replaces `before` (so has its value), and whether the
    /// rule that built it proved it free of wraparound; then simplifies it.
    fn finish_rewrite(&mut self, before: &Expr, e: &Expr, proven_no_wrap: bool) -> Expr {
        let origin = if proven_no_wrap {
            Origin::Proven
        } else {
            Origin::Derived
        };
        let computed = self.record(e, origin);
        let known = self.info(before);
        let mut i = computed.meet(known, e.ty().element());
        (i.no_wrap, i.linear_exact) = (computed.no_wrap, computed.linear_exact);
        self.set_info(e, i);
        self.rewrite(e)
    }

    /// Builds a new node over simplified children and simplifies it.
    fn make(&mut self, e: Expr) -> Expr {
        self.record(&e, Origin::Derived);
        self.rewrite(&e)
    }

    /// Commutative operators get their operands in canonical order (constants last), so that
    /// `a op b` and `b op a` become one expression. For floats only a constant moves, and only
    /// for operators whose result cannot depend on the order.
    fn canonical_operand_order(&mut self, e: &Expr) -> Expr {
        let ExprKind::Binary(op, a, b) = e.kind() else {
            return e.clone();
        };
        // Integer sums have their own order, that of their linear forms.
        if !op.is_commutative() || (*op == BinaryOp::Add && e.ty().is_int_or_uint()) {
            return e.clone();
        }
        let swap = if a.ty().is_float() {
            let movable = matches!(
                op,
                BinaryOp::Add | BinaryOp::Mul | BinaryOp::Eq | BinaryOp::Ne
            );
            movable && a.is_const() && !b.is_const() && !a.as_float_const().is_some_and(f64::is_nan)
        } else {
            order::compare(b, a) == std::cmp::Ordering::Less
        };
        if !swap {
            return e.clone();
        }
        let swapped = Expr::binary(*op, b.clone(), a.clone());
        let i = self.info(e);
        self.set_info(&swapped, i);
        swapped
    }

    /// The value of an integer or bool expression whose bounds are a single value.
    fn known_constant(&mut self, e: &Expr) -> Option<Expr> {
        if e.ty().is_float() || e.is_const() {
            return None;
        }
        let v = self.info(e).as_constant()?;
        Some(Expr::make_const(e.ty(), v as i64))
    }

    /// The value of `e` if an enclosing condition decides it (and no variable it mentions
    /// has been rebound since).
    fn known_fact(&self, e: &Expr) -> Option<Expr> {
        if !e.ty().is_bool() || self.facts.is_empty() {
            return None;
        }
        let fact = self.facts.iter().rev().find(|f| f.condition == *e)?;
        let rebound = self.scope[fact.scope_len..]
            .iter()
            .any(|b| b.rebinds && crate::ir::substitute::uses_var(e, b.name));
        (!rebound).then(|| Expr::bool_(fact.value).broadcast_to(e.ty().lanes))
    }
}

/// Every family's rules, by family name.
fn families() -> Vec<(&'static str, &'static rules::RuleSet)> {
    vec![
        ("add", add::rules()),
        ("sub", sub::rules()),
        ("mul", mul::rules()),
        ("div_mod", div_mod::rules()),
        ("min_max", min_max::rules()),
        ("compare", compare::rules()),
        ("logical", logical::rules()),
        ("select", select::rules()),
        ("bitwise", bitwise::rules()),
        ("intrinsic", intrinsic::rules()),
        ("vector", vector::rules()),
    ]
}

/// The number of rules in each family (casts and the linear forms are code, not rules).
pub fn rule_counts() -> Vec<(&'static str, usize)> {
    families()
        .into_iter()
        .map(|(name, rules)| (name, rules.len()))
        .collect()
}

/// How often one rule has fired in this process.
#[doc(hidden)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleFirings {
    pub family: &'static str,
    /// The rule as written: `Section: pattern => replacement [if predicate]`.
    pub rule: String,
    pub count: u64,
}

/// Every rule, in order, with how often it has rewritten an expression since the process
/// started (all threads together): for finding rules that real pipelines never need.
#[doc(hidden)]
pub fn rule_firings() -> Vec<RuleFirings> {
    families()
        .into_iter()
        .flat_map(|(family, rules)| {
            rules.rules.iter().map(move |r| RuleFirings {
                family,
                rule: r.text.clone(),
                count: r.firings.load(std::sync::atomic::Ordering::Relaxed),
            })
        })
        .collect()
}

/// Parses a concrete expression in the rule language (`rules.rs`), its variables `x`, `y`,
/// `z`, `w`, `u`, `v` and its literals of type `ty`: the simplifier's text test cases.
#[doc(hidden)]
pub fn parse_expr(text: &str, ty: crate::ir::Type) -> Result<Expr, String> {
    rule_parser::parse_expr(text, ty)
}
