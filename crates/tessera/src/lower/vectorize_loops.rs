//! Vectorization (Halide §4.5): a loop scheduled `vectorize` of constant extent L disappears;
//! its variable becomes `ramp(min, 1, L)` and every expression depending on it is widened to
//! L lanes (scalars beside it are broadcast), so loads and stores become vector loads and
//! stores. A condition that differs between lanes (a `GuardWithIf` tail, an RDom predicate)
//! becomes a predicate on the loads and stores it guards — never scalarized (but a load of
//! one element for every lane, proven inside a buffer allocated around the vectorized loop,
//! stays unmasked: it is there whichever lanes are active); where both of
//! its branches store to the same place (a `PredicateLoads` tail), one store of a `select`
//! with predicated loads.
//!
//! Vectorized loops nest, as in Halide: inside a vectorized loop of L1 lanes, one of L2 lanes
//! makes vectors of L1 L2 lanes, the outer loop's lanes major (lane `i L2 + j` is iteration
//! `i` of the outer loop and `j` of the inner), so the outer variable becomes a ramp of
//! broadcasts and the inner one a broadcast of a ramp. The vectorizer works from the code as
//! written: at each vectorized loop it widens again, from their scalar values, the vector lets
//! around it. A Func computed inside a vectorized loop gets one copy of its storage per lane,
//! sized for the lane that needs most; its loops, whose bounds may differ between lanes, run
//! from the least min over the most iterations any lane needs, each lane's stores predicated
//! on its own bounds. An assertion that differs between lanes is checked lane by lane.
//!
//! An atomic update (`Stage::atomic`) storing to one point from every lane (of all the nested
//! loops) becomes a horizontal reduction of its operand and one scalar atomic store; any
//! other atomic update keeps the outermost vectorized loop serial, its lanes updating in turn
//! (the vectorized loops inside it are vectorized on their own).

use std::collections::HashMap;

use crate::analysis::bounds::{bounds_of_expr, Scope};
use crate::analysis::interval::Interval;
use crate::error::{Error, Result};
use crate::ir::read_modify_write::{identity, reduce_lanes, split_update};
use crate::ir::substitute::{free_vars, substitute};
use crate::ir::visit::{mutate_exprs, reads_memory};
use crate::ir::{
    BinaryOp, CallKind, Expr, ExprKind, ForKind, Intrinsic, Stmt, StmtKind, Symbol, UnaryOp,
};
use crate::lower::overflow_checks::size_check;
use crate::simplify::simplify;

/// The most lanes a vector may have, nested vectorized loops together.
const MAX_LANES: i64 = 1024;

pub fn vectorize_loops(s: &Stmt) -> Result<Stmt> {
    vectorize_within(s, &mut HashMap::new())
}

/// `s` vectorized, inside allocations of the sizes (in elements) in `allocated`.
fn vectorize_within(s: &Stmt, allocated: &mut HashMap<Symbol, Expr>) -> Result<Stmt> {
    match s.kind() {
        StmtKind::For {
            name,
            min,
            extent,
            kind: ForKind::Vectorized,
            body,
        } => {
            let mut v = Vectorizer {
                allocated: allocated.clone(),
                ..Vectorizer::default()
            };
            let vectorized = v.vectorized_loop(*name, min.clone(), extent, body);
            if v.lanes_in_turn {
                // An atomic update inside needs its lanes in turn: the loop stays serial (so
                // an error vectorizing it does not matter).
                let body = vectorize_within(body, allocated)?;
                return Ok(Stmt::for_loop(
                    *name,
                    min.clone(),
                    extent.clone(),
                    ForKind::Serial,
                    body,
                ));
            }
            vectorized
        }
        StmtKind::Allocate {
            buffer,
            extents,
            body,
            ..
        } => {
            let size = extents
                .iter()
                .cloned()
                .reduce(|a, b| Expr::binary(BinaryOp::Mul, a, b))
                .unwrap_or_else(|| Expr::i32(1));
            let shadowed = allocated.insert(*buffer, size);
            let vectorized = vectorize_within(body, allocated);
            match shadowed {
                Some(size) => allocated.insert(*buffer, size),
                None => allocated.remove(buffer),
            };
            let vectorized = vectorized?;
            Ok(s.map_children(|e| e.clone(), |_| vectorized.clone()))
        }
        _ => {
            let mut error = None;
            let out = s.map_children(
                |e| e.clone(),
                |c| match vectorize_within(c, allocated) {
                    Ok(c) => c,
                    Err(e) => {
                        error.get_or_insert(e);
                        c.clone()
                    }
                },
            );
            error.map_or(Ok(out), Err)
        }
    }
}

