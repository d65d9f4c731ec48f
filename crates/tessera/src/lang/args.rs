//! Conversions of the argument lists users write — `(x, y)`, `[x, y]`, `vec![e0, e1]`, `()` —
//! into the coordinate lists of definitions and calls.

use super::rdom::RVar;
use super::var::Var;
use crate::ir::{Expr, ExprKind, Type};

/// Coordinates of a call or an update's left-hand side.
pub trait IntoArgs {
    /// The coordinates, one per dimension.
    fn into_args(self) -> Vec<Expr>;
}

/// The pure variables of a definition's left-hand side.
pub trait IntoVars {
    /// The Vars, one per dimension.
    fn into_vars(self) -> Vec<Var>;
}

impl IntoArgs for Vec<Expr> {
    fn into_args(self) -> Vec<Expr> {
        self
    }
}
impl IntoArgs for &[Expr] {
    fn into_args(self) -> Vec<Expr> {
        self.to_vec()
    }
}
impl<const N: usize> IntoArgs for [Var; N] {
    fn into_args(self) -> Vec<Expr> {
        self.iter().map(|v| v.expr()).collect()
    }
}
impl<const N: usize> IntoArgs for [Expr; N] {
    fn into_args(self) -> Vec<Expr> {
        self.to_vec()
    }
}
impl IntoArgs for Vec<Var> {
    fn into_args(self) -> Vec<Expr> {
        self.iter().map(|v| v.expr()).collect()
    }
}
impl IntoArgs for &[Var] {
    fn into_args(self) -> Vec<Expr> {
        self.iter().map(|v| v.expr()).collect()
    }
}
impl IntoArgs for () {
    fn into_args(self) -> Vec<Expr> {
        Vec::new()
    }
}

macro_rules! single_arg {
    ($($t:ty),*) => {$(
        impl IntoArgs for $t {
            fn into_args(self) -> Vec<Expr> {
                vec![self.into()]
            }
        }
    )*};
}
single_arg!(Var, Expr, &Expr, RVar, &RVar, i32);

macro_rules! tuple_args {
    ($($name:ident),+) => {
        impl<$($name: Into<Expr>),+> IntoArgs for ($($name,)+) {
            #[allow(non_snake_case)]
            fn into_args(self) -> Vec<Expr> {
                let ($($name,)+) = self;
                vec![$($name.into()),+]
            }
        }
    };
}
tuple_args!(A);
tuple_args!(A, B);
tuple_args!(A, B, C);
tuple_args!(A, B, C, D);
tuple_args!(A, B, C, D, E);
tuple_args!(A, B, C, D, E, F);

impl IntoVars for Var {
    fn into_vars(self) -> Vec<Var> {
        vec![self]
    }
}
impl IntoVars for () {
    fn into_vars(self) -> Vec<Var> {
        Vec::new()
    }
}
impl<const N: usize> IntoVars for [Var; N] {
    fn into_vars(self) -> Vec<Var> {
        self.to_vec()
    }
}
impl IntoVars for Vec<Var> {
    fn into_vars(self) -> Vec<Var> {
        self
    }
}
impl IntoVars for &[Var] {
    fn into_vars(self) -> Vec<Var> {
        self.to_vec()
    }
}

macro_rules! tuple_vars {
    ($($name:ident),+) => {
        impl IntoVars for ($(tuple_vars!(@var $name),)+) {
            #[allow(non_snake_case)]
            fn into_vars(self) -> Vec<Var> {
                let ($($name,)+) = self;
                vec![$($name),+]
            }
        }
    };
    (@var $name:ident) => { Var };
}
tuple_vars!(A);
tuple_vars!(A, B);
tuple_vars!(A, B, C);
tuple_vars!(A, B, C, D);
tuple_vars!(A, B, C, D, E);
tuple_vars!(A, B, C, D, E, F);

/// Converts call coordinates to int32, as Halide does; a float coordinate is an error.
pub fn coordinate_args(callee: &str, args: Vec<Expr>) -> Result<Vec<Expr>, Expr> {
    args.into_iter()
        .enumerate()
        .map(|(i, a)| {
            if matches!(a.kind(), ExprKind::Invalid(_)) {
                Err(a)
            } else if a.ty().is_float() || a.ty().is_bool() || a.ty().is_vector() {
                Err(Expr::invalid(Type::i32(), format!("coordinate {i} of the call to {callee} is {} ({a}); coordinates must be integers", a.ty())))
            } else if a.ty() != Type::i32() {
                Ok(Expr::cast(Type::i32(), a))
            } else {
                Ok(a)
            }
        })
        .collect()
}
