//! Estimates for the automatic scheduler (Halide's `set_estimate`): the bounds it may expect of
//! a Func's dimensions (`Func::set_estimate`, `set_estimates`) and of an input image's
//! (`ImageParam::set_estimates`, `Dimension::set_estimate`), and the value of a `Param`
//! (`Param::set_estimate`). They are hints, stored with the Func or input: lowering neither
//! checks nor uses them. `autoschedule::estimates` looks them up and names what is missing.

use super::func::Func;
use super::image_param::ImageParam;
use super::var::Var;
use crate::error::{Error, Result};
pub use crate::ir::schedule::Estimate;

impl Func {
    /// Tells the automatic scheduler to expect dimension `var` of this Func to span
    /// `[min, min + extent)` (Halide's `Func::set_estimate`); the output's estimates size the
    /// whole pipeline. Define the Func first. An error names the Var and the Func when `var`
    /// is not one of its pure Vars, and the Func when the extent is not positive.
    pub fn set_estimate(&self, var: &Var, min: i64, extent: i64) -> Result<()> {
        let name = self.name();
        let dim = self
            .function()
            .read()
            .args
            .iter()
            .position(|a| *a == var.name());
        let Some(dim) = dim else {
            let args: Vec<String> = self.args().iter().map(|a| a.name().to_string()).collect();
            return Err(Error::schedule(match self.is_defined() {
                true => format!(
                    "cannot set an estimate of Func {name} for Var {}: {name}'s pure Vars are ({})",
                    var.name(),
                    args.join(", ")
                ),
                false => format!(
                    "cannot set an estimate of Func {name} for Var {}: define {name} first",
                    var.name()
                ),
            }));
        };
        self.set_dimension_estimate(dim, min, extent)
    }

    /// Estimates of every dimension in order, as `(min, extent)` pairs (Halide's
    /// `Func::set_estimates`); an error names the Func when the count is not its
    /// dimensionality.
    pub fn set_estimates(&self, bounds: &[(i64, i64)]) -> Result<()> {
        let (name, dims) = (self.name(), self.dimensions());
        if !self.is_defined() || bounds.len() != dims {
            return Err(Error::schedule(format!(
                "Func {name} has {dims} dimensions, but {} estimates were given{}",
                bounds.len(),
                if self.is_defined() {
                    ""
                } else {
                    " (define it first)"
                }
            )));
        }
        for (dim, &(min, extent)) in bounds.iter().enumerate() {
            self.set_dimension_estimate(dim, min, extent)?;
        }
        Ok(())
    }

    /// The estimate of dimension `dim`, if one was given.
    pub fn estimate(&self, dim: usize) -> Option<Estimate> {
        self.function().read().estimates.get(dim).copied().flatten()
    }

    fn set_dimension_estimate(&self, dim: usize, min: i64, extent: i64) -> Result<()> {
        let estimate = Estimate::new(min, extent).map_err(|why| {
            let var = self.args()[dim].name();
            Error::schedule(format!(
                "the estimate of Func {} for Var {var}: {why}",
                self.name()
            ))
        })?;
        let mut contents = self.function().write();
        if contents.estimates.len() <= dim {
            contents.estimates.resize(dim + 1, None);
        }
        contents.estimates[dim] = Some(estimate);
        Ok(())
    }
}

impl ImageParam {
    /// Estimates of every dimension in order, as `(min, extent)` pairs (Halide's
    /// `ImageParam::set_estimates`); an error names the image when the count is not its
    /// dimensionality.
    pub fn set_estimates(&self, bounds: &[(i64, i64)]) -> Result<()> {
        if bounds.len() != self.dimensions() {
            return Err(Error::schedule(format!(
                "input `{}` has {} dimensions, but {} estimates were given",
                self.name(),
                self.dimensions(),
                bounds.len()
            )));
        }
        for (dim, &(min, extent)) in bounds.iter().enumerate() {
            self.dim(dim).set_estimate(min, extent)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;

    fn defined(name: &str) -> (Func, Var, Var) {
        let (f, x, y) = (Func::new(name), Var::new("x"), Var::new("y"));
        f.define((x, y), x.expr() + y.expr()).unwrap();
        (f, x, y)
    }

    #[test]
    fn func_estimates_round_trip() {
        let (f, x, y) = defined("f");
        assert_eq!(f.estimate(0), None);
        f.set_estimate(&y, -2, 40).unwrap();
        assert_eq!(f.estimate(0), None);
        let e = f.estimate(1).unwrap();
        assert_eq!((e.min, e.extent, e.max()), (-2, 40, 37));
        f.set_estimates(&[(0, 64), (1, 8)]).unwrap();
        f.set_estimate(&x, 3, 5).unwrap();
        let both: Vec<(i64, i64)> = (0..2)
            .map(|d| f.estimate(d).map(|e| (e.min, e.extent)).unwrap())
            .collect();
        assert_eq!(both, vec![(3, 5), (1, 8)]);
    }

    #[test]
    fn func_estimate_mistakes_name_the_var_and_func() {
        let (f, _, _) = defined("blurred");
        let err = f
            .set_estimate(&Var::new("z"), 0, 4)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("Var z") && err.contains("Func blurred") && err.contains("(x, y)"),
            "{err}"
        );
        let err = f.set_estimates(&[(0, 4)]).unwrap_err().to_string();
        assert!(err.contains("blurred has 2 dimensions, but 1"), "{err}");
        let err = f
            .set_estimate(&Var::new("x"), 0, 0)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("Func blurred for Var x") && err.contains("positive"),
            "{err}"
        );
        let undefined = Func::new("later");
        let err = undefined
            .set_estimate(&Var::new("x"), 0, 4)
            .unwrap_err()
            .to_string();
        assert!(err.contains("define later first"), "{err}");
    }

    #[test]
    fn image_and_param_estimates_round_trip() {
        let input = ImageParam::new(Type::u8(), 3, "photo");
        input.dim(2).set_estimate(0, 3).unwrap();
        assert_eq!(input.dim(0).estimate(), None);
        assert_eq!(
            input.dim(2).estimate().map(|e| (e.min, e.extent)),
            Some((0, 3))
        );
        input.set_estimates(&[(0, 640), (0, 480), (0, 4)]).unwrap();
        let all: Vec<Option<(i64, i64)>> = (0..3)
            .map(|d| input.dim(d).estimate().map(|e| (e.min, e.extent)))
            .collect();
        assert_eq!(all, vec![Some((0, 640)), Some((0, 480)), Some((0, 4))]);
        let err = input.dim(3).set_estimate(0, 1).unwrap_err().to_string();
        assert!(
            err.contains("`photo` has 3 dimensions, so it has no dimension 3"),
            "{err}"
        );
        let err = input.set_estimates(&[(0, 1)]).unwrap_err().to_string();
        assert!(
            err.contains("input `photo` has 3 dimensions, but 1"),
            "{err}"
        );

        let mut levels = Param::<i32>::new("levels");
        assert_eq!(levels.estimate(), None);
        levels.set_estimate(8);
        let binding = levels.estimate().unwrap();
        assert_eq!(
            (binding.name.as_str(), binding.value),
            ("levels", Value::Int(8))
        );
    }
}
