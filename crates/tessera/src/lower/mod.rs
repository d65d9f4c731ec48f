//! Lowering: from a pipeline (Funcs with definitions and schedules) to one imperative loop
//! nest. Each pass is its own module; `lower` runs them in this order, timing each one and
//! optionally recording the IR after it (Halide's `Lower.cpp`):
//!
//! 1. `realization_order`     — the pipeline's Funcs, producers before consumers
//! 2. `arguments`             — the input images and scalar parameters it takes
//! 3. `schedule_functions`    — loop synthesis: the output's loops, other Funcs injected at
//!    their compute/store levels or inlined
//!    then `clamp_func_values` — Func values used as coordinates clamped to the values the
//!    Func can take, which bounds what they index
//! 4. `bounds_inference`      — the region each stage computes, as lets
//! 5. `allocation_bounds`     — the size of each Func's storage
//! 6. `storage_folding`       — circular storage along a serial loop
//! 7. `sliding_window`        — reuse of values computed by earlier iterations
//! 8. `compute_with`          — the outer loops of Funcs computed together fused
//! 9. `skip_stages`           — productions skipped where their values are not needed
//!    then `async_producers` — async Funcs' productions forked to run beside their consumers,
//!    synchronized by semaphores
//! 10. `image_checks`         — assertions that the input and output buffers are big enough
//! 11. `storage_flattening`   — multi-dimensional storage to flat allocations
//!     then `memoize`         — memoized Funcs' productions looked up in the pipeline's cache
//!     then `buffer_constraints` — the buffers' constraints asserted, then substituted
//!     (constant loop bounds and strides), then, for large buffers only, `wide_indices`
//!     (flat indices computed in 64 bits)
//! 12. `hoist_storage`        — allocations moved out to the loop the schedule hoists them to
//! 13. `overflow_checks`      — run-time checks that regions and storage sizes fit 32 bits
//!     `param_checks`         — assertions first of all that Params are in their ranges
//! 14. `simplify`
//! 15. `bound_constant_extent_loops` — constant extents for unrolled and vectorized loops
//! 16. `unroll_loops`
//! 17. `vectorize_loops`
//! 18. `simplify`
//! 19. `partition_loops`      — boundary conditions' clamps removed from steady-state loops
//! 20. `simplify`
//! 21. `trim_no_ops`          — loops shrunk to the iterations where their bodies do something
//! 22. `interleave_stores`    — strided stores filling a dense span become one dense store
//!     then `parity_stores`   — values alternating by lane parity computed as interleaved parts
//! 23. `hoist_loop_invariants`, `remove_dead_allocations`
//! 24. `common_subexpressions` — what each statement's expressions compute more than once,
//!     computed once into a let
//! 25. `early_free`           — each allocation released after its last access
//! 26. `place_allocations`    — each allocation's memory decided: stack or heap
//!
//! With `LowerOptions::verify`, `verify` checks the statement after every pass, so a pass
//! that makes an ill-formed one is named.

pub mod allocation_bounds;
pub mod arguments;
pub mod async_producers;
pub mod bound_constant_extent_loops;
pub mod bounds_inference;
pub mod buffer_constraints;
pub mod clamp_func_values;
pub mod common_subexpressions;
pub mod compute_with;
pub mod early_free;
pub mod hoist_loop_invariants;
pub mod hoist_storage;
pub mod image_checks;
pub mod inline;
pub mod interleave_stores;
pub mod memoize;
pub mod names;
pub mod overflow_checks;
pub mod param_checks;
pub mod parity_stores;
pub mod partition_loops;
pub mod place_allocations;
pub mod prefetch;
pub mod realization_order;
pub mod remove_dead_allocations;
pub mod schedule_functions;
pub mod skip_stages;
pub mod sliding_window;
pub mod stage_loops;
pub mod storage_flattening;
pub mod storage_folding;
pub mod trim_no_ops;
pub mod unroll_loops;
pub mod vectorize_loops;
pub mod verify;
pub mod wide_indices;

use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::ir::{Expr, Stmt};
use crate::lang::func::Func;
use crate::lang::naming::make_names_unique_among;
use crate::simplify::simplify_stmt;
use arguments::Arguments;
use realization_order::Environment;
use verify::{Phase, Verifier};

