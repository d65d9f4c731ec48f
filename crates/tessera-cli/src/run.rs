//! `tessera run APP`: computes an app on input files or the app's built-in test images —
//! lowered with a schedule and compiled to native code (the default) or run on the Stmt
//! interpreter, or evaluated from the definitions by the definition-level evaluator —
//! optionally writes the output (an f32 output bound for a PNG file in 8 bits), and prints
//! its checksum and the time taken.

use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, ValueEnum};
use tessera::io::photo::narrow_unit_float_to_8_bit;
use tessera::io::{Format, OutputFile};
use tessera::prelude::*;
use tessera_apps::params::parse_assignment;
use tessera_apps::{checksum, App};

use crate::inputs::load_inputs;

/// The schedule `run` and `lower` use unless told otherwise: the app's expert schedule.
pub const DEFAULT_SCHEDULE: &str = "manual";

/// What computes the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// The pipeline lowered with its schedule and compiled to native code by LLVM.
    Jit,
    /// The pipeline lowered with its schedule and run on the Stmt interpreter.
    Interp,
    /// The definition-level evaluator (the correctness oracle; ignores schedules).
    Eval,
}

#[derive(Args)]
pub struct RunArgs {
    /// The app to run (`tessera apps` lists them).
    app: String,
    /// The schedule: one of the app's (`tessera apps` lists them) or a schedule file
    /// (`FILE.json`). Default: manual.
    #[arg(long)]
    schedule: Option<String>,
    /// What computes the output.
    #[arg(long, value_enum, default_value_t = Backend::Jit)]
    backend: Backend,
    /// Worker threads for parallel loops (JIT backend only; default: one per core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Fuse float multiplies and adds into multiply-adds (JIT backend only), as Halide does by
    /// default: faster, but float results may differ from the evaluator's in the last bits.
    #[arg(long)]
    fp_contract: bool,
    /// Checked mode (JIT backend only): every load and store of the native code is checked
    /// against its buffer, and one outside it stops the run with an error naming the buffer
    /// and the indices. Slower; for finding a bug.
    #[arg(long)]
    checked: bool,
    /// Input image (.npy or .png): FILE for an app with one input, else NAME=FILE for each
    /// of its inputs (repeatable). Default: the app's built-in test images. An 8-bit PNG
    /// given to a u16 or f32 input is converted (x257, or to [0, 1]).
    #[arg(long, value_name = "[NAME=]FILE")]
    input: Vec<String>,
    /// Where to write the output (.npy or .png; an f32 output goes to PNG in 8 bits, [0, 1]
    /// scaled to 0..=255).
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// A runtime parameter of the app (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
    /// Output width for the built-in test image (default: the app's benchmark size; 0 gives
    /// an empty output).
    #[arg(long, requires = "height", conflicts_with = "input",
          value_parser = clap::value_parser!(i64).range(0..=1 << 20))]
    width: Option<i64>,
    /// Output height for the built-in test image.
    #[arg(long, requires = "width", conflicts_with = "input",
          value_parser = clap::value_parser!(i64).range(0..=1 << 20))]
    height: Option<i64>,
}

/// Output sizes above this many pixels take the interpreter or the evaluator minutes.
const SLOW_PIXELS: i64 = 1 << 20;

/// The most memory `--backend eval` may be expected to take (a third of the 24 GiB the
/// project's machines have): larger outputs are refused before the evaluation starts.
const EVAL_MAX_BYTES: i64 = 8 << 30;

