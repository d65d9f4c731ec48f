//! Lowering: from a pipeline (Funcs with definitions and schedules) to one imperative loop
//! nest. Each pass is its own module, run in this order by `lower`, which can record the IR
//! after every pass and times each one (Halide's `Lower.cpp`):
//!
//! 1. `realization_order`  — the Funcs of the pipeline, producers before consumers
//! 2. `schedule_functions` — loop synthesis: the output's loops, other Funcs injected at their
//!    compute/store levels or inlined
//!
//! Later passes are added in the order they run.

pub mod arguments;
pub mod hoist_loop_invariants;
pub mod inline;
pub mod names;
pub mod realization_order;
pub mod remove_dead_allocations;
pub mod schedule_functions;
pub mod stage_loops;
pub mod storage_flattening;
pub mod unroll_loops;
pub mod vectorize_loops;

use std::time::{Duration, Instant};

use crate::error::Result;
use crate::ir::Stmt;
use crate::lang::func::Func;
use realization_order::Environment;

/// What `lower` records besides the result.
#[derive(Clone, Debug, Default)]
pub struct LowerOptions {
    /// Keep the printed IR after every pass (for `tessera lower --passes` and debugging).
    pub record_ir: bool,
}

/// One pass as it ran.
#[derive(Clone, Debug)]
pub struct PassRecord {
    pub name: &'static str,
    pub elapsed: Duration,
    /// The IR after the pass, when `LowerOptions::record_ir` is set.
    pub ir: Option<String>,
}

/// A lowered pipeline: the loop nest and what it needs to run.
#[derive(Clone, Debug)]
pub struct Lowered {
    pub stmt: Stmt,
    pub env: Environment,
    pub passes: Vec<PassRecord>,
}

struct PassRunner {
    options: LowerOptions,
    records: Vec<PassRecord>,
}

impl PassRunner {
    fn run(
        &mut self,
        name: &'static str,
        s: Stmt,
        pass: impl FnOnce(Stmt) -> Result<Stmt>,
    ) -> Result<Stmt> {
        let start = Instant::now();
        let out = pass(s)?;
        let elapsed = start.elapsed();
        let ir = self.options.record_ir.then(|| out.to_string());
        self.records.push(PassRecord { name, elapsed, ir });
        Ok(out)
    }
}

/// Lowers the pipeline computing `output`.
pub fn lower(output: &Func, options: &LowerOptions) -> Result<Lowered> {
    let mut runner = PassRunner {
        options: options.clone(),
        records: Vec::new(),
    };
    let start = Instant::now();
    let env = realization_order::realization_order(output.function())?;
    runner.records.push(PassRecord {
        name: "realization_order",
        elapsed: start.elapsed(),
        ir: None,
    });
    let s = runner.run("schedule_functions", Stmt::empty(), |_| {
        schedule_functions::schedule_functions(&env)
    })?;
    Ok(Lowered {
        stmt: s,
        env,
        passes: runner.records,
    })
}
