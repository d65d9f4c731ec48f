//! `Param<T>`: a scalar value supplied when the pipeline runs (a threshold, a level count).

use std::marker::PhantomData;

use super::scalar::Scalar;
use crate::eval::value::Value;
use crate::ir::{Expr, ExprKind, Symbol, Type};

#[derive(Clone, Debug)]
pub struct Param<T: Scalar> {
    name: Symbol,
    _t: PhantomData<T>,
}

impl<T: Scalar> Param<T> {
    pub fn new(name: &str) -> Param<T> {
        Param {
            name: Symbol::new(name),
            _t: PhantomData,
        }
    }
    pub fn name(&self) -> Symbol {
        self.name
    }
    pub fn ty(&self) -> Type {
        T::TYPE
    }
    pub fn expr(&self) -> Expr {
        Expr::new(T::TYPE, ExprKind::Param(self.name))
    }
    /// The binding of this parameter to `value`, as the evaluator and runners take it.
    pub fn bind(&self, value: T) -> ParamBinding {
        ParamBinding {
            name: self.name,
            ty: T::TYPE,
            value: value.to_value(),
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
    pub name: Symbol,
    pub ty: Type,
    pub value: Value,
}