pub fn run(args: &RunArgs) -> Result<(), String> {
    let app = tessera_apps::find(&args.app).map_err(|e| e.to_string())?;
    let schedule = match (args.backend, &args.schedule) {
        (Backend::Eval, Some(_)) => {
            return Err("--schedule does not apply to --backend eval: the definition-level evaluator computes every value from the definitions alone".to_string())
        }
        (Backend::Eval, None) => None,
        (Backend::Jit | Backend::Interp, s) => {
            let name = s.as_deref().unwrap_or(DEFAULT_SCHEDULE);
            app.schedule_info(name).map_err(|e| e.to_string())?;
            Some(name)
        }
    };
    if args.backend != Backend::Jit {
        let flag = match (args.threads, args.fp_contract, args.checked) {
            (Some(_), _, _) => Some("--threads"),
            (None, true, _) => Some("--fp-contract"),
            (None, false, true) => Some("--checked"),
            (None, false, false) => None,
        };
        if let Some(flag) = flag {
            let backend = args
                .backend
                .to_possible_value()
                .expect("no variant is skipped");
            return Err(format!(
                "{flag} applies to the native code of the default JIT backend, not to --backend {}; drop {flag} or the --backend option",
                backend.get_name()
            ));
        }
    }
    let params = parse_params(app, &args.params)?;
    let output_file = match &args.output {
        Some(path) => Some(open_output(app, path).map_err(|e| e.to_string())?),
        None => None,
    };

    let size = args.width.zip(args.height);
    let inputs = load_inputs(app, &args.input, size)?;
    let (mins, extents, source) = (&inputs.mins, &inputs.extents, &inputs.source);
    let pixels: i64 = extents.iter().product();
    if let Some(schedule) = schedule {
        app.check_schedule_fits(schedule, extents)
            .map_err(|e| format!("{source}: {e}"))?;
    }
    // Pixels of x and y: the per-pixel estimate covers every channel.
    let pixels_xy = extents[0] * extents[1];
    let eval_bytes_per_pixel = app.description().eval_bytes_per_pixel;
    let eval_bytes = pixels_xy.saturating_mul(eval_bytes_per_pixel);
    if args.backend == Backend::Eval && eval_bytes > EVAL_MAX_BYTES {
        return Err(format!(
            "{source}: the definition-level evaluator takes about {} bytes per output pixel of {}, {} GiB for {pixels_xy} pixels, more than the {} GiB allowed; pass a smaller --width/--height or use the default JIT backend",
            eval_bytes_per_pixel,
            app.name(),
            eval_bytes >> 30,
            EVAL_MAX_BYTES >> 30
        ));
    }
    if pixels > SLOW_PIXELS && args.backend != Backend::Jit {
        eprintln!(
            "note: the interpreter and the evaluator are slow; {pixels} pixels may take minutes. Use the default JIT backend, or pass --width/--height for a quick run."
        );
    }

    let (output, how) = match schedule {
        Some(schedule) if args.backend == Backend::Jit => {
            let start = Instant::now();
            let target = Target::host()
                .with_float_contraction(args.fp_contract)
                .with_bounds_checks(args.checked);
            let compiled = compile(app, schedule, args.threads.unwrap_or(0), &target)?;
            let compile_seconds = start.elapsed().as_secs_f64();
            let start = Instant::now();
            let output = compiled.run(&inputs.images, &params, mins, extents)?;
            let run_seconds = start.elapsed().as_secs_f64();
            (
                output,
                format!("schedule {schedule}, compiled in {compile_seconds:.3} s, run in {run_seconds:.4} s (LLVM JIT)"),
            )
        }
        Some(schedule) => interpret(app, schedule, &inputs.images, &params, mins, extents)?,
        None => {
            let start = Instant::now();
            let output = app
                .evaluate(&inputs.images, &params)
                .map_err(|e| e.to_string())?;
            let seconds = start.elapsed().as_secs_f64();
            (
                output,
                format!("evaluated in {seconds:.3} s (definition-level evaluator)"),
            )
        }
    };
    if let Some(file) = output_file {
        write_output(file, &output).map_err(|e| e.to_string())?;
    }

    let size: Vec<String> = extents.iter().map(i64::to_string).collect();
    outln!(
        "{}: {} {} output from {source}, {how}",
        app.name(),
        size.join(" x "),
        output.ty()
    )?;
    outln!(
        "checksum: fnv1a64={:016x} sum={}",
        checksum::fnv1a64(&output),
        checksum::sum(&output)
    )
}

/// The bindings `assignments` (each `NAME=VALUE`, as `--param` takes them) give the runtime
/// parameters of `app`.
pub fn parse_params(app: &dyn App, assignments: &[String]) -> Result<Vec<ParamBinding>, String> {
    assignments
        .iter()
        .map(|a| parse_assignment(app.name(), app.description().params, a))
        .collect::<Result<Vec<_>>>()
        .map_err(|e| e.to_string())
}

/// An app's pipeline with a schedule, compiled to native code.
pub struct CompiledApp<'a> {
    app: &'a dyn App,
    pipeline: tessera_apps::AppPipeline,
    compiled: Compiled,
}

