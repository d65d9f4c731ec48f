//! The cost model's coefficients: what one vector operation of each kind, one byte moved from
//! each level of the memory hierarchy, one tile, one parallel task and one allocation cost, in
//! nanoseconds. The defaults were fitted on the development machine by `tessera calibrate`
//! (see ARCHITECTURE.md); a model fitted elsewhere is read from a JSON file of this shape
//! (`CostModel::from_json`), as `tessera calibrate` writes it, or from the file named by the
//! `TESSERA_COST_MODEL` environment variable.

use serde::{Deserialize, Serialize};

use super::cost::OpKind;
use crate::error::{Error, Result};

/// The coefficients of the analytic cost model (PolyMage-DP's cost function, §4 of the
/// TOPLAS'20 paper, with Tessera's memory and parallelism terms).
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
    /// One cheap math function (abs, floor, lerp).
    pub intrinsic_ns: f64,
    /// One transcendental function (exp, log, sqrt, pow).
    pub transcendental_ns: f64,
    /// One vector load or store from L1.
    pub load_ns: f64,
    /// One gathered element (a load at a data-dependent coordinate).
    pub gather_ns: f64,
    /// One byte moved from L2.
    pub l2_byte_ns: f64,
    /// One byte moved from the last-level cache.
    pub l3_byte_ns: f64,
    /// One byte moved from memory, by one thread.
    pub memory_byte_ns: f64,
    /// How many threads' worth of memory bandwidth the machine has (memory traffic scales
    /// with the threads up to this many).
    pub memory_threads: f64,
    /// One iteration of a tile loop: entering a tile, its loop setup and its boundary code.
    pub tile_ns: f64,
    /// One parallel task (scheduling it on a thread).
    pub task_ns: f64,
    /// One allocation of a Func's storage.
    pub allocation_ns: f64,
}

impl Default for CostModel {
    fn default() -> CostModel {
        CostModel {
            simple_op_ns: 0.15,
            multiply_ns: 0.25,
            divide_ns: 2.0,
            cast_ns: 0.2,
            intrinsic_ns: 0.4,
            transcendental_ns: 4.0,
            load_ns: 0.2,
            gather_ns: 0.6,
            l2_byte_ns: 0.02,
            l3_byte_ns: 0.04,
            memory_byte_ns: 0.12,
            memory_threads: 1.5,
            tile_ns: 40.0,
            task_ns: 1500.0,
            allocation_ns: 60.0,
        }
    }
}

impl CostModel {
    /// The model in `json`, or an error saying what is malformed.
    pub fn from_json(json: &str) -> Result<CostModel> {
        serde_json::from_str(json)
            .map_err(|e| Error::Schedule(format!("not a valid cost model: {e}")))
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
                    Error::Schedule(format!("cannot read the cost model {path}: {e}"))
                })?;
                CostModel::from_json(&text).map_err(|e| Error::Schedule(format!("{path}: {e}")))
            }
            Err(_) => Ok(CostModel::default()),
        }
    }

    /// The time of one vector operation of kind `kind`.
    pub fn op_ns(&self, kind: OpKind) -> f64 {
        match kind {
            OpKind::Simple => self.simple_op_ns,
            OpKind::Multiply => self.multiply_ns,
            OpKind::Divide => self.divide_ns,
            OpKind::Cast => self.cast_ns,
            OpKind::Intrinsic => self.intrinsic_ns,
            OpKind::Transcendental => self.transcendental_ns,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_round_trips_through_json_and_bad_files_are_refused() {
        let model = CostModel::default();
        assert_eq!(CostModel::from_json(&model.to_json()), Ok(model));
        let e = CostModel::from_json("{\"simple_op_ns\": 1}").unwrap_err();
        assert!(e.to_string().contains("not a valid cost model"), "{e}");
    }
}