/// A vectorized loop enclosing the code being vectorized.
struct VectorizedVar {
    name: Symbol,
    /// Its first iteration (a scalar).
    min: Expr,
    lanes: u16,
}

#[derive(Default)]
struct Vectorizer {
    /// The vectorized loops around this point, outermost first.
    vars: Vec<VectorizedVar>,
    /// Each vectorized variable's value at the current lanes, and its distance from its
    /// loop's min.
    replacements: HashMap<Symbol, Expr>,
    from_zero: HashMap<Symbol, Expr>,
    /// The lanes of vectors here: the product of the vectorized loops' extents.
    lanes: u16,
    /// The lets around this point whose values vary between lanes, outermost first, with
    /// their scalar values as written (inner vectorized loops widen them again).
    vector_lets: Vec<(Symbol, Expr)>,
    /// What each variable of `vector_lets` (and of vector `Let` expressions) stands for at
    /// the current lanes: its value itself where nested vectorized loops substitute it
    /// (`substitutes`), else the variable of the vector let binding it.
    vector_vars: HashMap<Symbol, Expr>,
    /// The values (widened) of the vector lets kept as lets around this point.
    let_values: HashMap<Symbol, Expr>,
    /// The conditions around this point, as written, that vary between lanes: loads and
    /// stores here are predicated on them.
    conditions: Vec<Expr>,
    /// The buffers allocated around the outermost vectorized loop, with their sizes in
    /// elements: a load from one at an address proven inside it need not be masked.
    allocated: HashMap<Symbol, Expr>,
    /// Buffers allocated inside vectorized loops, with how many of `vars` enclose their
    /// allocation: each lane of those loops has its own copy.
    per_lane: HashMap<Symbol, usize>,
    /// An atomic update inside is not a horizontal reduction, so the lanes must run one
    /// after another (as the serial loop), each an atomic update of its own: the outermost
    /// vectorized loop is left serial.
    lanes_in_turn: bool,
}

impl Vectorizer {
    fn error(&self, what: &str) -> Error {
        let name = self.vars.last().map_or(Symbol::new("?"), |v| v.name);
        Error::schedule(format!("cannot vectorize loop {name}: {what}"))
    }

    /// The loop `name` vectorized inside the current ones: its variable becomes a vector of
    /// the lanes of all of them, and the vector lets around it are widened again.
    fn vectorized_loop(
        &mut self,
        name: Symbol,
        min: Expr,
        extent: &Expr,
        body: &Stmt,
    ) -> Result<Stmt> {
        let lanes = extent.as_int_const().filter(|&n| (1..=MAX_LANES as i128).contains(&n)).ok_or_else(|| {
            Error::schedule(format!(
                "cannot vectorize loop {name}: its extent {extent} is not a constant (between 1 and {MAX_LANES}); vectorize with a constant width, e.g. vectorize(x, 8)"
            ))
        })? as i64;
        let total = i64::from(self.lanes.max(1)) * lanes;
        if total > MAX_LANES {
            return Err(Error::schedule(format!(
                "cannot vectorize loop {name}: inside the vectorized loops around it, its vectors would have {total} lanes, more than {MAX_LANES}"
            )));
        }
        self.vars.push(VectorizedVar {
            name,
            min,
            lanes: lanes as u16,
        });
        self.update_replacements();
        let outer_vars = self.vector_vars.clone();
        let outer_values = self.let_values.clone();
        let mut widened = Vec::new();
        let result = (|| {
            for (let_name, value) in self.vector_lets.clone() {
                let value = self.expr(&value)?;
                if self.substitutes(&value) {
                    self.vector_vars.insert(let_name, value);
                } else {
                    let new_name = let_name.dot(&format!("widened.{name}"));
                    self.vector_vars
                        .insert(let_name, Expr::var(new_name, value.ty()));
                    self.let_values.insert(new_name, value.clone());
                    widened.push((new_name, value));
                }
            }
            self.stmt(body)
        })();
        self.vector_vars = outer_vars;
        self.let_values = outer_values;
        self.vars.pop();
        self.update_replacements();
        let body = result?;
        Ok(widened
            .into_iter()
            .rev()
            .fold(body, |b, (n, v)| Stmt::let_stmt(n, v, b)))
    }

