//! The scheduling problem the search works on, distilled from the `PipelineAnalysis`: the
//! pipeline's Funcs in realization order with their required regions, sizes and vector
//! widths; which Funcs are inlined (decided first, by the cost model: a Func is inlined when
//! recomputing it at every use costs less than storing and reloading it, as PolyMage-DP
//! inlines pointwise stages, its uses counted as the distinct points called once inlined
//! Funcs are expanded, as common-subexpression elimination leaves them; a Func cheap to
//! inline into all its consumers but one is split with a wrapper for that one, `to_wrap`);
//! the per-point cost of every other Func with its inlined producers folded in, counted one
//! residue at a time along the dimensions where a coordinate's parity selects its values
//! (`FuncInfo::parity`); and the region of every Func a tile of a group's output needs,
//! through inlined Funcs, memoized because the search asks for the same regions many times.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use rustc_hash::FxHashMap;

use super::classify::StageClass;
use super::cost::{reads_data, OpKind};
use super::estimates::image_estimates;
use super::footprint::{Region, Span};
use super::graph::{Producer, StageId};
use super::ingredients::Ingredients;
use super::machine::Machine;
use super::model::{CostModel, CostTerms, Term};
use super::PipelineAnalysis;
use crate::error::Result;
use crate::ir::substitute::{free_vars, substitute_map};
use crate::ir::visit::visit_exprs;
use crate::ir::{BinaryOp, CallKind, Expr, ExprKind, Symbol, Type};
use crate::lang::function::Definition;
use crate::simplify::simplify;

/// One Func of the problem.
#[derive(Clone, Debug)]
pub struct FuncInfo {
    /// The Func's (unique) name.
    pub name: Symbol,
    /// Its pure Vars, in dimension order.
    pub args: Vec<Symbol>,
    /// Whether it has update definitions (a reduction or scan: it is always its own group).
    pub has_updates: bool,
    /// Whether it is the pipeline's output.
    pub is_output: bool,
    /// The lanes of a vector of its widest value type.
    pub lanes: i64,
    /// The bytes of one point (all Tuple elements).
    pub bytes: i64,
    /// The region the output's estimates need.
    pub region: Region,
    /// The Funcs (indices) and images its stages read directly.
    pub producers: Vec<Producer>,
    /// The Funcs (indices) reading it.
    pub consumers: Vec<usize>,
    /// The terms of one point of its pure definition, vectorized, with inlined producers
    /// evaluated in place.
    pub point: CostTerms,
    /// The terms of all its updates over the region (serial); none without updates.
    pub updates: CostTerms,
    /// Which pure dimensions each update (in order) may run in parallel or vectorize: those it
    /// writes at the pure Var and reads its own Func only at that Var.
    pub update_pure_dims: Vec<Vec<usize>>,
    /// Whether computing it past its region along dimension 0 is harmless: it is not the
    /// output (whose buffer ends at its region), and every input it reads there, directly or
    /// through its producers, is read at clamped coordinates (a boundary condition), so no
    /// input is read past its buffer. Such a Func's last vector or tile of a row may be
    /// shifted inwards (or its bounds aligned) instead of guarded, which is much cheaper
    /// where masked loads are emulated lane by lane (16-bit elements on AVX2).
    pub may_compute_past_region: bool,
    /// The pure dimensions (with their factor k) along which its definition, inlined
    /// producers expanded, selects by the coordinate's residue modulo k (`select(x % 2 ==
    /// 0, ...)`: an interleaving): computed k points at a time, one per residue unrolled,
    /// its selects fold and its reads at `x / k` turn dense (`emit::parity_unroll`).
    pub parity: Vec<(usize, i64)>,
    /// Its channel dimension (a last, third dimension of at most `MAX_UNROLLED_CHANNELS`
    /// points) with its extent, when its channels computed together call fewer distinct
    /// points than each alone (each colour of a colour matrix reads the same three inputs,
    /// inlined or loaded): each point's channels are then computed together, unrolled
    /// innermost (`emit::unroll_channels`), so that what they share is computed or loaded
    /// once.
    pub channels: Option<(usize, i64)>,
    /// The natural vectors (`lanes` each) one step of its innermost vector loop computes
    /// (`widths`): 1, or 2 where two independent chains per step pay.
    pub vectors: i64,
}

impl FuncInfo {
    /// The number of points of its required region.
    pub fn points(&self) -> i64 {
        volume(&self.region)
    }

    /// The points computed at a time along dimension `d` for its parity (1 without one).
    pub fn parity_factor(&self, d: usize) -> i64 {
        (self.parity.iter())
            .find(|&&(p, _)| p == d)
            .map_or(1, |&(_, k)| k)
    }
}

/// The problem: Funcs, inlining, and memoized regions.
pub struct Problem<'a> {
    analysis: &'a PipelineAnalysis,
    /// The machine the schedule is made for.
    pub machine: Machine,
    /// The cost model's coefficients.
    pub model: CostModel,
    /// The parts of the space the search may use.
    pub ingredients: Ingredients,
    /// Every Func, producers before consumers; the output is last.
    pub funcs: Vec<FuncInfo>,
    /// Which Funcs are inlined.
    pub inlined: Vec<bool>,
    /// How many times each Func's pure definition is evaluated: its points, or when inlined
    /// its calls.
    evaluations: Vec<f64>,
    /// The Funcs split by `Func::in_` before this problem was made.
    pub wrapped: Vec<Wrapped>,
    index: HashMap<Symbol, usize>,
    image_bytes: HashMap<Symbol, i64>,
    regions: RefCell<FxHashMap<(Producer, usize, Region), Option<Region>>>,
    /// `reader_points` of each (Func, stage), valid until the next Func is inlined.
    reader_points: RefCell<FxHashMap<(usize, usize), Rc<PointsPerFunc>>>,
}

