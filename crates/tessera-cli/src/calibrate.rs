//! `tessera calibrate`: fits the cost model's coefficients to this machine. Measures random
//! schedules (and the `auto` and `auto-greedy` ones) of each app of `--apps` as `tessera
//! model-check` does, fits the coefficients to the measured times by non-negative least
//! squares (`autoschedule::fit`, starting from the current model), writes the fitted model as
//! JSON, and prints per app how well the current and the fitted model rank its samples
//! (Kendall's τ and the predicted-best sample's slowdown), for the apps fitted on and for the
//! `--holdout` apps, measured but not fitted on.

use std::path::PathBuf;

use clap::Args;
use tessera::autoschedule::fit::{fit, Measurement};
use tessera::autoschedule::CostModel;

use crate::model_check::Quality;
use crate::sampling::{measure_app, AppMeasurements, MeasureArgs};

/// How strongly the fit keeps each coefficient near the current model's, against the sum
/// of the squared relative errors of all measurements (`fit::fit`).
const RIDGE: f64 = 1.0;

#[derive(Args)]
pub struct CalibrateArgs {
    /// The apps to fit on, comma-separated (default: all).
    #[arg(long, value_delimiter = ',')]
    apps: Vec<String>,
    /// Apps measured and ranked but not fitted on, comma-separated.
    #[arg(long, value_delimiter = ',')]
    holdout: Vec<String>,
    /// Random schedules per app.
    #[arg(long, value_name = "N", default_value_t = 40,
          value_parser = clap::value_parser!(u32).range(2..))]
    samples: u32,
    #[command(flatten)]
    measure: MeasureArgs,
    /// Where to write the fitted model.
    #[arg(long, value_name = "FILE", default_value = "cost_model.json")]
    out: PathBuf,
}

pub fn calibrate(args: &CalibrateArgs) -> Result<(), String> {
    let fitted_names: Vec<&str> = match args.apps.is_empty() {
        true => tessera_apps::apps().iter().map(|a| a.name()).collect(),
        false => args.apps.iter().map(String::as_str).collect(),
    };
    if let Some(app) = args
        .holdout
        .iter()
        .find(|h| fitted_names.contains(&h.as_str()))
    {
        return Err(format!(
            "{app} is both fitted on (--apps) and held out (--holdout)"
        ));
    }
    let prior = CostModel::from_environment().map_err(|e| e.to_string())?;
    let options = args.measure.options(args.samples, &prior);
    let measure = |names: &[&str]| -> Result<Vec<AppMeasurements>, String> {
        (names.iter())
            .map(|n| measure_app(tessera_apps::find(n).map_err(|e| e.to_string())?, &options))
            .collect()
    };
    let holdout: Vec<&str> = args.holdout.iter().map(String::as_str).collect();
    // Look every app up before the long measurements start.
    for name in fitted_names.iter().chain(&holdout) {
        tessera_apps::find(name).map_err(|e| e.to_string())?;
    }
    let fitted_on = measure(&fitted_names)?;
    let measurements: Vec<Measurement> = (fitted_on.iter())
        .flat_map(|a| a.samples.iter().chain([&a.dp, &a.greedy]))
        .map(|m| Measurement {
            terms: m.terms,
            measured_ns: m.measured_ns,
        })
        .collect();
    let model = fit(&measurements, &prior, RIDGE).map_err(|e| e.to_string())?;
    std::fs::write(&args.out, model.to_json() + "\n")
        .map_err(|e| format!("cannot write {}: {e}", args.out.display()))?;
    outln!(
        "fitted on {} schedules of {}; wrote {}",
        measurements.len(),
        fitted_names.join(", "),
        args.out.display()
    )?;
    // The fitted model is written before the held-out apps are measured: a long measurement
    // cut short does not lose it.
    let held_out = measure(&holdout)?;
    outln!("app              set      tau before  tau after  best/best before  after")?;
    for (set, apps) in [("fitted", &fitted_on), ("held out", &held_out)] {
        for a in apps.iter() {
            let before = Quality::of(&prior, a)?;
            let after = Quality::of(&model, a)?;
            outln!(
                "{:<16} {set:<8} {:>10.3} {:>10.3} {:>17.2} {:>6.2}",
                a.app,
                before.tau,
                after.tau,
                before.best_ratio(),
                after.best_ratio()
            )?;
        }
    }
    Ok(())
}
