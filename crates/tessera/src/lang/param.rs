//! `Param<T>`: a scalar value supplied when the pipeline runs (a threshold, a level count).

use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};

use super::scalar::Scalar;
use crate::eval::value::Value;
use crate::ir::{Expr, ExprKind, Symbol, Type};

/// The identity of a declared input (a `Param` or an `ImageParam`): two inputs declared
/// with one name are different inputs, which a pipeline cannot tell apart, so binding both
/// is refused.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct InputId(u64);

impl InputId {
    pub(crate) fn next() -> InputId {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        InputId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// The error for binding two different inputs that share `name` (`what`: "image", "parameter").
pub fn same_name_error(what: &str, name: Symbol) -> crate::error::Error {
    crate::error::Error::Definition(format!(
        "two different {what}s are named {name}, and a pipeline cannot tell them apart; give each {what} its own name"
    ))
}

#[derive(Clone, Debug)]
pub struct Param<T: Scalar> {
    name: Symbol,
    id: InputId,
    _t: PhantomData<T>,
}

impl<T: Scalar> Param<T> {
    pub fn new(name: &str) -> Param<T> {
        Param {
            name: Symbol::new(name),
            id: InputId::next(),
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
    pub name: Symbol,
    pub ty: Type,
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