    /// Each vectorized variable as a vector of the current lanes (Halide's layout: the
    /// innermost loop's lanes vary fastest).
    fn update_replacements(&mut self) {
        self.replacements.clear();
        self.from_zero.clear();
        let mut ones: Option<Expr> = None;
        let mut lanes = 1u16;
        for (i, v) in self.vars.iter().enumerate().rev() {
            let ones_here = ones.clone().unwrap_or_else(|| Expr::i32(1));
            for (k, w) in self.vars.iter().enumerate() {
                let widen = |e: Expr| {
                    if i == k {
                        let step = if e.ty().is_scalar() {
                            Expr::make_const(e.ty(), 1)
                        } else {
                            ones_here.clone()
                        };
                        let step = if step.ty() == e.ty() {
                            step
                        } else {
                            Expr::cast(e.ty(), step)
                        };
                        Expr::ramp(e, step, v.lanes)
                    } else {
                        e.broadcast_to(v.lanes)
                    }
                };
                let value = self
                    .replacements
                    .remove(&w.name)
                    .unwrap_or_else(|| w.min.clone());
                let zero = self
                    .from_zero
                    .remove(&w.name)
                    .unwrap_or_else(|| Expr::make_const(w.min.ty(), 0));
                self.replacements.insert(w.name, widen(value));
                self.from_zero.insert(w.name, widen(zero));
            }
            ones = Some(ones_here.broadcast_to(v.lanes));
            lanes *= v.lanes;
        }
        self.lanes = lanes;
    }

    /// `e` widened to `lanes` (a multiple of its own), repeating it.
    fn widen(e: Expr, lanes: u16) -> Expr {
        let own = e.ty().lanes;
        if own == lanes {
            e
        } else {
            e.broadcast_to(lanes / own)
        }
    }

    fn to_vector(&self, e: Expr) -> Expr {
        Self::widen(e, self.lanes)
    }

    fn expr(&mut self, e: &Expr) -> Result<Expr> {
        let ty = e.ty();
        Ok(match e.kind() {
            ExprKind::Var(n) => match (self.replacements.get(n), self.vector_vars.get(n)) {
                (Some(r), _) => r.clone(),
                (None, Some(v)) => v.clone(),
                (None, None) => e.clone(),
            },
            ExprKind::IntImm(_)
            | ExprKind::UIntImm(_)
            | ExprKind::FloatImm(_)
            | ExprKind::Param(..)
            | ExprKind::RVar(..) => e.clone(),
            ExprKind::Ramp(base, stride) => {
                let count = ty.lanes / base.ty().lanes;
                let (base, stride) = (self.expr(base)?, self.expr(stride)?);
                let lanes = base.ty().lanes.max(stride.ty().lanes);
                Expr::ramp(Self::widen(base, lanes), Self::widen(stride, lanes), count)
            }
            ExprKind::Broadcast(v) => {
                let count = ty.lanes / v.ty().lanes;
                self.expr(v)?.broadcast_to(count)
            }
            ExprKind::Cast(a) => {
                let a = self.expr(a)?;
                Expr::cast(ty.element().with_lanes(a.ty().lanes), a)
            }
            ExprKind::Unary(op, a) => Expr::unary(*op, self.expr(a)?),
            ExprKind::Binary(op, a, b) => {
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                let lanes = a.ty().lanes.max(b.ty().lanes);
                Expr::binary(*op, Self::widen(a, lanes), Self::widen(b, lanes))
            }
            ExprKind::Select(c, t, f) => {
                let (c, t, f) = (self.expr(c)?, self.expr(t)?, self.expr(f)?);
                let lanes = c.ty().lanes.max(t.ty().lanes).max(f.ty().lanes);
                Expr::select(
                    Self::widen(c, lanes),
                    Self::widen(t, lanes),
                    Self::widen(f, lanes),
                )
            }
            ExprKind::Let(n, v, b) => {
                let v = self.expr(v)?;
                let previous = self.bind(*n, &v);
                let b = self.expr(b);
                self.unbind(*n, previous);
                if self.substitutes(&v) {
                    b?
                } else {
                    Expr::let_in(*n, v, b?)
                }
            }
            ExprKind::Load {
                buffer,
                index,
                predicate,
            } => {
                let index = self.expr(index)?;
                let predicate = match predicate {
                    Some(p) => Some(self.expr(p)?),
                    None => None,
                };
                // The same element for every lane, which is there whichever lanes are
                // active: loading it unmasked is safe, and costs one scalar load (Halide
                // leaves such loads unpredicated too).
                let one_safe_element = predicate.is_none()
                    && index.ty().is_scalar()
                    && self.proven_allocated(*buffer, &index);
                let predicate = if one_safe_element {
                    None
                } else {
                    combine(predicate, self.lane_predicate()?)
                };
                let index = self.lane_index(*buffer, index);
                let lanes = index
                    .ty()
                    .lanes
                    .max(predicate.as_ref().map_or(1, |p| p.ty().lanes));
                Expr::new(
                    ty.element().with_lanes(lanes),
                    ExprKind::Load {
                        buffer: *buffer,
                        index: Self::widen(index, lanes),
                        predicate: predicate.map(|p| Self::widen(p, lanes)),
                    },
                )
            }
            ExprKind::Call {
                name,
                kind,
                args,
                value_index,
            } => {
                let args: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect::<Result<_>>()?;
                let lanes = args.iter().map(|a| a.ty().lanes).max().unwrap_or(1);
                // A print prints once per lane, even where its values are the same in all.
                let lanes = if matches!(kind, CallKind::Intrinsic(Intrinsic::Print { .. })) {
                    lanes.max(self.lanes)
                } else {
                    lanes
                };
                Expr::new(
                    ty.element().with_lanes(lanes.max(ty.lanes)),
                    ExprKind::Call {
                        name: *name,
                        kind: kind.clone(),
                        args: args.into_iter().map(|a| Self::widen(a, lanes)).collect(),
                        value_index: *value_index,
                    },
                )
            }
            ExprKind::Invalid(_) => return Err(self.error("internal error: invalid expression")),
        })
    }