/// What `lower` records and checks besides making the result.
#[derive(Clone, Debug)]
pub struct LowerOptions {
    /// Keep the IR after every pass (for `tessera lower --passes`, debugging and tests).
    pub record_ir: bool,
    /// Check the statement after every pass (`verify`), failing with an error that names
    /// the pass which broke it. On by default in debug builds (so in every test) and where
    /// the environment variable `TESSERA_VERIFY` is `1`; off by default otherwise.
    pub verify: bool,
    /// Buffers whose elements lie 2^31 or more from their first one (Halide's
    /// `Target::LargeBuffers`): flat indices are computed in 64 bits (`wide_indices`), and
    /// compiled code accepts such buffers. Off by default: indices stay 32-bit.
    pub large_buffers: bool,
}

impl Default for LowerOptions {
    fn default() -> LowerOptions {
        LowerOptions {
            record_ir: false,
            verify: verify_by_default(),
            large_buffers: false,
        }
    }
}

/// Whether lowering verifies every pass's statement unless told otherwise: in debug builds,
/// or where `TESSERA_VERIFY` is `1` (`0` turns it off in debug builds too).
fn verify_by_default() -> bool {
    match std::env::var("TESSERA_VERIFY").as_deref() {
        Ok("1") => true,
        Ok("0") => false,
        _ => cfg!(debug_assertions),
    }
}

/// One pass as it ran.
#[derive(Clone, Debug)]
pub struct PassRecord {
    /// The pass's name.
    pub name: &'static str,
    /// How long the pass took.
    pub elapsed: Duration,
    /// The IR after the pass, when `LowerOptions::record_ir` is set.
    pub ir: Option<Stmt>,
}

/// A lowered pipeline: the loop nest and what it needs to run.
#[derive(Clone, Debug)]
pub struct Lowered {
    /// The loop nest; its `Display` is the readable pseudo-code.
    pub stmt: Stmt,
    /// Every Func of the pipeline, by name, and the order they are realized in.
    pub env: Environment,
    /// The input images and scalar parameters a run binds.
    pub arguments: Arguments,
    /// Each pass as it ran, in order.
    pub passes: Vec<PassRecord>,
    /// What the pipeline writes and reads of its (first) output, per dimension
    /// `(min, max)`, in terms of the output buffer's fields and the parameters
    /// (`image_checks::output_region`): a run over a smaller box computes into a buffer
    /// this big and crops it. `output_regions[0]`, for pipelines of one output.
    pub output_region: Option<Vec<(Expr, Expr)>>,
    /// The same region of each output, in the order of `env.outputs`.
    pub output_regions: Vec<Option<Vec<(Expr, Expr)>>>,
    /// What the pipeline reads of each input image, in the same terms
    /// (`image_checks::closed_regions`), for bounds queries (`input_bounds`).
    pub input_regions: Vec<image_checks::RequiredRegion>,
    /// Whether it was lowered for large buffers (`LowerOptions::large_buffers`).
    pub large_buffers: bool,
}

impl Lowered {
    /// The IR recorded after pass `name` (requires `LowerOptions::record_ir`).
    pub fn ir_after(&self, name: &str) -> Option<&Stmt> {
        self.passes
            .iter()
            .rev()
            .find(|p| p.name == name)
            .and_then(|p| p.ir.as_ref())
    }

    /// The loop structure alone: loops with their kinds, produce/consume, allocations and
    /// where each Func is computed, one line each (`ir::loop_nest`).
    pub fn loop_nest(&self) -> String {
        crate::ir::loop_nest::loop_nest(&self.stmt)
    }

    /// A table of the passes and the time each took.
    pub fn pass_timings(&self) -> String {
        self.passes
            .iter()
            .map(|p| {
                format!(
                    "{:>24}  {:>9.3} ms\n",
                    p.name,
                    p.elapsed.as_secs_f64() * 1e3
                )
            })
            .collect()
    }
}

