//! `rfactor` (Halide's `Stage::rfactor`): splits an associative, commutative reduction into
//! partial reductions that can run in parallel. `f(lhs) = f(lhs) ⊕ e` over a domain whose
//! (possibly split) reduction loops are `R ∪ P` becomes
//!
//! ```text
//! intm(args, p) = identity(⊕)                 // one partial result per point of P
//! intm(lhs, p)  = intm(lhs, p) ⊕ e             // over R (P are now pure Vars of intm)
//! f(args)       = f(args) ⊕ intm(args, rp)     // over a new domain rp with P's ranges
//! ```
//!
//! where the preserved loops `P` become pure dimensions of `intm`: loops over them may be
//! parallelized or vectorized, since different partial results never touch each other.
//! Only operators whose regrouping is exact are accepted (integer `+ * min max & | ^`, bool
//! `&& ||`, float `min max`): a float sum regrouped would change the result's last bits, and
//! no Tessera schedule changes results.

use std::collections::HashMap;

use super::func::{calls_func_named, Func};
use super::function::{Definition, Function};
use super::inline_reductions::{type_max, type_min};
use super::math::likely;
use super::rdom::{RDom, RVarDef};
use super::schedule::{find_dim, LoopDim, SplitDirective};
use super::stage::{DimName, Stage};
use super::var::Var;
use crate::error::{Error, Result, ScheduleError};
use crate::ir::substitute::substitute_map;
use crate::ir::{BinaryOp, CallKind, Expr, ExprKind, Symbol, Type};
use crate::simplify::simplify;

impl Stage {
    /// Factors this update into partial reductions: each `(rvar, var)` pair turns the reduction
    /// loop `rvar` (an RVar of the update or a loop split from one) into the pure dimension
    /// `var` of the returned intermediate Func, which the update then reduces. The
    /// intermediate has this Func's dimensions followed by the `var`s; schedule it (e.g.
    /// `compute_root`, `parallel`) like any Func. Its update iterates the other reduction
    /// loops, which keep their names. The intermediate is named after this Func, `f_intm`
    /// (`rfactor_named` chooses its name).
    pub fn rfactor(&self, preserved: &[(DimName, Var)]) -> Result<Func> {
        let name = format!("{}_intm", self.function().name());
        self.rfactor_named(&name, preserved)
    }

    /// `rfactor`, the intermediate Func named `intermediate` (so that a schedule kept as data
    /// can schedule it by that name).
    pub fn rfactor_named(&self, intermediate: &str, preserved: &[(DimName, Var)]) -> Result<Func> {
        let (func, index) = (self.function().clone(), self.index());
        if index == 0 {
            let message = format!(
                "{}: rfactor applies to an update definition, not the pure definition",
                func.name()
            );
            return Err(Error::Schedule(ScheduleError::of_directive(
                func.name(),
                "rfactor",
                message,
            )));
        }
        let plan = Plan::new(&func, index - 1, preserved)?;
        plan.apply(&Func::from_function(func), intermediate)
    }
}

/// Everything `rfactor` needs, checked before anything changes.
struct Plan {
    /// `f.update(k)` as messages name it.
    stage: String,
    update: usize,
    op: BinaryOp,
    ty: Type,
    pure_args: Vec<Symbol>,
    lhs: Vec<Expr>,
    /// The reduced value `e` of `f(lhs) ⊕ e`.
    term: Expr,
    /// Each loop of the reduction (original RVar or split) as an expression of the leaf loops
    /// below it, which are named by their full loop names until `apply` binds them.
    rvar_values: HashMap<Symbol, Expr>,
    /// The domain's predicates, plus bounds for splits that do not divide their extent.
    predicates: Vec<Expr>,
    /// The leaf loops that stay reduction loops of the intermediate (innermost first): full
    /// loop name, and the RVar (named as the user named the loop) with the loop's range.
    reduced: Vec<(Symbol, RVarDef)>,
    /// The leaf loops that become pure Vars: the Var, full loop name, and the loop's range.
    kept: Vec<(Var, Symbol, RVarDef)>,
}

