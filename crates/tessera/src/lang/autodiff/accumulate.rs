//! Adjoint Funcs built from contributions (the accumulation half of Halide's
//! `propagate_halide_function_call`). A contribution `adjoint` to `g(args)` from a stage of
//! a consumer becomes, where it can, a *gather* in `d_g`'s pure definition: each coordinate
//! is `±v + c` of a distinct pure Var `v` of the stage (`c` free of pure Vars), so `v` is
//! solved for `d_g`'s own Var, and the stage's pure Vars left over and its reduction
//! variables are summed over (the region of the consumer and the stage's domain, with its
//! predicates); the gather is zero outside the consumer's region. Otherwise it is a
//! *scatter*: an update `d_g(args) += adjoint` over a domain covering the consumer's region
//! and the stage's reduction domain.

use std::collections::{HashMap, HashSet};

use super::regions::interval_of;
use super::rules::Contribution;
use crate::analysis::interval::Interval;
use crate::error::{Error, Result};
use crate::ir::reduction::{RVarDef, ReductionDomain};
use crate::ir::substitute::{free_vars, substitute, substitute_map, uses_var};
use crate::ir::{Expr, Symbol, Type};
use crate::lang::func::Func;
use crate::lang::inline_reductions::sum_over;
use crate::lang::math::{max, min, select};
use crate::lang::operators::ExprOps;
use crate::lang::rdom::RDom;
use crate::lang::var::Var;
use crate::simplify::simplify;

/// The stage a contribution comes from: what its variables range over.
#[derive(Clone, Debug)]
pub(super) struct Consumer {
    /// The Func the stage defines, for errors.
    pub func: Symbol,
    /// The stage's pure Vars, each with the dimension of the Func it stands alone in.
    pub pure_vars: Vec<(Symbol, usize)>,
    /// The Func's region.
    pub region: Vec<Interval>,
    /// The stage's reduction domain.
    pub rdom: Option<ReductionDomain>,
}

/// `arg` as `v + offset` (`negated`: `offset - v`) for the one variable `v` of `vars` it
/// uses, `offset` free of `v`.
pub(super) struct UnitAffine {
    pub var: Symbol,
    pub negated: bool,
    pub offset: Expr,
}

pub(super) fn unit_affine(arg: &Expr, vars: &HashSet<Symbol>) -> Option<UnitAffine> {
    let mut used = free_vars(arg).into_iter().filter(|v| vars.contains(v));
    let var = used.next()?;
    if used.next().is_some() {
        return None;
    }
    // The variable (an RVar, perhaps) as a plain Var, so that `arg - v` cancels.
    let plain = Symbol::fresh("v");
    let v = Expr::var(plain, arg.ty());
    let arg = substitute(arg, var, &v);
    [false, true].into_iter().find_map(|negated| {
        let offset = if negated {
            simplify(&(arg.clone() + v.clone()))
        } else {
            simplify(&(arg.clone() - v.clone()))
        };
        (!uses_var(&offset, plain)).then_some(UnitAffine {
            var,
            negated,
            offset,
        })
    })
}

/// An adjoint Func being assembled: a base value (the adjoint carried over from elsewhere)
/// plus gathers in its pure definition, then one update per scatter.
pub(super) struct AdjointFunc {
    name: String,
    vars: Vec<Var>,
    ty: Type,
    base: Option<Expr>,
    gathers: Vec<Expr>,
    /// Each scatter's coordinates and value, and the domain its RVars belong to (kept alive
    /// until the update is defined: RVars hold their domain weakly).
    scatters: Vec<(Vec<Expr>, Expr, Option<RDom>)>,
}

impl AdjointFunc {
    pub fn new(name: String, vars: Vec<Var>, ty: Type, base: Option<Expr>) -> AdjointFunc {
        AdjointFunc {
            name,
            vars,
            ty,
            base,
            gathers: Vec::new(),
            scatters: Vec::new(),
        }
    }

