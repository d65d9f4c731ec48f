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
//! Nothing here schedules: the grouping search and the cost model (PolyMage's greedy
//! grouping, PolyMage-DP's dynamic programming) are still to come and will query this.

pub mod classify;
pub mod cost;
pub mod estimates;
pub mod footprint;
pub mod graph;

use std::collections::{BTreeSet, HashMap, HashSet};

pub use classify::StageClass;
pub use cost::{OpKind, StageCost};
pub use footprint::{Footprints, Region, Span};
pub use graph::{Producer, StageGraph, StageId};

use crate::error::Result;
use crate::lang::func::Func;
use crate::lang::param::ParamBinding;

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

#[cfg(test)]
mod tests;
