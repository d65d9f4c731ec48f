//! Common subexpressions of expressions, found by value numbering (Halide's GVN) and computed
//! once, by lets of fresh names (`t0`, `t1`, ...). The lowering pass
//! (`lower::common_subexpressions`) applies this to each statement's expressions; a definition
//! written as a shared graph too large as a tree is turned into lets by it too (`Func::define`).
//!
//! A caller may also pass values already bound to names in scope (by enclosing lets): an
//! expression computing one of them uses that name instead of computing it again. Inside a
//! loop, a caller may say which names change from one iteration to the next: then a scalar
//! integer subexpression that changes with none of them is lifted too, even if computed once,
//! so that it can be computed outside the loop (Halide's loop-invariant code motion), and sums
//! are first regrouped so that their invariant terms form one subexpression
//! (`group_loop_invariants`).
//!
//! Two nodes get one number when they have the same operation on operands of the same
//! numbers, so the work is linear in the distinct nodes of the shared graph, even where the
//! trees written out would be exponential. Let expressions are inlined first (a name stands
//! for its value's number), and re-extracted where shared.
//!
//! Some repeated expressions stay where they are:
//! - cheap ones: names, constants, a value with a constant, ramps of constant stride and
//!   broadcasts or casts of cheap ones (as Halide, so that CSE and the simplifier's
//!   substitution of lets do not fight);
//! - reads of memory and the intrinsics that do more than compute a value (`require` and
//!   `promise_clamped` can fail the run, `print` prints), unless the original evaluates them
//!   in every case: where they are only evaluated sometimes (in an arm of a select, right of
//!   `&&`/`||`, under a store's or a load's predicate, in an assertion's message), lifted they
//!   would be evaluated where the original does not, out of bounds perhaps;
//! - vector integers inside an access's index or predicate, whose shape code generation reads
//!   (a ramp, a clamped ramp, a halved ramp make dense loads; a name would make a gather),
//!   and before vectorization every coordinate, which becomes one;
//! - `interleave` (only ever a whole stored value) and the `likely` markers.

// `Expr` keys are sound: hashing and equality are structural and ignore the Func and RDom
// links (the interior mutability clippy sees).
#![allow(clippy::mutable_key_type)]

use std::collections::{HashMap, HashSet};

use super::{BinaryOp, CallKind, Expr, ExprKind, Intrinsic, Symbol};

/// Which coordinates of accesses stay in them, unshared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coordinates {
    /// Vector ones: after vectorization, whose shapes (ramps) code generation reads.
    Vector,
    /// All: before vectorization, where a scalar coordinate becomes a vector one.
    All,
}

/// `e`, a value not vectorized yet, with its common subexpressions computed once, by let
/// expressions around it; the coordinates of its accesses stay in them, so that they still
/// vectorize to dense loads.
pub fn common_subexpressions_of_expr(e: &Expr) -> Expr {
    let mut names = FreshNames::default();
    names.take_names_in(e);
    let (lets, mut exprs) = eliminate(
        &[(e.clone(), Position::default())],
        Coordinates::All,
        &mut names,
        &HashMap::new(),
        None,
    );
    let body = exprs.pop().expect("one expression in, one out");
    lets.into_iter()
        .rev()
        .fold(body, |body, l| Expr::let_in(l.name, l.value, body))
}

/// Where an expression is evaluated, as far as lifting it out goes.
#[derive(Clone, Copy, Default, Debug)]
pub struct Position {
    /// Evaluated only in some cases: what may fault must not be lifted from it alone.
    pub conditional: bool,
    /// Part of an access's index or predicate, whose vector shape code generation reads.
    pub addressing: bool,
}

/// Generated names for the lets, unused by the statement (`t0`, `t1`, ...).
#[derive(Default)]
pub struct FreshNames {
    pub taken: HashSet<Symbol>,
    /// The nodes `take_names_in` has seen (alive as long as the statement they are from).
    visited: HashSet<usize>,
    next: usize,
}