/// A Func split by `Func::in_`: inlined into its consumers but one, which reads `wrapper`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wrapped {
    /// The Func split.
    pub func: Symbol,
    /// The consumer reading the wrapper.
    pub consumer: Symbol,
    /// The wrapper (a copy of `func`, scheduled on its own).
    pub wrapper: Symbol,
}

/// The points at which a stage calls each Func, found by `Problem::collect_calls`.
// `Expr` keys are structural (see `StageCost::count_tree`).
#[allow(clippy::mutable_key_type)]
#[derive(Default)]
struct CallSites {
    /// Each Func's and image's points called (coordinates simplified); an inlined Func's
    /// calls are expanded once per point.
    points: HashMap<Symbol, HashSet<Vec<Expr>>>,
    /// The expressions walked.
    walked: HashSet<Expr>,
    /// The constant divisors (`PARITY_FACTORS`) by which select conditions take the modulo
    /// of each Var.
    divisors: HashMap<Symbol, BTreeSet<i64>>,
    /// Whether inlined definitions are simplified at the points they are called at, so that
    /// selects on constant residues fold.
    fold: bool,
}

/// The distinct points of each Func a stage calls, per point of the stage.
type PointsPerFunc = HashMap<Symbol, f64>;

/// The divisors a stage's coordinates are unrolled by, residue by residue (`parity`).
const PARITY_FACTORS: std::ops::RangeInclusive<i64> = 2..=4;

/// The passes over L2 of a stored sibling's bytes (`inline_siblings_together`): written, then
/// read back by the readers, whose windows over wide rows do not stay in L1. Counted once
/// (the write) until 2026-11-29: on AVX2, where a vector holds half the points it does on
/// AVX-512 and the work saved per point weighs twice as much against the bytes, harris stored
/// its products per strip, where inlining them measured 0.8 of the time.
const SIBLING_PASSES: f64 = 2.0;

/// The most channels a Func's channel dimension is unrolled over (`FuncInfo::channels`).
const MAX_UNROLLED_CHANNELS: i64 = 4;

/// What one inlined call of a Func of per-point terms `point` and `lanes` lanes adds: its
/// expression, in place of one load of it, storing nothing.
fn call_terms(point: &CostTerms, lanes: i64) -> CostTerms {
    let mut terms = *point;
    let access = 2.0 / lanes as f64;
    terms.0[Term::Load as usize] = (terms.get(Term::Load) - access).max(0.0);
    terms
}

/// The operations of per-point terms `point`, without its loads and stores.
fn operations(point: &CostTerms) -> CostTerms {
    let mut terms = *point;
    terms.0[Term::Load as usize] = 0.0;
    terms.0[Term::Gather as usize] = 0.0;
    terms
}

/// Records in `divisors` the constant divisors (`PARITY_FACTORS`) by which `condition`
/// takes the modulo of each Var: `x % 2 == 0` tests x's residue.
fn record_residue_tests(condition: &Expr, divisors: &mut HashMap<Symbol, BTreeSet<i64>>) {
    visit_exprs(condition, &mut |n: &Expr| {
        let ExprKind::Binary(BinaryOp::Mod, numerator, divisor) = n.kind() else {
            return true;
        };
        let k = divisor.as_int_const().and_then(|k| i64::try_from(k).ok());
        // Coordinate arithmetic only, not the residue of a loaded value.
        if let Some(k) = k.filter(|k| PARITY_FACTORS.contains(k) && !reads_data(numerator)) {
            for v in free_vars(numerator) {
                divisors.entry(v).or_default().insert(k);
            }
        }
        true
    });
}

/// The number of points of a region.
pub fn volume(region: &[Span]) -> i64 {
    region.iter().map(|s| s.extent().max(0)).product()
}

