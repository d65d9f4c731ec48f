//! Halide's compound updates `f(args) += values` (and `-=`, `*=`, `/=`): an update combining
//! the Func's value at the point it writes with new values. A Func with no pure definition
//! gets one first, as Halide's `FuncRef::operator+=` gives it: the operator's identity (0 for
//! `+=` and `-=`, 1 for `*=` and `/=`) in each value's type, over the left-hand side's Vars
//! (a fresh Var where a coordinate is not a Var, such as a histogram's computed bin).

use super::args::IntoArgs;
use super::func::{Func, IntoValues};
use super::implicit::expand_lhs;
use super::math::cast;
use super::var::Var;
use crate::error::{Error, Result};
use crate::ir::Expr;

/// The operator of a compound update.
#[derive(Clone, Copy, Debug)]
enum CompoundOp {
    Add,
    Sub,
    Mul,
    Div,
}

impl CompoundOp {
    /// The value a Func without a pure definition starts from: applying the operator to it
    /// leaves the first update's values as they are.
    fn identity(self) -> i32 {
        match self {
            CompoundOp::Add | CompoundOp::Sub => 0,
            CompoundOp::Mul | CompoundOp::Div => 1,
        }
    }
    fn apply(self, old: Expr, value: Expr) -> Expr {
        match self {
            CompoundOp::Add => old + value,
            CompoundOp::Sub => old - value,
            CompoundOp::Mul => old * value,
            CompoundOp::Div => old / value,
        }
    }
}

impl Func {
    /// Halide's `f(args) += values`: the update `f(args) = f(args) + values`, element by
    /// element. On a Func with no pure definition, it first defines the Func as 0 (in each
    /// value's type) everywhere.
    pub fn update_add(&self, args: impl IntoArgs, values: impl IntoValues) -> Result<()> {
        self.compound_update(CompoundOp::Add, args.into_args(), values.into_values())
    }
    /// Halide's `f(args) -= values` (from 0 on a Func with no pure definition).
    pub fn update_sub(&self, args: impl IntoArgs, values: impl IntoValues) -> Result<()> {
        self.compound_update(CompoundOp::Sub, args.into_args(), values.into_values())
    }
    /// Halide's `f(args) *= values` (from 1 on a Func with no pure definition).
    pub fn update_mul(&self, args: impl IntoArgs, values: impl IntoValues) -> Result<()> {
        self.compound_update(CompoundOp::Mul, args.into_args(), values.into_values())
    }
    /// Halide's `f(args) /= values` (from 1 on a Func with no pure definition).
    pub fn update_div(&self, args: impl IntoArgs, values: impl IntoValues) -> Result<()> {
        self.compound_update(CompoundOp::Div, args.into_args(), values.into_values())
    }

    fn compound_update(&self, op: CompoundOp, args: Vec<Expr>, values: Vec<Expr>) -> Result<()> {
        let defines = !self.is_defined();
        if defines {
            self.define_identity(op, &args, &values)?;
        }
        let result = self.combined_update(op, args, values);
        if result.is_err() && defines {
            // A refused update leaves the Func as it found it.
            self.function().clear_definitions();
        }
        result
    }

    fn combined_update(&self, op: CompoundOp, args: Vec<Expr>, values: Vec<Expr>) -> Result<()> {
        let count = self.output_types().len();
        if values.len() != count {
            let name = self.name();
            return Err(Error::Definition(format!(
                "the update of {name} gives {} values but {name} has {count}",
                values.len()
            )));
        }
        let old = self.tuple_at(args.clone());
        let combined: Vec<Expr> = old
            .into_iter()
            .zip(values)
            .map(|(old, value)| op.apply(old, value))
            .collect();
        self.update(args, combined)
    }

    /// The pure definition Halide gives a Func first updated by `op`.
    fn define_identity(&self, op: CompoundOp, args: &[Expr], values: &[Expr]) -> Result<()> {
        let lhs = expand_lhs(self.name(), args.to_vec(), values)?;
        let vars: Vec<Var> = lhs
            .iter()
            .map(|a| a.as_var().map_or_else(Var::fresh, |v| Var::new(v.as_str())))
            .collect();
        let identities: Vec<Expr> = values.iter().map(|v| cast(v.ty(), op.identity())).collect();
        self.define(vars, identities)
    }
}
