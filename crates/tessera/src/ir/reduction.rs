//! Reduction domains as the IR holds them (Halide's `ReductionDomain`): the box of reduction
//! variables with its `where` predicates, shared by every RVar that links to it, and the
//! snapshot of it an update definition iterates over. The user's `lang::rdom::RDom` and
//! `RVar` are handles on these contents.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, Weak};

use super::{Expr, Symbol};

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

/// A reduction domain while it is declared: its box is fixed, predicates may still be added
/// (through any handle on it), and RVars link to it.
#[derive(Debug)]
pub struct ReductionDomainContents {
    name: Symbol,
    vars: Vec<RVarDef>,
    predicates: Mutex<Vec<Expr>>,
}

impl ReductionDomainContents {
    /// A domain named `name` with the given variables, innermost first, and no predicates.
    pub fn new(name: Symbol, vars: Vec<RVarDef>) -> ReductionDomainContents {
        ReductionDomainContents {
            name,
            vars,
            predicates: Mutex::new(Vec::new()),
        }
    }
    /// The domain's name.
    pub fn name(&self) -> Symbol {
        self.name
    }
    /// Its variables, innermost first.
    pub fn vars(&self) -> &[RVarDef] {
        &self.vars
    }
    /// Restricts the domain to the points where `predicate` holds.
    pub fn add_predicate(&self, predicate: Expr) {
        self.predicates
            .lock()
            .expect("RDom poisoned")
            .push(predicate);
    }
    /// The domain as it is now: its RVars' ranges and its predicates.
    pub fn snapshot(&self) -> ReductionDomain {
        ReductionDomain {
            name: self.name,
            vars: self.vars.clone(),
            predicates: self.predicates.lock().expect("RDom poisoned").clone(),
        }
    }
}

/// The link from an `RVar` expression back to its domain. It never affects equality: RVars
/// are identified by name.
#[derive(Clone)]
pub struct RDomLink(Weak<ReductionDomainContents>);

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
    /// A link to `domain` that does not keep it alive.
    pub fn new(domain: &Arc<ReductionDomainContents>) -> RDomLink {
        RDomLink(Arc::downgrade(domain))
    }
    /// The domain's current contents (with every predicate added so far), if it still exists.
    pub fn domain(&self) -> Option<ReductionDomain> {
        self.0.upgrade().map(|c| c.snapshot())
    }
    /// Whether two links point at the same domain.
    pub fn same_domain(&self, other: &RDomLink) -> bool {
        Weak::ptr_eq(&self.0, &other.0)
    }
}
