//! Fitting the cost model's coefficients to measurements (`tessera calibrate`): non-negative
//! least squares (Lawson and Hanson's active-set algorithm) of measured times against the
//! predicted `CostTerms` of the schedules measured.
//!
//! The fit is of each coefficient's scale relative to a prior model, on relative errors
//! (every schedule counts alike, a 2 ms one as much as a 2 s one, which is what ranking
//! schedules needs), with a ridge pulling each scale towards 1: a term the samples barely
//! determine stays near its prior value instead of swinging to absorb noise, and a term no
//! sample exercises keeps its prior coefficient exactly.

use super::model::{CostModel, CostTerms, TERMS};
use crate::error::{Error, Result};

/// One measured schedule: its predicted terms (summed over its groups) and its measured time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measurement {
    /// The schedule's terms.
    pub terms: CostTerms,
    /// Its measured time, in nanoseconds.
    pub measured_ns: f64,
}

/// The coefficient a term whose prior coefficient is zero is scaled from.
const ZERO_PRIOR_NS: f64 = 1e-3;

/// The model fitted to `measurements`, starting from `prior`: minimizes the sum over the
/// measurements of `((predicted - measured) / measured)²` plus `ridge` times the sum over the
/// terms of `(coefficient / prior coefficient - 1)²`, every coefficient non-negative. Terms no
/// measurement exercises keep their prior coefficient.
pub fn fit(measurements: &[Measurement], prior: &CostModel, ridge: f64) -> Result<CostModel> {
    if measurements.is_empty() {
        return Err(Error::schedule("no measurements to fit the cost model to"));
    }
    if let Some(m) =
        (measurements.iter()).find(|m| !(m.measured_ns > 0.0 && m.measured_ns.is_finite()))
    {
        return Err(Error::schedule(format!(
            "a measured time must be positive and finite, not {}",
            m.measured_ns
        )));
    }
    if !(ridge >= 0.0 && ridge.is_finite()) {
        return Err(Error::schedule(format!(
            "the ridge must be non-negative, not {ridge}"
        )));
    }
    let base: Vec<f64> = (prior.coefficients().iter())
        .map(|&c| if c > 0.0 { c } else { ZERO_PRIOR_NS })
        .collect();
    let exercised: Vec<usize> = (0..TERMS)
        .filter(|&k| measurements.iter().any(|m| m.terms.0[k] != 0.0))
        .collect();
    // Row per measurement: the share of the measured time each term's prior value predicts;
    // the scales of the exercised terms are the unknowns, the target is 1.
    let rows: Vec<Vec<f64>> = (measurements.iter())
        .map(|m| {
            (exercised.iter())
                .map(|&k| base[k] * m.terms.0[k] / m.measured_ns)
                .collect()
        })
        .collect();
    let mut targets = vec![1.0; rows.len()];
    let mut rows = rows;
    let weight = ridge.sqrt();
    for j in 0..exercised.len() {
        let mut row = vec![0.0; exercised.len()];
        row[j] = weight;
        rows.push(row);
        targets.push(weight);
    }
    let scales = nnls(&rows, &targets)?;
    let mut coefficients = prior.coefficients();
    for (&k, s) in exercised.iter().zip(scales) {
        coefficients[k] = base[k] * s;
    }
    Ok(CostModel::from_coefficients(coefficients))
}

/// The non-negative `x` minimizing `|A x - b|²` for the matrix of `rows` (Lawson and Hanson's
/// active-set algorithm, on the normal equations: the unknowns are few).
pub fn nnls(rows: &[Vec<f64>], b: &[f64]) -> Result<Vec<f64>> {
    let n = rows.first().map_or(0, Vec::len);
    if rows.len() != b.len() || rows.iter().any(|r| r.len() != n) {
        return Err(Error::schedule(
            "least squares: the rows and the targets do not match",
        ));
    }
    // The Gram matrix AᵀA and Aᵀb.
    let mut gram = vec![vec![0.0; n]; n];
    let mut atb = vec![0.0; n];
    for (row, &y) in rows.iter().zip(b) {
        for i in 0..n {
            atb[i] += row[i] * y;
            for j in 0..n {
                gram[i][j] += row[i] * row[j];
            }
        }
    }
    let scale = gram
        .iter()
        .enumerate()
        .map(|(i, r)| r[i])
        .fold(0.0, f64::max);
    let tolerance = 1e-12 * scale.max(f64::MIN_POSITIVE);
    let gradient = |x: &[f64]| -> Vec<f64> {
        (0..n)
            .map(|i| atb[i] - (0..n).map(|j| gram[i][j] * x[j]).sum::<f64>())
            .collect()
    };
    let mut x = vec![0.0; n];
    let mut passive = vec![false; n];
    for _ in 0..3 * n + 3 {
        let w = gradient(&x);
        let Some(enter) = (0..n)
            .filter(|&j| !passive[j] && w[j] > tolerance)
            .max_by(|&i, &j| w[i].total_cmp(&w[j]))
        else {
            break;
        };
        passive[enter] = true;
        loop {
            let s = solve_passive(&gram, &atb, &passive);
            if (0..n).all(|j| !passive[j] || s[j] > 0.0) {
                x = s;
                break;
            }
            // Step from x towards s as far as keeps x non-negative; the variables reaching
            // zero leave the passive set.
            let alpha = (0..n)
                .filter(|&j| passive[j] && s[j] <= 0.0)
                .map(|j| x[j] / (x[j] - s[j]))
                .fold(f64::INFINITY, f64::min);
            for j in 0..n {
                x[j] += alpha * (s[j] - x[j]);
                if passive[j] && x[j] <= tolerance {
                    passive[j] = false;
                    x[j] = 0.0;
                }
            }
        }
    }
    Ok(x)
}

