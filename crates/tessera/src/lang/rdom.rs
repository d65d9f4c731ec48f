//! Reduction domains: `RDom` (an ordered box of reduction variables, first innermost, with
//! optional `where` predicates) and `RVar`. An update definition finds its domain through the
//! RVars it mentions.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, Weak};

use crate::ir::{Expr, ExprKind, Symbol, Type};

/// One reduction variable: iterates `[min, min + extent)`.
#[derive(Clone, Debug, PartialEq)]
pub struct RVarDef {
    /// The RVar's name (`r.x`).
    pub name: Symbol,
    /// The first value.
    pub min: Expr,
    /// The number of values.
    pub extent: Expr,
}

/// A snapshot of a reduction domain as an update definition uses it.
#[derive(Clone, Debug, PartialEq)]
pub struct ReductionDomain {
    /// The domain's name (`r`).
    pub name: Symbol,
    /// Innermost first.
    pub vars: Vec<RVarDef>,
    /// Points of the box where any predicate is false are skipped.
    pub predicates: Vec<Expr>,
}

#[derive(Debug)]
struct RDomContents {
    name: Symbol,
    vars: Vec<RVarDef>,
    predicates: Mutex<Vec<Expr>>,
}

/// A reduction domain. Cloning shares it (predicates added through any clone apply to all).
#[derive(Clone, Debug)]
pub struct RDom(Arc<RDomContents>);

/// The link from an `RVar` expression back to its domain. It never affects equality: RVars
/// are identified by name.
#[derive(Clone)]
pub struct RDomLink(Weak<RDomContents>);

impl PartialEq for RDomLink {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for RDomLink {}
impl Hash for RDomLink {
    fn hash<H: Hasher>(&self, _: &mut H) {}
}
impl fmt::Debug for RDomLink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RDomLink")
    }
}

impl RDomLink {
    /// The domain's current contents (with every predicate added so far), if it still exists.
    pub fn domain(&self) -> Option<ReductionDomain> {
        self.0.upgrade().map(|c| RDom(c).snapshot())
    }
    /// Whether two links point at the same domain.
    pub fn same_domain(&self, other: &RDomLink) -> bool {
        Weak::ptr_eq(&self.0, &other.0)
    }
}

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
        RDom(Arc::new(RDomContents {
            name,
            vars,
            predicates: Mutex::new(Vec::new()),
        }))
    }

    /// The domain's name.
    pub fn name(&self) -> Symbol {
        self.0.name
    }
    /// The number of dimensions (RVars).
    pub fn dimensions(&self) -> usize {
        self.0.vars.len()
    }

    /// The `i`-th reduction variable (0 is innermost). Asking for a dimension the domain does
    /// not have gives a variable that an update definition rejects with an error.
    pub fn var(&self, i: usize) -> RVar {
        let name = match self.0.vars.get(i) {
            Some(v) => v.name,
            None => self
                .0
                .name
                .dot(DIM_NAMES.get(i).copied().unwrap_or("extra")),
        };
        RVar {
            name,
            link: RDomLink(Arc::downgrade(&self.0)),
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
        self.0
            .predicates
            .lock()
            .expect("RDom poisoned")
            .push(predicate.into());
        self
    }

    /// The domain as it is now: its RVars' ranges and its predicates.
    pub fn snapshot(&self) -> ReductionDomain {
        ReductionDomain {
            name: self.0.name,
            vars: self.0.vars.clone(),
            predicates: self.0.predicates.lock().expect("RDom poisoned").clone(),
        }
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