    /// Whether element `index` of `buffer`, allocated around the vectorized loops (not per
    /// lane), is provably inside its allocation.
    fn proven_allocated(&self, buffer: Symbol, index: &Expr) -> bool {
        if self.per_lane.contains_key(&buffer) {
            return false;
        }
        let Some(size) = self.allocated.get(&buffer) else {
            return false;
        };
        let inside = Expr::binary(
            BinaryOp::And,
            Expr::binary(BinaryOp::Le, Expr::zero(index.ty()), index.clone()),
            Expr::binary(BinaryOp::Lt, index.clone(), size.clone()),
        );
        simplify(&inside).as_int_const() == Some(1)
    }

    fn depends_on_lanes(&self, e: &Expr) -> bool {
        let mut found = false;
        crate::ir::visit::visit_exprs(e, &mut |n| {
            if let ExprKind::Var(v) = n.kind() {
                found |= self.replacements.contains_key(v) || self.vector_vars.contains_key(v);
            }
            !found
        });
        found
    }

    /// The lanes active here (where the lane-varying conditions around hold), if any such
    /// condition encloses this point.
    fn lane_predicate(&mut self) -> Result<Option<Expr>> {
        let mut predicate = None;
        for c in self.conditions.clone() {
            predicate = combine(predicate, Some(self.expr(&c)?));
        }
        Ok(predicate.map(|p| self.to_vector(p)))
    }

    /// The index of element `index` of `buffer` for each lane, if each lane has its copy:
    /// element `i` of the copy of lane `l` (numbered over the loops around the allocation)
    /// is at `i * copies + l`.
    fn lane_index(&self, buffer: Symbol, index: Expr) -> Expr {
        let Some(&depth) = self.per_lane.get(&buffer) else {
            return index;
        };
        let mut copies = 1i32;
        let mut lane: Option<Expr> = None;
        for v in &self.vars[..depth] {
            let lanes = Expr::i32(i32::from(v.lanes)).broadcast_to(self.lanes);
            let zero = self.from_zero[&v.name].clone();
            lane = Some(match lane {
                None => zero,
                Some(l) => Expr::binary(BinaryOp::Add, Expr::binary(BinaryOp::Mul, l, lanes), zero),
            });
            copies *= i32::from(v.lanes);
        }
        let Some(lane) = lane else { return index };
        Expr::binary(
            BinaryOp::Add,
            Expr::binary(
                BinaryOp::Mul,
                self.to_vector(index),
                Expr::i32(copies).broadcast_to(self.lanes),
            ),
            lane,
        )
    }

    /// Whether a let of `value` (widened to the current lanes) is substituted rather than
    /// kept: inside nested vectorized loops, where its value is a pattern of lanes
    /// (`lane_pattern`), so loads, stores and loop partitioning see the nested ramps the
    /// simplifier would not take apart. In one vectorized loop the let stays, as written
    /// (the simplifier splits a let of a ramp into a scalar let of its base).
    fn substitutes(&self, value: &Expr) -> bool {
        self.vars.len() > 1 && value.ty().is_vector() && lane_pattern(value)
    }