impl<'a> Problem<'a> {
    /// The problem of `analysis` for `machine` under `model`; inlining is decided here.
    pub fn new(
        analysis: &'a PipelineAnalysis,
        machine: Machine,
        model: CostModel,
    ) -> Result<Problem<'a>> {
        Problem::with_wrappers(analysis, machine, model, Vec::new(), Ingredients::default())
    }

    /// The problem of a pipeline in which the `wrapped` Funcs were split (`to_wrap`): each
    /// original is inlined and each wrapper materialized, whatever inlining alone decides;
    /// the search may use only `ingredients`.
    pub fn with_wrappers(
        analysis: &'a PipelineAnalysis,
        machine: Machine,
        model: CostModel,
        wrapped: Vec<Wrapped>,
        ingredients: Ingredients,
    ) -> Result<Problem<'a>> {
        let graph = &analysis.graph;
        let index: HashMap<Symbol, usize> = (graph.funcs.iter().enumerate())
            .map(|(i, f)| (f.name, i))
            .collect();
        let image_bytes = image_element_bytes(analysis);
        let mut funcs = Vec::new();
        for f in &graph.funcs {
            let types = f.function.output_types();
            let bits = types.iter().map(|t| u32::from(t.bits)).max().unwrap_or(32);
            let producers: BTreeSet<Producer> = (graph.edges.iter())
                .filter(|e| e.consumer.func == f.name)
                .map(|e| e.producer)
                .collect();
            let region = analysis
                .footprints
                .required(Producer::Func(f.name))
                .cloned()
                .unwrap_or_default();
            funcs.push(FuncInfo {
                name: f.name,
                args: f.args.clone(),
                has_updates: f.definitions.len() > 1,
                is_output: f.name == graph.output,
                lanes: machine.lanes(bits),
                bytes: types.iter().map(|t| t.bytes().max(1) as i64).sum(),
                region,
                producers: producers.into_iter().collect(),
                consumers: Vec::new(),
                point: CostTerms::default(),
                updates: CostTerms::default(),
                update_pure_dims: (f.definitions.iter().skip(1))
                    .map(|d| update_pure_dims(f.name, &f.args, d))
                    .collect(),
                may_compute_past_region: false,
                parity: Vec::new(),
                channels: None,
                vectors: 1,
            });
        }
        let unclamped = reads_unclamped_input(analysis, &funcs, &index);
        for (f, unclamped) in funcs.iter_mut().zip(unclamped) {
            f.may_compute_past_region = !f.is_output && !unclamped;
        }
        for c in 0..funcs.len() {
            for p in funcs[c].producers.clone() {
                if let Producer::Func(name) = p {
                    if let Some(&i) = index.get(&name) {
                        funcs[i].consumers.push(c);
                    }
                }
            }
        }
        let mut problem = Problem {
            analysis,
            machine,
            model,
            ingredients,
            inlined: vec![false; funcs.len()],
            evaluations: Vec::new(),
            wrapped,
            funcs,
            index,
            image_bytes,
            regions: RefCell::new(FxHashMap::default()),
            reader_points: RefCell::new(FxHashMap::default()),
        };
        problem.decide_inlining();
        super::widths::choose_widths(&mut problem);
        Ok(problem)
    }

    /// The analysis the problem is distilled from.
    pub fn analysis(&self) -> &'a PipelineAnalysis {
        self.analysis
    }

    /// The index of Func `name`.
    pub fn func_index(&self, name: Symbol) -> Option<usize> {
        self.index.get(&name).copied()
    }

    /// The bytes of one point of `producer`.
    pub fn bytes_of(&self, producer: Producer) -> i64 {
        match producer {
            Producer::Func(name) => self.func_index(name).map_or(4, |i| self.funcs[i].bytes),
            Producer::Image(name) => self.image_bytes.get(&name).copied().unwrap_or(4),
        }
    }

    /// The bytes of the whole required region of `producer`.
    pub fn total_bytes(&self, producer: Producer) -> i64 {
        let region = self.analysis.footprints.required(producer);
        region.map_or(0, |r| volume(r)) * self.bytes_of(producer)
    }

    /// The terms of one stage point: its operations vectorized at `lanes`, its loads and
    /// stores; loads at data-dependent coordinates are gathers.
    fn own_point_terms(&self, stage: StageId, lanes: i64) -> CostTerms {
        let cost = &self.analysis.costs[&stage];
        let mut terms = CostTerms::default();
        for ((kind, ty), n) in &cost.ops {
            let per_point = if *kind == OpKind::Transcendental {
                // A libm call for each lane: one per point, a 64-bit one counting as two.
                f64::from(*n) * f64::from(ty.bits.max(32)) / 32.0
            } else {
                // An operation on wider elements than the Func's needs more vectors per point.
                let op_lanes = self.machine.lanes(u32::from(ty.bits));
                f64::from(*n) / op_lanes.min(lanes) as f64
            };
            terms.add(Term::of_op(*kind), per_point);
        }
        let loads = f64::from(cost.total_loads() + cost.self_loads);
        if self.analysis.classes[&stage].contains(&StageClass::DataDependent) {
            terms.add(Term::Gather, loads);
        } else {
            terms.add(Term::Load, loads / lanes as f64);
        }
        terms.add(Term::Load, f64::from(cost.stores) / lanes as f64);
        terms
    }

    /// The terms of one point of stage `s` of Func `m` with its inlined producers evaluated
    /// in place, once per distinct point they are called at (through several inlined
    /// consumers too: common-subexpression elimination computes each once).
    fn point_terms(&self, m: usize, s: usize, lanes: i64) -> CostTerms {
        let mut terms = self.own_point_terms(self.stage_id(m, s), lanes);
        for (&name, &points) in self.reader_points(m, s).iter() {
            let Some(i) = self.func_index(name).filter(|&i| self.inlined[i]) else {
                continue;
            };
            terms.add_scaled(&self.inlined_call_terms(i), points);
        }
        terms
    }

    /// What one call of inlined Func `i` adds to its reader (`call_terms`).
    fn inlined_call_terms(&self, i: usize) -> CostTerms {
        let lanes = self.funcs[i].lanes;
        call_terms(&self.own_point_terms(self.stage_id(i, 0), lanes), lanes)
    }

    /// Inlining, consumers first, so that a Func's evaluations are counted through the
    /// consumers inlined into theirs (a Func read at two data-dependent levels by an inlined
    /// consumer is evaluated twice per point of that consumer's consumer, not once per point
    /// of the consumer's whole region): a pure Func that is not the output is inlined when
    /// evaluating it at every call costs less than computing it once, storing it and loading
    /// it at every call. The comparison uses the Func's own expression; its producers,
    /// decided after it, are then charged for its evaluations. Two corrections follow:
    /// siblings tried inlined together (`inline_siblings_together`), and inlines re-judged
    /// with their inlined producers folded in (`materialize_expensive_inlines`). Then,
    /// producers first, every Func's per-point terms with its inlined producers folded in.
    fn decide_inlining(&mut self) {
        let graph = &self.analysis.graph;
        let stage = |i: usize, s: usize| StageId {
            func: graph.funcs[i].name,
            stage: s,
        };
        let mut evaluations: Vec<f64> = self.funcs.iter().map(|f| f.points() as f64).collect();
        for i in (0..self.funcs.len()).rev() {
            let info = &self.funcs[i];
            let wrapper = self.wrapped.iter().any(|w| w.wrapper == info.name);
            if info.is_output || info.has_updates || info.consumers.is_empty() || wrapper {
                continue;
            }
            let own = self.own_point_terms(stage(i, 0), info.lanes);
            let calls = self.inlined_calls(i, &evaluations);
            let recompute = calls * self.model.time(&call_terms(&own, info.lanes));
            let points = info.points() as f64;
            let materialize = points * self.model.time(&own);
            let traffic = points * info.bytes as f64 * self.model.l2_byte_ns;
            let original = self.wrapped.iter().any(|w| w.func == info.name);
            let cheaper = self.ingredients.inlining && recompute <= materialize + traffic;
            if original || cheaper {
                self.set_inlined(&[i], true);
                evaluations[i] = calls;
            }
        }
        if self.ingredients.inlining {
            self.inline_siblings_together(&mut evaluations);
            self.materialize_expensive_inlines(&mut evaluations);
        }
        self.evaluations = evaluations;
        for i in 0..self.funcs.len() {
            if !self.inlined[i] && self.ingredients.parity_unrolling {
                self.funcs[i].parity = self.parity_of(i, 0);
                self.funcs[i].channels = self.points_and_channels(i, 0).1;
            }
        }
        for (i, f) in graph.funcs.iter().enumerate() {
            let lanes = self.funcs[i].lanes;
            self.funcs[i].point = self.point_terms(i, 0, lanes);
            let mut updates = CostTerms::default();
            for s in 1..f.definitions.len() {
                let iterations = self.update_iterations(i, &f.definitions[s]) as f64;
                updates.add_scaled(&self.point_terms(i, s, lanes), iterations);
            }
            self.funcs[i].updates = updates;
        }
    }

    /// Materialized Funcs read by the same materialized Funcs (siblings: harris's products
    /// `Ixx`, `Iyy` and `Ixy`, summed by one output) are tried inlined together. Each alone
    /// costs more inlined than stored; together, their readers load the producers they share
    /// (`Ix`, `Iy`) once at each point for all of them, in place of a load of each sibling.
    fn inline_siblings_together(&mut self, evaluations: &mut [f64]) {
        let names: Vec<Symbol> = self.funcs.iter().map(|f| f.name).collect();
        let stage = |i: usize| StageId {
            func: names[i],
            stage: 0,
        };
        let mut by_readers: BTreeMap<BTreeSet<usize>, Vec<usize>> = BTreeMap::new();
        for (i, f) in self.funcs.iter().enumerate() {
            let wrapped = (self.wrapped.iter()).any(|w| w.wrapper == f.name || w.func == f.name);
            let data_dependent =
                self.analysis.classes[&stage(i)].contains(&StageClass::DataDependent);
            if self.inlined[i]
                || f.is_output
                || f.has_updates
                || f.consumers.is_empty()
                || wrapped
                || data_dependent
            {
                continue;
            }
            (by_readers.entry(self.materialized_readers(i)))
                .or_default()
                .push(i);
        }
        for (readers, siblings) in by_readers {
            if siblings.len() < 2 {
                continue;
            }
            let own: Vec<CostTerms> = (siblings.iter())
                .map(|&i| self.own_point_terms(stage(i), self.funcs[i].lanes))
                .collect();
            let materialize: f64 = (siblings.iter().zip(&own))
                .map(|(&i, own)| {
                    let f = &self.funcs[i];
                    let traffic = SIBLING_PASSES * f.bytes as f64 * self.model.l2_byte_ns;
                    let per_point = self.model.time(own) + traffic;
                    f.points() as f64 * per_point
                })
                .sum();
            let loads_stored = self.reader_loads(&readers, evaluations);
            self.set_inlined(&siblings, true);
            let loads_inlined = self.reader_loads(&readers, evaluations);
            let calls: Vec<f64> = (siblings.iter())
                .map(|&i| self.inlined_calls(i, evaluations))
                .collect();
            let recompute = (own.iter().zip(&calls))
                .map(|(own, n)| n * self.model.time(&operations(own)))
                .sum::<f64>()
                + (loads_inlined - loads_stored) * self.model.load_ns;
            if recompute <= materialize {
                for (&i, n) in siblings.iter().zip(calls) {
                    evaluations[i] = n;
                }
            } else {
                self.set_inlined(&siblings, false);
            }
        }
    }

    /// Marks `funcs` inlined or not, forgetting the points counted with the old marks.
    fn set_inlined(&mut self, funcs: &[usize], inlined: bool) {
        for &i in funcs {
            self.inlined[i] = inlined;
        }
        self.reader_points.borrow_mut().clear();
    }

    /// The vector loads of materialized Funcs and of images that `readers` make in all
    /// their points (`evaluations`): the distinct points each of their stages calls, with
    /// the Funcs inlined so far expanded, per vector of the reader.
    fn reader_loads(&self, readers: &BTreeSet<usize>, evaluations: &[f64]) -> f64 {
        let graph = &self.analysis.graph;
        let mut loads = 0.0;
        for &m in readers {
            for (s, definition) in graph.funcs[m].definitions.iter().enumerate() {
                let loaded: f64 = (self.reader_points(m, s).iter())
                    .filter(|(name, _)| self.func_index(**name).is_none_or(|j| !self.inlined[j]))
                    .map(|(_, n)| n)
                    .sum();
                let iterations = match s {
                    0 => evaluations[m],
                    _ => self.update_iterations(m, definition) as f64,
                };
                loads += loaded * iterations / self.funcs[m].lanes as f64;
            }
        }
        loads
    }

    /// The materialized Funcs that read Func `p`, directly or through inlined Funcs, each
    /// inlined Func walked once (pyramids reach a Func through many paths).
    fn materialized_readers(&self, p: usize) -> BTreeSet<usize> {
        let mut readers = BTreeSet::new();
        let mut through = BTreeSet::new();
        let mut pending = self.funcs[p].consumers.clone();
        while let Some(c) = pending.pop() {
            if !self.inlined[c] {
                readers.insert(c);
            } else if through.insert(c) {
                pending.extend(&self.funcs[c].consumers);
            }
        }
        readers
    }

    /// Inlining decided each Func on its own expression; with its inlined producers expanded
    /// in it, a Func may cost more to evaluate at every call than to compute once per point
    /// (a downsampling's x pass reading an inlined pointwise stage at three points, itself
    /// read at three rows by the y pass). Consumers first, such a Func is materialized
    /// again, and every inlined Func's `evaluations` recounted from its consumers'.
    fn materialize_expensive_inlines(&mut self, evaluations: &mut [f64]) {
        for i in (0..self.funcs.len()).rev() {
            let info = &self.funcs[i];
            let wrapped = self.wrapped.iter().any(|w| w.func == info.name);
            let expands_producers = info.producers.iter().any(|p| match p {
                Producer::Func(name) => self.func_index(*name).is_some_and(|j| self.inlined[j]),
                Producer::Image(_) => false,
            });
            if !self.inlined[i] || wrapped || !expands_producers {
                continue;
            }
            evaluations[i] = self.inlined_calls(i, evaluations);
            let point = self.point_terms(i, 0, info.lanes);
            let recompute = evaluations[i] * self.model.time(&call_terms(&point, info.lanes));
            let points = info.points() as f64;
            let materialize = points * self.model.time(&point)
                + points * info.bytes as f64 * self.model.l2_byte_ns;
            if materialize < recompute {
                self.set_inlined(&[i], false);
                evaluations[i] = points;
            }
        }
    }

    /// How many times Func `p` would be evaluated inlined: for every stage of a materialized
    /// Func reading it, directly or through inlined Funcs, the distinct points of `p` that
    /// stage calls once those are inlined, times the stage's iterations (`evaluations` for
    /// pure definitions). Calls at one point through several inlined consumers are one
    /// evaluation after common-subexpression elimination: harris's `Sxx(x, y)`, read by
    /// `det` and by `trace`, both inlined into the output, is evaluated once per output point.
    fn inlined_calls(&self, p: usize, evaluations: &[f64]) -> f64 {
        let graph = &self.analysis.graph;
        let producer = self.funcs[p].name;
        let mut calls = 0.0;
        for m in self.materialized_readers(p) {
            for (s, definition) in graph.funcs[m].definitions.iter().enumerate() {
                let points = (self.reader_points(m, s))
                    .get(&producer)
                    .copied()
                    .unwrap_or(0.0);
                let iterations = match s {
                    0 => evaluations[m],
                    _ => self.update_iterations(m, definition) as f64,
                };
                calls += points * iterations;
            }
        }
        calls
    }

    /// `called_points` of stage `s` of Func `m`, computed by parity (`parity_of`) and
    /// channels (`points_and_channels`) as its schedule will compute it; memoized.
    fn reader_points(&self, m: usize, s: usize) -> Rc<PointsPerFunc> {
        if let Some(points) = self.reader_points.borrow().get(&(m, s)) {
            return points.clone();
        }
        let points = Rc::new(self.points_and_channels(m, s).0);
        self.reader_points
            .borrow_mut()
            .insert((m, s), points.clone());
        points
    }

    /// `called_points` of stage `s` of Func `m` by parity, its channels (`channel_dim`)
    /// computed together when that calls fewer distinct points in all than computing each
    /// alone, and those channels (`FuncInfo::channels`).
    fn points_and_channels(&self, m: usize, s: usize) -> (PointsPerFunc, Option<(usize, i64)>) {
        let parity = self.parity_of(m, s);
        let apart = self.called_points(m, s, &parity, None);
        let Some(channels) = self.channel_dim(m, s) else {
            return (apart, None);
        };
        let together = self.called_points(m, s, &parity, Some(channels));
        let lanes = self.funcs[m].lanes;
        match self.calls_ns(&together, lanes) < self.calls_ns(&apart, lanes) {
            true => (together, Some((channels.0, channels.1.extent()))),
            false => (apart, None),
        }
    }

    /// The predicted time of the calls `points` (per point of a Func of `lanes` lanes): an
    /// inlined Func's evaluation, or a vector load of a stored one or of an image. A Func
    /// of no dimensions is a scalar computed or loaded once outside the loops, hence free.
    fn calls_ns(&self, points: &PointsPerFunc, lanes: i64) -> f64 {
        let load = self.model.load_ns / lanes as f64;
        (points.iter())
            .map(|(&name, n)| {
                n * match self.func_index(name) {
                    Some(i) if self.funcs[i].args.is_empty() => 0.0,
                    Some(i) if self.inlined[i] => self.model.time(&self.inlined_call_terms(i)),
                    _ => load,
                }
            })
            .sum()
    }

    /// The stage `s` of Func `i`.
    fn stage_id(&self, i: usize, s: usize) -> StageId {
        StageId {
            func: self.funcs[i].name,
            stage: s,
        }
    }

    /// The channel dimension of stage `s` of Func `m` (materialized, pure, three
    /// dimensions, the last of 2 to `MAX_UNROLLED_CHANNELS` points) and its span. Not for
    /// a Func whose rows end in a guarded vector (one that may not compute past its region,
    /// as the output): unrolled channels around it measured 1.8 times slower (unsharp's
    /// output) and 3 times (camera_pipe's).
    fn channel_dim(&self, m: usize, s: usize) -> Option<(usize, Span)> {
        let f = &self.funcs[m];
        if s > 0
            || f.has_updates
            || self.inlined[m]
            || f.args.len() != 3
            || !f.may_compute_past_region
        {
            return None;
        }
        let span = *f.region.get(2)?;
        (2..=MAX_UNROLLED_CHANNELS)
            .contains(&span.extent())
            .then_some((2, span))
    }

    /// The distinct points of each Func that stage `s` of Func `m` calls, per point of `m`,
    /// with the Funcs inlined so far expanded in place; computed `parity` dimension by
    /// dimension one residue at a time, the average over the residues, each stage
    /// specialized to it (selects on the residue folded). With `channels` (a dimension and
    /// its span), the points called by every channel of a point count once: the channels
    /// are computed together, and common-subexpression elimination shares their calls.
    #[allow(clippy::mutable_key_type)] // structural keys: see `StageCost::count_tree`
    fn called_points(
        &self,
        m: usize,
        s: usize,
        parity: &[(usize, i64)],
        channels: Option<(usize, Span)>,
    ) -> PointsPerFunc {
        let definition = &self.analysis.graph.funcs[m].definitions[s];
        let args = &self.funcs[m].args;
        let residues: i64 = parity.iter().map(|&(_, k)| k).product();
        let channel_values: Vec<Option<(Symbol, i64)>> = match channels {
            Some((d, span)) => (span.min..=span.max).map(|c| Some((args[d], c))).collect(),
            None => vec![None],
        };
        let per_point = (residues * channel_values.len() as i64) as f64;
        let mut points = PointsPerFunc::new();
        for residue in 0..residues {
            let mut at = HashMap::new();
            let mut rest = residue;
            for &(d, k) in parity {
                let v = Expr::var(args[d], Type::i32());
                let (k32, r32) = ((k as i32), ((rest % k) as i32));
                let base = Expr::binary(BinaryOp::Mul, v, Expr::i32(k32));
                at.insert(args[d], Expr::binary(BinaryOp::Add, base, Expr::i32(r32)));
                rest /= k;
            }
            let mut sites = CallSites {
                fold: !parity.is_empty() || channels.is_some(),
                ..CallSites::default()
            };
            for channel in &channel_values {
                if let Some((var, c)) = *channel {
                    at.insert(var, Expr::i32(c as i32));
                }
                let exprs = (definition.values.iter())
                    .chain(&definition.guard)
                    .chain(definition.args.iter().filter(|_| s > 0));
                for e in exprs {
                    match at.is_empty() {
                        true => self.collect_calls(e, &mut sites),
                        false => self.collect_calls(&simplify(&substitute_map(e, &at)), &mut sites),
                    }
                }
            }
            for (name, called) in sites.points {
                *points.entry(name).or_default() += called.len() as f64 / per_point;
            }
        }
        points
    }

    /// The dimensions of Func `m` (materialized) along which stage `s` (its pure definition
    /// only), with the Funcs inlined so far expanded, selects by the residue of the
    /// dimension's Var modulo one constant factor (of `PARITY_FACTORS`), with the factor. Only a residue that
    /// selects between values counts (`select(x % 2 == 0, ...)`: an interleaving), whose
    /// unrolled residues each compute one branch. Measured without that restriction, an
    /// upsampling that reads `f(x / 2)` (interpolate) or weighs by `x % 2` (local_laplacian)
    /// got slower: its reads at `x / 2` were already a dense load and a shuffle, and the
    /// unrolled residues cost interleaving stores.
    fn parity_of(&self, m: usize, s: usize) -> Vec<(usize, i64)> {
        // Aligning the bounds computes up to k - 1 points past each end of the region, which
        // only a Func that may compute past its region can afford; the pipeline's output is
        // unrolled only where its region starts aligned (`emit::emit_group` specializes it).
        let f = &self.funcs[m];
        let alignable = f.may_compute_past_region || f.is_output;
        if s > 0 || f.has_updates || !alignable || self.inlined[m] {
            return Vec::new();
        }
        let mut sites = CallSites::default();
        for e in &self.analysis.graph.funcs[m].definitions[0].values {
            self.collect_calls(e, &mut sites);
        }
        let args = &self.funcs[m].args;
        (args.iter().enumerate())
            .filter_map(|(d, v)| match sites.divisors.get(v) {
                Some(ks) if ks.len() == 1 => ks.first().map(|&k| (d, k)),
                _ => None,
            })
            .collect()
    }

    /// Adds to `sites` the points at which `e` calls each Func and image, inlined Funcs
    /// expanded in place (each inlined call, and each expression, walked once).
    #[allow(clippy::mutable_key_type)]
    fn collect_calls(&self, e: &Expr, sites: &mut CallSites) {
        if !sites.walked.insert(e.clone()) {
            return;
        }
        if let ExprKind::Select(condition, ..) = e.kind() {
            record_residue_tests(condition, &mut sites.divisors);
        }
        let ExprKind::Call {
            kind: CallKind::Func(_) | CallKind::Image(_),
            name,
            args,
            ..
        } = e.kind()
        else {
            e.for_each_child(|c| self.collect_calls(c, sites));
            return;
        };
        for a in args {
            self.collect_calls(a, sites);
        }
        let point: Vec<Expr> = args.iter().map(simplify).collect();
        if !sites.points.entry(*name).or_default().insert(point.clone()) {
            return;
        }
        let Some(j) = self.func_index(*name).filter(|&j| self.inlined[j]) else {
            return;
        };
        let callee = &self.analysis.graph.funcs[j];
        let at: HashMap<Symbol, Expr> = callee.args.iter().copied().zip(point).collect();
        for v in &callee.definitions[0].values {
            let value = substitute_map(v, &at);
            match sites.fold {
                true => self.collect_calls(&simplify(&value), sites),
                false => self.collect_calls(&value, sites),
            }
        }
    }

    /// How many times all stages of Func `consumer`, its pure definition evaluated
    /// `evaluations` times, read Func `producer`.
    fn calls_from(&self, consumer: usize, producer: Symbol, evaluations: f64) -> f64 {
        let f = &self.analysis.graph.funcs[consumer];
        (0..f.definitions.len())
            .map(|s| {
                let stage = StageId {
                    func: f.name,
                    stage: s,
                };
                let n = (self.analysis.costs[&stage].loads)
                    .get(&Producer::Func(producer))
                    .copied()
                    .unwrap_or(0);
                let iterations = match s {
                    0 => evaluations,
                    _ => self.update_iterations(consumer, &f.definitions[s]) as f64,
                };
                f64::from(n) * iterations
            })
            .sum()
    }

    /// Materialized Funcs worth splitting with `Func::in_` (Halide's wrappers), as pairs
    /// (Func, consumer): those whose calls from every consumer but one are cheaper to
    /// evaluate in place than the part of the Func that consumer needs is to compute and
    /// store, while the remaining consumer reads each point several times (a downsampling's
    /// x pass). Split, the Func is inlined into the cheap consumers and its wrapper, a copy
    /// only the remaining consumer reads, can join that consumer's group — where the
    /// whole Func, read outside any one group, would have been computed at root.
    pub fn to_wrap(&self) -> Result<Vec<(Symbol, Symbol)>> {
        let mut pairs = Vec::new();
        for (i, f) in self.funcs.iter().enumerate() {
            if self.inlined[i] || f.is_output || f.has_updates || f.consumers.len() < 2 {
                continue;
            }
            let evaluate = self.model.time(&call_terms(&f.point, f.lanes));
            let materialize = self.model.time(&f.point) + f.bytes as f64 * self.model.l2_byte_ns;
            let mut materialized = Vec::new();
            for &c in &f.consumers {
                let calls = self.calls_from(c, f.name, self.evaluations[c]);
                let needed = self
                    .region_needed(Producer::Func(f.name), c, &self.funcs[c].region)?
                    .map_or(f.points(), |r| volume(&r)) as f64;
                if calls * evaluate > needed * materialize {
                    materialized.push(c);
                }
            }
            if let [c] = materialized[..] {
                pairs.push((f.name, self.funcs[c].name));
            }
        }
        Ok(pairs)
    }

    /// The iterations of an update of Func `func`: its pure dimensions' extents times its
    /// reduction domain's size (1 where an extent has no estimate).
    fn update_iterations(&self, func: usize, update: &Definition) -> i64 {
        let info = &self.funcs[func];
        let values = self.analysis.footprints.estimate_values();
        let pure: i64 = (update.args.iter().enumerate())
            .filter(|(d, a)| matches!(a.kind(), ExprKind::Var(v) if Some(v) == info.args.get(*d)))
            .map(|(d, _)| info.region.get(d).map_or(1, |s| s.extent()))
            .product();
        let rdom: i64 = (update.rdom.iter().flat_map(|r| &r.vars))
            .map(|v| values.evaluate(&v.extent, &String::new).unwrap_or(1).max(1))
            .product();
        pure * rdom
    }

    /// The region of `producer` that `region` of Func `consumer` needs (memoized).
    pub fn region_needed(
        &self,
        producer: Producer,
        consumer: usize,
        region: &[Span],
    ) -> Result<Option<Region>> {
        let key = (producer, consumer, region.to_vec());
        if let Some(r) = self.regions.borrow().get(&key) {
            return Ok(r.clone());
        }
        let name = self.funcs[consumer].name;
        let r = self
            .analysis
            .footprints
            .region_needed(producer, name, region)?;
        self.regions.borrow_mut().insert(key, r.clone());
        Ok(r)
    }

    /// The regions `tile` of Func `output` needs of each Func in `members` and of each Func
    /// they inline (`inside`), and of every other producer they read (`outside`: Funcs of
    /// other groups and images).
    pub fn tile_regions(
        &self,
        output: usize,
        members: &BTreeSet<usize>,
        tile: &[Span],
    ) -> Result<TileRegions> {
        let mut inside: HashMap<usize, Region> = HashMap::new();
        let mut outside: HashMap<Producer, Region> = HashMap::new();
        inside.insert(output, tile.to_vec());
        for c in (0..=output).rev() {
            let Some(region) = inside.get(&c).cloned() else {
                continue;
            };
            for &p in &self.funcs[c].producers {
                let Some(needed) = self.region_needed(p, c, &region)? else {
                    continue;
                };
                let inner = match p {
                    Producer::Func(name) => self
                        .func_index(name)
                        .filter(|&i| members.contains(&i) || self.inlined[i]),
                    Producer::Image(_) => None,
                };
                match inner {
                    Some(i) => merge(inside.entry(i).or_default(), needed),
                    None => merge(outside.entry(p).or_default(), needed),
                }
            }
        }
        inside.retain(|i, _| members.contains(i));
        Ok(TileRegions { inside, outside })
    }
}