    /// Adds `c` (whose coordinates have one entry per Var of this Func) from `from`.
    pub fn add(&mut self, c: &Contribution, from: &Consumer) -> Result<()> {
        if let Some(gather) = self.gather(c, from)? {
            self.gathers.push(gather);
            return Ok(());
        }
        let mut iterated = from.rvars();
        for (v, dim) in from.distinct_pure_vars() {
            let interval = bounded(from, v, dim)?;
            iterated.push(over_interval(v, &interval));
        }
        let predicates = from.predicates();
        let (rdom, renamed) = domain_over(&iterated, &predicates);
        let args: Vec<Expr> = c.args.iter().map(|a| substitute_map(a, &renamed)).collect();
        let mut value = substitute_map(&c.adjoint, &renamed);
        // An update finds its domain through the RVars it mentions, and a variable of the
        // stage that the contribution does not use (`f() += g(r) + h(0)` contributes to
        // `h(0)` once per `r`) must still be iterated: the value mentions it, times zero.
        if let Some(r) = &rdom {
            let mentioned: HashSet<Symbol> = args
                .iter()
                .chain(std::iter::once(&value))
                .flat_map(free_vars)
                .collect();
            for i in 0..r.dimensions() {
                let v = r.var(i);
                if !mentioned.contains(&v.name()) {
                    value += Expr::cast(self.ty, v.expr()) * Expr::zero(self.ty);
                }
            }
        }
        self.scatters.push((args, value, rdom));
        Ok(())
    }

    /// `c` as a term of the pure definition, if each coordinate solves for a distinct
    /// variable of the stage: a pure Var (plus terms of reduction variables) or a reduction
    /// variable (plus terms of neither). The point solved for must lie in the consumer's
    /// region and the stage's domain (with its predicates); the variables left over are
    /// summed over.
    fn gather(&self, c: &Contribution, from: &Consumer) -> Result<Option<Expr>> {
        let pure: HashSet<Symbol> = from.pure_vars.iter().map(|(v, _)| *v).collect();
        let rvars: HashSet<Symbol> = from.rvars().iter().map(|(v, _, _)| *v).collect();
        let mut solved_pure: HashMap<Symbol, Expr> = HashMap::new();
        let mut solved_rvars: HashMap<Symbol, Expr> = HashMap::new();
        for (arg, var) in c.args.iter().zip(&self.vars) {
            let uses_pure = free_vars(arg).iter().any(|v| pure.contains(v));
            let (solved, found) = match unit_affine(arg, &pure) {
                Some(u) => (&mut solved_pure, u),
                None => match unit_affine(arg, &rvars) {
                    Some(u) if !uses_pure => (&mut solved_rvars, u),
                    _ => return Ok(None),
                },
            };
            let y = var.expr();
            let value = if found.negated {
                found.offset - y
            } else {
                y - found.offset
            };
            if solved.insert(found.var, value).is_some() {
                return Ok(None);
            }
        }
        // A pure Var's solution may use reduction variables solved for too.
        for value in solved_pure.values_mut() {
            *value = substitute_map(value, &solved_rvars);
        }
        // Where the point solved for lies in the consumer's region and the stage's domain:
        // the conditions, and the point clamped into that box, at which the adjoint is
        // read, so that no backend reads outside what the consumer needs (native code
        // evaluates both arms of a select).
        let stage_var = |v: Symbol| Expr::var(v, Type::i32());
        let mut conditions = Vec::new();
        let mut clamps: HashMap<Symbol, Interval> = HashMap::new();
        let mut summed = Vec::new();
        for &(v, dim) in &from.pure_vars {
            if solved_pure.contains_key(&v) {
                let interval = &from.region[dim];
                conditions.extend(within(&stage_var(v), interval));
                let both = clamps
                    .get(&v)
                    .map_or(interval.clone(), |i| i.intersect(interval));
                clamps.insert(v, both);
            }
        }
        for (v, dim) in from.distinct_pure_vars() {
            if !solved_pure.contains_key(&v) {
                summed.push(over_interval(v, &bounded(from, v, dim)?));
            }
        }
        for (v, min, extent) in from.rvars() {
            if solved_rvars.contains_key(&v) {
                let interval = interval_of(&min, &extent);
                conditions.extend(within(&stage_var(v), &interval));
                clamps.insert(v, interval);
            } else {
                summed.push((v, min, extent));
            }
        }
        conditions.extend(from.predicates());
        let (rdom, renamed) = domain_over(&summed, &[]);
        // One simultaneous substitution: a Var of this Func may share a name with a pure
        // Var of the stage.
        let mut exact = renamed.clone();
        for (v, value) in solved_pure.into_iter().chain(solved_rvars) {
            exact.insert(v, substitute_map(&value, &renamed));
        }
        let mut clamped = exact.clone();
        for (v, interval) in &clamps {
            let value = &exact[v];
            let value = match &interval.min {
                Some(lo) => max(value.clone(), lo.clone()),
                None => value.clone(),
            };
            let value = match &interval.max {
                Some(hi) => min(value, hi.clone()),
                None => value,
            };
            clamped.insert(*v, value);
        }
        let adjoint = substitute_map(&c.adjoint, &clamped);
        // A plain conjunction of simplified bounds.
        let term = match conditions.into_iter().reduce(|a, b| a.and(b)) {
            Some(inside) => select(
                simplify(&substitute_map(&inside, &exact)),
                adjoint,
                Expr::zero(self.ty),
            ),
            None => adjoint,
        };
        Ok(Some(match rdom {
            Some(r) => sum_over(&r, term),
            None => term,
        }))
    }