    /// Binds `name` to `value` at the current lanes (substituted inside nested vectorized
    /// loops where it is a pattern of lanes, as Halide does, so loads and stores see their
    /// ramps; else kept as a let, its value recorded in `let_values`). Returns what `name`
    /// stood for before.
    fn bind(&mut self, name: Symbol, value: &Expr) -> (Option<Expr>, Option<Expr>) {
        if value.ty().is_vector() {
            let (stands_for, kept) = if self.substitutes(value) {
                (value.clone(), None)
            } else {
                (Expr::var(name, value.ty()), Some(value.clone()))
            };
            // (A let naming the variable it shadows is not recorded: substituting it would
            // not end.)
            let kept = match kept.filter(|v| !free_vars(v).contains(&name)) {
                Some(v) => self.let_values.insert(name, v),
                None => self.let_values.remove(&name),
            };
            (self.vector_vars.insert(name, stands_for), kept)
        } else {
            (
                self.vector_vars.remove(&name),
                self.let_values.remove(&name),
            )
        }
    }

    fn unbind(&mut self, name: Symbol, previous: (Option<Expr>, Option<Expr>)) {
        match previous.0 {
            Some(t) => self.vector_vars.insert(name, t),
            None => self.vector_vars.remove(&name),
        };
        match previous.1 {
            Some(v) => self.let_values.insert(name, v),
            None => self.let_values.remove(&name),
        };
    }

    /// `e` (widened) with the vector lets around it that it uses, directly or through
    /// others, substituted: what `lanes::extract_lanes` can take apart.
    fn with_lets_substituted(&self, e: Expr) -> Expr {
        let mut e = e;
        // Each round substitutes the lets `e` names; their values name lets bound
        // further out, so this ends.
        for _ in 0..=self.let_values.len() {
            let used: Vec<Symbol> = free_vars(&e)
                .into_iter()
                .filter(|n| self.let_values.contains_key(n))
                .collect();
            if used.is_empty() {
                break;
            }
            for n in used {
                e = substitute(&e, n, &self.let_values[&n]);
            }
        }
        e
    }

    /// The most `e` (an expression as written, here) is over the lanes: an upper bound of
    /// it, a scalar, where the vectorized variables range over their loops.
    fn upper_bound_over_lanes(&self, e: &Expr, what: &str) -> Result<Expr> {
        let mut scope = Scope::new();
        for v in &self.vars {
            let last = Expr::binary(
                BinaryOp::Add,
                v.min.clone(),
                Expr::make_const(v.min.ty(), i64::from(v.lanes) - 1),
            );
            scope.insert(v.name, Interval::new(v.min.clone(), last));
        }
        // The lane-varying lets `e` uses, directly or through others, around it.
        let mut used = free_vars(e);
        let mut lets = Vec::new();
        for (name, value) in self.vector_lets.iter().rev() {
            if used.contains(name) {
                used.extend(free_vars(value));
                lets.push((*name, value.clone()));
            }
        }
        let e = lets
            .into_iter()
            .fold(e.clone(), |b, (n, v)| Expr::let_in(n, v, b));
        match bounds_of_expr(&e, &scope).max {
            Some(max) if !self.depends_on_lanes(&max) => Ok(simplify(&max)),
            _ => Err(self.error(&format!(
                "{what} differs between lanes and has no upper bound over them"
            ))),
        }
    }

