//! Vectorization (Halide §4.5): a loop scheduled `vectorize` of constant extent L disappears;
//! its variable becomes `ramp(min, 1, L)` and every expression depending on it is widened to
//! L lanes (scalars beside it are broadcast), so loads and stores become vector loads and
//! stores. A condition that differs between lanes (a `GuardWithIf` tail, an RDom predicate)
//! becomes a predicate on the loads and stores it guards — never scalarized; where both of
//! its branches store to the same place (a `PredicateLoads` tail), one store of a `select`
//! with predicated loads. An atomic update (`Stage::atomic`) storing to one point from every
//! lane becomes a horizontal reduction of its operand and one scalar atomic store; any other
//! atomic update keeps the loop serial, its lanes updating in turn. A Func computed
//! inside the loop (an inline reduction) gets one copy of its storage per lane.

use std::collections::{HashMap, HashSet};

use crate::error::{Error, Result};
use crate::ir::read_modify_write::{identity, reduce_lanes, split_update};
use crate::ir::visit::mutate_exprs;
use crate::ir::{BinaryOp, Expr, ExprKind, ForKind, Stmt, StmtKind, Symbol, Type, UnaryOp};

/// The most elements the per-lane copies of a Func's storage inside a vectorized loop may
/// hold together (their indices must stay far from overflowing 32 bits).
const MAX_PER_LANE_ELEMENTS: i64 = 1 << 16;

