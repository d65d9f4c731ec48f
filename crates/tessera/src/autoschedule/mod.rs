//! Automatic scheduling (issue 16), its foundation: the analysis of a pipeline the search and
//! the cost model will stand on. From the output Func and the estimates (`lang::estimate`),
//! `PipelineAnalysis` gives
//! - the stage graph (`graph`): Funcs in realization order, their stages, producer →
//!   consumer edges, inputs;
//! - footprints (`footprint`): the region of a producer a tile of a consumer needs, for any
//!   tile size and position, the overlap of neighbouring tiles, and the region of every Func
//!   and input the output's estimates require;
//! - the per-point cost of each stage (`cost`): operations by kind and type, loads per
//!   producer, math calls;
//! - the kind of each stage (`classify`): pointwise, stencil, up/downsample, reduction,
//!   scan, data-dependent.
//!
//! On that stand the scheduler's parts, in the order they run:
//! - `problem`: the Funcs to schedule, inlining decided by the cost model, memoized regions;
//! - `widths`: each Func's vector width, one register or two per step, by the cost model;
//! - `plan` and `model` (with `machine`): a group's strategies (overlapped tiles, sliding
//!   window in strips, plain rows) and their predicted time;
//! - `search`: PolyMage's greedy grouping and PolyMage-DP's dynamic programming;
//! - `emit`: the chosen plans as an ordinary schedule (`ScheduleScript`), with `reductions`
//!   the loops of updates: parallel over pure dimensions with iterations enough, else
//!   factored (`rfactor`) into partial results computed in parallel.
//!
//! Beside them, for checking and calibrating the cost model: `sample` draws random schedules
//! from the space with their predictions, `fit` fits the model's coefficients to measured times.
//!
//! `auto_schedule` (and `Pipeline::auto_schedule`) runs them all and applies the schedule;
//! `ingredients` switches parts of the space off, to measure what each is worth.

pub mod classify;
pub mod cost;
pub mod emit;
pub mod estimates;
pub mod fit;
pub mod footprint;
pub mod graph;
pub mod ingredients;
pub mod machine;
pub mod model;
pub mod plan;
pub mod problem;
pub mod reductions;
pub mod sample;
pub mod search;
pub mod widths;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::time::Instant;

use serde::{Deserialize, Serialize};

pub use classify::StageClass;
pub use cost::{OpKind, StageCost};
pub use footprint::{Footprints, Region, Span};
pub use graph::{Producer, StageGraph, StageId};
pub use ingredients::Ingredients;
pub use machine::{Caches, Machine};
pub use model::CostModel;
pub use plan::Strategy;

use crate::codegen::target::Target;
use crate::error::{Error, Result};
use crate::ir::Symbol;
use crate::lang::func::Func;
use crate::lang::param::ParamBinding;
use crate::schedule_script::ScheduleScript;

/// Everything the scheduler knows about a pipeline before choosing a schedule.
#[derive(Clone, Debug)]
pub struct PipelineAnalysis {
    /// The stages and the producer–consumer edges between them.
    pub graph: StageGraph,
    /// The region each edge needs of its producer per consumer tile, and each Func's required region.
    pub footprints: Footprints,
    /// The operations one point of each stage costs.
    pub costs: HashMap<StageId, StageCost>,
    /// What kind of computation each stage is (pointwise, stencil, reduction, ...).
    pub classes: HashMap<StageId, BTreeSet<StageClass>>,
}

impl PipelineAnalysis {
    /// The analysis of the pipeline computing `output`, whose estimates (`Func::set_estimate`)
    /// and its inputs' size it; `params` gives the values of the scalar parameters
    /// (`Param::estimate`, or any bindings). An error names the Func, input or parameter
    /// whose estimate is missing where one is needed.
    pub fn new(output: &Func, params: &[ParamBinding]) -> Result<PipelineAnalysis> {
        let graph = StageGraph::new(output)?;
        let values = estimates::EstimateValues::new(&graph, params);
        let footprints = Footprints::new(&graph, values)?;
        let images: HashSet<_> = graph.inputs.iter().map(|i| i.name).collect();
        let mut costs = HashMap::new();
        let mut classes = HashMap::new();
        for stage in graph.stages() {
            let f = graph
                .func(stage.func)
                .expect("stages are of the graph's Funcs");
            let definition = &f.definitions[stage.stage];
            costs.insert(stage, StageCost::of(f.name, definition, &images));
            classes.insert(stage, classify::classify(f.name, &f.args, definition));
        }
        Ok(PipelineAnalysis {
            graph,
            footprints,
            costs,
            classes,
        })
    }

