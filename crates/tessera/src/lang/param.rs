//! `Param<T>`: a scalar value supplied when the pipeline runs (a threshold, a level count),
//! and its declared range (`set_range`): its expressions promise the range to interval
//! analysis, and lowering asserts it at entry (`lower::param_checks`).

use std::marker::PhantomData;

use super::scalar::Scalar;
use crate::error::{Error, Result};
use crate::eval::value::Value;
pub use crate::ir::parameter::InputId;
use crate::ir::visit::visit_exprs;
use crate::ir::{BinaryOp, CallKind, Expr, ExprKind, Intrinsic, Symbol, Type};

/// The error for binding two different inputs that share `name` (`what`: "image", "parameter").
pub fn same_name_error(what: &str, name: Symbol) -> crate::error::Error {
    crate::error::Error::Definition(format!(
        "two different {what}s are named {name}, and a pipeline cannot tell them apart; give each {what} its own name"
    ))
}

/// A scalar input of the pipeline (Halide's `Param<T>`), bound to a value for each run
/// with [`Inputs::param`](crate::pipeline::Inputs::param).
#[derive(Clone, Debug)]
pub struct Param<T: Scalar> {
    name: Symbol,
    id: InputId,
    /// The declared range's ends (Halide's `set_min_value` / `set_max_value`).
    min: Option<T>,
    max: Option<T>,
    /// The value the automatic scheduler may assume (`set_estimate`).
    estimate: Option<T>,
    _t: PhantomData<T>,
}

impl<T: Scalar> Param<T> {
    /// A parameter named `name`.
    pub fn new(name: &str) -> Param<T> {
        Param {
            name: Symbol::new(name),
            id: InputId::next(),
            min: None,
            max: None,
            estimate: None,
            _t: PhantomData,
        }
    }

    /// Declares that the value lies in `[min, max]` (Halide's `Param::set_range`): bounds
    /// inference may rely on it (a region indexed by `x / p` is bounded when `p` is), and
    /// every realization whose value is outside fails with an error naming the Param. The
    /// range applies to the expressions made from this Param afterwards, so declare it
    /// before using the Param. An empty range (`min > max`, or NaN) is an error.
    pub fn set_range(&mut self, min: T, max: T) -> Result<()> {
        self.set_ends(Some(min), Some(max))
    }

    /// Declares only the lowest value (see `set_range`).
    pub fn set_min_value(&mut self, min: T) -> Result<()> {
        self.set_ends(Some(min), self.max)
    }

    /// Declares only the highest value (see `set_range`).
    pub fn set_max_value(&mut self, max: T) -> Result<()> {
        self.set_ends(self.min, Some(max))
    }

    /// The declared lowest value, if any.
    pub fn min_value(&self) -> Option<T> {
        self.min
    }

    /// The declared highest value, if any.
    pub fn max_value(&self) -> Option<T> {
        self.max
    }

    fn set_ends(&mut self, min: Option<T>, max: Option<T>) -> Result<()> {
        let ty = T::TYPE;
        let empty = |v: Option<T>| v.is_some_and(|v| v.to_value().as_f64().is_nan());
        let ordered = match (min, max) {
            (Some(lo), Some(hi)) => matches!(
                crate::eval::value::binary(BinaryOp::Le, lo.to_value(), hi.to_value(), ty),
                Value::Bool(true)
            ),
            _ => true,
        };
        if empty(min) || empty(max) || !ordered {
            return Err(Error::Definition(format!(
                "parameter {}: the range [{}, {}] is empty",
                self.name,
                min.map_or("-inf".to_string(), |v| format!("{v:?}")),
                max.map_or("inf".to_string(), |v| format!("{v:?}")),
            )));
        }
        self.min = min;
        self.max = max;
        Ok(())
    }
    /// Tells the automatic scheduler to expect `value` (Halide's `Param::set_estimate`): it
    /// sizes reduction domains and regions that depend on the parameter. Runs may bind any
    /// value.
    pub fn set_estimate(&mut self, value: T) {
        self.estimate = Some(value);
    }
    /// The estimate as a binding, the form the scheduler's analysis takes it in, if one was
    /// given.
    pub fn estimate(&self) -> Option<ParamBinding> {
        self.estimate.map(|v| self.bind(v))
    }
    /// Its name.
    pub fn name(&self) -> Symbol {
        self.name
    }
    /// Its type.
    pub fn ty(&self) -> Type {
        T::TYPE
    }
    /// The parameter as an expression; with a declared range, the value promised to lie in
    /// it (`promise_clamped(p, min, max)`, which `declared_ranges` finds again).
    pub fn expr(&self) -> Expr {
        let ty = T::TYPE;
        let param = Expr::new(ty, ExprKind::Param(self.name, None));
        if self.min.is_none() && self.max.is_none() {
            return param;
        }
        let end = |v: Option<T>, upper: bool| match v {
            Some(v) => v.to_value().to_expr(ty),
            None => type_end(ty, upper),
        };
        Expr::intrinsic(
            ty,
            Intrinsic::PromiseClamped,
            vec![param, end(self.min, false), end(self.max, true)],
        )
    }
    /// The binding of this parameter to `value`, as the evaluator and runners take it.
    pub fn bind(&self, value: T) -> ParamBinding {
        ParamBinding {
            name: self.name,
            ty: T::TYPE,
            value: value.to_value(),
            origin: Some(self.id),
        }
    }
}

