//! Footprints: the region of each producer that a rectangular tile of a consumer needs, from
//! the bounds machinery (`analysis::boxes`), so that scaled reads (`f(x / 2)`, `f(2 * x + 1)`),
//! clamped and data-dependent reads and reductions come out as lowering's bounds inference
//! would size them.
//!
//! Each edge's region is computed once, symbolically: the consumer's pure Vars range over a
//! tile `[<func>.<var>.tile_min, <func>.<var>.tile_max]`, its reduction variables over their
//! whole domains, and parameters and buffer fields take their estimates. A query for a tile
//! of given position and size substitutes the numbers. An end the analysis cannot bound (a
//! coordinate computed from data) is the producer's whole required region: the region of each
//! Func and input the output's estimates need (`required`), propagated consumers first.

use std::collections::HashMap;
use std::fmt;

use super::estimates::{func_estimates, image_estimates, EstimateValues};
use super::graph::{Producer, StageGraph, StageId};
use crate::analysis::bounds::{bounds_of_expr, Scope};
use crate::analysis::boxes::{box_union, boxes_required, Box};
use crate::analysis::interval::Interval;
use crate::error::{Error, Result};
use crate::eval::expr::eval_scalar;
use crate::eval::value::Value;
use crate::ir::substitute::substitute_map;
use crate::ir::{Expr, Symbol, Type};
use crate::lang::estimate::Estimate;

/// The coordinates `[min, max]` of one dimension of a region or tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Span {
    /// The least coordinate.
    pub min: i64,
    /// The greatest coordinate.
    pub max: i64,
}

impl Span {
    /// `extent` coordinates from `min`.
    pub fn with_extent(min: i64, extent: i64) -> Span {
        Span {
            min,
            max: min + extent - 1,
        }
    }
    /// The number of coordinates (0 when empty).
    pub fn extent(&self) -> i64 {
        self.max - self.min + 1
    }
    fn union(self, other: Span) -> Span {
        Span {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }
}

impl From<Estimate> for Span {
    fn from(e: Estimate) -> Span {
        Span::with_extent(e.min, e.extent)
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}]", self.min, self.max)
    }
}

/// A rectangular region (or tile): one span per dimension.
pub type Region = Vec<Span>;

/// The extents of a region.
pub fn extents(region: &[Span]) -> Vec<i64> {
    region.iter().map(Span::extent).collect()
}

/// The name of an end (`"min"` or `"max"`) of a consumer's tile in the dimension of Var `var`.
fn tile_end(func: Symbol, var: Symbol, end: &str) -> Symbol {
    Symbol::new(&format!("{func}.{var}.tile_{end}"))
}

/// What one stage reads and writes, for a symbolic tile of its Func.
#[derive(Clone, Debug)]
struct StageRegions {
    stage: StageId,
    /// The region of each producer the stage reads.
    reads: Vec<(Producer, Box)>,
    /// The region of its own Func an update writes or reads (`None` for the pure stage,
    /// which writes the tile).
    own: Option<Box>,
}

/// The footprints of every edge of a pipeline, and the region of each Func and input the
/// output's estimates require.
#[derive(Clone, Debug)]
pub struct Footprints {
    stages: Vec<StageRegions>,
    /// The pure Vars of each Func, in dimension order.
    args: HashMap<Symbol, Vec<Symbol>>,
    required: HashMap<Producer, Region>,
    values: EstimateValues,
}

impl Footprints {
    /// The symbolic footprints of `graph`'s edges, and the required regions from the output's
    /// estimates (an error names the output and dimension when one is missing, or a
    /// parameter or input whose estimate a region depends on, or a producer read where no
    /// bound is known and no estimate given).
    pub fn new(graph: &StageGraph, values: EstimateValues) -> Result<Footprints> {
        let args = (graph.funcs.iter())
            .map(|f| (f.name, f.args.clone()))
            .collect();
        let stages = graph
            .stages()
            .map(|stage| stage_regions(graph, stage, &values))
            .collect();
        let mut footprints = Footprints {
            stages,
            args,
            required: HashMap::new(),
            values,
        };
        footprints.propagate(graph)?;
        Ok(footprints)
    }