    /// The region of `producer` that `tile` of Func `consumer` needs (`Footprints::region_needed`).
    pub fn region_needed(
        &self,
        producer: Producer,
        consumer: &Func,
        tile: &[Span],
    ) -> Result<Option<Region>> {
        self.footprints
            .region_needed(producer, consumer.name(), tile)
    }
}

/// Which search the automatic scheduler runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Algorithm {
    /// PolyMage-DP's dynamic programming over groupings (the default).
    #[default]
    Dp,
    /// PolyMage's greedy grouping.
    Greedy,
}

impl std::str::FromStr for Algorithm {
    type Err = crate::error::Error;
    fn from_str(s: &str) -> Result<Algorithm> {
        match s {
            "dp" => Ok(Algorithm::Dp),
            "greedy" => Ok(Algorithm::Greedy),
            _ => Err(Error::schedule(format!(
                "unknown autoscheduling algorithm `{s}`: use dp or greedy"
            ))),
        }
    }
}

/// What the automatic scheduler is asked for.
#[derive(Clone, Debug)]
pub struct AutoScheduleOptions {
    /// The search.
    pub algorithm: Algorithm,
    /// The threads the pipeline will run on.
    pub threads: usize,
    /// The values of the scalar parameters (beside their estimates).
    pub params: Vec<ParamBinding>,
    /// The cost model's coefficients (`CostModel::from_environment` by default).
    pub model: Option<CostModel>,
    /// The parts of the space the search may use (all by default).
    pub ingredients: Ingredients,
    /// The data cache sizes the schedule is made for (`None`, the default: the host's, so
    /// that schedules differ between hosts).
    pub caches: Option<Caches>,
}

impl Default for AutoScheduleOptions {
    fn default() -> AutoScheduleOptions {
        AutoScheduleOptions {
            algorithm: Algorithm::Dp,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            params: Vec::new(),
            model: None,
            ingredients: Ingredients::default(),
            caches: None,
        }
    }
}

/// One group of the chosen schedule, as reported to the user.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroupReport {
    /// The group's output, computed at root.
    pub output: String,
    /// The Funcs computed inside the output's loops.
    pub members: Vec<String>,
    /// How the group is computed.
    pub strategy: String,
    /// The cost model's predicted time, in milliseconds.
    pub predicted_ms: f64,
}

/// An automatic schedule: the directives (already applied to the pipeline's Funcs), the
/// groups with their predicted times, and how long the search took.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AutoSchedule {
    /// The schedule as data.
    pub schedule: ScheduleScript,
    /// The Funcs inlined.
    pub inlined: Vec<String>,
    /// The groups, producers first.
    pub groups: Vec<GroupReport>,
    /// The whole pipeline's predicted time, in milliseconds.
    pub predicted_ms: f64,
    /// The search's wall time, in milliseconds.
    pub search_ms: f64,
}

impl AutoSchedule {
    /// The Rust statements applying the schedule (`ScheduleScript::to_rust`).
    pub fn to_rust(&self) -> String {
        self.schedule.to_rust()
    }

    /// One JSON object: the schedule, the groups with their predicted times, and the search
    /// time. `ScheduleScript::from_json` (and `tessera run --schedule FILE.json`) reads it.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("an automatic schedule serializes")
    }
}

