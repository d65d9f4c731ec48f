//! Helpers shared by the lowering tests: bind inputs once for both the pipeline and the
//! definition-level evaluator, lower a scheduled pipeline, run it on the interpreter (the final
//! IR under several parallel orders, and the multi-dimensional IR before storage flattening,
//! where every access is checked against the realized box) and compare each run with the
//! evaluator bit for bit.

#![allow(dead_code)]

#[path = "../eval_common/mod.rs"]
mod eval_common;

#[allow(unused_imports)]
pub use eval_common::{random_buffer, seeded_rng};

use tessera::codegen::target::Target;
use tessera::eval::value::Value;
use tessera::ir::visit::visit_stmt_exprs;
use tessera::ir::{CallKind, ExprKind, ForKind, Intrinsic, Stmt, StmtKind, Symbol};
use tessera::lang::image_param::value_buffer;
use tessera::lang::param::ParamBinding;
use tessera::lower::{LowerOptions, Lowered};
use tessera::pipeline::{computed_box, run_interp, signature, Inputs, Pipeline, Realization};
use tessera::prelude::*;

/// The IR that is run before storage flattening: after the last pass that works on
/// multi-dimensional `Realize`/`Provide`.
pub const UNFLATTENED_PASS: &str = "image_checks";

/// The parallel-order seeds a schedule with parallel loops is run with (results must not
/// depend on the order).
pub const PARALLEL_SEEDS: [u64; 3] = [0, 7, 12345];

/// The images and scalar parameters of a test, bound the same way for the pipeline and the
/// evaluator.
#[derive(Clone, Default)]
pub struct TestInputs {
    images: Vec<(ImageParam, AnyBuffer)>,
    params: Vec<ParamBinding>,
}

impl TestInputs {
    pub fn new() -> TestInputs {
        TestInputs::default()
    }
    pub fn image(mut self, image: &ImageParam, buffer: impl Into<AnyBuffer>) -> TestInputs {
        self.images.push((image.clone(), buffer.into()));
        self
    }
    pub fn param(mut self, binding: ParamBinding) -> TestInputs {
        self.params.push(binding);
        self
    }
    pub fn pipeline_inputs(&self) -> Inputs {
        let with_images = self
            .images
            .iter()
            .fold(Inputs::new(), |acc, (i, b)| acc.image(i, b.clone()));
        self.params.iter().fold(with_images, |acc, p| acc.param(*p))
    }
    pub fn evaluator(&self) -> Evaluator {
        let with_images = self
            .images
            .iter()
            .fold(Evaluator::new(), |acc, (i, b)| acc.with_input(i, b.clone()));
        self.params
            .iter()
            .fold(with_images, |acc, p| acc.with_param(*p))
    }
}

/// The case seeds of a randomized test: the first case's seed (`tessera::testing::test_seed`:
/// `default_seed` unless `TESSERA_SEED` says otherwise) and `TESSERA_FUZZ_CASES` (or
/// `default_cases`) cases, announced on stderr as `what`.
pub fn fuzz_seeds(what: &str, default_seed: u64, default_cases: u64) -> (u64, u64) {
    let seed = tessera::testing::test_seed(what, default_seed);
    let cases = match std::env::var("TESSERA_FUZZ_CASES") {
        Ok(s) => s
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{what}: TESSERA_FUZZ_CASES must be a count, not {s:?}")),
        Err(_) => default_cases,
    };
    eprintln!(
        "{what}: case seeds {seed}..{} (TESSERA_FUZZ_CASES={cases})",
        seed.wrapping_add(cases)
    );
    (seed, cases)
}

/// The target a fuzz case's native code is compiled for: checked mode, with unoptimized
/// machine code (compiling dominates a case's time, and LLVM's IR passes, which exploit any
/// undefined behaviour in the generated IR, still run) except one case in
/// `FULLY_OPTIMIZED_EVERY`, compiled as the JIT compiles pipelines for users.
pub fn fuzz_target(seed: u64) -> Target {
    Target::host()
        .with_bounds_checks(true)
        .with_fast_compile(!seed.is_multiple_of(FULLY_OPTIMIZED_EVERY))
}

const FULLY_OPTIMIZED_EVERY: u64 = 16;

/// Whether two values are the same bits (floats compared by representation).
pub fn same_bits(a: Value, b: Value) -> bool {
    a.bits_eq(b)
}