impl FreshNames {
    /// Takes the names `e` uses or binds, visiting each shared node once.
    pub fn take_names_in(&mut self, e: &Expr) {
        if !self.visited.insert(e.node_id()) {
            return;
        }
        match e.kind() {
            ExprKind::Var(n) | ExprKind::Let(n, ..) | ExprKind::Load { buffer: n, .. } => {
                self.taken.insert(*n);
            }
            _ => {}
        }
        e.for_each_child(|c| self.take_names_in(c));
    }

    fn fresh(&mut self) -> Symbol {
        loop {
            let name = Symbol::new(&format!("t{}", self.next));
            self.next += 1;
            if self.taken.insert(name) {
                return name;
            }
        }
    }
}

/// One value number: a node whose children are value numbers.
struct Node {
    /// The first expression numbered so, rebuilt over its children's representatives.
    expr: Expr,
    children: Vec<usize>,
}

/// Value numbering of expressions (Halide's GVN). Children are numbered before their
/// parents, so numbers ascend from leaves to roots.
#[derive(Default)]
struct Numbering {
    nodes: Vec<Node>,
    /// A node's operation (its children replaced by zeros) and its children's numbers.
    numbers: HashMap<(Expr, Vec<usize>), usize>,
    /// The number of each input node already seen, in the let scope it was seen in.
    seen: HashMap<(usize, usize), usize>,
    /// The input nodes `seen` refers to, kept alive so that their addresses stay theirs.
    inputs: Vec<Expr>,
    /// The names bound by the enclosing let expressions, and their values' numbers.
    lets: Vec<(Symbol, usize)>,
    /// The innermost enclosing let scope (0 outside every let), and the scopes so far.
    scope: usize,
    scopes: usize,
}

impl Numbering {
    fn number(&mut self, e: &Expr) -> usize {
        let key = (e.node_id(), self.scope);
        if let Some(&n) = self.seen.get(&key) {
            return n;
        }
        let n = match e.kind() {
            ExprKind::Var(name) => match self.lets.iter().rev().find(|(bound, _)| bound == name) {
                Some(&(_, value)) => value,
                None => self.intern(e, Vec::new()),
            },
            ExprKind::Let(name, value, body) => {
                let value = self.number(value);
                let outer = self.scope;
                self.scopes += 1;
                self.scope = self.scopes;
                self.lets.push((*name, value));
                let body = self.number(body);
                self.lets.pop();
                self.scope = outer;
                body
            }
            _ => {
                let mut children = Vec::new();
                e.for_each_child(|c| children.push(self.number(c)));
                match self.folded_offsets(e, &children) {
                    Some(n) => n,
                    None => self.intern(e, children),
                }
            }
        };
        self.inputs.push(e.clone());
        self.seen.insert(key, n);
        n
    }

    /// The number of `(x ± c1) ± c2`, of children numbered `children`, as that of `x` or
    /// `x ± c` (`c = ±c1 ± c2`), for signed integers of 32 bits or more (whose arithmetic is
    /// assumed not to wrap, as everywhere in lowering). The simplifier folds such sums, but not
    /// through a let: `let m = a + 31 in m - 31` inlined would otherwise print `a + 31 - 31`.
    fn folded_offsets(&mut self, e: &Expr, children: &[usize]) -> Option<usize> {
        let ty = e.ty();
        if !(ty.is_int() && ty.is_scalar() && ty.bits >= 32) {
            return None;
        }
        let signed_offset = |e: &Expr| match e.kind() {
            ExprKind::Binary(BinaryOp::Add, _, c) => c.as_int_const(),
            ExprKind::Binary(BinaryOp::Sub, _, c) => c.as_int_const().map(|c| -c),
            _ => None,
        };
        let outer = signed_offset(e)?;
        let inner = &self.nodes[children[0]];
        let offset = signed_offset(&inner.expr)?;
        let x = inner.children[0];
        let total = offset + outer;
        if total == 0 {
            return Some(x);
        }
        let (op, magnitude) = if total < 0 {
            (BinaryOp::Sub, -total)
        } else {
            (BinaryOp::Add, total)
        };
        let fits = if ty.bits == 32 {
            i32::try_from(magnitude).is_ok()
        } else {
            i64::try_from(magnitude).is_ok()
        };
        if !fits {
            return None;
        }
        let constant = Expr::make_const(ty, magnitude as i64);
        let folded = Expr::binary(op, self.nodes[x].expr.clone(), constant.clone());
        let constant = self.number(&constant);
        Some(self.intern(&folded, vec![x, constant]))
    }