impl CompiledApp<'_> {
    pub fn compile_ms(&self) -> f64 {
        self.compiled.compile_ms()
    }

    /// The pipeline's inputs: `images` (in the app's declared order) and `params` (the
    /// others at their defaults).
    pub fn inputs(&self, images: &[AnyBuffer], params: &[ParamBinding]) -> Inputs {
        self.app.inputs(&self.pipeline, images, params)
    }

    /// The output for `images` over `[mins, mins + extents)`.
    pub fn run(
        &self,
        images: &[AnyBuffer],
        params: &[ParamBinding],
        mins: &[i64],
        extents: &[i64],
    ) -> Result<AnyBuffer, String> {
        let mut outputs = self
            .compiled
            .realize(&self.inputs(images, params), mins, extents)
            .map_err(|e| e.to_string())?;
        Ok(outputs.swap_remove(0))
    }

    /// Runs the pipeline on `inputs` into an existing output buffer (of the app's output
    /// type, over the box to compute).
    pub fn run_into(&self, inputs: &Inputs, output: &mut AnyBuffer) -> Result<(), String> {
        self.compiled
            .realize_into(inputs, std::slice::from_mut(output))
            .map_err(|e| e.to_string())
    }
}

/// Builds the app with `schedule` (an automatic one made for `threads`) and compiles it for
/// `target`, with `threads` workers (0: one per core).
pub fn compile<'a>(
    app: &'a dyn App,
    schedule: &str,
    threads: usize,
    target: &Target,
) -> Result<CompiledApp<'a>, String> {
    let pipeline = app
        .build_scheduled_for(schedule, threads)
        .map_err(|e| e.to_string())?;
    compile_pipeline(app, pipeline, threads, target)
}

/// Compiles `pipeline`, an app's pipeline already scheduled, for `target` with `threads`
/// workers (0: one per core).
pub fn compile_pipeline<'a>(
    app: &'a dyn App,
    pipeline: tessera_apps::AppPipeline,
    threads: usize,
    target: &Target,
) -> Result<CompiledApp<'a>, String> {
    let mut compiled = Pipeline::new(&pipeline.output)
        .compile_jit(target)
        .map_err(|e| e.to_string())?;
    compiled
        .set_threads(threads)
        .map_err(|e| format!("--threads {threads}: {e}"))?;
    Ok(CompiledApp {
        app,
        pipeline,
        compiled,
    })
}

/// Lowers the app with `schedule` and runs it on the interpreter; returns the output and how
/// it was computed, with the time each step took.
fn interpret(
    app: &dyn App,
    schedule: &str,
    images: &[AnyBuffer],
    params: &[ParamBinding],
    mins: &[i64],
    extents: &[i64],
) -> Result<(AnyBuffer, String), String> {
    let start = Instant::now();
    let lowered = app.lower(schedule).map_err(|e| e.to_string())?;
    let lower_seconds = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let inputs = app.inputs(&lowered.pipeline, images, params);
    let output = lowered
        .run_interp(&inputs, mins, extents)
        .map_err(|e| e.to_string())?;
    let run_seconds = start.elapsed().as_secs_f64();
    Ok((
        output,
        format!("schedule {schedule}, lowered in {lower_seconds:.3} s, run in {run_seconds:.3} s (Stmt interpreter)"),
    ))
}

/// Opens the output file before the computation, so that a path it could not be written to
/// fails early (before a long evaluation).
fn open_output(app: &dyn App, path: &std::path::Path) -> Result<OutputFile> {
    let ty = app
        .build()?
        .output
        .output_type()
        .expect("internal error: an app's output Func is defined");
    OutputFile::open(path, written_type(Format::of(path)?, ty))
}

/// The element type an output of type `ty` is written as to a file of `format`: f32 images
/// go to PNG files in 8 bits, as photos (read from 8-bit PNGs, they span [0, 1]).
fn written_type(format: Format, ty: Type) -> Type {
    if format == Format::Png && ty == Type::f32() {
        Type::u8()
    } else {
        ty
    }
}

/// Writes `output` to `file` as `written_type` says, with a note on stderr when it is
/// converted.
fn write_output(file: OutputFile, output: &AnyBuffer) -> Result<()> {
    match output {
        AnyBuffer::F32(image) if written_type(file.format(), Type::f32()) == Type::u8() => {
            eprintln!(
                "note: the f32 output is written to {} in 8 bits: [0, 1] scaled to 0..=255",
                file.path().display()
            );
            file.write(&narrow_unit_float_to_8_bit(image).into())
        }
        _ => file.write(output),
    }
}
