//! Reverse-mode automatic differentiation of pipelines (Halide's `propagate_adjoints`, after
//! "Differentiable Programming for Image Processing and Deep Learning in Halide", SIGGRAPH
//! 2018). The adjoint of a Func is a Func: at each point, the derivative of the output
//! (weighted by the output's adjoint) with respect to the Func's value there.
//!
//! The Funcs reachable from the output are walked consumers first, and each Func's stages
//! from the last back to the pure definition. A stage's value is differentiated symbolically
//! (`rules`), giving one contribution per call it makes; each is the adjoint of the stage's
//! point times the partial derivative, and is added to the callee's adjoint as a gather or
//! a scatter (`accumulate`) over the region of the consumer the output needs (`regions`).
//! An update's adjoint reaches the stage before it as `updates` describes. What the rules
//! cannot differentiate is an error naming the Func, never a wrong derivative.

mod accumulate;
mod regions;
mod rules;
mod updates;

use std::collections::HashMap;

use accumulate::{AdjointFunc, Consumer};
use regions::{func_regions, interval_of, stage_pure_vars};
use rules::{differentiate, Contribution, Leaf, LeafKey};
use updates::Stage;

use crate::analysis::interval::Interval;
use crate::error::{Error, Result};
use crate::ir::function::redirect_func_calls;
use crate::ir::substitute::substitute;
use crate::ir::{Expr, Symbol};
use crate::lang::func::Func;
use crate::lang::function::{FuncId, Function};
use crate::lang::image_param::ImageParam;
use crate::lang::naming::make_func_names_unique;
use crate::lang::param::Param;
use crate::lang::scalar::Scalar;
use crate::lang::var::Var;
use crate::lower::realization_order::realization_order;

/// The adjoints `propagate_adjoints` built (Halide's `Derivative`): one Func per stage of
/// each Func the output depends on, and one per input image and float `Param` it reads.
#[derive(Clone, Debug, Default)]
pub struct Derivative {
    stages: HashMap<(FuncId, usize), Func>,
    leaves: HashMap<LeafKey, Func>,
}

impl Derivative {
    /// The adjoint of `f`'s pure definition's values: the derivative of the output with
    /// respect to `f` (Halide's `d(f)`).
    pub fn func(&self, f: &Func) -> Result<Func> {
        self.stage(f, 0)
    }

    /// The adjoint of the values `f` holds after definition `stage` (0 is the pure
    /// definition, `k` its `k`-th update: Halide's `d(f, k - 1)`).
    pub fn stage(&self, f: &Func, stage: usize) -> Result<Func> {
        self.stages
            .get(&(f.function().id(), stage))
            .cloned()
            .ok_or_else(|| missing(&format!("definition {stage} of Func {}", f.name())))
    }

    /// The adjoints of every definition of `f`, the pure one first, for scheduling them
    /// (Halide's `Derivative::funcs`); empty if the output does not depend on `f`.
    pub fn funcs(&self, f: &Func) -> Vec<Func> {
        let id = f.function().id();
        (0..=f.update_count())
            .filter_map(|s| self.stages.get(&(id, s)).cloned())
            .collect()
    }

    /// The adjoint of the input image `image`.
    pub fn image(&self, image: &ImageParam) -> Result<Func> {
        self.leaves
            .get(&LeafKey::Image(image.id()))
            .cloned()
            .ok_or_else(|| missing(&format!("input image {}", image.name())))
    }

    /// The adjoint of the float parameter `param` (a Func of no dimensions).
    pub fn param<T: Scalar>(&self, param: &Param<T>) -> Result<Func> {
        self.leaves
            .get(&LeafKey::Param(param.name()))
            .cloned()
            .ok_or_else(|| missing(&format!("Param {}", param.name())))
    }
}

fn missing(what: &str) -> Error {
    Error::Definition(format!(
        "the derivative has no adjoint of {what}: the output does not depend on it through float values"
    ))
}

/// The derivatives of `output`, whose adjoint is 1, at the point 0 of each of its
/// dimensions (Halide's `propagate_adjoints(output)`; the usual output is a scalar loss).
pub fn propagate_adjoints(output: &Func) -> Result<Derivative> {
    let bounds: Vec<(Expr, Expr)> = (0..output.dimensions())
        .map(|_| (Expr::i32(0), Expr::i32(1)))
        .collect();
    propagate(output, None, &bounds)
}

/// The derivatives of `output` over the box `bounds` (one `(min, extent)` per dimension)
/// where its adjoint is `adjoint`, a Func of the output's dimensions (Halide's
/// `propagate_adjoints(output, adjoint, output_bounds)`).
pub fn propagate_adjoints_with(
    output: &Func,
    adjoint: &Func,
    bounds: &[(Expr, Expr)],
) -> Result<Derivative> {
    if adjoint.dimensions() != output.dimensions() || bounds.len() != output.dimensions() {
        return Err(Error::Definition(format!(
            "propagate_adjoints: the output {} has {} dimensions, its adjoint {} has {} and the bounds given {}; they must match",
            output.name(),
            output.dimensions(),
            adjoint.name(),
            adjoint.dimensions(),
            bounds.len()
        )));
    }
    propagate(output, Some(adjoint), bounds)
}