    fn intern(&mut self, e: &Expr, children: Vec<usize>) -> usize {
        let operation = e.map_children(|c| Expr::zero(c.ty()));
        let key = (operation, children);
        if let Some(&n) = self.numbers.get(&key) {
            return n;
        }
        let mut child = key.1.iter();
        let expr = e.map_children(|_| self.nodes[*child.next().unwrap()].expr.clone());
        let n = self.nodes.len();
        self.nodes.push(Node {
            expr,
            children: key.1.clone(),
        });
        self.numbers.insert(key, n);
        n
    }
}

/// Whether child `i` of `e` is evaluated only in some cases when `e` is evaluated.
fn child_is_conditional(e: &Expr, i: usize) -> bool {
    match e.kind() {
        ExprKind::Select(..) => i > 0,
        ExprKind::Binary(BinaryOp::And | BinaryOp::Or, ..) => i == 1,
        ExprKind::Load {
            predicate: Some(_), ..
        } => i == 0,
        ExprKind::Call {
            kind: CallKind::Intrinsic(Intrinsic::Require { .. }),
            ..
        } => i > 0,
        _ => false,
    }
}

/// Whether the children of `e` are coordinates of an access.
fn children_are_addressing(e: &Expr) -> bool {
    matches!(
        e.kind(),
        ExprKind::Load { .. }
            | ExprKind::Call {
                kind: CallKind::Func(_) | CallKind::Image(_),
                ..
            }
    )
}

/// Whether evaluating `e` itself may fail the run (its children aside).
fn may_fault(e: &Expr) -> bool {
    match e.kind() {
        ExprKind::Load { .. } => true,
        ExprKind::Call { kind, .. } => match kind {
            CallKind::Func(_) | CallKind::Image(_) => true,
            CallKind::Intrinsic(op) => op.has_effects(),
        },
        _ => false,
    }
}

/// Whether `e` costs too little to be worth a let (Halide's choice).
fn is_cheap(e: &Expr) -> bool {
    match e.kind() {
        ExprKind::IntImm(_)
        | ExprKind::UIntImm(_)
        | ExprKind::FloatImm(_)
        | ExprKind::Var(_)
        | ExprKind::RVar(..)
        | ExprKind::Param(..) => true,
        ExprKind::Broadcast(v) | ExprKind::Cast(v) => is_cheap(v),
        ExprKind::Ramp(_, stride) => stride.is_const(),
        ExprKind::Binary(BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div, a, b) => {
            a.is_const() || b.is_const()
        }
        _ => false,
    }
}

/// Whether `e` may never be a let's value.
fn never_lifted(e: &Expr) -> bool {
    match e.kind() {
        ExprKind::Invalid(_) => true,
        ExprKind::Call {
            kind: CallKind::Intrinsic(op),
            ..
        } => {
            !op.has_value()
                || matches!(
                    op,
                    Intrinsic::Interleave | Intrinsic::Likely | Intrinsic::LikelyIfInnermost
                )
        }
        _ => false,
    }
}

/// The most nodes (as a tree) of a value looked up among the values bound in scope: a lookup
/// hashes the whole tree, so that larger ones are not looked up keeps the work linear.
pub const MAX_BOUND_VALUE_NODES: usize = 64;

/// A let `eliminate` makes.
pub struct Lifted {
    pub name: Symbol,
    /// Its value, naming the earlier lets it uses.
    pub value: Expr,
    /// Its value written out in full, as an expression computing it again would be.
    pub expanded: Expr,
}

/// Which names change from one iteration of the innermost loop around some expressions to the
/// next: its variable, and what is bound inside it.
pub type LoopVaries<'a> = &'a dyn Fn(Symbol) -> bool;