/// The least-squares solution over the passive variables alone (the others zero), by
/// Gaussian elimination with partial pivoting on their normal equations; a variable whose
/// column is dependent on the others' takes zero.
fn solve_passive(gram: &[Vec<f64>], atb: &[f64], passive: &[bool]) -> Vec<f64> {
    let vars: Vec<usize> = (0..passive.len()).filter(|&j| passive[j]).collect();
    let m = vars.len();
    let mut a: Vec<Vec<f64>> = (vars.iter())
        .map(|&i| {
            let mut row: Vec<f64> = vars.iter().map(|&j| gram[i][j]).collect();
            row.push(atb[i]);
            row
        })
        .collect();
    let tiny = 1e-12 * vars.iter().map(|&i| gram[i][i]).fold(0.0, f64::max);
    let mut pivots = vec![None; m];
    let mut row = 0;
    for col in 0..m {
        let Some(p) = (row..m).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs())) else {
            break;
        };
        if a[p][col].abs() <= tiny {
            continue;
        }
        a.swap(row, p);
        let pivot_row = a[row].clone();
        for (i, r) in a.iter_mut().enumerate() {
            if i != row {
                let factor = r[col] / pivot_row[col];
                for (v, p) in r.iter_mut().zip(&pivot_row).skip(col) {
                    *v -= factor * p;
                }
            }
        }
        pivots[col] = Some(row);
        row += 1;
    }
    let mut x = vec![0.0; passive.len()];
    for (col, &var) in vars.iter().enumerate() {
        if let Some(r) = pivots[col] {
            x[var] = a[r][m] / a[r][col];
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    use super::*;
    use crate::testing::test_seed;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance * b.abs().max(1e-9)
    }

    #[test]
    fn nnls_solves_a_small_problem_by_hand() {
        // min |A x - b|² with A = [[1, 0], [0, 1], [1, 1]], b = [2, -1, 1]: unconstrained the
        // answer is x = (2, -1) ; with x ≥ 0, x₁ = 0 and x₀ minimizes (x₀-2)² + (x₀-1)²: 1.5.
        let rows = vec![vec![1.0, 0.0], vec![0.0, 1.0], vec![1.0, 1.0]];
        let x = nnls(&rows, &[2.0, -1.0, 1.0]).unwrap();
        assert!(close(x[0], 1.5, 1e-12) && x[1] == 0.0, "{x:?}");
        // Without an active constraint it is ordinary least squares: for b = [1, 0, 2] the
        // normal equations [[2, 1], [1, 2]] x = [3, 2] give x = (4/3, 1/3).
        let x = nnls(&rows, &[1.0, 0.0, 2.0]).unwrap();
        assert!(
            close(x[0], 4.0 / 3.0, 1e-12) && close(x[1], 1.0 / 3.0, 1e-12),
            "{x:?}"
        );
        assert!(nnls(&rows, &[1.0]).is_err());
    }

    #[test]
    fn fit_recovers_known_coefficients_from_synthetic_measurements() {
        let mut rng = StdRng::seed_from_u64(test_seed("fit", 7));
        let prior = CostModel::default();
        // The truth: every exercised coefficient scaled by a random factor; terms 12 and 13
        // (tasks, allocations) are never exercised and must keep the prior's value.
        let mut truth = prior.coefficients();
        for c in truth.iter_mut().take(12) {
            *c *= rng.random_range(0.2..5.0);
        }
        let truth = CostModel::from_coefficients(truth);
        let measurements: Vec<Measurement> = (0..200)
            .map(|_| {
                let mut terms = CostTerms::default();
                for t in terms.0.iter_mut().take(12) {
                    *t = rng.random_range(0.0..1e6);
                }
                Measurement {
                    terms,
                    measured_ns: truth.time(&terms),
                }
            })
            .collect();
        let fitted = fit(&measurements, &prior, 0.0).unwrap();
        for (k, (f, t)) in fitted
            .coefficients()
            .iter()
            .zip(truth.coefficients())
            .enumerate()
        {
            assert!(close(*f, t, 1e-6), "term {k}: fitted {f}, truth {t}");
        }
        assert_eq!(fitted.task_ns, prior.task_ns);
        // A ridge far heavier than the measurements keeps the prior.
        let ridged = fit(&measurements, &prior, 1e12).unwrap();
        for (r, p) in ridged.coefficients().iter().zip(prior.coefficients()) {
            assert!(close(*r, p, 1e-3), "{r} is not the prior's {p}");
        }
    }

    #[test]
    fn bad_measurements_are_refused() {
        let prior = CostModel::default();
        assert!(fit(&[], &prior, 0.0).is_err());
        let m = Measurement {
            terms: CostTerms::default(),
            measured_ns: 0.0,
        };
        assert!(fit(&[m], &prior, 0.0).is_err());
    }
}
