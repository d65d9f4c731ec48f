//! The cost model's coefficients: what one vector operation of each kind, one byte moved from
//! each level of the memory hierarchy, one tile, one parallel task, one allocation and one
//! step of a vector loop cost, in nanoseconds. The defaults are `cost_model.json`, beside
//! this file, as `tessera calibrate` writes it (see ARCHITECTURE.md); a model fitted
//! elsewhere is read from a JSON file of this shape (`CostModel::from_json`), or from the
//! file the `TESSERA_COST_MODEL` environment variable names.

use serde::{Deserialize, Serialize};

use super::cost::OpKind;
use crate::error::{Error, Result};

/// One term of the cost model: a quantity a plan is predicted to spend, per thread, which the
/// model multiplies by its coefficient.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    /// Vector add, min, compare, select or logic operations.
    SimpleOp,
    /// Vector multiplications.
    Multiply,
    /// Vector divisions and modulos.
    Divide,
    /// Vector conversions.
    Cast,
    /// Cheap math functions (abs, floor, sqrt, lerp), per vector.
    Intrinsic,
    /// Transcendental functions (exp, log, pow), per lane: each is a libm call on one
    /// 32-bit lane (a 64-bit lane counts as two).
    Transcendental,
    /// Vector loads and stores from L1.
    Load,
    /// Gathered elements (loads at data-dependent coordinates).
    Gather,
    /// Bytes moved from L2.
    L2Byte,
    /// Bytes moved from the last-level cache.
    L3Byte,
    /// Bytes moved from memory.
    MemoryByte,
    /// Iterations of tile loops: entering a tile, its loop setup and boundary code.
    Tile,
    /// Parallel tasks.
    Task,
    /// Allocations of a Func's storage.
    Allocation,
    /// Iterations of innermost vector loops: the loop's own instructions, and the latency of
    /// a step's dependency chain that no independent vector in the same step hides.
    VectorStep,
}

/// The number of terms.
pub const TERMS: usize = 15;

/// Every term, in order.
pub const ALL_TERMS: [Term; TERMS] = [
    Term::SimpleOp,
    Term::Multiply,
    Term::Divide,
    Term::Cast,
    Term::Intrinsic,
    Term::Transcendental,
    Term::Load,
    Term::Gather,
    Term::L2Byte,
    Term::L3Byte,
    Term::MemoryByte,
    Term::Tile,
    Term::Task,
    Term::Allocation,
    Term::VectorStep,
];

impl Term {
    /// The term counting operations of kind `kind`.
    pub fn of_op(kind: OpKind) -> Term {
        match kind {
            OpKind::Simple => Term::SimpleOp,
            OpKind::Multiply => Term::Multiply,
            OpKind::Divide => Term::Divide,
            OpKind::Cast => Term::Cast,
            OpKind::Intrinsic => Term::Intrinsic,
            OpKind::Transcendental => Term::Transcendental,
        }
    }
}

/// Quantities of each term; the model's prediction is their dot product with its coefficients,
/// which is what lets `tessera calibrate` fit the coefficients by least squares.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CostTerms(pub [f64; TERMS]);

impl CostTerms {
    /// The quantity of `term`.
    pub fn get(&self, term: Term) -> f64 {
        self.0[term as usize]
    }
    /// Adds `amount` of `term`.
    pub fn add(&mut self, term: Term, amount: f64) {
        self.0[term as usize] += amount;
    }
    /// Adds `other` times `scale`.
    pub fn add_scaled(&mut self, other: &CostTerms, scale: f64) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b * scale;
        }
    }
    /// These terms times `scale`.
    pub fn scaled(&self, scale: f64) -> CostTerms {
        let mut out = CostTerms::default();
        out.add_scaled(self, scale);
        out
    }
}

/// The coefficients of the analytic cost model (PolyMage-DP's cost function, §4 of the
/// TOPLAS'20 paper, with Tessera's memory and parallelism terms): nanoseconds per unit of each
/// `Term`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CostModel {
    /// One vector add, min, compare, select or logic operation.
    pub simple_op_ns: f64,
    /// One vector multiplication.
    pub multiply_ns: f64,
    /// One vector division or modulo.
    pub divide_ns: f64,
    /// One vector conversion.
    pub cast_ns: f64,
    /// One cheap math function (abs, floor, sqrt, lerp) on a vector.
    pub intrinsic_ns: f64,
    /// One transcendental function (exp, log, pow): a libm call on one 32-bit lane.
    pub transcendental_ns: f64,
    /// One vector load or store from L1.
    pub load_ns: f64,
    /// One gathered element (a load at a data-dependent coordinate).
    pub gather_ns: f64,
    /// One byte moved from L2.
    pub l2_byte_ns: f64,
    /// One byte moved from the last-level cache.
    pub l3_byte_ns: f64,
    /// One byte moved from memory (per thread: the coefficient absorbs the threads' sharing
    /// of the memory bandwidth at the thread count it was fitted for).
    pub memory_byte_ns: f64,
    /// One iteration of a tile loop: entering a tile, its loop setup and its boundary code.
    pub tile_ns: f64,
    /// One parallel task (scheduling it on a thread).
    pub task_ns: f64,
    /// One allocation of a Func's storage.
    pub allocation_ns: f64,
    /// One iteration of an innermost vector loop (`Term::VectorStep`).
    pub vector_step_ns: f64,
}