    /// The region of each Func and input that computing the output over its estimates needs.
    fn propagate(&mut self, graph: &StageGraph) -> Result<()> {
        let output = graph
            .func(graph.output)
            .expect("the output is in the graph");
        let estimates = func_estimates(&output.function)?;
        let mut required = HashMap::new();
        required.insert(
            Producer::Func(graph.output),
            estimates.into_iter().map(Span::from).collect::<Region>(),
        );
        for f in graph.funcs.iter().rev() {
            let Some(mut region) = required.get(&Producer::Func(f.name)).cloned() else {
                return Err(Error::Internal(format!(
                    "Func {} is computed but nothing reads it",
                    f.name
                )));
            };
            // The pure stage also covers what the updates write and read of the Func.
            for s in self.stages_of(f.name) {
                if let Some(own) = &s.own {
                    let what = || format!("the region of {} that {} writes", f.name, s.stage);
                    let written = self.evaluate(own, f.name, &region, &|d| Ok(region[d]), &what)?;
                    region = union(&region, &written);
                }
            }
            required.insert(Producer::Func(f.name), region.clone());
            for s in self.stages_of(f.name) {
                for (producer, symbolic) in &s.reads {
                    let fallback = |d: usize| own_estimate(graph, *producer, d, s.stage);
                    let what = || format!("the region of {producer} that {} reads", s.stage);
                    let needed = self.evaluate(symbolic, f.name, &region, &fallback, &what)?;
                    let merged = match required.get(producer) {
                        Some(old) => union(old, &needed),
                        None => needed,
                    };
                    required.insert(*producer, merged);
                }
            }
        }
        self.required = required;
        Ok(())
    }

    fn stages_of(&self, func: Symbol) -> impl Iterator<Item = &StageRegions> {
        self.stages.iter().filter(move |s| s.stage.func == func)
    }

    /// The values assumed for the parameters and buffer fields (their estimates).
    pub fn estimate_values(&self) -> &EstimateValues {
        &self.values
    }

    /// The region of `producer` (a Func or an input image) that computing the output over
    /// its estimates needs.
    pub fn required(&self, producer: Producer) -> Option<&Region> {
        self.required.get(&producer)
    }

    /// The region of `producer` that computing `tile` of Func `consumer` (every stage of it;
    /// reduction variables over their whole domains) needs, or `None` if `consumer` does not
    /// read `producer`. An end no bound is known for is that of the producer's required
    /// region.
    pub fn region_needed(
        &self,
        producer: Producer,
        consumer: Symbol,
        tile: &[Span],
    ) -> Result<Option<Region>> {
        let dims = self.args.get(&consumer).map_or(0, Vec::len);
        if tile.len() != dims {
            return Err(Error::schedule(format!(
                "a tile of Func {consumer} needs {dims} spans, but {} were given",
                tile.len()
            )));
        }
        let whole = |d: usize| {
            self.required
                .get(&producer)
                .map(|r| r[d])
                .ok_or_else(|| Error::Internal(format!("{producer} has no required region")))
        };
        let mut needed: Option<Region> = None;
        for s in self.stages_of(consumer) {
            for (_, symbolic) in s.reads.iter().filter(|(p, _)| *p == producer) {
                let what = || format!("the region of {producer} that a tile of {} reads", s.stage);
                let region = self.evaluate(symbolic, consumer, tile, &whole, &what)?;
                needed = Some(match needed {
                    Some(old) => union(&old, &region),
                    None => region,
                });
            }
        }
        Ok(needed)
    }

    /// How many coordinates of `producer`, per dimension, the regions needed by `tile` of
    /// `consumer` and by the next tile (shifted by its extent in every dimension) have in
    /// common: what overlapped tiles compute twice. For reads at constant offsets it is the
    /// amount by which the producer's region exceeds the tile (2 for a 3-point stencil); for
    /// a dimension of the producer no tile dimension moves, the whole region.
    pub fn overlap(
        &self,
        producer: Producer,
        consumer: Symbol,
        tile: &[Span],
    ) -> Result<Option<Vec<i64>>> {
        let next: Region = tile
            .iter()
            .map(|s| Span::with_extent(s.min + s.extent(), s.extent()))
            .collect();
        let (Some(a), Some(b)) = (
            self.region_needed(producer, consumer, tile)?,
            self.region_needed(producer, consumer, &next)?,
        ) else {
            return Ok(None);
        };
        let common = a
            .iter()
            .zip(&b)
            .map(|(a, b)| (a.max.min(b.max) - a.min.max(b.min) + 1).max(0));
        Ok(Some(common.collect()))
    }