    fn stmt(&mut self, s: &Stmt) -> Result<Stmt> {
        Ok(match s.kind() {
            StmtKind::Prefetch {
                buffer,
                ty,
                args,
                flat,
                in_bounds,
            } => {
                let args = args
                    .iter()
                    .map(|a| self.expr(a))
                    .collect::<Result<Vec<_>>>()?;
                if args.iter().any(|a| a.ty().is_vector()) {
                    return Err(
                        self.error(&format!("the prefetch of {buffer} differs between lanes"))
                    );
                }
                Stmt::new(StmtKind::Prefetch {
                    buffer: *buffer,
                    ty: *ty,
                    args,
                    flat: *flat,
                    in_bounds: *in_bounds,
                })
            }
            StmtKind::LetStmt { name, value, body } => {
                let widened = self.expr(value)?;
                let lane_varying = widened.ty().is_vector() && value.ty().is_scalar();
                if lane_varying {
                    self.vector_lets.push((*name, value.clone()));
                }
                let previous = self.bind(*name, &widened);
                let body = self.stmt(body);
                self.unbind(*name, previous);
                if lane_varying {
                    self.vector_lets.pop();
                }
                if self.substitutes(&widened) {
                    body?
                } else {
                    Stmt::let_stmt(*name, widened, body?)
                }
            }
            StmtKind::Store {
                buffer,
                index,
                value,
                predicate,
            } => {
                let (index, value) = (self.expr(index)?, self.expr(value)?);
                let predicate = match predicate {
                    Some(p) => Some(self.expr(p)?),
                    None => None,
                };
                let predicate = combine(predicate, self.lane_predicate()?);
                let index = self.lane_index(*buffer, index);
                let lanes = index
                    .ty()
                    .lanes
                    .max(value.ty().lanes)
                    .max(predicate.as_ref().map_or(1, |p| p.ty().lanes));
                Stmt::new(StmtKind::Store {
                    buffer: *buffer,
                    index: Self::widen(index, lanes),
                    value: Self::widen(value, lanes),
                    predicate: predicate.map(|p| Self::widen(p, lanes)),
                })
            }
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                if let Some(store) = one_store_of_either(condition, then_case, else_case) {
                    if self.depends_on_lanes(condition) {
                        return self.stmt(&store);
                    }
                }
                let widened = self.expr(condition)?;
                if widened.ty().is_scalar() {
                    let then_case = self.stmt(then_case)?;
                    let else_case = else_case.as_ref().map(|e| self.stmt(e)).transpose()?;
                    return Ok(Stmt::new(StmtKind::IfThenElse {
                        condition: widened,
                        then_case,
                        else_case,
                    }));
                }
                self.conditions.push(condition.clone());
                let then_case = self.stmt(then_case);
                self.conditions.pop();
                self.conditions
                    .push(Expr::unary(UnaryOp::Not, condition.clone()));
                let else_case = else_case.as_ref().map(|e| self.stmt(e)).transpose();
                self.conditions.pop();
                Stmt::block([then_case?].into_iter().chain(else_case?))
            }
            StmtKind::For {
                name,
                min,
                extent,
                kind,
                body,
            } => self.inner_loop(*name, min, extent, *kind, body)?,
            // A Func computed inside the loops (an inline reduction, a Func with updates at
            // its default placement, a producer computed at a vectorized loop) gets one copy
            // of its storage per lane, as in Halide: each lane computes its own points. Each
            // copy is as big as the biggest lane needs (lanes never reach into each other's
            // copies, whatever their own sizes).
            StmtKind::Allocate {
                buffer,
                ty,
                extents,
                memory,
                body,
            } => {
                let extents = extents
                    .iter()
                    .map(|e| {
                        if self.expr(e)?.ty().is_vector() {
                            self.upper_bound_over_lanes(e, &format!("the size of {buffer}"))
                        } else {
                            self.expr(e)
                        }
                    })
                    .collect::<Result<Vec<_>>>()?;
                let extents: Vec<Expr> = extents
                    .into_iter()
                    .chain([Expr::i32(i32::from(self.lanes))])
                    .collect();
                self.per_lane.insert(*buffer, self.vars.len());
                let body = self.stmt(body);
                self.per_lane.remove(buffer);
                let allocate = Stmt::new(StmtKind::Allocate {
                    buffer: *buffer,
                    ty: *ty,
                    body: body?,
                    extents: extents.clone(),
                    memory: *memory,
                });
                match size_check(*buffer, &extents)? {
                    Some(check) => Stmt::block([check, allocate]),
                    None => allocate,
                }
            }
            StmtKind::Realize { func, .. } => {
                return Err(self.error(&format!("internal error: unflattened storage of {func}")));
            }
            StmtKind::Assert { condition, .. } if self.depends_on_lanes(condition) => {
                self.lane_by_lane(s)
            }
            StmtKind::Provide { func, .. } => {
                return Err(self.error(&format!("internal error: unflattened Provide to {func}")))
            }
            StmtKind::Atomic { body } => match self.horizontal_reduction(body)? {
                Some(reduced) => Stmt::new(StmtKind::Atomic { body: reduced }),
                None => {
                    self.lanes_in_turn = true;
                    s.clone()
                }
            },
            StmtKind::Assert { .. } | StmtKind::Free { .. } => s.clone(),
            StmtKind::Fork { .. }
            | StmtKind::Semaphore { .. }
            | StmtKind::Acquire { .. }
            | StmtKind::Release { .. } => {
                return Err(self.error(
                    "an async Func is computed inside it: its tasks cannot run as vector lanes; compute it outside the vectorized loop",
                ))
            }
            StmtKind::Evaluate(e) => Stmt::new(StmtKind::Evaluate(self.expr(e)?)),
            StmtKind::Block(stmts) => Stmt::block(
                stmts
                    .iter()
                    .map(|c| self.stmt(c))
                    .collect::<Result<Vec<_>>>()?,
            ),
            StmtKind::ProducerConsumer {
                name,
                is_producer,
                body,
            } => Stmt::new(StmtKind::ProducerConsumer {
                name: *name,
                is_producer: *is_producer,
                body: self.stmt(body)?,
            }),
        })
    }

    /// A loop inside the vectorized ones. Where its min differs between lanes, it runs from
    /// zero with its variable a lane-varying let of the offset from each lane's min; where
    /// its extent does, over the most iterations any lane needs, each lane's points
    /// predicated on its own extent. Then a vectorized loop widens the vectors; another
    /// stays a loop.
    fn inner_loop(
        &mut self,
        name: Symbol,
        min: &Expr,
        extent: &Expr,
        kind: ForKind,
        body: &Stmt,
    ) -> Result<Stmt> {
        let ty = min.ty();
        if self.expr(min)?.ty().is_vector() {
            let offset = name.dot("offset");
            let var = Expr::binary(BinaryOp::Add, Expr::var(offset, ty), min.clone());
            let body = Stmt::let_stmt(name, var, body.clone());
            return self.inner_loop(offset, &Expr::make_const(ty, 0), extent, kind, &body);
        }
        if self.expr(extent)?.ty().is_vector() {
            let most =
                self.upper_bound_over_lanes(extent, &format!("the extent of loop {name}"))?;
            let end = Expr::binary(BinaryOp::Add, min.clone(), extent.clone());
            let inside = Expr::binary(BinaryOp::Lt, Expr::var(name, ty), end);
            let inside = Expr::intrinsic(inside.ty(), Intrinsic::Likely, vec![inside]);
            let body = Stmt::if_then(inside, body.clone());
            return self.inner_loop(name, min, &most, kind, &body);
        }
        let (min, extent) = (self.expr(min)?, self.expr(extent)?);
        if kind == ForKind::Vectorized {
            return self.vectorized_loop(name, min, &simplify(&extent), body);
        }
        Ok(Stmt::for_loop(name, min, extent, kind, self.stmt(body)?))
    }

    /// The stores of an atomic update, each `f[i] = f[i] op e` with `i` the same in every
    /// lane, as one scalar store of `f[i] op reduce(op, e)` where `e`'s lanes are combined
    /// by `op` (inactive lanes contributing `op`'s identity); `None` if some store has
    /// another shape.
    fn horizontal_reduction(&mut self, body: &Stmt) -> Result<Option<Stmt>> {
        match body.kind() {
            StmtKind::Block(stmts) => {
                let mut reduced = Vec::new();
                for s in stmts {
                    match self.horizontal_reduction(s)? {
                        Some(r) => reduced.push(r),
                        None => return Ok(None),
                    }
                }
                Ok(Some(Stmt::block(reduced)))
            }
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case: None,
            } => {
                let widened = self.expr(condition)?;
                if widened.ty().is_scalar() {
                    let then_case = self.horizontal_reduction(then_case)?;
                    return Ok(then_case.map(|t| Stmt::if_then(widened, t)));
                }
                self.conditions.push(condition.clone());
                let reduced = self.horizontal_reduction(then_case);
                self.conditions.pop();
                reduced
            }
            StmtKind::Store {
                buffer,
                index,
                value,
                predicate,
            } => {
                let Some((op, operand)) = split_update(value, *buffer, index) else {
                    return Ok(None);
                };
                let Some(identity) = identity(op, value.ty()) else {
                    return Ok(None);
                };
                // A buffer with a copy per lane has a point per lane.
                let index = self.expr(index)?;
                let index = self.lane_index(*buffer, index);
                if index.ty().is_vector() {
                    return Ok(None);
                }
                let predicate = match predicate {
                    Some(p) => Some(self.expr(p)?),
                    None => None,
                };
                let operand = self.expr(&operand)?;
                let operand = self.to_vector(operand);
                let active = match combine(predicate, self.lane_predicate()?) {
                    Some(p) => Expr::select(
                        self.to_vector(p),
                        operand,
                        identity.broadcast_to(self.lanes),
                    ),
                    None => operand,
                };
                let active = self.with_lets_substituted(active);
                let Some(combined) = reduce_lanes(op, &active) else {
                    return Ok(None);
                };
                let point = Expr::new(
                    value.ty(),
                    ExprKind::Load {
                        buffer: *buffer,
                        index: index.clone(),
                        predicate: None,
                    },
                );
                Ok(Some(Stmt::new(StmtKind::Store {
                    buffer: *buffer,
                    index,
                    value: Expr::binary(op, point, combined),
                    predicate: None,
                })))
            }
            _ => Ok(None),
        }
    }

    /// `s` (as written) run lane by lane: in serial loops over the vectorized variables,
    /// with the lane-varying lets around it recomputed for each lane, where the conditions
    /// around it hold.
    fn lane_by_lane(&self, s: &Stmt) -> Stmt {
        let condition = self
            .conditions
            .iter()
            .cloned()
            .reduce(|a, b| Expr::binary(BinaryOp::And, a, b));
        let guarded = match condition {
            Some(c) => Stmt::if_then(c, s.clone()),
            None => s.clone(),
        };
        let with_lets = self
            .vector_lets
            .iter()
            .rev()
            .fold(guarded, |b, (n, v)| Stmt::let_stmt(*n, v.clone(), b));
        self.vars.iter().rev().fold(with_lets, |b, v| {
            let extent = Expr::make_const(v.min.ty(), i64::from(v.lanes));
            Stmt::for_loop(v.name, v.min.clone(), extent, ForKind::Serial, b)
        })
    }
}