/// The default coefficients: the model `tessera calibrate` fitted on the development
/// machine, checked in beside this file.
const DEFAULT_MODEL_JSON: &str = include_str!("cost_model.json");

impl Default for CostModel {
    fn default() -> CostModel {
        CostModel::from_json(DEFAULT_MODEL_JSON)
            .expect("the checked-in cost_model.json is a cost model")
    }
}

impl CostModel {
    /// The coefficients in `ALL_TERMS` order.
    pub fn coefficients(&self) -> [f64; TERMS] {
        [
            self.simple_op_ns,
            self.multiply_ns,
            self.divide_ns,
            self.cast_ns,
            self.intrinsic_ns,
            self.transcendental_ns,
            self.load_ns,
            self.gather_ns,
            self.l2_byte_ns,
            self.l3_byte_ns,
            self.memory_byte_ns,
            self.tile_ns,
            self.task_ns,
            self.allocation_ns,
            self.vector_step_ns,
        ]
    }

    /// The model with coefficients `c` in `ALL_TERMS` order.
    pub fn from_coefficients(c: [f64; TERMS]) -> CostModel {
        CostModel {
            simple_op_ns: c[0],
            multiply_ns: c[1],
            divide_ns: c[2],
            cast_ns: c[3],
            intrinsic_ns: c[4],
            transcendental_ns: c[5],
            load_ns: c[6],
            gather_ns: c[7],
            l2_byte_ns: c[8],
            l3_byte_ns: c[9],
            memory_byte_ns: c[10],
            tile_ns: c[11],
            task_ns: c[12],
            allocation_ns: c[13],
            vector_step_ns: c[14],
        }
    }

    /// The coefficient of `term`.
    pub fn coefficient(&self, term: Term) -> f64 {
        self.coefficients()[term as usize]
    }

    /// The predicted time of `terms`, in nanoseconds.
    pub fn time(&self, terms: &CostTerms) -> f64 {
        self.coefficients()
            .iter()
            .zip(terms.0)
            .map(|(c, t)| c * t)
            .sum()
    }

    /// The model in `json`, or an error saying what is malformed.
    pub fn from_json(json: &str) -> Result<CostModel> {
        serde_json::from_str(json)
            .map_err(|e| Error::schedule(format!("not a valid cost model: {e}")))
    }

    /// The model as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a cost model serializes")
    }

    /// The model in the file `TESSERA_COST_MODEL` names, else the defaults.
    pub fn from_environment() -> Result<CostModel> {
        match std::env::var("TESSERA_COST_MODEL") {
            Ok(path) => {
                let text = std::fs::read_to_string(&path).map_err(|e| {
                    Error::schedule(format!("cannot read the cost model {path}: {e}"))
                })?;
                CostModel::from_json(&text).map_err(|e| Error::schedule(format!("{path}: {e}")))
            }
            Err(_) => Ok(CostModel::default()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_round_trips_through_json_and_bad_files_are_refused() {
        let model = CostModel::from_json(DEFAULT_MODEL_JSON).unwrap();
        assert_eq!(model, CostModel::default());
        assert!(model
            .coefficients()
            .iter()
            .all(|&c| c >= 0.0 && c.is_finite()));
        assert_eq!(CostModel::from_json(&model.to_json()), Ok(model.clone()));
        assert_eq!(CostModel::from_coefficients(model.coefficients()), model);
        let e = CostModel::from_json("{\"simple_op_ns\": 1}").unwrap_err();
        assert!(e.to_string().contains("not a valid cost model"), "{e}");
    }

    #[test]
    fn the_time_is_the_dot_product_of_terms_and_coefficients() {
        let model = CostModel::default();
        let mut terms = CostTerms::default();
        terms.add(Term::Tile, 2.0);
        terms.add(Term::Load, 10.0);
        assert_eq!(
            model.time(&terms),
            2.0 * model.tile_ns + 10.0 * model.load_ns
        );
        assert_eq!(model.coefficient(Term::Task), model.task_ns);
    }
}