/// The first point where `actual` differs from `expected` (same type and box required).
pub fn compare_buffers(expected: &[AnyBuffer], actual: &[AnyBuffer]) -> Result<(), String> {
    if expected.len() != actual.len() {
        return Err(format!(
            "{} output buffers, expected {}",
            actual.len(),
            expected.len()
        ));
    }
    for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
        if e.ty() != a.ty() || e.dims() != a.dims() {
            return Err(format!(
                "output {i} is {} over {:?}, expected {} over {:?}",
                a.ty(),
                a.dims(),
                e.ty(),
                e.dims()
            ));
        }
        let mins: Vec<i64> = e.dims().iter().map(|d| d.min).collect();
        let extents: Vec<i64> = e.dims().iter().map(|d| d.extent).collect();
        let mut mismatch = None;
        tessera::lang::buffer::for_each_coord_in(&mins, &extents, &mut |p| {
            if mismatch.is_none() {
                let (want, got) = (e.get_value(p), a.get_value(p));
                if !same_bits(want, got) {
                    mismatch = Some(format!(
                        "output {i} at {p:?} is {got:?}, the evaluator gives {want:?}"
                    ));
                }
            }
        });
        if let Some(m) = mismatch {
            return Err(m);
        }
    }
    Ok(())
}

/// Whether `s` contains a loop of kind `kind`.
pub fn has_loop_kind(s: &Stmt, kind: ForKind) -> bool {
    let mut found = false;
    walk_stmts(s, &mut |c| {
        if let StmtKind::For { kind: k, .. } = c.kind() {
            found |= *k == kind;
        }
    });
    found
}

/// Calls `f` on `s` and every statement inside it.
pub fn walk_stmts(s: &Stmt, f: &mut dyn FnMut(&Stmt)) {
    f(s);
    s.for_each_child(|_| {}, |c| walk_stmts(c, f));
}

/// Whether any expression of `s` mentions the name `name` (as a variable, load or call).
pub fn mentions(s: &Stmt, name: &str) -> bool {
    let mut found = false;
    visit_stmt_exprs(s, &mut |e| {
        found |= e.to_string().contains(name);
        !found
    });
    found
}

/// A lowered pipeline, checked against the evaluator.
pub struct Checked {
    pub lowered: Lowered,
    /// The run of the final IR with parallel seed 0.
    pub realization: Realization,
    /// The run of the IR before storage flattening.
    pub unflattened: Realization,
}

impl Checked {
    /// Points stored into `buffer` by the final IR (vector stores count their lanes).
    pub fn stores(&self, buffer: &str) -> u64 {
        let s = Symbol::new(buffer);
        self.realization.stats.stores.get(&s).copied().unwrap_or(0)
    }
    /// Points `func` computed in the IR before flattening (each stage counted).
    pub fn provides(&self, func: &str) -> u64 {
        let s = Symbol::new(func);
        self.unflattened
            .stats
            .provides
            .get(&s)
            .copied()
            .unwrap_or(0)
    }
    /// The largest allocation of `buffer` in the final IR, in elements.
    pub fn allocation(&self, buffer: &str) -> u64 {
        let s = Symbol::new(buffer);
        self.realization
            .stats
            .allocation_elements
            .get(&s)
            .copied()
            .unwrap_or(0)
    }
    /// Value `index` of the output, which is i32.
    pub fn i32_values(&self, index: usize) -> &Buffer<i32> {
        match &self.realization.buffers[index] {
            AnyBuffer::I32(b) => b,
            other => panic!("output {index} is {}, not i32", other.ty()),
        }
    }
    /// How many times `buffer` was allocated on the heap by the final IR.
    pub fn heap_allocations(&self, buffer: &str) -> u64 {
        let s = Symbol::new(buffer);
        self.realization
            .stats
            .heap_allocations
            .get(&s)
            .copied()
            .unwrap_or(0)
    }
    /// How many times `buffer` was allocated by the final IR.
    pub fn allocations(&self, buffer: &str) -> u64 {
        let s = Symbol::new(buffer);
        self.realization
            .stats
            .allocations
            .get(&s)
            .copied()
            .unwrap_or(0)
    }
}

/// Lowers the pipeline computing `output`, runs it over `[mins, mins + extents)` and compares
/// every run with the evaluator. Errors (from lowering, running or comparing) are described.
pub fn try_check(
    output: &Func,
    inputs: &TestInputs,
    mins: &[i64],
    extents: &[i64],
) -> Result<Checked, String> {
    try_check_on(
        output,
        inputs,
        mins,
        extents,
        &Target::host().with_bounds_checks(true),
    )
}