    /// `symbolic` for `tile` of Func `consumer`: each end with the tile's numbers and the
    /// estimates substituted; an unbounded end is `fallback`'s for its dimension.
    fn evaluate(
        &self,
        symbolic: &Box,
        consumer: Symbol,
        tile: &[Span],
        fallback: &dyn Fn(usize) -> Result<Span>,
        what: &dyn Fn() -> String,
    ) -> Result<Region> {
        let mut numbers = HashMap::new();
        let mut values = HashMap::new();
        for (var, span) in self.args[&consumer].iter().zip(tile) {
            for (end, v) in [("min", span.min), ("max", span.max)] {
                let name = tile_end(consumer, *var, end);
                numbers.insert(name, Expr::make_const(Type::i32(), v));
                values.insert(name, Value::Int(v));
            }
        }
        // Evaluating directly is fast (the search asks for many regions); an end that does
        // not evaluate (an estimate missing) goes the slow way, which names what is missing.
        let end = |e: &Option<Expr>, d: usize, pick: fn(Span) -> i64| match e {
            Some(e) => match eval_scalar(e, &mut values.clone()) {
                Ok(Value::Int(v)) => Ok(v),
                Ok(Value::UInt(v)) if i64::try_from(v).is_ok() => Ok(v as i64),
                _ => self.values.evaluate(&substitute_map(e, &numbers), what),
            },
            None => fallback(d).map(pick),
        };
        (symbolic.bounds.iter().enumerate())
            .map(|(d, i)| {
                Ok(Span {
                    min: end(&i.min, d, |s| s.min)?,
                    max: end(&i.max, d, |s| s.max)?,
                })
            })
            .collect()
    }
}

/// The per-dimension union of two regions of one producer.
fn union(a: &[Span], b: &[Span]) -> Region {
    a.iter().zip(b).map(|(a, b)| a.union(*b)).collect()
}

/// Dimension `d` of `producer`'s own estimate, for a read by `reader` whose region is
/// unbounded there; an error names both and says which estimate to set.
fn own_estimate(graph: &StageGraph, producer: Producer, d: usize, reader: StageId) -> Result<Span> {
    let unbounded = |e: Error| {
        Error::schedule(format!(
            "{reader} reads {producer} at coordinates no bound is known for in dimension {d} (they depend on data): {e}"
        ))
    };
    let estimates = match producer {
        Producer::Func(name) => {
            let f = graph.func(name).expect("producers are in the graph");
            func_estimates(&f.function)
        }
        Producer::Image(name) => {
            let input = graph.input(name).expect("inputs are in the graph");
            image_estimates(name, input.dimensions, &input.link)
        }
    };
    estimates.map(|e| Span::from(e[d])).map_err(unbounded)
}

/// The symbolic regions stage `stage` reads of each producer, and of its own Func.
fn stage_regions(graph: &StageGraph, stage: StageId, values: &EstimateValues) -> StageRegions {
    let f = graph
        .func(stage.func)
        .expect("stages are of the graph's Funcs");
    let definition = &f.definitions[stage.stage];
    let mut scope = Scope::new();
    for v in &f.args {
        let end = |which| Expr::var(tile_end(f.name, *v, which), Type::i32());
        scope.insert(*v, Interval::new(end("min"), end("max")));
    }
    for r in definition.rdom.iter().flat_map(|r| &r.vars) {
        let min = values.substitute(&r.min);
        let max = values.substitute(&(r.min.clone() + r.extent.clone() - 1));
        scope.insert(r.name, Interval::new(min, max));
    }
    let mut reads: Vec<(Producer, Box)> = Vec::new();
    let mut own: Option<Box> = None;
    for e in definition.exprs() {
        for (name, region) in boxes_required(&values.substitute(e), &scope) {
            if name == stage.func {
                own = Some(own.map_or(region.clone(), |o| box_union(&o, &region)));
                continue;
            }
            let producer = match graph.input(name) {
                Some(_) => Producer::Image(name),
                None => Producer::Func(name),
            };
            match reads.iter_mut().find(|(p, _)| *p == producer) {
                Some((_, old)) => *old = box_union(old, &region),
                None => reads.push((producer, region)),
            }
        }
    }
    if stage.stage > 0 {
        let written = Box::new(
            (definition.args.iter())
                .map(|a| bounds_of_expr(&values.substitute(a), &scope))
                .collect(),
        );
        own = Some(own.map_or(written.clone(), |o| box_union(&o, &written)));
    }
    StageRegions { stage, reads, own }
}