struct PassRunner {
    options: LowerOptions,
    records: Vec<PassRecord>,
    /// The checker of every pass's statement, when `options.verify` is set.
    verifier: Option<Verifier>,
    /// What the statements have to satisfy so far.
    phase: Phase,
}

impl PassRunner {
    fn run(
        &mut self,
        name: &'static str,
        s: Stmt,
        pass: impl FnOnce(&Stmt) -> Result<Stmt>,
    ) -> Result<Stmt> {
        let start = Instant::now();
        let out = pass(&s)?;
        let ir = self.options.record_ir.then(|| out.clone());
        self.records.push(PassRecord {
            name,
            elapsed: start.elapsed(),
            ir,
        });
        // Checked outside the pass's time: what `--passes` reports is the pass's own cost.
        if let Some(verifier) = &self.verifier {
            verifier.check(name, &out, self.phase)?;
        }
        Ok(out)
    }
}

/// The stack the lowering passes run on. They recurse over the statement, whose depth grows
/// with the pipeline's (a 1000-Func chain stored at root nests 1000 realizations), beyond
/// what a default 8 MiB thread stack holds; the memory is reserved, and used only as deep
/// as the recursion goes.
const LOWERING_STACK_BYTES: usize = 1 << 30;

/// Lowers the pipeline computing `output`.
pub fn lower(output: &Func, options: &LowerOptions) -> Result<Lowered> {
    lower_outputs(std::slice::from_ref(output), options)
}