/// What one tile of a group needs: the region of each member, and of each producer outside
/// the group.
#[derive(Clone, Debug, Default)]
pub struct TileRegions {
    /// Each member's region.
    pub inside: HashMap<usize, Region>,
    /// Each outside producer's region.
    pub outside: HashMap<Producer, Region>,
}

/// How far past a consumer's region the clamping test reads: more than any rounding up to
/// whole vectors or tiles moves a region's ends.
const CLAMP_TEST_MARGIN: i64 = 1 << 12;

/// For each Func (in `funcs`' order, producers first), whether it reads an input, directly or
/// through its producers, at coordinates that move with the region computed in dimension 0
/// (the one rounded up): reading its region widened there by `CLAMP_TEST_MARGIN` would read
/// past the input's estimated buffer. Clamped reads (boundary conditions) stay inside. A
/// region that cannot be evaluated counts as unclamped.
fn reads_unclamped_input(
    analysis: &PipelineAnalysis,
    funcs: &[FuncInfo],
    index: &HashMap<Symbol, usize>,
) -> Vec<bool> {
    let footprints = &analysis.footprints;
    let mut unclamped: Vec<bool> = Vec::with_capacity(funcs.len());
    for f in funcs {
        let mut widened = f.region.clone();
        if let Some(x) = widened.first_mut() {
            *x = Span {
                min: x.min - CLAMP_TEST_MARGIN,
                max: x.max + CLAMP_TEST_MARGIN,
            };
        }
        // Whether reading `p` over the widened region leaves `bounds` (what is safe to read).
        let leaves = |p: Producer, bounds: Option<Region>| match footprints
            .region_needed(p, f.name, &widened)
        {
            Ok(None) => false,
            Ok(Some(needed)) => bounds.is_none_or(|b| !within(&needed, &b)),
            Err(_) => true,
        };
        let reads_unclamped = |p: &Producer| match *p {
            // A Func read past its region computes more of itself, which matters only if it
            // reads an input unclamped; producers come first, so its flag is known.
            Producer::Func(name) => match index.get(&name).map(|&i| (i, unclamped.get(i))) {
                Some((_, Some(false))) => false,
                Some((i, Some(true))) => leaves(*p, Some(funcs[i].region.clone())),
                _ => true,
            },
            Producer::Image(name) => leaves(*p, image_buffer(analysis, name)),
        };
        let flag = f.producers.iter().any(reads_unclamped);
        unclamped.push(flag);
    }
    unclamped
}