/// Contributions waiting for their leaf's adjoint to be built, each with its stage.
type Pending = HashMap<LeafKey, (Leaf, Vec<(Contribution, Consumer)>)>;

fn propagate(output: &Func, adjoint: Option<&Func>, bounds: &[(Expr, Expr)]) -> Result<Derivative> {
    let out = output.function().clone();
    let types = out.output_types();
    if !out.is_defined() || types.len() != 1 || !types[0].is_float() {
        return Err(Error::Definition(format!(
            "propagate_adjoints: the output {} must be defined with one float value",
            out.name()
        )));
    }
    make_func_names_unique(&out);
    let env = realization_order(std::slice::from_ref(&out))?;
    let consumers_first: Vec<Function> = env
        .order
        .iter()
        .rev()
        .map(|n| env.func(*n).clone())
        .collect();
    let output_region: Vec<Interval> = bounds.iter().map(|(m, e)| interval_of(m, e)).collect();
    let regions = func_regions(&consumers_first, output_region);
    let mut pending = Pending::new();
    let mut derivative = Derivative::default();
    for f in &consumers_first {
        let types = f.output_types();
        if types.len() != 1 || !types[0].is_float() {
            continue;
        }
        let ty = types[0];
        let vars: Vec<Var> = f.read().args.iter().map(|s| Var::new(s.as_str())).collect();
        let final_adjoint = if f.same_as(&out) {
            let seed = match adjoint {
                Some(a) => a.at(vars.clone()),
                None => Expr::one(ty),
            };
            AdjointFunc::new(format!("d_{}", f.name()), vars.clone(), ty, Some(seed)).build()?
        } else {
            let mut built = AdjointFunc::new(format!("d_{}", f.name()), vars.clone(), ty, None);
            if let Some((_, contributions)) = pending.remove(&LeafKey::Func(f.id())) {
                for (c, from) in &contributions {
                    built.add(c, from)?;
                }
            }
            built.build()?
        };
        let region = regions.get(&f.name()).cloned().unwrap_or_default();
        let defs = f.definitions();
        let mut current = final_adjoint;
        for index in (0..defs.len()).rev() {
            derivative.stages.insert((f.id(), index), current.clone());
            let def = &defs[index];
            if def.guard.is_some() {
                return Err(Error::Definition(format!(
                    "propagate_adjoints: cannot differentiate definition {index} of {}, which stores only under a condition (undef)",
                    f.name()
                )));
            }
            let consumer = Consumer {
                func: f.name(),
                pure_vars: stage_pure_vars(def, &f.read().args),
                region: region.clone(),
                rdom: def.rdom.clone(),
            };
            let seed = Symbol::fresh("adjoint");
            let contributions = differentiate(&def.values[0], &Expr::var(seed, ty), f.name())?;
            let (own, others): (Vec<Contribution>, Vec<Contribution>) = contributions
                .into_iter()
                .partition(|c| c.leaf.key() == LeafKey::Func(f.id()));
            let stage = Stage {
                func: f,
                index,
                defs: &defs,
                vars: &vars,
                ty,
                consumer: &consumer,
                seed,
            };
            let (used, previous, scan_read) = if index == 0 {
                (current.clone(), None, None)
            } else {
                let carried = stage.carry(&current, &own)?;
                (carried.used, Some(carried.previous), carried.scan_read)
            };
            let value = used.at(def.args.clone());
            for c in others {
                let adjoint = strong_calls(&substitute(&c.adjoint, seed, &value));
                stage.check_reads(&adjoint, scan_read.as_ref())?;
                let c = Contribution {
                    args: c.args.iter().map(strong_calls).collect(),
                    adjoint,
                    ..c
                };
                pending
                    .entry(c.leaf.key())
                    .or_insert_with(|| (c.leaf.clone(), Vec::new()))
                    .1
                    .push((c, consumer.clone()));
            }
            if let Some(previous) = previous {
                current = previous;
            }
        }
    }
    for (key, (leaf, contributions)) in pending {
        let (name, vars, ty) = match &leaf {
            Leaf::Image(_, name) => {
                let dims = contributions[0].0.args.len();
                let ty = contributions[0].0.adjoint.ty();
                let vars = (0..dims).map(|d| Var::new(&format!("v{d}"))).collect();
                (*name, vars, ty)
            }
            Leaf::Param(name, ty) => (*name, Vec::new(), *ty),
            // Every Func's contributions were taken when its adjoint was built.
            Leaf::Func(f) => {
                return Err(Error::Internal(format!(
                    "propagate_adjoints: contributions to {} were left over",
                    f.name()
                )))
            }
        };
        let mut built = AdjointFunc::new(format!("d_{name}"), vars, ty, None);
        for (c, from) in &contributions {
            built.add(c, from)?;
        }
        derivative.leaves.insert(key, built.build()?);
    }
    Ok(derivative)
}

/// `e` with calls a Func makes to itself (weak links) made ordinary calls, as they are now
/// in another Func's definition.
fn strong_calls(e: &Expr) -> Expr {
    redirect_func_calls(e, &|link| link.is_weak().then(|| link.function().link()))
}

#[cfg(test)]
mod tests;