pub fn vectorize_loops(s: &Stmt) -> Result<Stmt> {
    match s.kind() {
        StmtKind::For {
            name,
            min,
            extent,
            kind: ForKind::Vectorized,
            body,
        } => {
            let lanes = extent.as_int_const().filter(|&n| (1..=1024).contains(&n)).ok_or_else(|| {
                Error::Schedule(format!(
                    "cannot vectorize loop {name}: its extent {extent} is not a constant (between 1 and 1024); vectorize with a constant width, e.g. vectorize(x, 8)"
                ))
            })? as u16;
            let body = vectorize_loops(body)?;
            let mut v = Vectorizer {
                var: *name,
                lanes,
                ramp: Expr::ramp(min.clone(), Expr::make_const(min.ty(), 1), lanes),
                vector_vars: HashMap::new(),
                predicate: None,
                per_lane: HashSet::new(),
                lanes_in_turn: false,
            };
            let vectorized = v.stmt(&body)?;
            if v.lanes_in_turn {
                return Ok(Stmt::for_loop(
                    *name,
                    min.clone(),
                    extent.clone(),
                    ForKind::Serial,
                    body,
                ));
            }
            Ok(vectorized)
        }
        _ => {
            let mut error = None;
            let out = s.map_children(
                |e| e.clone(),
                |c| match vectorize_loops(c) {
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

struct Vectorizer {
    var: Symbol,
    lanes: u16,
    ramp: Expr,
    /// Variables bound (by lets inside the loop) to vectors, with their types.
    vector_vars: HashMap<Symbol, Type>,
    /// The lanes active here, when a lane-varying condition encloses this point.
    predicate: Option<Expr>,
    /// Buffers allocated inside the loop, one copy per lane: element `i` of lane `l` is at
    /// `i * lanes + l`.
    per_lane: HashSet<Symbol>,
    /// An atomic update inside is not a horizontal reduction, so the lanes must run one
    /// after another (as the serial loop), each an atomic update of its own.
    lanes_in_turn: bool,
}

impl Vectorizer {
    fn error(&self, what: &str) -> Error {
        Error::Schedule(format!("cannot vectorize loop {}: {what}", self.var))
    }

    /// `e` widened to the loop's lanes if it is a scalar.
    fn to_vector(&self, e: Expr) -> Expr {
        if e.ty().is_vector() {
            e
        } else {
            e.broadcast_to(self.lanes)
        }
    }

    fn expr(&mut self, e: &Expr) -> Result<Expr> {
        let ty = e.ty();
        Ok(match e.kind() {
            ExprKind::Var(n) if *n == self.var => self.ramp.clone(),
            ExprKind::Var(n) => match self.vector_vars.get(n) {
                Some(t) => Expr::var(*n, *t),
                None => e.clone(),
            },
            ExprKind::IntImm(_)
            | ExprKind::UIntImm(_)
            | ExprKind::FloatImm(_)
            | ExprKind::Param(_)
            | ExprKind::RVar(..) => e.clone(),
            ExprKind::Ramp(..) | ExprKind::Broadcast(_) => {
                if self.depends_on_lanes(e) {
                    return Err(self.error("it contains another vectorized loop (nested vectorization is not supported)"));
                }
                e.clone()
            }
            ExprKind::Cast(a) => {
                let a = self.expr(a)?;
                Expr::cast(ty.element().with_lanes(a.ty().lanes), a)
            }
            ExprKind::Unary(op, a) => Expr::unary(*op, self.expr(a)?),
            ExprKind::Binary(op, a, b) => {
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                let (a, b) = self.match_lanes(a, b);
                Expr::binary(*op, a, b)
            }
            ExprKind::Select(c, t, f) => {
                let (c, t, f) = (self.expr(c)?, self.expr(t)?, self.expr(f)?);
                if c.ty().is_vector() || t.ty().is_vector() || f.ty().is_vector() {
                    Expr::select(self.to_vector(c), self.to_vector(t), self.to_vector(f))
                } else {
                    Expr::select(c, t, f)
                }
            }
            ExprKind::Let(n, v, b) => {
                let v = self.expr(v)?;
                let previous = self.bind(*n, &v);
                let b = self.expr(b);
                self.unbind(*n, previous);
                Expr::let_in(*n, v, b?)
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
                let predicate = combine(predicate, self.predicate.clone());
                let index = self.lane_index(*buffer, index);
                if index.ty().is_vector() || predicate.as_ref().is_some_and(|p| p.ty().is_vector())
                {
                    let index = self.to_vector(index);
                    let predicate = predicate.map(|p| self.to_vector(p));
                    Expr::new(
                        ty.element().with_lanes(self.lanes),
                        ExprKind::Load {
                            buffer: *buffer,
                            index,
                            predicate,
                        },
                    )
                } else {
                    Expr::new(
                        ty,
                        ExprKind::Load {
                            buffer: *buffer,
                            index,
                            predicate,
                        },
                    )
                }
            }
            ExprKind::Call {
                name,
                kind,
                args,
                value_index,
            } => {
                let args: Vec<Expr> = args.iter().map(|a| self.expr(a)).collect::<Result<_>>()?;
                let vector = args.iter().any(|a| a.ty().is_vector());
                let args = if vector {
                    args.into_iter().map(|a| self.to_vector(a)).collect()
                } else {
                    args
                };
                let ty = if vector {
                    ty.element().with_lanes(self.lanes)
                } else {
                    ty
                };
                Expr::new(
                    ty,
                    ExprKind::Call {
                        name: *name,
                        kind: kind.clone(),
                        args,
                        value_index: *value_index,
                    },
                )
            }
            ExprKind::Invalid(_) => return Err(self.error("internal error: invalid expression")),
        })
    }

    fn depends_on_lanes(&self, e: &Expr) -> bool {
        let mut found = false;
        crate::ir::visit::visit_exprs(e, &mut |n| {
            if let ExprKind::Var(v) = n.kind() {
                found |= *v == self.var || self.vector_vars.contains_key(v);
            }
            !found
        });
        found
    }

    /// The index of element `index` of `buffer` for each lane, if each lane has its copy.
    fn lane_index(&self, buffer: Symbol, index: Expr) -> Expr {
        if !self.per_lane.contains(&buffer) {
            return index;
        }
        let lanes = i32::from(self.lanes);
        let first = Expr::binary(
            BinaryOp::Mul,
            self.to_vector(index),
            Expr::i32(lanes).broadcast_to(self.lanes),
        );
        Expr::binary(
            BinaryOp::Add,
            first,
            Expr::ramp(Expr::i32(0), Expr::i32(1), self.lanes),
        )
    }

    fn match_lanes(&self, a: Expr, b: Expr) -> (Expr, Expr) {
        if a.ty().lanes == b.ty().lanes {
            (a, b)
        } else {
            (self.to_vector(a), self.to_vector(b))
        }
    }

    fn bind(&mut self, name: Symbol, value: &Expr) -> Option<Type> {
        if value.ty().is_vector() {
            self.vector_vars.insert(name, value.ty())
        } else {
            self.vector_vars.remove(&name)
        }
    }

    fn unbind(&mut self, name: Symbol, previous: Option<Type>) {
        match previous {
            Some(t) => self.vector_vars.insert(name, t),
            None => self.vector_vars.remove(&name),
        };
    }

    fn stmt(&mut self, s: &Stmt) -> Result<Stmt> {
        Ok(match s.kind() {
            StmtKind::LetStmt { name, value, body } => {
                let value = self.expr(value)?;
                let previous = self.bind(*name, &value);
                let body = self.stmt(body);
                self.unbind(*name, previous);
                Stmt::let_stmt(*name, value, body?)
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
                let predicate = combine(predicate, self.predicate.clone());
                let index = self.lane_index(*buffer, index);
                let vector = index.ty().is_vector()
                    || value.ty().is_vector()
                    || predicate.as_ref().is_some_and(|p| p.ty().is_vector());
                if vector {
                    let predicate = predicate.map(|p| self.to_vector(p));
                    Stmt::new(StmtKind::Store {
                        buffer: *buffer,
                        index: self.to_vector(index),
                        value: self.to_vector(value),
                        predicate,
                    })
                } else {
                    Stmt::new(StmtKind::Store {
                        buffer: *buffer,
                        index,
                        value,
                        predicate,
                    })
                }
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
                let condition = self.expr(condition)?;
                if condition.ty().is_scalar() {
                    let then_case = self.stmt(then_case)?;
                    let else_case = else_case.as_ref().map(|e| self.stmt(e)).transpose()?;
                    return Ok(Stmt::new(StmtKind::IfThenElse {
                        condition,
                        then_case,
                        else_case,
                    }));
                }
                let outer = self.predicate.clone();
                self.predicate = combine(outer.clone(), Some(condition.clone()));
                let then_case = self.stmt(then_case);
                self.predicate = combine(outer.clone(), Some(Expr::unary(UnaryOp::Not, condition)));
                let else_case = else_case.as_ref().map(|e| self.stmt(e)).transpose();
                self.predicate = outer;
                Stmt::block([then_case?].into_iter().chain(else_case?))
            }
            StmtKind::For {
                name,
                min,
                extent,
                kind,
                body,
            } => {
                let (min, extent) = (self.expr(min)?, self.expr(extent)?);
                if min.ty().is_vector() || extent.ty().is_vector() || self.predicate.is_some() {
                    return Err(self.error(&format!(
                        "the bounds of the inner loop {name} differ between lanes"
                    )));
                }
                Stmt::for_loop(*name, min, extent, *kind, self.stmt(body)?)
            }
            // A Func computed inside the loop (an inline reduction, a Func with updates at
            // its default placement) gets one copy of its storage per lane, as in Halide:
            // each lane computes its own points.
            StmtKind::Allocate {
                buffer,
                ty,
                extents,
                body,
            } => {
                let size = extents
                    .iter()
                    .try_fold(i64::from(self.lanes), |n, e| {
                        n.checked_mul(e.as_int_const()?.try_into().ok()?)
                    })
                    .filter(|&n| n <= MAX_PER_LANE_ELEMENTS);
                if size.is_none() {
                    return Err(self.error(&format!(
                        "{buffer} is computed inside it with a size that is not a small constant; compute it at an outer loop"
                    )));
                }
                self.per_lane.insert(*buffer);
                let body = self.stmt(body);
                self.per_lane.remove(buffer);
                let extents = extents
                    .iter()
                    .cloned()
                    .chain([Expr::i32(i32::from(self.lanes))])
                    .collect();
                Stmt::new(StmtKind::Allocate {
                    buffer: *buffer,
                    ty: *ty,
                    extents,
                    body: body?,
                })
            }
            StmtKind::Realize { func, .. } => {
                return Err(self.error(&format!("internal error: unflattened storage of {func}")));
            }
            StmtKind::Assert { condition, .. } if self.depends_on_lanes(condition) => {
                return Err(self.error("an assertion inside it depends on the vector lanes"));
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
            StmtKind::Assert { .. } => s.clone(),
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
}

impl Vectorizer {
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
                let condition = self.expr(condition)?;
                if condition.ty().is_scalar() {
                    let then_case = self.horizontal_reduction(then_case)?;
                    return Ok(then_case.map(|t| Stmt::if_then(condition, t)));
                }
                let outer = self.predicate.clone();
                self.predicate = combine(outer.clone(), Some(condition));
                let reduced = self.horizontal_reduction(then_case);
                self.predicate = outer;
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
                let index = self.expr(index)?;
                if index.ty().is_vector() || self.per_lane.contains(buffer) {
                    return Ok(None);
                }
                let predicate = match predicate {
                    Some(p) => Some(self.expr(p)?),
                    None => None,
                };
                let operand = self.expr(&operand)?;
                let operand = self.to_vector(operand);
                let active = match combine(predicate, self.predicate.clone()) {
                    Some(p) => Expr::select(
                        self.to_vector(p),
                        operand,
                        identity.broadcast_to(self.lanes),
                    ),
                    None => operand,
                };
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
        } => Some(Expr::new(
            n.ty(),
            ExprKind::Load {
                buffer: *buffer,
                index: loads_only_where(index, condition),
                predicate: combine(
                    predicate.as_ref().map(|p| loads_only_where(p, condition)),
                    Some(condition.clone()),
                ),
            },
        )),
        _ => None,
    })
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
