//! `tessera model-check APP`: is the cost model right? Samples N random schedules of the app
//! from the scheduler's space at its default size, predicts and measures each, and prints the
//! rank correlation between predicted and measured times (Kendall's τ-b) and how much slower
//! the predicted-best sample runs than the measured-best one; the same for the `auto` (dp)
//! and `auto-greedy` schedules. With `--json`, exactly one JSON object on stdout; progress
//! goes to stderr. The model is the default or the one `TESSERA_COST_MODEL` names.

use clap::Args;
use tessera::autoschedule::CostModel;

use crate::sampling::{measure_app, AppMeasurements, MeasureArgs, Measured};

#[derive(Args)]
pub struct ModelCheckArgs {
    /// The app (`tessera apps` lists them).
    app: String,
    /// How many random schedules to measure.
    #[arg(long, value_name = "N", default_value_t = 100,
          value_parser = clap::value_parser!(u32).range(2..))]
    samples: u32,
    #[command(flatten)]
    measure: MeasureArgs,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

pub fn model_check(args: &ModelCheckArgs) -> Result<(), String> {
    let app = tessera_apps::find(&args.app).map_err(|e| e.to_string())?;
    let model = CostModel::from_environment().map_err(|e| e.to_string())?;
    let options = args.measure.options(args.samples, &model);
    let measured = measure_app(app, &options)?;
    let quality = Quality::of(&model, &measured)?;
    let ms = |ns: f64| ns / 1e6;
    let (w, h) = measured.size;
    if args.json {
        let point = |m: &Measured| {
            serde_json::json!({
                "predicted_ms": ms(model.time(&m.terms)),
                "measured_ms": ms(m.measured_ns),
            })
        };
        let object = serde_json::json!({
            "app": measured.app,
            "width": w,
            "height": h,
            "threads": measured.threads,
            "runs": args.measure.runs,
            "seed": args.measure.seed,
            "samples": measured.samples.len(),
            "failures": measured.failures.len(),
            "kendall_tau": quality.tau,
            "best_predicted_measured_ms": ms(quality.predicted_best_ns),
            "best_measured_ms": ms(quality.measured_best_ns),
            "best_ratio": quality.best_ratio(),
            "auto": point(&measured.dp),
            "auto_greedy": point(&measured.greedy),
            "schedules": measured.samples.iter().map(point).collect::<Vec<_>>(),
        });
        return outln!("{object}");
    }
    outln!(
        "{}: {} random schedules at {w} x {h} on {} threads (median of {} runs each){}",
        measured.app,
        measured.samples.len(),
        measured.threads,
        args.measure.runs,
        match measured.failures.len() {
            0 => String::new(),
            n => format!("; {n} failed to compile or run"),
        }
    )?;
    outln!("Kendall tau, predicted vs measured: {:.3}", quality.tau)?;
    outln!(
        "predicted-best sample: measured {:.3} ms, {:.2}x the measured-best sample ({:.3} ms)",
        ms(quality.predicted_best_ns),
        quality.best_ratio(),
        ms(quality.measured_best_ns)
    )?;
    for (name, m) in [("auto", &measured.dp), ("auto-greedy", &measured.greedy)] {
        outln!(
            "{name}: predicted {:.3} ms, measured {:.3} ms, {:.2}x the measured-best sample",
            ms(model.time(&m.terms)),
            ms(m.measured_ns),
            m.measured_ns / quality.measured_best_ns
        )?;
    }
    Ok(())
}

/// How well a model ranks an app's measured samples.
pub struct Quality {
    /// Kendall's τ-b between predicted and measured times.
    pub tau: f64,
    /// The measured time of the sample the model predicts fastest.
    pub predicted_best_ns: f64,
    /// The fastest measured time of any sample.
    pub measured_best_ns: f64,
}

impl Quality {
    /// How `model` ranks `measured`'s samples; an error when there are too few to rank.
    pub fn of(model: &CostModel, measured: &AppMeasurements) -> Result<Quality, String> {
        let predicted: Vec<f64> = (measured.samples.iter())
            .map(|m| model.time(&m.terms))
            .collect();
        let times: Vec<f64> = measured.samples.iter().map(|m| m.measured_ns).collect();
        let tau = kendall_tau(&predicted, &times).ok_or_else(|| {
            format!(
                "{}: too few distinct schedules measured to rank ({} of them)",
                measured.app,
                times.len()
            )
        })?;
        let fastest = |values: &[f64]| {
            (0..values.len())
                .min_by(|&a, &b| values[a].total_cmp(&values[b]))
                .expect("ranked samples are not empty")
        };
        Ok(Quality {
            tau,
            predicted_best_ns: times[fastest(&predicted)],
            measured_best_ns: times[fastest(&times)],
        })
    }

    /// How many times slower the predicted-best sample runs than the measured-best.
    pub fn best_ratio(&self) -> f64 {
        self.predicted_best_ns / self.measured_best_ns
    }
}

/// Kendall's τ-b of `a` and `b` (paired): concordant minus discordant pairs over the square
/// root of the product of the pairs untied in each; `None` when either is all ties (or the
/// lengths differ).
pub fn kendall_tau(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.len() != b.len() {
        return None;
    }
    let (mut concordant, mut discordant) = (0i64, 0i64);
    let (mut untied_a, mut untied_b) = (0i64, 0i64);
    for i in 0..a.len() {
        for j in i + 1..a.len() {
            let da = a[i].total_cmp(&a[j]) as i64;
            let db = b[i].total_cmp(&b[j]) as i64;
            untied_a += i64::from(da != 0);
            untied_b += i64::from(db != 0);
            match da * db {
                1 => concordant += 1,
                -1 => discordant += 1,
                _ => {}
            }
        }
    }
    if untied_a == 0 || untied_b == 0 {
        return None;
    }
    Some((concordant - discordant) as f64 / ((untied_a as f64) * (untied_b as f64)).sqrt())
}

#[cfg(test)]
mod tests {
    use super::kendall_tau;

    #[test]
    fn kendall_tau_matches_hand_computed_examples() {
        // Pairs of (1,2,3,4) against (1,3,2,4): only the pair (2,3) is discordant; τ = 4/6.
        let tau = kendall_tau(&[1.0, 2.0, 3.0, 4.0], &[1.0, 3.0, 2.0, 4.0]).unwrap();
        assert!((tau - 4.0 / 6.0).abs() < 1e-12, "{tau}");
        // Ties: (1,2,2,3) against (1,2,3,3): 4 concordant pairs, one tied in each, none
        // discordant: τ-b = 4 / sqrt(5 · 5).
        let tau = kendall_tau(&[1.0, 2.0, 2.0, 3.0], &[1.0, 2.0, 3.0, 3.0]).unwrap();
        assert!((tau - 0.8).abs() < 1e-12, "{tau}");
        // Reversed order is -1; nothing to rank is None.
        assert_eq!(kendall_tau(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), Some(-1.0));
        assert_eq!(kendall_tau(&[1.0, 1.0], &[1.0, 2.0]), None);
        assert_eq!(kendall_tau(&[1.0], &[1.0, 2.0]), None);
    }
}