/// Schedules the pipeline computing `output` automatically for `target` and applies the
/// schedule to its Funcs. The output's estimates (`Func::set_estimate`) and the inputs'
/// (`ImageParam::set_estimates`) size the problem; a missing one is an error naming it.
pub fn auto_schedule(
    output: &Func,
    target: &Target,
    options: &AutoScheduleOptions,
) -> Result<AutoSchedule> {
    let start = Instant::now();
    let model = match &options.model {
        Some(m) => m.clone(),
        None => CostModel::from_environment()?,
    };
    let caches = match options.caches {
        Some(caches) => caches.validated()?,
        None => Caches::host(),
    };
    let machine = Machine::with_caches(target, options.threads, caches);
    // Wrappers are tried, not assumed: the plans with them replace those without only when
    // predicted faster (a wrapper recomputes its Func for the other consumers, and keeps it
    // from being computed once and shared).
    let analysis = PipelineAnalysis::new(output, &options.params)?;
    let ingredients = options.ingredients;
    let plain = problem::Problem::with_wrappers(
        &analysis,
        machine.clone(),
        model.clone(),
        Vec::new(),
        ingredients,
    )?;
    let plain_plans = search(&plain, options.algorithm)?;
    let to_wrap = match ingredients.wrappers && ingredients.inlining {
        true => plain.to_wrap()?,
        false => Vec::new(),
    };
    let wrapped = wrap(output, &to_wrap)?;
    let wrapped_analysis = match wrapped.is_empty() {
        true => None,
        false => Some(PipelineAnalysis::new(output, &options.params)?),
    };
    let mut candidate = None;
    if let Some(analysis) = &wrapped_analysis {
        let problem = problem::Problem::with_wrappers(
            analysis,
            machine,
            model,
            wrapped.clone(),
            ingredients,
        )?;
        let plans = search(&problem, options.algorithm)?;
        if total_ns(&plans) < total_ns(&plain_plans) {
            candidate = Some((problem, plans));
        } else {
            unwrap(output, &wrapped)?;
        }
    }
    let (problem, plans) = candidate.unwrap_or((plain, plain_plans));
    let schedule = emit::emit(&problem, &plans);
    let names = |set: &mut dyn Iterator<Item = usize>| -> Vec<String> {
        set.map(|i| problem.funcs[i].name.as_str().to_string())
            .collect()
    };
    let groups = plans
        .iter()
        .map(|p| GroupReport {
            output: problem.funcs[p.output].name.as_str().to_string(),
            members: names(&mut p.members.iter().copied().filter(|&m| m != p.output)),
            strategy: p.strategy.to_string(),
            predicted_ms: p.ns / 1e6,
        })
        .collect();
    let inlined = names(&mut (0..problem.funcs.len()).filter(|&i| problem.inlined[i]));
    let search_ms = start.elapsed().as_secs_f64() * 1e3;
    schedule.apply(output)?;
    Ok(AutoSchedule {
        inlined,
        groups,
        predicted_ms: total_ns(&plans) / 1e6,
        schedule,
        search_ms,
    })
}

/// The plans of `problem` found by `algorithm`.
fn search(problem: &problem::Problem, algorithm: Algorithm) -> Result<Vec<plan::GroupPlan>> {
    match algorithm {
        Algorithm::Dp => search::dynamic_programming(problem),
        Algorithm::Greedy => search::greedy(problem),
    }
}

/// The predicted time of all of `plans`, in nanoseconds.
fn total_ns(plans: &[plan::GroupPlan]) -> f64 {
    plans.iter().map(|p| p.ns).sum()
}

/// Undoes `wrap`: each consumer reads its Func again.
fn unwrap(output: &Func, wrapped: &[problem::Wrapped]) -> Result<()> {
    let funcs = crate::schedule_script::pipeline_funcs(output)?;
    for w in wrapped {
        find_func(&funcs, w.func)?.remove_wrapper(&find_func(&funcs, w.consumer)?);
    }
    Ok(())
}

/// The Func named `name` of `funcs` (the pipeline's, by name).
fn find_func(funcs: &BTreeMap<String, Func>, name: Symbol) -> Result<Func> {
    (funcs.get(name.as_str()).cloned())
        .ok_or_else(|| Error::Internal(format!("the automatic scheduler lost Func {name}")))
}

/// Splits each Func of `pairs` (Func, consumer) with `Func::in_`, in the pipeline computing
/// `output`.
fn wrap(output: &Func, pairs: &[(Symbol, Symbol)]) -> Result<Vec<problem::Wrapped>> {
    let funcs = crate::schedule_script::pipeline_funcs(output)?;
    pairs
        .iter()
        .map(|&(func, consumer)| {
            let wrapper = (find_func(&funcs, func)?)
                .in_(&find_func(&funcs, consumer)?)
                .name();
            Ok(problem::Wrapped {
                func,
                consumer,
                wrapper,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