/// The lets (in order, each free of later ones) that compute the common subexpressions of
/// `exprs` once, and the expressions using them. A subexpression `bound` names (a value an
/// enclosing let binds, written out in full and of at most `MAX_BOUND_VALUE_NODES` nodes) is
/// used by that name. With `loop_varies` (the expressions are inside a loop), each largest
/// scalar integer subexpression that reads no memory and changes with no name of the loop is
/// lifted as well, however often it is computed.
pub fn eliminate(
    exprs: &[(Expr, Position)],
    coordinates: Coordinates,
    names: &mut FreshNames,
    bound: &HashMap<Expr, Symbol>,
    loop_varies: Option<LoopVaries>,
) -> (Vec<Lifted>, Vec<Expr>) {
    let mut numbering = Numbering::default();
    let roots: Vec<usize> = exprs.iter().map(|(e, _)| numbering.number(e)).collect();
    let nodes = &numbering.nodes;
    let count = nodes.len();

    // Whether each number reads memory or can fail, itself or below (children come first),
    // and its size as a tree (up to one past the lookup limit).
    let mut faulting = vec![false; count];
    let mut tree_nodes = vec![1usize; count];
    for n in 0..count {
        faulting[n] = may_fault(&nodes[n].expr) || nodes[n].children.iter().any(|&c| faulting[c]);
        tree_nodes[n] = nodes[n]
            .children
            .iter()
            .fold(1, |size, &c| size + tree_nodes[c])
            .min(MAX_BOUND_VALUE_NODES + 1);
    }
    // Whether each number changes from one iteration of the loop to the next.
    let mut varying = vec![false; count];
    if let Some(varies) = loop_varies {
        for n in 0..count {
            varying[n] = matches!(nodes[n].expr.kind(), ExprKind::Var(name) if varies(*name))
                || nodes[n].children.iter().any(|&c| varying[c]);
        }
    }

    // From the roots down (parents have the higher numbers): how often each number is
    // evaluated once the lifted ones are evaluated once, whether some evaluation of it
    // happens in every case, whether it is part of an access's coordinates; and so whether
    // it is lifted.
    let mut uses = vec![0u64; count];
    let mut unconditional = vec![false; count];
    let mut addressing = vec![false; count];
    for (&root, (_, position)) in roots.iter().zip(exprs) {
        uses[root] += 1;
        unconditional[root] |= !position.conditional;
        addressing[root] |= position.addressing;
    }
    let mut lifted = vec![false; count];
    // Part of a loop-invariant value lifted whole, so moved out of the loop with it.
    let mut in_invariant = vec![false; count];
    let mut named: Vec<Option<Symbol>> = vec![None; count];
    for n in (0..count).rev() {
        if uses[n] == 0 {
            continue;
        }
        let e = &nodes[n].expr;
        let stays = is_cheap(e)
            || never_lifted(e)
            || (faulting[n] && !unconditional[n])
            || (addressing[n] && (coordinates == Coordinates::All || e.ty().is_vector()));
        let liftable = !stays;
        if liftable && tree_nodes[n] <= MAX_BOUND_VALUE_NODES {
            if let Some(&name) = bound.get(e) {
                // Named, it evaluates none of its children.
                named[n] = Some(name);
                continue;
            }
        }
        // Integers only: addresses' offsets are what repeat per iteration; a condition or a
        // float named away would only be harder to read.
        let invariant = loop_varies.is_some()
            && !varying[n]
            && !faulting[n]
            && e.ty().is_scalar()
            && e.ty().is_int_or_uint()
            && !in_invariant[n];
        lifted[n] = liftable && (uses[n] > 1 || invariant);
        let evaluations = if liftable { 1 } else { uses[n] };
        for (i, &c) in nodes[n].children.iter().enumerate() {
            in_invariant[c] |= !varying[n] && (lifted[n] || in_invariant[n]);
            uses[c] = uses[c].saturating_add(evaluations);
            unconditional[c] |= unconditional[n] && !child_is_conditional(e, i);
            addressing[c] |= addressing[n] || children_are_addressing(e);
        }
    }

    for n in 0..count {
        if lifted[n] {
            named[n] = Some(names.fresh());
        }
    }
    let mut rebuilt = Rebuilt {
        nodes,
        named,
        values: vec![None; count],
    };
    let lets = (0..count)
        .filter(|&n| lifted[n])
        .map(|n| Lifted {
            name: rebuilt.named[n].expect("a lifted number is named"),
            value: rebuilt.value(n),
            expanded: nodes[n].expr.clone(),
        })
        .collect();
    let exprs = roots.iter().map(|&r| rebuilt.reference(r)).collect();
    (lets, exprs)
}