/// `if (c) buffer[i] = a else buffer[i] = b`, both stores unpredicated, as the one store
/// `buffer[i] = select(c, a, b)` whose loads in `a` are made only where `c` holds and those
/// in `b` only where it does not (a `PredicateLoads` tail): vectorized, one full-width store
/// instead of two masked ones.
fn one_store_of_either(
    condition: &Expr,
    then_case: &Stmt,
    else_case: &Option<Stmt>,
) -> Option<Stmt> {
    let (
        StmtKind::Store {
            buffer,
            index,
            value: a,
            predicate: None,
        },
        StmtKind::Store {
            buffer: other_buffer,
            index: other_index,
            value: b,
            predicate: None,
        },
    ) = (then_case.kind(), else_case.as_ref()?.kind())
    else {
        return None;
    };
    if buffer != other_buffer || index != other_index {
        return None;
    }
    let otherwise = Expr::unary(UnaryOp::Not, condition.clone());
    Some(Stmt::new(StmtKind::Store {
        buffer: *buffer,
        index: index.clone(),
        value: Expr::select(
            condition.clone(),
            loads_only_where(a, condition),
            loads_only_where(b, &otherwise),
        ),
        predicate: None,
    }))
}

/// `e` with each of its loads (those in load indices too) made only where `condition` holds.
fn loads_only_where(e: &Expr, condition: &Expr) -> Expr {
    mutate_exprs(e, &mut |n| match n.kind() {
        ExprKind::Load {
            buffer,
            index,
            predicate,
        } => Some(Expr::predicated_load(
            n.ty(),
            *buffer,
            loads_only_where(index, condition),
            combine(
                predicate.as_ref().map(|p| loads_only_where(p, condition)),
                Some(condition.clone()),
            ),
        )),
        _ => None,
    })
}

/// Whether the vector `e` is a pattern of lanes: ramps and broadcasts of scalars that read
/// no memory, added, subtracted and multiplied — cheap to repeat, and what loads, stores and
/// loop partitioning recognise, so a let bound to one inside nested vectorized loops is
/// substituted.
fn lane_pattern(e: &Expr) -> bool {
    if e.ty().is_scalar() {
        return !reads_memory(e);
    }
    match e.kind() {
        ExprKind::Ramp(a, b)
        | ExprKind::Binary(BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul, a, b) => {
            lane_pattern(a) && lane_pattern(b)
        }
        ExprKind::Broadcast(a) => lane_pattern(a),
        _ => false,
    }
}

/// `a && b` where both are present, after widening scalar to vector as needed.
fn combine(a: Option<Expr>, b: Option<Expr>) -> Option<Expr> {
    match (a, b) {
        (Some(a), Some(b)) => {
            let lanes = a.ty().lanes.max(b.ty().lanes);
            let widen = |e: Expr| {
                if e.ty().lanes < lanes {
                    e.broadcast_to(lanes)
                } else {
                    e
                }
            };
            Some(Expr::binary(BinaryOp::And, widen(a), widen(b)))
        }
        (a, None) => a,
        (None, b) => b,
    }
}