/// `try_check`, with the native code compiled for `target` (which should be in checked
/// mode: an access outside its storage then fails the test even where it would not crash).
pub fn try_check_on(
    output: &Func,
    inputs: &TestInputs,
    mins: &[i64],
    extents: &[i64],
    target: &Target,
) -> Result<Checked, String> {
    let expected = inputs
        .evaluator()
        .realize(output, mins, extents)
        .map_err(|e| format!("the evaluator failed: {e}"))?;
    let lowered = Pipeline::new(output)
        .lower(&LowerOptions {
            record_ir: true,
            ..LowerOptions::default()
        })
        .map_err(|e| format!("lowering failed: {e}"))?;
    let pipeline_inputs = inputs.pipeline_inputs();
    let unflattened_ir = lowered
        .ir_after(UNFLATTENED_PASS)
        .expect("the IR of every pass is recorded")
        .clone();
    // Over the box the schedule computes (as `Compiled::realize` does), cropped after.
    let (run_mins, run_extents) = computed_box(&lowered, &pipeline_inputs, mins, extents);
    let crop = |mut r: Realization| {
        r.buffers = r
            .buffers
            .iter()
            .map(|b| {
                b.crop(mins, extents)
                    .expect("the computed box holds the box asked for")
            })
            .collect();
        r
    };
    let unflattened = run_interp(
        &lowered,
        &unflattened_ir,
        &pipeline_inputs,
        &run_mins,
        &run_extents,
        0,
    )
    .map(crop)
    .map_err(|e| format!("running the IR before flattening failed: {e}\n{unflattened_ir}"))?;
    compare_buffers(&expected, &unflattened.buffers)
        .map_err(|e| format!("the IR before flattening: {e}\n{unflattened_ir}"))?;
    let seeds: &[u64] = if has_loop_kind(&lowered.stmt, ForKind::Parallel) {
        &PARALLEL_SEEDS
    } else {
        &PARALLEL_SEEDS[..1]
    };
    let mut realization = None;
    for &seed in seeds {
        let r = run_interp(
            &lowered,
            &lowered.stmt,
            &pipeline_inputs,
            &run_mins,
            &run_extents,
            seed,
        )
        .map(crop)
        .map_err(|e| format!("running the lowered pipeline failed: {e}\n{}", lowered.stmt))?;
        compare_buffers(&expected, &r.buffers).map_err(|e| {
            format!(
                "the lowered pipeline (parallel seed {seed}): {e}\n{}",
                lowered.stmt
            )
        })?;
        realization.get_or_insert(r);
    }
    // The same lowered pipeline compiled to native code must agree too.
    let mut outputs = expected
        .iter()
        .map(|b| AnyBuffer::with_mins(b.ty(), &run_mins, &run_extents).expect("output buffer"))
        .collect::<Vec<_>>();
    run_native(&lowered, target, &pipeline_inputs, &mut outputs)?;
    let outputs: Vec<AnyBuffer> = outputs
        .iter()
        .map(|b| {
            b.crop(mins, extents)
                .expect("the computed box holds the box asked for")
        })
        .collect();
    compare_buffers(&expected, &outputs)
        .map_err(|e| format!("the JIT-compiled pipeline: {e}\n{}", lowered.stmt))?;
    Ok(Checked {
        lowered,
        realization: realization.expect("at least one seed runs"),
        unflattened,
    })
}

/// The error each backend gives realizing `output` over `[mins, mins + extents)`: the
/// evaluator, the interpreter, and native code unchecked and checked, in that order;
/// panics where one of them succeeds.
pub fn errors_of_every_backend(
    output: &Func,
    inputs: &TestInputs,
    mins: &[i64],
    extents: &[i64],
) -> Vec<String> {
    let name = output.name();
    let expect_error = |backend: &str, r: Result<()>| match r {
        Ok(()) => panic!("{backend} realized {name} without an error"),
        Err(e) => e.to_string(),
    };
    let pipeline = Pipeline::new(output);
    let pipeline_inputs = inputs.pipeline_inputs();
    let mut errors = vec![
        expect_error(
            "the evaluator",
            inputs.evaluator().realize(output, mins, extents).map(drop),
        ),
        expect_error(
            "the interpreter",
            pipeline
                .realize_interp(&pipeline_inputs, mins, extents)
                .map(drop),
        ),
    ];
    for checked in [false, true] {
        let target = Target::host().with_bounds_checks(checked);
        let native = pipeline
            .compile_jit(&target)
            .and_then(|c| c.realize(&pipeline_inputs, mins, extents).map(drop));
        errors.push(expect_error(
            &format!("native code (checked: {checked})"),
            native,
        ));
    }
    errors
}