/// `e` with each sum of scalar integers regrouped so that its terms that change with no name
/// of the loop (`loop_varies`) are added first, as one subexpression, and its constant terms
/// last (Halide's `GroupLoopInvariants`): `x + a*b - c + 1` becomes `x + (a*b - c) + 1`,
/// whose middle `eliminate` can lift out of the loop. Integer sums wrap, so any grouping has
/// the same value. A sum is regrouped only where at least two of its terms are invariant and
/// not constant; let expressions are left as they are.
pub fn group_loop_invariants(e: &Expr, loop_varies: LoopVaries) -> Expr {
    Grouping {
        loop_varies,
        done: HashMap::new(),
    }
    .regroup(e)
    .0
}

struct Grouping<'a> {
    loop_varies: LoopVaries<'a>,
    /// Each node visited (by address), regrouped, and whether it changes in the loop.
    done: HashMap<usize, (Expr, bool)>,
}

/// A term of a sum: its sign (true for added), the term regrouped, whether it varies.
type Term = (bool, Expr, bool);

impl Grouping<'_> {
    /// `e` regrouped, and whether it changes in the loop.
    fn regroup(&mut self, e: &Expr) -> (Expr, bool) {
        if let Some(done) = self.done.get(&e.node_id()) {
            return done.clone();
        }
        let result = match e.kind() {
            ExprKind::Var(name) => (e.clone(), (self.loop_varies)(*name)),
            // Its name is not the loop's to judge; a load reads what the loop may store.
            ExprKind::Let(..) => (e.clone(), true),
            ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b)
                if e.ty().is_scalar() && e.ty().is_int_or_uint() =>
            {
                let mut terms = Vec::new();
                self.collect_terms(a, true, &mut terms);
                self.collect_terms(b, *op == BinaryOp::Add, &mut terms);
                self.sum_of(e, terms)
            }
            _ => {
                let mut varies = matches!(e.kind(), ExprKind::Load { .. });
                let regrouped = e.map_children(|c| {
                    let (c, v) = self.regroup(c);
                    varies |= v;
                    c
                });
                (regrouped, varies)
            }
        };
        self.done.insert(e.node_id(), result.clone());
        result
    }

    /// The terms of the sum `e`, added or subtracted as `added` says. An invariant part of
    /// the sum is one term, which keeps its shape (and the values it shares with others).
    fn collect_terms(&mut self, e: &Expr, added: bool, terms: &mut Vec<Term>) {
        let (regrouped, varies) = self.regroup(e);
        match e.kind() {
            ExprKind::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), a, b) if varies => {
                self.collect_terms(a, added, terms);
                self.collect_terms(b, added == (*op == BinaryOp::Add), terms);
            }
            _ => terms.push((added, regrouped, varies)),
        }
    }

    /// The sum `e` of `terms`, regrouped where that lets an invariant part out.
    fn sum_of(&mut self, e: &Expr, terms: Vec<Term>) -> (Expr, bool) {
        let varies = terms.iter().any(|(_, _, v)| *v);
        let invariant_terms = terms.iter().filter(|(_, t, v)| !v && !t.is_const()).count();
        if !varies || invariant_terms < 2 {
            let regrouped = e.map_children(|c| self.regroup(c).0);
            return (regrouped, varies);
        }
        let (varying, rest): (Vec<Term>, Vec<Term>) = terms.into_iter().partition(|t| t.2);
        let (constants, invariant): (Vec<Term>, Vec<Term>) =
            rest.into_iter().partition(|t| t.1.is_const());
        let groups = [group_of(varying), group_of(invariant)]
            .into_iter()
            .chain(constants.into_iter().map(|(added, t, _)| (added, t)))
            .map(|(added, t)| (added, t, true))
            .collect();
        (added_up(groups), true)
    }
}

