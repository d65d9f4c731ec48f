//! `Var`: a named pure dimension of a Func (an int32 coordinate). Two Vars with the same name
//! are the same variable, as in Halide.

use crate::ir::{Expr, Symbol, Type};

/// A pure dimension of a Func, named (Halide's `Var`): an int32 coordinate in definitions
/// and a loop in schedules.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Var(Symbol);

impl Var {
    /// The Var named `name`.
    pub fn new(name: &str) -> Var {
        Var(Symbol::new(name))
    }
    /// A Var with a fresh, unique name.
    pub fn fresh() -> Var {
        Var(Symbol::fresh("v"))
    }
    /// Halide's placeholder `_`: in the argument list of a call or of a definition's
    /// left-hand side it stands for as many pure dimensions as needed (`lang::implicit`).
    pub fn placeholder() -> Var {
        Var::new(super::implicit::PLACEHOLDER)
    }
    /// The implicit Var `_i` a placeholder expands to: the i-th dimension it stands for.
    /// Schedules name a Func's implicit dimensions with it.
    pub fn implicit(i: usize) -> Var {
        Var::new(&format!("{}{i}", super::implicit::PLACEHOLDER))
    }
    /// Halide's `Var::outermost()`: in a loop level (`compute_at(g, Var::outermost())`,
    /// `store_at`) the place just inside `g`'s computation of a stage, outside all its loops
    /// — wherever `g` itself is computed.
    pub fn outermost() -> Var {
        Var::new(super::schedule::OUTERMOST)
    }
    /// Its name.
    pub fn name(self) -> Symbol {
        self.0
    }
    /// The Var as an int32 expression.
    pub fn expr(self) -> Expr {
        Expr::var(self.0, Type::i32())
    }
}

impl From<Var> for Expr {
    fn from(v: Var) -> Expr {
        v.expr()
    }
}

impl From<&Var> for Expr {
    fn from(v: &Var) -> Expr {
        v.expr()
    }
}

impl From<&Var> for Var {
    fn from(v: &Var) -> Var {
        *v
    }
}

impl From<&str> for Var {
    fn from(name: &str) -> Var {
        Var::new(name)
    }
}

/// The Var naming a loop, as the split family gives back its new loops.
impl From<super::stage::DimName> for Var {
    fn from(d: super::stage::DimName) -> Var {
        Var(d.0)
    }
}