/// Realizes `output` into buffers that already hold `data` (one per value, over one box) —
/// where it stores nothing (`undef`) the data stays — on the evaluator, on the interpreter
/// (the final IR) and natively in checked mode; panics unless all three agree, and returns
/// the evaluator's buffers.
pub fn check_in_place(output: &Func, inputs: &TestInputs, data: &[AnyBuffer]) -> Vec<AnyBuffer> {
    let name = output.name();
    let mut expected = data.to_vec();
    inputs
        .evaluator()
        .realize_into(output, &mut expected)
        .unwrap_or_else(|e| panic!("{name}: the evaluator failed: {e}"));
    let lowered = Pipeline::new(output)
        .lower(&LowerOptions::default())
        .unwrap_or_else(|e| panic!("{name}: lowering failed: {e}"));
    let pipeline_inputs = inputs.pipeline_inputs();
    let mut interp = tessera::interp::Interpreter::new();
    for (image, buffer) in pipeline_inputs.images() {
        interp.bind_buffer(*image, buffer.clone());
    }
    for p in pipeline_inputs.params() {
        interp.bind_param(p.name, p.value);
    }
    let values = data.len();
    let buffer_names: Vec<Symbol> = (0..values).map(|i| value_buffer(name, i, values)).collect();
    for (n, b) in buffer_names.iter().zip(data) {
        interp.bind_buffer(*n, b.clone());
    }
    interp
        .run(&lowered.stmt)
        .unwrap_or_else(|e| panic!("{name}: the interpreter failed: {e}\n{}", lowered.stmt));
    let interpreted: Vec<AnyBuffer> = buffer_names
        .iter()
        .map(|n| interp.take_buffer(*n).expect("bound above"))
        .collect();
    compare_buffers(&expected, &interpreted)
        .unwrap_or_else(|e| panic!("{name}: the interpreter: {e}\n{}", lowered.stmt));
    let mut native = data.to_vec();
    run_native(
        &lowered,
        &Target::host().with_bounds_checks(true),
        &pipeline_inputs,
        &mut native,
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    compare_buffers(&expected, &native)
        .unwrap_or_else(|e| panic!("{name}: the native run: {e}\n{}", lowered.stmt));
    expected
}

/// Compiles `lowered` for `target`, which must be in checked mode, and runs it into `outputs`.
fn run_native(
    lowered: &Lowered,
    target: &Target,
    inputs: &Inputs,
    outputs: &mut [AnyBuffer],
) -> Result<(), String> {
    assert!(target.bounds_checks, "native code under test is checked");
    // SAFETY: `target` is in checked mode (asserted just above, whatever target the caller
    // passed), so every load and store of the statement is checked against its storage.
    let compiled =
        unsafe { tessera::codegen::jit::compile_jit(&lowered.stmt, &signature(lowered), target) }
            .map_err(|e| format!("JIT compilation failed: {e}\n{}", lowered.stmt))?;
    let images: Vec<(Symbol, &AnyBuffer)> = inputs.images().iter().map(|(n, b)| (*n, b)).collect();
    let mut refs: Vec<&mut AnyBuffer> = outputs.iter_mut().collect();
    compiled
        .run(&mut refs, &images, inputs.params())
        .map_err(|e| format!("running the JIT-compiled pipeline failed: {e}"))
}

/// `try_check`, panicking with the description on failure.
pub fn check(output: &Func, inputs: &TestInputs, mins: &[i64], extents: &[i64]) -> Checked {
    try_check(output, inputs, mins, extents).unwrap_or_else(|e| panic!("{}: {e}", output.name()))
}

/// The schedule error lowering reports for `output` (panics if lowering succeeds or fails
/// otherwise).
pub fn schedule_error(output: &Func) -> String {
    match Pipeline::new(output).lower(&LowerOptions::default()) {
        Err(Error::Schedule(e)) => e.message,
        Err(other) => panic!("expected a schedule error, got {other}"),
        Ok(l) => panic!(
            "expected a schedule error, but lowering succeeded:\n{}",
            l.stmt
        ),
    }
}

/// A u16 image over `[mins, mins + extents)` with 12-bit values (sums of a few never wrap).
pub fn u16_image(mins: &[i64], extents: &[i64], seed: u64) -> Buffer<u16> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    Buffer::from_fn(mins, extents, |_| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % 4096) as u16
    })
}

/// A u8 image with values in `[lo, hi]`.
pub fn u8_image(mins: &[i64], extents: &[i64], lo: u8, hi: u8, seed: u64) -> Buffer<u8> {
    let span = u64::from(hi - lo) + 1;
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    Buffer::from_fn(mins, extents, |_| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        lo + (state % span) as u8
    })
}

/// `hist(i)`: the 256-bin histogram of the u8 image `input` over its whole domain.
pub fn histogram(input: &ImageParam) -> Func {
    let i = Var::new("i");
    let r = RDom::named(
        "r",
        [
            (input.min(0), input.width()),
            (input.min(1), input.height()),
        ],
    );
    let hist = Func::new("hist");
    hist.define(i, 0).unwrap();
    let bin = cast_to::<i32>(input.at((r.x(), r.y())));
    hist.update(bin.clone(), hist.at(bin) + 1).unwrap();
    hist
}

/// How many `interleave` calls the statement has, anywhere.
pub fn interleave_count(s: &Stmt) -> usize {
    let mut count = 0;
    visit_stmt_exprs(s, &mut |e| {
        count += usize::from(matches!(
            e.kind(),
            ExprKind::Call {
                kind: CallKind::Intrinsic(Intrinsic::Interleave),
                ..
            }
        ));
        true
    });
    count
}