/// `terms` as one expression: their sum, a negated term subtracted (the first added one
/// starts it; without one, the sum starts from zero).
fn added_up(terms: Vec<Term>) -> Expr {
    let start = terms.iter().position(|t| t.0);
    let mut sum = match start {
        Some(i) => terms[i].1.clone(),
        None => Expr::zero(terms[0].1.ty()),
    };
    for (i, (added, t, _)) in terms.into_iter().enumerate() {
        if Some(i) == start {
            continue;
        }
        let op = if added { BinaryOp::Add } else { BinaryOp::Sub };
        sum = Expr::binary(op, sum, t);
    }
    sum
}

/// `terms` (at least one) as one signed group: `(true, a - b)`, or `(false, a + b)` for
/// `-a - b`.
fn group_of(terms: Vec<Term>) -> (bool, Expr) {
    if terms.iter().any(|t| t.0) {
        (true, added_up(terms))
    } else {
        let negated = terms.into_iter().map(|(_, t, v)| (true, t, v)).collect();
        (false, added_up(negated))
    }
}

/// Expressions rebuilt from value numbers, the lifted and bound ones referred to by name.
struct Rebuilt<'a> {
    nodes: &'a [Node],
    named: Vec<Option<Symbol>>,
    values: Vec<Option<Expr>>,
}

