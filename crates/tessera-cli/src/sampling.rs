//! Measuring random schedules of an app, for `tessera model-check` and `tessera calibrate`:
//! the app at its default size and the scheduler's problem for it, N schedules drawn from the
//! space (`autoschedule::sample`) plus the `dp` and `greedy` searches' choices, each compiled
//! once and timed (median of a few runs, compile time excluded), with the cost model's terms
//! kept so that any model's prediction can be computed afterwards. Schedules are measured one
//! after another in the (random) order drawn, so a slow drift of the machine's load adds
//! noise, not a bias toward any kind of schedule.

use clap::Args;
use rand::rngs::StdRng;
use rand::SeedableRng;
use tessera::autoschedule::model::CostTerms;
use tessera::autoschedule::plan::GroupPlan;
use tessera::autoschedule::problem::Problem;
use tessera::autoschedule::{emit, sample, search, CostModel, Machine, PipelineAnalysis};
use tessera::Target;
use tessera_apps::App;

use crate::bench::{median, time_runs};
use crate::inputs::load_inputs;
use crate::run::compile_pipeline;

/// The command-line options of `model-check` and `calibrate` on how schedules are measured.
#[derive(Args)]
pub struct MeasureArgs {
    /// Worker threads the schedules are made for and run on (default: one per core).
    #[arg(long, value_name = "T", default_value_t = 0)]
    pub threads: usize,
    /// The seed of the random schedules.
    #[arg(long, value_name = "S", default_value_t = 16)]
    pub seed: u64,
    /// Timed runs per schedule (their median counts).
    #[arg(long, value_name = "R", default_value_t = 3,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
}

impl MeasureArgs {
    /// The options measuring `samples` random schedules, inlining decided by `model`.
    pub fn options(&self, samples: u32, model: &CostModel) -> SamplingOptions {
        SamplingOptions {
            samples: samples as usize,
            threads: self.threads,
            seed: self.seed,
            runs: self.runs,
            model: model.clone(),
        }
    }
}

/// How an app's schedules are sampled and measured.
pub struct SamplingOptions {
    /// How many random schedules.
    pub samples: usize,
    /// The threads the schedules are made for and run on (0: one per core).
    pub threads: usize,
    /// The seed of the random schedules.
    pub seed: u64,
    /// Timed runs per schedule.
    pub runs: u32,
    /// The model deciding inlining (the terms do not depend on its other uses).
    pub model: CostModel,
}

/// One schedule, measured.
#[derive(Clone, Copy, Debug)]
pub struct Measured {
    /// The cost model's terms of the schedule (summed over its groups).
    pub terms: CostTerms,
    /// Its median run time, in nanoseconds.
    pub measured_ns: f64,
}

/// An app's measured schedules.
pub struct AppMeasurements {
    pub app: &'static str,
    pub size: (i64, i64),
    pub threads: usize,
    /// The random schedules that compiled and ran.
    pub samples: Vec<Measured>,
    /// The dynamic programming's schedule (`auto`).
    pub dp: Measured,
    /// The greedy grouping's schedule (`auto-greedy`).
    pub greedy: Measured,
    /// The random schedules that failed, with why.
    pub failures: Vec<String>,
}

/// The threads `threads` asks for (0: one per core).
pub fn resolve_threads(threads: usize) -> usize {
    match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// Samples and measures `options.samples` schedules of `app` and its `dp` and `greedy`
/// schedules, with progress on stderr.
pub fn measure_app(app: &dyn App, options: &SamplingOptions) -> Result<AppMeasurements, String> {
    let size = app.description().default_size;
    let threads = resolve_threads(options.threads);
    let (pipeline, params) = app.build_with_estimates(size).map_err(|e| e.to_string())?;
    let analysis = PipelineAnalysis::new(&pipeline.output, &params).map_err(|e| e.to_string())?;
    let target = Target::host();
    let machine = Machine::host(&target, threads);
    let problem =
        Problem::new(&analysis, machine, options.model.clone()).map_err(|e| e.to_string())?;
    let loaded = load_inputs(app, &[], Some(size))?;
    let measure = |plans: &[GroupPlan]| -> Result<Measured, String> {
        let script = emit::emit(&problem, plans);
        let fresh = app.build().map_err(|e| e.to_string())?;
        script.apply(&fresh.output).map_err(|e| e.to_string())?;
        let compiled = compile_pipeline(app, fresh, threads, &target)?;
        let times = time_runs(
            &compiled,
            &loaded.images,
            &params,
            &loaded.mins,
            &loaded.extents,
            options.runs,
        )?;
        let mut terms = CostTerms::default();
        for p in plans {
            terms.add_scaled(&p.terms, 1.0);
        }
        Ok(Measured {
            terms,
            measured_ns: median(&times) * 1e6,
        })
    };
    let searched = |plans: tessera::Result<Vec<GroupPlan>>, name: &str| {
        let m = measure(&plans.map_err(|e| e.to_string())?)?;
        eprintln!(
            "{}: {name}: predicted {:.3} ms, measured {:.3} ms",
            app.name(),
            options.model.time(&m.terms) / 1e6,
            m.measured_ns / 1e6
        );
        Ok::<_, String>(m)
    };
    let dp = searched(search::dynamic_programming(&problem), "auto")?;
    let greedy = searched(search::greedy(&problem), "auto-greedy")?;
    let mut rng = StdRng::seed_from_u64(options.seed);
    let mut samples = Vec::new();
    let mut failures = Vec::new();
    for i in 0..options.samples {
        let plans = sample::sample_plans(&problem, &mut rng).map_err(|e| e.to_string())?;
        match measure(&plans) {
            Ok(m) => {
                eprintln!(
                    "{}: sample {}/{}: {} groups, predicted {:.3} ms, measured {:.3} ms",
                    app.name(),
                    i + 1,
                    options.samples,
                    plans.len(),
                    options.model.time(&m.terms) / 1e6,
                    m.measured_ns / 1e6
                );
                samples.push(m);
            }
            Err(e) => {
                eprintln!("{}: sample {} failed: {e}", app.name(), i + 1);
                failures.push(e);
            }
        }
    }
    Ok(AppMeasurements {
        app: app.name(),
        size,
        threads,
        samples,
        dp,
        greedy,
        failures,
    })
}