/// Lowers the pipeline computing every Func of `outputs`, each into buffers of its own.
pub fn lower_outputs(outputs: &[Func], options: &LowerOptions) -> Result<Lowered> {
    std::thread::scope(|scope| {
        let lowering = std::thread::Builder::new()
            .name("tessera-lower".into())
            .stack_size(LOWERING_STACK_BYTES)
            .spawn_scoped(scope, || lower_here(outputs, options))
            .map_err(|e| Error::Runtime(format!("cannot start the lowering thread: {e}")))?;
        lowering
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// `lower`, on the calling thread's stack.
fn lower_here(outputs: &[Func], options: &LowerOptions) -> Result<Lowered> {
    let start = Instant::now();
    let functions: Vec<_> = outputs.iter().map(|o| o.function().clone()).collect();
    make_names_unique_among(&functions);
    let env = realization_order::realization_order(&functions)?;
    let arguments = arguments::infer_arguments(&env)?;
    let constraints = buffer_constraints::buffer_constraints(&env, &arguments)?;
    let mut r = PassRunner {
        options: options.clone(),
        records: Vec::new(),
        verifier: options
            .verify
            .then(|| Verifier::of_pipeline(&env, &arguments.signature(&env))),
        phase: Phase::Scheduled,
    };
    r.records.push(PassRecord {
        name: "realization_order",
        elapsed: start.elapsed(),
        ir: None,
    });
    let s = r.run("schedule_functions", Stmt::empty(), |_| {
        schedule_functions::schedule_functions(&env).map(|s| memoize::without_tags(&s))
    })?;
    let s = r.run("clamp_func_values", s, |s| {
        Ok(clamp_func_values::clamp_func_values(s, &env))
    })?;
    let loop_lets = overflow_checks::let_names(&s);
    let s = r.run("bounds_inference", s, |s| {
        bounds_inference::bounds_inference(s, &env)
    })?;
    // From here every name a statement reads is bound.
    r.phase = Phase::Bounded;
    let s = r.run("allocation_bounds", s, |s| {
        allocation_bounds::allocation_bounds(s, &env)
    })?;
    // The lets of regions and storage sizes, which overflow checks guard.
    let mut size_lets = overflow_checks::let_names(&s);
    size_lets.retain(|n| !loop_lets.contains(n));
    let mut folded_over = storage_folding::FoldLoops::new();
    let mut async_fold_windows = Vec::new();
    let s = r.run("storage_folding", s, |s| {
        let (s, folds, windows) = storage_folding::storage_folding_with_windows(s, &env)?;
        folded_over = folds;
        async_fold_windows = windows;
        Ok(s)
    })?;
    let s = r.run("sliding_window", s, |s| {
        Ok(sliding_window::sliding_window(s, &env, &folded_over))
    })?;
    let s = r.run("compute_with", s, |s| compute_with::compute_with(s, &env))?;
    if let Some(verifier) = &mut r.verifier {
        verifier.fused();
    }
    let s = r.run("skip_stages", s, |s| Ok(skip_stages::skip_stages(s, &env)))?;
    let s = r.run("async_producers", s, |s| {
        Ok(async_producers::async_producers(
            s,
            &env,
            &async_fold_windows,
        ))
    })?;
    let output_regions = env
        .outputs
        .iter()
        .map(|&o| image_checks::output_region(&s, o))
        .collect::<Result<Vec<_>>>()?;
    let read_regions = image_checks::read_regions(&s, &arguments)?;
    let input_regions = image_checks::closed_regions(&s, &read_regions);
    let s = r.run("image_checks", s, |s| {
        image_checks::add_checks_of_regions(s, &env, &read_regions)
    })?;
    let s = r.run("prefetch", s, |s| prefetch::prefetch(s, &env))?;
    r.phase = Phase::Flattened;
    let s = r.run("storage_flattening", s, |s| {
        Ok(storage_flattening::storage_flattening(s, &env))
    })?;
    let s = r.run("memoize", s, |s| memoize::memoize(s, &env))?;
    let s = r.run("buffer_constraints", s, |s| {
        Ok(buffer_constraints::add_buffer_constraints(s, &constraints))
    })?;
    let s = if options.large_buffers {
        r.run("wide_indices", s, |s| Ok(wide_indices::widen_indices(s)))?
    } else {
        s
    };
    // Before simplifying: the simplifier removes loops of one iteration, which may be the
    // loops storage is hoisted to.
    let before_hoisting = overflow_checks::let_names(&s);
    let s = r.run("hoist_storage", s, |s| {
        hoist_storage::hoist_storage(s, &env)
    })?;
    size_lets.extend(
        overflow_checks::let_names(&s)
            .into_iter()
            .filter(|n| !before_hoisting.contains(n)),
    );
    let s = r.run("overflow_checks", s, |s| {
        overflow_checks::add_overflow_checks(s, &size_lets)
    })?;
    let s = r.run("param_checks", s, |s| {
        Ok(param_checks::add_param_checks(s, &env))
    })?;
    let s = r.run("simplify", s, |s| Ok(simplify_stmt(s)))?;
    let s = r.run("bound_constant_extent_loops", s, |s| {
        Ok(bound_constant_extent_loops::bound_constant_extent_loops(s))
    })?;
    let s = r.run("unroll_loops", s, unroll_loops::unroll_loops)?;
    let s = r.run("vectorize_loops", s, vectorize_loops::vectorize_loops)?;
    let s = r.run("simplify", s, |s| Ok(simplify_stmt(s)))?;
    let s = r.run("partition_loops", s, |s| {
        Ok(partition_loops::partition_loops(s))
    })?;
    let s = r.run("simplify", s, |s| Ok(simplify_stmt(s)))?;
    let s = r.run("trim_no_ops", s, |s| Ok(trim_no_ops::trim_no_ops(s)))?;
    let s = r.run("interleave_stores", s, |s| {
        Ok(interleave_stores::interleave_stores(s))
    })?;
    let s = r.run("parity_stores", s, |s| Ok(parity_stores::parity_stores(s)))?;
    let s = r.run("hoist_loop_invariants", s, |s| {
        Ok(hoist_loop_invariants::hoist_loop_invariants(s))
    })?;
    let s = r.run("remove_dead_allocations", s, |s| {
        Ok(remove_dead_allocations::remove_dead_allocations(s))
    })?;
    let s = r.run("common_subexpressions", s, |s| {
        Ok(common_subexpressions::common_subexpressions(s))
    })?;
    let s = r.run("early_free", s, |s| Ok(early_free::early_free(s)))?;
    let s = r.run("place_allocations", s, place_allocations::place_allocations)?;
    Ok(Lowered {
        stmt: s,
        env,
        arguments,
        passes: r.records,
        output_region: output_regions[0].clone(),
        output_regions,
        input_regions,
        large_buffers: options.large_buffers,
    })
}