impl Plan {
    fn new(func: &Function, update: usize, preserved: &[(DimName, Var)]) -> Result<Plan> {
        let f = func.read();
        let name = f.name;
        let stage = format!("{name}.update({update})");
        let err = |msg: String| {
            let message = format!("{stage}.rfactor: {msg}");
            Error::Schedule(ScheduleError::of_directive(name, "rfactor", message))
        };
        let def = f
            .updates
            .get(update)
            .ok_or_else(|| err(format!("{name} has no update {update}")))?;
        let rdom = def
            .rdom
            .as_ref()
            .ok_or_else(|| err("the update has no reduction domain to factor".into()))?;
        let [value] = def.values.as_slice() else {
            return Err(err(
                "rfactor of a Tuple-valued update is not supported".into()
            ));
        };
        if def.guard.is_some() {
            return Err(err(
                "the update stores only some points (a select with an undef arm); rfactor needs one that stores every point of its domain".into(),
            ));
        }
        let ty = value.ty();
        let (op, term) = split_reduction(value, func.name(), &def.args).ok_or_else(|| {
            err(format!(
                "the update is not of the form {name}(..) = {name}(..) op e with e not reading {name}; rfactor needs an associative, commutative op"
            ))
        })?;
        if identity(op, ty).is_none() {
            return Err(err(format!(
                "{op:?} on {ty} cannot be regrouped without changing the result; rfactor supports integer + * min max & | ^, bool && ||, and float min max"
            )));
        }

        // The loop tree of the reduction variables: each split loop's value in terms of the
        // two loops it was split into.
        let mut ranges: HashMap<Symbol, (Expr, Expr)> = rdom
            .vars
            .iter()
            .map(|v| (v.name, (v.min.clone(), v.extent.clone())))
            .collect();
        let mut splits: HashMap<Symbol, SplitNode> = HashMap::new();
        for split in &def.schedule.splits {
            match split {
                SplitDirective::Split {
                    old,
                    outer,
                    inner,
                    factor,
                    ..
                } if ranges.contains_key(old) => {
                    let (min, extent) = ranges[old].clone();
                    let outer_extent = simplify(&Expr::binary(
                        BinaryOp::Div,
                        Expr::binary(
                            BinaryOp::Add,
                            extent.clone(),
                            Expr::binary(BinaryOp::Sub, factor.clone(), Expr::i32(1)),
                        ),
                        factor.clone(),
                    ));
                    ranges.insert(*outer, (Expr::i32(0), outer_extent));
                    ranges.insert(*inner, (Expr::i32(0), factor.clone()));
                    let divides = matches!(
                        (extent.as_int_const(), factor.as_int_const()),
                        (Some(e), Some(k)) if k != 0 && e % k == 0
                    );
                    splits.insert(
                        *old,
                        SplitNode {
                            outer: *outer,
                            inner: *inner,
                            factor: factor.clone(),
                            min,
                            extent,
                            divides,
                        },
                    );
                }
                SplitDirective::Fuse { fused, .. }
                    if def
                        .schedule
                        .dims
                        .iter()
                        .any(|d| d.name == *fused && d.is_rvar) =>
                {
                    return Err(err(format!(
                        "the reduction loops are fused (into {fused}); rfactor supports split RVars only — fuse after rfactor"
                    )));
                }
                _ => {}
            }
        }

        // The leaves: the reduction loops of the stage as scheduled, innermost first.
        let leaves: Vec<_> = def.schedule.dims.iter().filter(|d| d.is_rvar).collect();
        let mut kept = Vec::new();
        for (dim, var) in preserved {
            let i = find_dim(&def.schedule.dims, dim.0).map_err(err)?;
            let d = &def.schedule.dims[i];
            if !d.is_rvar {
                return Err(err(format!(
                    "{} is a pure loop; rfactor preserves reduction loops ({})",
                    d.short,
                    leaves
                        .iter()
                        .map(|l| l.short.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
            if f.args.contains(&var.name()) || kept.iter().any(|(v, _, _): &(Var, _, _)| v == var) {
                return Err(err(format!(
                    "the Var {} for {} is already a dimension of the intermediate; use a fresh Var",
                    var.name(),
                    d.short
                )));
            }
            kept.push((*var, d.name, leaf_rvar(d, &ranges)));
        }
        let reduced: Vec<(Symbol, RVarDef)> = leaves
            .iter()
            .filter(|d| !kept.iter().any(|(_, n, _)| *n == d.name))
            .map(|d| (d.name, leaf_rvar(d, &ranges)))
            .collect();
        let leaf_names: Vec<Symbol> = leaves.iter().map(|d| d.name).collect();
        let rvar_values = ranges
            .keys()
            .map(|&n| (n, loop_value(n, &leaf_names, &splits, true)))
            .collect();
        // A split whose factor does not divide its extent runs past the end: those points
        // are skipped (and, so bounds stay tight, the coordinate is clamped as well). Both
        // are tails, marked likely so loop partitioning removes them from steady iterations.
        let mut predicates = rdom.predicates.clone();
        for (&node, split) in &splits {
            if !split.divides {
                predicates.push(likely(Expr::binary(
                    BinaryOp::Lt,
                    loop_value(node, &leaf_names, &splits, false),
                    Expr::binary(BinaryOp::Add, split.min.clone(), split.extent.clone()),
                )));
            }
        }
        Ok(Plan {
            stage,
            update,
            op,
            ty,
            pure_args: f.args.clone(),
            lhs: def.args.clone(),
            term,
            rvar_values,
            predicates,
            reduced,
            kept,
        })
    }

    fn apply(self, f: &Func, intermediate: &str) -> Result<Func> {
        let intm = Func::new(intermediate);
        let kept_vars: Vec<Expr> = self.kept.iter().map(|(v, _, _)| v.expr()).collect();

        // The intermediate's reduction domain, and the leaves bound to its RVars and to the
        // preserved Vars.
        let reduced_dom = RDom::from_vars(
            Symbol::fresh("rf"),
            self.reduced.iter().map(|(_, r)| r.clone()).collect(),
        );
        let mut leaf_values: HashMap<Symbol, Expr> = HashMap::new();
        for (i, (full, _)) in self.reduced.iter().enumerate() {
            leaf_values.insert(*full, reduced_dom.var(i).expr());
        }
        for (v, full, _) in &self.kept {
            leaf_values.insert(*full, v.expr());
        }
        let bind = |e: &Expr| -> Expr {
            let in_leaves = substitute_map(e, &self.rvar_values);
            simplify(&substitute_map(&in_leaves, &leaf_values))
        };
        for p in &self.predicates {
            reduced_dom.where_(bind(p));
        }

        let args: Vec<Var> = self
            .pure_args
            .iter()
            .map(|a| Var::new(a.as_str()))
            .chain(self.kept.iter().map(|(v, _, _)| *v))
            .collect();
        intm.define(args, identity(self.op, self.ty).expect("checked"))
            .map_err(|e| self.context(e))?;
        let intm_lhs: Vec<Expr> = self
            .lhs
            .iter()
            .map(bind)
            .chain(kept_vars.iter().cloned())
            .collect();
        let previous = intm.at(intm_lhs.clone());
        intm.update(intm_lhs, Expr::binary(self.op, previous, bind(&self.term)))
            .map_err(|e| self.context(e))?;

        // The original update now folds the partial results over the preserved loops.
        let kept_dom = RDom::from_vars(
            Symbol::fresh("rf"),
            self.kept.iter().map(|(_, _, r)| r.clone()).collect(),
        );
        let f_lhs: Vec<Expr> = self
            .lhs
            .iter()
            .zip(&self.pure_args)
            .map(|(a, p)| match a.as_var() {
                Some(_) => a.clone(),
                None => Expr::var(*p, Type::i32()),
            })
            .collect();
        let partial_args: Vec<Expr> = f_lhs
            .iter()
            .cloned()
            .chain((0..self.kept.len()).map(|i| kept_dom.var(i).expr()))
            .collect();
        let value = Expr::binary(self.op, f.at(f_lhs.clone()), intm.at(partial_args));
        f.replace_update(self.update, f_lhs, vec![value])
            .map_err(|e| self.context(e))?;
        Ok(intm)
    }

    fn context(&self, e: Error) -> Error {
        Error::schedule(format!("{}.rfactor: {e}", self.stage))
    }
}

/// The RVar a leaf loop becomes: named as the user named the loop, over its range.
fn leaf_rvar(d: &LoopDim, ranges: &HashMap<Symbol, (Expr, Expr)>) -> RVarDef {
    let (min, extent) = ranges[&d.name].clone();
    RVarDef {
        name: d.short,
        min,
        extent,
    }
}

/// A reduction loop split in two: `old = min + outer * factor + inner`.
struct SplitNode {
    outer: Symbol,
    inner: Symbol,
    factor: Expr,
    /// The range of `old`.
    min: Expr,
    extent: Expr,
    /// Whether `factor` divides `extent` (else the last `outer` iteration runs past the end).
    divides: bool,
}

/// The value of loop `node` of the reduction's split tree as an expression of its leaves;
/// `clamped`: with the loops that run past their end clamped to their last value.
fn loop_value(
    node: Symbol,
    leaves: &[Symbol],
    splits: &HashMap<Symbol, SplitNode>,
    clamped: bool,
) -> Expr {
    if leaves.contains(&node) {
        return Expr::var(node, Type::i32());
    }
    let split = &splits[&node];
    let outer = loop_value(split.outer, leaves, splits, true);
    let inner = loop_value(split.inner, leaves, splits, true);
    let value = Expr::binary(
        BinaryOp::Add,
        split.min.clone(),
        Expr::binary(
            BinaryOp::Add,
            Expr::binary(BinaryOp::Mul, outer, split.factor.clone()),
            inner,
        ),
    );
    if clamped && !split.divides {
        let last = Expr::binary(
            BinaryOp::Sub,
            Expr::binary(BinaryOp::Add, split.min.clone(), split.extent.clone()),
            Expr::i32(1),
        );
        Expr::binary(BinaryOp::Min, likely(value), last)
    } else {
        value
    }
}

/// Whether update `def` of `func` is `func(lhs) = func(lhs) op e` (one value), `e` not
/// reading `func` and `op` associative and commutative exactly on its type: the order of
/// its iterations cannot change the result.
pub(crate) fn is_exact_reduction(def: &Definition, func: Symbol) -> bool {
    // A guard (undef) may read the points the reduction writes.
    if def.guard.is_some() {
        return false;
    }
    let [value] = def.values.as_slice() else {
        return false;
    };
    split_reduction(value, func, &def.args)
        .is_some_and(|(op, _)| identity(op, value.ty()).is_some())
}

/// `(op, e)` when `value` is `f(lhs) op e` or `e op f(lhs)` with `e` not reading `f`.
fn split_reduction(value: &Expr, f: Symbol, lhs: &[Expr]) -> Option<(BinaryOp, Expr)> {
    let ExprKind::Binary(op, a, b) = value.kind() else {
        return None;
    };
    let is_self = |e: &Expr| {
        matches!(e.kind(), ExprKind::Call { kind: CallKind::Func(link), args, .. }
            if link.name() == f && args.as_slice() == lhs)
    };
    let term = if is_self(a) {
        b
    } else if is_self(b) {
        a
    } else {
        return None;
    };
    (!calls_func_named(term, f)).then(|| (*op, term.clone()))
}

/// The identity of `op` on `ty`, when regrouping `op` is exact.
fn identity(op: BinaryOp, ty: Type) -> Option<Expr> {
    use BinaryOp::*;
    let int = ty.is_int_or_uint();
    match op {
        Add | BitOr | BitXor if int => Some(Expr::zero(ty)),
        Mul if int => Some(Expr::one(ty)),
        BitAnd if int => Some(Expr::make_const(ty, -1)),
        Min if int || ty.is_float() => Some(type_max(ty)),
        Max if int || ty.is_float() => Some(type_min(ty)),
        And if ty.is_bool() => Some(Expr::bool_(true)),
        Or if ty.is_bool() => Some(Expr::bool_(false)),
        _ => None,
    }
}