/// The region input `name`'s buffer is estimated to hold, if every dimension has an estimate.
fn image_buffer(analysis: &PipelineAnalysis, name: Symbol) -> Option<Region> {
    let input = analysis.graph.input(name)?;
    let estimates = image_estimates(name, input.dimensions, &input.link).ok()?;
    Some(estimates.into_iter().map(Span::from).collect())
}

/// Whether `inner` lies inside `outer` in every dimension.
fn within(inner: &[Span], outer: &[Span]) -> bool {
    inner.len() == outer.len()
        && (inner.iter().zip(outer)).all(|(i, o)| i.min >= o.min && i.max <= o.max)
}

/// The bytes of an element of each input image, from the type of the calls reading it.
fn image_element_bytes(analysis: &PipelineAnalysis) -> HashMap<Symbol, i64> {
    let mut bytes = HashMap::new();
    for f in &analysis.graph.funcs {
        for e in f.definitions.iter().flat_map(Definition::exprs) {
            crate::ir::visit::visit_exprs(e, &mut |n| {
                if let ExprKind::Call {
                    kind: CallKind::Image(_),
                    name,
                    ..
                } = n.kind()
                {
                    bytes.insert(*name, n.ty().bytes().max(1) as i64);
                }
                true
            });
        }
    }
    bytes
}

/// `into` grown to cover `region` (empty `into` becomes `region`).
fn merge(into: &mut Region, region: Region) {
    if into.is_empty() {
        *into = region;
        return;
    }
    for (a, b) in into.iter_mut().zip(region) {
        a.min = a.min.min(b.min);
        a.max = a.max.max(b.max);
    }
}

/// The pure dimensions of Func `func` an update may run in parallel or vectorize: where it
/// writes at the pure Var itself and every read of its own Func in that dimension is at that
/// same Var.
fn update_pure_dims(func: Symbol, args: &[Symbol], update: &Definition) -> Vec<usize> {
    let is_var = |e: &Expr, v: Symbol| matches!(e.kind(), ExprKind::Var(n) if *n == v);
    let mut dims: Vec<usize> = (0..args.len())
        .filter(|&d| update.args.get(d).is_some_and(|a| is_var(a, args[d])))
        .collect();
    for e in update.exprs() {
        crate::ir::visit::visit_exprs(e, &mut |n| {
            if let ExprKind::Call {
                name,
                args: call_args,
                ..
            } = n.kind()
            {
                if *name == func {
                    dims.retain(|&d| call_args.get(d).is_some_and(|a| is_var(a, args[d])));
                }
            }
            true
        });
    }
    dims
}