impl<T: Scalar> From<&Param<T>> for Expr {
    fn from(p: &Param<T>) -> Expr {
        p.expr()
    }
}

/// A value for a named scalar parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamBinding {
    /// The parameter's name.
    pub name: Symbol,
    /// Its type.
    pub ty: Type,
    /// The value bound to it.
    pub value: Value,
    /// The `Param` bound, when the binding was made by `Param::bind`.
    pub origin: Option<InputId>,
}

impl ParamBinding {
    /// Whether this binding and `other` bind two different Params of one name.
    pub fn conflicts_with(&self, other: &ParamBinding) -> bool {
        self.name == other.name
            && matches!((self.origin, other.origin), (Some(a), Some(b)) if a != b)
    }
}

/// The lowest (or, `upper`, highest) value of `ty`: an open end of a declared range.
fn type_end(ty: Type, upper: bool) -> Expr {
    match (ty.is_float(), upper) {
        (true, false) => Expr::make_float(ty, f64::NEG_INFINITY),
        (true, true) => Expr::make_float(ty, f64::INFINITY),
        (false, false) => Expr::make_const(ty, ty.int_min() as i64),
        // Wraps to the type's own bits (u64's maximum is -1 as an i64).
        (false, true) => Expr::make_const(ty, ty.int_max() as i64),
    }
}

/// A Param's declared range, as its expressions carry it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DeclaredRange {
    /// The parameter (an `ExprKind::Param` node).
    pub param: Expr,
    /// The smallest value it may take.
    pub min: Expr,
    /// The largest value it may take.
    pub max: Expr,
}

impl DeclaredRange {
    /// The condition that the parameter lies in its range.
    pub fn holds(&self) -> Expr {
        let at_least = Expr::binary(BinaryOp::Ge, self.param.clone(), self.min.clone());
        let at_most = Expr::binary(BinaryOp::Le, self.param.clone(), self.max.clone());
        Expr::binary(BinaryOp::And, at_least, at_most)
    }
}

/// The declared ranges of the Params in `exprs` (each once, in order of appearance).
pub fn declared_ranges<'a>(exprs: impl IntoIterator<Item = &'a Expr>) -> Vec<DeclaredRange> {
    let mut ranges: Vec<DeclaredRange> = Vec::new();
    for e in exprs {
        visit_exprs(e, &mut |n| {
            if let ExprKind::Call {
                kind: CallKind::Intrinsic(Intrinsic::PromiseClamped),
                args,
                ..
            } = n.kind()
            {
                let range = DeclaredRange {
                    param: args[0].clone(),
                    min: args[1].clone(),
                    max: args[2].clone(),
                };
                let declared = matches!(args[0].kind(), ExprKind::Param(..))
                    && range.min.is_const()
                    && range.max.is_const();
                if declared && !ranges.contains(&range) {
                    ranges.push(range);
                }
            }
            true
        });
    }
    ranges
}