impl Rebuilt<'_> {
    /// Number `n` where it is used: its name if it is lifted or bound, else its value.
    fn reference(&mut self, n: usize) -> Expr {
        match self.named[n] {
            Some(name) => Expr::var(name, self.nodes[n].expr.ty()),
            None => self.value(n),
        }
    }

    /// Number `n` computed from its children's references.
    fn value(&mut self, n: usize) -> Expr {
        if let Some(v) = &self.values[n] {
            return v.clone();
        }
        let node = &self.nodes[n];
        let mut children = node.children.iter();
        let v = node
            .expr
            .map_children(|_| self.reference(*children.next().expect("a number per child")));
        self.values[n] = Some(v.clone());
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::test_builders::{add, mul, var};
    use crate::ir::Type;
    /// The let chain at the top of `e`: the names and values, and the body.
    fn lets_of(e: &Expr) -> (Vec<(Symbol, Expr)>, Expr) {
        let mut lets = Vec::new();
        let mut body = e.clone();
        while let ExprKind::Let(n, v, b) = body.clone().kind() {
            lets.push((*n, v.clone()));
            body = b.clone();
        }
        (lets, body)
    }

    #[test]
    fn a_repeated_subtree_becomes_one_let() {
        let (x, y) = (var("x"), var("y"));
        let xy = mul(&x, &y);
        let e = mul(&add(&xy, &x), &add(&xy, &y));
        let out = common_subexpressions_of_expr(&e);
        let (lets, body) = lets_of(&out);
        assert_eq!(lets.len(), 1, "{out}");
        assert_eq!(lets[0].1, xy);
        let t = Expr::var(lets[0].0, Type::i32());
        assert_eq!(body, mul(&add(&t, &x), &add(&t, &y)));
    }

    #[test]
    fn nested_repeats_share_their_lets() {
        let x = var("x");
        let xx = mul(&x, &x);
        let inner = mul(&add(&xx, &x), &add(&xx, &x));
        let e = add(&inner, &inner);
        let out = common_subexpressions_of_expr(&e);
        let (lets, body) = lets_of(&out);
        // x*x + x and the product are computed once (x*x, used by the first alone, stays in it).
        assert_eq!(lets.len(), 2, "{out}");
        assert!(
            matches!(body.kind(), ExprKind::Binary(BinaryOp::Add, a, b) if a.as_var().is_some() && a == b)
        );
    }

    #[test]
    fn cheap_repeats_stay() {
        let x = var("x");
        let one = Expr::i32(1);
        let ramp = Expr::ramp(x.clone(), one.clone(), 4);
        // x + 1 twice, and a cast of x twice: left as they are.
        let cast = Expr::cast(Type::i64(), x.clone());
        let e = Expr::binary(
            BinaryOp::Sub,
            Expr::cast(Type::i64(), mul(&add(&x, &one), &add(&x, &one))),
            Expr::binary(BinaryOp::Add, cast.clone(), cast),
        );
        assert_eq!(common_subexpressions_of_expr(&e), e);
        let v = Expr::binary(BinaryOp::Max, ramp.clone(), ramp.clone());
        assert_eq!(common_subexpressions_of_expr(&v), v);
    }

    #[test]
    fn conditional_loads_are_not_hoisted_but_unconditional_ones_are() {
        let (x, c) = (var("x"), Expr::binary(BinaryOp::Lt, var("x"), var("n")));
        let load = Expr::load(Type::i32(), Symbol::new("buf"), mul(&x, &var("w")));
        let doubled = add(&load, &load);
        let guarded = Expr::select(c.clone(), doubled.clone(), Expr::i32(0));
        let out = common_subexpressions_of_expr(&guarded);
        // The index, a coordinate, stays in the load; the load, evaluated only where c holds,
        // is not lifted.
        let (lets, body) = lets_of(&out);
        assert!(
            lets.iter().all(|(_, v)| !crate::ir::visit::reads_memory(v)),
            "{out}"
        );
        assert!(crate::ir::visit::reads_memory(&body));
        // Evaluated in every case as well, the load is computed once.
        let both = add(&guarded, &load);
        let out = common_subexpressions_of_expr(&both);
        let (lets, _) = lets_of(&out);
        assert!(lets.iter().any(|(_, v)| *v == load), "{out}");
    }

    #[test]
    fn lets_are_reextracted_where_shared() {
        let x = var("x");
        let t = Symbol::new("t");
        let tv = Expr::var(t, Type::i32());
        // let t = x * x in t + (x * x): one let, whose name is fresh.
        let e = Expr::let_in(t, mul(&x, &x), add(&tv, &mul(&x, &x)));
        let out = common_subexpressions_of_expr(&e);
        let (lets, body) = lets_of(&out);
        assert_eq!(lets.len(), 1, "{out}");
        assert_ne!(lets[0].0, t);
        let fresh = Expr::var(lets[0].0, Type::i32());
        assert_eq!(body, add(&fresh, &fresh));
    }

    #[test]
    fn exponential_trees_take_linear_time() {
        const LEVELS: i32 = 200;
        let mut e = var("x");
        for i in 0..LEVELS {
            e = add(&mul(&e, &e), &Expr::i32(i));
        }
        let out = common_subexpressions_of_expr(&e);
        assert_eq!(lets_of(&out).0.len(), LEVELS as usize - 1);
    }
    #[test]
    fn invariant_terms_of_a_sum_are_grouped_before_the_varying_ones_and_constants_last() {
        let (x, a, b, c) = (var("x"), var("a"), var("b"), var("c"));
        let sub = |p: &Expr, q: &Expr| Expr::binary(BinaryOp::Sub, p.clone(), q.clone());
        // x + a*b - c + 1, with x changing in the loop.
        let e = add(&sub(&add(&x, &mul(&a, &b)), &c), &Expr::i32(1));
        let varies = |n: Symbol| n == Symbol::new("x");
        let grouped = group_loop_invariants(&e, &varies);
        assert_eq!(
            grouped,
            add(&add(&x, &sub(&mul(&a, &b), &c)), &Expr::i32(1)),
            "{grouped}"
        );
        // One invariant term is a subexpression already: nothing to regroup.
        let one = add(&sub(&x, &c), &Expr::i32(1));
        assert_eq!(group_loop_invariants(&one, &varies), one);
        // The lifted invariant part is the whole group, computed once outside the loop.
        let (lets, exprs) = eliminate(
            &[(grouped, Position::default())],
            Coordinates::Vector,
            &mut FreshNames::default(),
            &HashMap::new(),
            Some(&varies),
        );
        assert_eq!(lets.len(), 1);
        assert_eq!(lets[0].value, sub(&mul(&a, &b), &c));
        let t = Expr::var(lets[0].name, Type::i32());
        assert_eq!(exprs[0], add(&add(&x, &t), &Expr::i32(1)));
    }
}
