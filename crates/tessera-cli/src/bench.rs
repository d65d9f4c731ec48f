//! `tessera bench APP`: compiles an app once with a schedule and times R runs on its built-in
//! test images (or input files), printing the median and minimum run time and the compile time — as text, or
//! with `--json` as exactly one JSON object on stdout (the DESIGN.md §6 contract).

use std::time::Instant;

use clap::Args;
use tessera::Target;

use crate::inputs::load_inputs;
use tessera::prelude::{AnyBuffer, ParamBinding};

use crate::run::{compile, parse_params, CompiledApp, DEFAULT_SCHEDULE};

#[derive(Args)]
pub struct BenchArgs {
    /// The app to benchmark (`tessera apps` lists them).
    app: String,
    /// The schedule: one of the app's (`tessera apps` lists them) or a schedule file
    /// (`FILE.json`). Default: manual.
    #[arg(long)]
    schedule: Option<String>,
    /// Input image (.npy or .png), e.g. the one another implementation is timed on: FILE for
    /// an app with one input, else NAME=FILE for each of its inputs (repeatable). Default:
    /// the app's built-in test images.
    #[arg(long, value_name = "[NAME=]FILE")]
    input: Vec<String>,
    /// Output width for the built-in test image (default: the app's benchmark size).
    #[arg(long, requires = "height", conflicts_with = "input",
          value_parser = clap::value_parser!(i64).range(1..=1 << 20))]
    width: Option<i64>,
    /// Output height for the built-in test image.
    #[arg(long, requires = "width", conflicts_with = "input",
          value_parser = clap::value_parser!(i64).range(1..=1 << 20))]
    height: Option<i64>,
    /// Worker threads for parallel loops (default: one per core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    threads: usize,
    /// Fuse float multiplies and adds into multiply-adds, as Halide does by default: faster,
    /// but float results may differ from the evaluator's in the last bits.
    #[arg(long)]
    fp_contract: bool,
    /// A runtime parameter of the app (repeatable); the others take their defaults.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
    /// How many timed runs.
    #[arg(long, value_name = "R", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    runs: u32,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

pub fn bench(args: &BenchArgs) -> Result<(), String> {
    let app = tessera_apps::find(&args.app).map_err(|e| e.to_string())?;
    let schedule = args.schedule.as_deref().unwrap_or(DEFAULT_SCHEDULE);
    app.schedule_info(schedule).map_err(|e| e.to_string())?;
    let params = parse_params(app, &args.params)?;
    let loaded = load_inputs(app, &args.input, args.width.zip(args.height))?;
    let (mins, extents) = (&loaded.mins, &loaded.extents);
    let (w, h) = (extents[0], extents[1]);
    app.check_schedule_fits(schedule, extents)
        .map_err(|e| format!("{}: {e}", loaded.source))?;
    let target = Target::host().with_float_contraction(args.fp_contract);
    let compiled = compile(app, schedule, args.threads, &target)?;
    let threads = if args.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        args.threads
    };
    let times = time_runs(&compiled, &loaded.images, &params, mins, extents, args.runs)?;
    let median = median(&times);
    let min = times[0];
    if args.json {
        outln!(
            "{{\"app\":\"{}\",\"schedule\":\"{schedule}\",\"width\":{w},\"height\":{h},\"threads\":{threads},\"fp_contract\":{},\"compile_ms\":{:.3},\"median_ms\":{median:.3},\"min_ms\":{min:.3},\"runs\":{}}}",
            app.name(),
            args.fp_contract,
            compiled.compile_ms(),
            args.runs
        )?;
    } else {
        outln!(
            "{} ({schedule}{}, {w} x {h}, {threads} threads): median {median:.3} ms, min {min:.3} ms over {} runs; compiled in {:.1} ms",
            app.name(),
            if args.fp_contract { ", multiply-adds fused" } else { "" },
            args.runs,
            compiled.compile_ms()
        )?;
    }
    Ok(())
}

/// The times of `runs` runs of `compiled` on `images` over `[mins, mins + extents)`, in
/// milliseconds, sorted. One untimed run comes first: it allocates and faults in the output
/// and scratch memory. The timed runs then write the same output from the same inputs, so
/// they time the pipeline alone (as Halide's yardstick does), not copying the input or
/// faulting fresh pages.
pub fn time_runs(
    compiled: &CompiledApp,
    images: &[AnyBuffer],
    params: &[ParamBinding],
    mins: &[i64],
    extents: &[i64],
    runs: u32,
) -> Result<Vec<f64>, String> {
    let inputs = compiled.inputs(images, params);
    let mut output = compiled.run(images, params, mins, extents)?;
    let mut times = Vec::with_capacity(runs as usize);
    for _ in 0..runs {
        let start = Instant::now();
        compiled.run_into(&inputs, &mut output)?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    Ok(times)
}

/// The median of `sorted` (not empty).
pub fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}