    pub fn build(self) -> Result<Func> {
        let f = Func::new(&self.name);
        let zero = Expr::zero(self.ty);
        let pure = self
            .base
            .into_iter()
            .chain(self.gathers)
            .reduce(|a, b| a + b)
            .unwrap_or(zero);
        f.define(self.vars, pure)?;
        for (args, value, _domain) in self.scatters {
            f.update(args.clone(), f.at(args) + value)?;
        }
        Ok(computed_at_root_if_updated(f))
    }
}

/// `f`, computed at root by default if it has updates: an adjoint's update reduces over a
/// whole region (a scatter, a scan run backwards, the points an update overwrote), which
/// computed inside a consumer's loops would be redone at every point. A schedule the user
/// gives replaces this.
pub(super) fn computed_at_root_if_updated(f: Func) -> Func {
    if f.update_count() > 0 {
        f.compute_root();
    }
    f
}

fn bounded(from: &Consumer, v: Symbol, dim: usize) -> Result<Interval> {
    match from.region.get(dim) {
        Some(i) if i.is_bounded() => Ok(i.clone()),
        _ => Err(Error::Definition(format!(
            "propagate_adjoints: the region of {} the output needs is unbounded in dimension {dim} (Var {v}), so its adjoint cannot be scattered over it",
            from.func
        ))),
    }
}

/// A variable iterated over: its name, min and extent.
type Iterated = (Symbol, Expr, Expr);

fn over_interval(v: Symbol, interval: &Interval) -> Iterated {
    let (min, max) = (interval.min.clone(), interval.max.clone());
    let (min, max) = (min.expect("bounded"), max.expect("bounded"));
    (v, min.clone(), simplify(&(max - min + 1)))
}

/// The conditions that `value` lies in `interval` (a missing end does not bound it).
fn within(value: &Expr, interval: &Interval) -> Vec<Expr> {
    let above = interval.min.as_ref().map(|m| value.clone().ge(m.clone()));
    let below = interval.max.as_ref().map(|m| value.clone().le(m.clone()));
    above.into_iter().chain(below).collect()
}

/// A fresh domain over `vars` (innermost first) where `predicates` hold, and the
/// substitution of the variables by the new domain's; `None` when there is nothing to
/// iterate over.
fn domain_over(vars: &[Iterated], predicates: &[Expr]) -> (Option<RDom>, HashMap<Symbol, Expr>) {
    if vars.is_empty() {
        return (None, HashMap::new());
    }
    let name = Symbol::fresh("r_adjoint");
    let defs = vars
        .iter()
        .enumerate()
        .map(|(i, (_, min, extent))| RVarDef {
            name: name.dot(&i.to_string()),
            min: min.clone(),
            extent: extent.clone(),
        })
        .collect();
    let domain = RDom::from_vars(name, defs);
    let renamed: HashMap<Symbol, Expr> = vars
        .iter()
        .enumerate()
        .map(|(i, (v, _, _))| (*v, domain.var(i).expr()))
        .collect();
    for p in predicates {
        domain.where_(substitute_map(p, &renamed));
    }
    (Some(domain), renamed)
}

impl Consumer {
    /// The stage's reduction variables, innermost first.
    fn rvars(&self) -> Vec<Iterated> {
        self.rdom
            .iter()
            .flat_map(|r| &r.vars)
            .map(|r| (r.name, r.min.clone(), r.extent.clone()))
            .collect()
    }

    fn predicates(&self) -> Vec<Expr> {
        self.rdom
            .iter()
            .flat_map(|r| r.predicates.clone())
            .collect()
    }

    /// The pure Vars, each once (a diagonal `f(x, x)` names one twice).
    fn distinct_pure_vars(&self) -> Vec<(Symbol, usize)> {
        let mut seen = HashSet::new();
        self.pure_vars
            .iter()
            .copied()
            .filter(|(v, _)| seen.insert(*v))
            .collect()
    }
}
