//! Reduction domains as users write them: `RDom` (an ordered box of reduction variables, first
//! innermost, with optional `where` predicates) and `RVar`, handles on the IR's
//! `ir::reduction` contents. An update definition finds its domain through the RVars it
//! mentions.

use std::sync::Arc;

use crate::ir::reduction::ReductionDomainContents;
pub use crate::ir::reduction::{RDomLink, RVarDef, ReductionDomain};
use crate::ir::{Expr, ExprKind, Symbol, Type};

/// A reduction domain. Cloning shares it (predicates added through any clone apply to all).
#[derive(Clone, Debug)]
pub struct RDom(Arc<ReductionDomainContents>);

const DIM_NAMES: [&str; 4] = ["x", "y", "z", "w"];

impl RDom {
    /// A domain over the box given as `(min, extent)` pairs, first pair innermost.
    pub fn new<M: Into<Expr>, E: Into<Expr>>(ranges: impl IntoIterator<Item = (M, E)>) -> RDom {
        RDom::named(Symbol::fresh("r").as_str(), ranges)
    }

    /// Like `new`, with an explicit name: the variables are `name.x`, `name.y`, ...
    pub fn named<M: Into<Expr>, E: Into<Expr>>(
        name: &str,
        ranges: impl IntoIterator<Item = (M, E)>,
    ) -> RDom {
        let name = Symbol::new(name);
        let vars = ranges
            .into_iter()
            .enumerate()
            .map(|(i, (min, extent))| {
                let suffix = DIM_NAMES
                    .get(i)
                    .map_or_else(|| format!("{i}"), |s| s.to_string());
                RVarDef {
                    name: name.dot(&suffix),
                    min: min.into(),
                    extent: extent.into(),
                }
            })
            .collect();
        RDom::from_vars(name, vars)
    }

    /// A domain with the given variables (their names chosen by the caller), innermost first.
    pub(crate) fn from_vars(name: Symbol, vars: Vec<RVarDef>) -> RDom {
        RDom(Arc::new(ReductionDomainContents::new(name, vars)))
    }

    /// The domain's name.
    pub fn name(&self) -> Symbol {
        self.0.name()
    }
    /// The number of dimensions (RVars).
    pub fn dimensions(&self) -> usize {
        self.0.vars().len()
    }

    /// The `i`-th reduction variable (0 is innermost). Asking for a dimension the domain does
    /// not have gives a variable that an update definition rejects with an error.
    pub fn var(&self, i: usize) -> RVar {
        let name = match self.0.vars().get(i) {
            Some(v) => v.name,
            None => self
                .0
                .name()
                .dot(DIM_NAMES.get(i).copied().unwrap_or("extra")),
        };
        RVar {
            name,
            link: RDomLink::new(&self.0),
        }
    }
    /// The first RVar (Halide's `r.x`).
    pub fn x(&self) -> RVar {
        self.var(0)
    }
    /// The second RVar (`r.y`).
    pub fn y(&self) -> RVar {
        self.var(1)
    }
    /// The third RVar (`r.z`).
    pub fn z(&self) -> RVar {
        self.var(2)
    }
    /// The fourth RVar (`r.w`).
    pub fn w(&self) -> RVar {
        self.var(3)
    }

    /// Restricts the domain to points where `predicate` holds (Halide's `RDom::where`).
    pub fn where_(&self, predicate: impl Into<Expr>) -> &RDom {
        self.0.add_predicate(predicate.into());
        self
    }

    /// The link its RVars carry to it.
    pub(crate) fn link(&self) -> RDomLink {
        RDomLink::new(&self.0)
    }

    /// The domain as it is now: its RVars' ranges and its predicates.
    pub fn snapshot(&self) -> ReductionDomain {
        self.0.snapshot()
    }
}

/// A reduction variable of an `RDom` (an int32 coordinate).
#[derive(Clone, Debug)]
pub struct RVar {
    name: Symbol,
    link: RDomLink,
}

impl RVar {
    /// Its name (`r.x`).
    pub fn name(&self) -> Symbol {
        self.name
    }
    /// The RVar as an int32 expression.
    pub fn expr(&self) -> Expr {
        Expr::new(Type::i32(), ExprKind::RVar(self.name, self.link.clone()))
    }
}

impl From<RVar> for Expr {
    fn from(r: RVar) -> Expr {
        r.expr()
    }
}
impl From<&RVar> for Expr {
    fn from(r: &RVar) -> Expr {
        r.expr()
    }
}
/// A one-dimensional RDom can be used directly as its variable.
impl From<&RDom> for Expr {
    fn from(r: &RDom) -> Expr {
        if r.dimensions() == 1 {
            r.x().expr()
        } else {
            let msg = format!("RDom {} has {} dimensions; only a one-dimensional RDom can be used as an expression (use {}.x(), {}.y(), ...)", r.name(), r.dimensions(), r.name(), r.name());
            Expr::invalid(Type::i32(), msg)
        }
    }
}
