//! How the adjoint of a Func's values after an update reaches its values before it (Halide's
//! handling of self-references in `propagate_adjoints`). Three cases are exact:
//!
//! - the update only adds to what it reads at its own coordinates (`f(x) += g(x)`, a sum
//!   over a domain): the adjoint passes through unchanged;
//! - the update writes each point at most once, reading itself, if at all, at its own
//!   coordinates or at points it never writes (`f(x, 1) = f(x, 0) * f(x, 0)`): the points
//!   written lose their adjoint (they were overwritten), and each read adds its share;
//! - a scan over a one-dimensional domain whose iterations write distinct points and read
//!   points earlier iterations wrote (`f(x, r + 1) = f(x, r) * 2`, Horner's method): the
//!   adjoint runs the scan backwards, in place, then the points written are cleared.
//!
//! Anything else would depend on intermediate values the pipeline does not keep, and is
//! refused with an error naming the Func, never differentiated wrongly.

use std::collections::{HashMap, HashSet};

use super::accumulate::{computed_at_root_if_updated, unit_affine, AdjointFunc, Consumer};
use super::rules::Contribution;
use crate::error::{Error, Result};
use crate::ir::reduction::RVarDef;
use crate::ir::substitute::{substitute, substitute_map, uses_var};
use crate::ir::visit::visit_exprs;
use crate::ir::{CallKind, Expr, ExprKind, Symbol, Type};
use crate::lang::func::Func;
use crate::lang::function::{Definition, Function};
use crate::lang::rdom::RDom;
use crate::lang::var::Var;
use crate::simplify::simplify;

/// What differentiating one stage needs to know about it.
pub(super) struct Stage<'a> {
    pub func: &'a Function,
    /// Which definition (0 is the pure one).
    pub index: usize,
    /// All of the Func's definitions, pure first.
    pub defs: &'a [Definition],
    pub vars: &'a [Var],
    pub ty: Type,
    pub consumer: &'a Consumer,
    /// The placeholder the contributions were computed with for the adjoint of the value.
    pub seed: Symbol,
}

/// The adjoint after an update, and what it reads the update's own value's adjoint from
/// (`used`, differing for a scan) and the adjoint before it (`previous`).
pub(super) struct Carried {
    pub used: Func,
    pub previous: Func,
    /// For a scan, the point each iteration reads (written by an earlier one).
    pub scan_read: Option<Vec<Expr>>,
}

impl Stage<'_> {
    fn def(&self) -> &Definition {
        &self.defs[self.index]
    }

    fn error(&self, why: &str) -> Error {
        let stage = match self.index {
            0 => "the pure definition".to_string(),
            k => format!("update {}", k - 1),
        };
        Error::Definition(format!(
            "propagate_adjoints: cannot differentiate {stage} of {}: {why}",
            self.func.name()
        ))
    }

    /// Carries `current`, the adjoint after this update, back over it; `own` are the
    /// update's contributions to its own Func.
    pub fn carry(&self, current: &Func, own: &[Contribution]) -> Result<Carried> {
        let lhs = &self.def().args;
        let seed = Expr::var(self.seed, self.ty);
        let at_lhs = |c: &Contribution| &c.args == lhs;
        if !own.is_empty() && own.iter().all(at_lhs) {
            let total = own.iter().map(|c| c.adjoint.clone()).reduce(|a, b| a + b);
            // Compared as trees: the simplifier keeps `a - a` for floats (NaN - NaN).
            if total.is_some_and(|t| simplify(&t) == seed) {
                return Ok(Carried {
                    used: current.clone(),
                    previous: current.clone(),
                    scan_read: None,
                });
            }
        }
        if !self.writes_each_point_once() {
            return Err(self.error(
                "it writes some points more than once, so their earlier values' adjoints are lost",
            ));
        }
        if self.def().rdom.is_some() && !own.iter().all(at_lhs) {
            return self.scan(current, own);
        }
        if let Some(c) = own.iter().find(|c| !at_lhs(c) && !disjoint(&c.args, lhs)) {
            return Err(self.error(&format!(
                "it reads {} at ({}), which it may also write",
                self.func.name(),
                join(&c.args)
            )));
        }
        let masked = self.masked(current)?;
        if own.is_empty() {
            return Ok(Carried {
                used: current.clone(),
                previous: masked,
                scan_read: None,
            });
        }
        let base = masked.at(self.vars.to_vec());
        let mut previous = self.adjoint_func("", Some(base));
        let value = current.at(lhs.clone());
        for c in own {
            let adjoint = substitute(&c.adjoint, self.seed, &value);
            self.check_reads(&adjoint, None)?;
            previous.add(
                &Contribution {
                    adjoint,
                    ..c.clone()
                },
                self.consumer,
            )?;
        }
        Ok(Carried {
            used: current.clone(),
            previous: previous.build()?,
            scan_read: None,
        })
    }

    fn adjoint_func(&self, suffix: &str, base: Option<Expr>) -> AdjointFunc {
        AdjointFunc::new(
            format!("d_{}_s{}{suffix}", self.func.name(), self.index - 1),
            self.vars.to_vec(),
            self.ty,
            base,
        )
    }

    /// `current` with the points the update writes cleared.
    fn masked(&self, current: &Func) -> Result<Func> {
        let lhs = &self.def().args;
        let masked = Func::new(&format!(
            "d_{}_s{}_masked",
            self.func.name(),
            self.index - 1
        ));
        let writes_all = lhs.len() == self.vars.len()
            && lhs
                .iter()
                .zip(self.vars)
                .all(|(a, v)| a.as_var() == Some(v.name()));
        if writes_all {
            masked.define(self.vars.to_vec(), Expr::zero(self.ty))?;
        } else {
            masked.define(self.vars.to_vec(), current.at(self.vars.to_vec()))?;
            masked.update(lhs.clone(), Expr::zero(self.ty))?;
        }
        Ok(computed_at_root_if_updated(masked))
    }

    /// Whether no two iterations of the update write the same point: each reduction
    /// variable stands, plus or minus a term free of the stage's variables, in some
    /// coordinate (pure Vars stand alone in theirs).
    fn writes_each_point_once(&self) -> bool {
        let def = self.def();
        let rvars: Vec<Symbol> = def
            .rdom
            .iter()
            .flat_map(|r| &r.vars)
            .map(|r| r.name)
            .collect();
        let vars: HashSet<Symbol> = rvars
            .iter()
            .copied()
            .chain(self.consumer.pure_vars.iter().map(|(v, _)| *v))
            .collect();
        rvars.iter().all(|r| {
            def.args
                .iter()
                .any(|a| unit_affine(a, &vars).is_some_and(|u| u.var == *r))
        })
    }

    /// The adjoint of a scan run backwards: iteration by iteration, from the last, the
    /// adjoint of the point written flows to the point read, which an earlier iteration
    /// wrote (or none did); then the points written are cleared.
    fn scan(&self, current: &Func, own: &[Contribution]) -> Result<Carried> {
        let def = self.def();
        let lhs = &def.args;
        let read = &own[0].args;
        let rdom = def.rdom.as_ref().expect("a scan has a domain");
        let [r] = rdom.vars.as_slice() else {
            return Err(self
                .error("it reads its own values at other points over a multi-dimensional domain"));
        };
        if own.iter().any(|c| &c.args != read) || !reads_earlier_writes(lhs, read, r.name) {
            return Err(self.error(&format!(
                "it reads {} at ({}), which is not always a point an earlier iteration wrote (the result depends on the order of iterations)",
                self.func.name(),
                join(read)
            )));
        }
        let scan = Func::new(&format!("d_{}_s{}_scan", self.func.name(), self.index - 1));
        scan.define(self.vars.to_vec(), current.at(self.vars.to_vec()))?;
        let name = Symbol::fresh("r_backwards");
        let backwards = RDom::from_vars(
            name,
            vec![RVarDef {
                name: name.dot("x"),
                min: r.min.clone(),
                extent: r.extent.clone(),
            }],
        );
        let reversed = r.min.clone() * 2 + r.extent.clone() - 1 - backwards.x().expr();
        let flip = HashMap::from([(r.name, reversed)]);
        for p in &rdom.predicates {
            backwards.where_(substitute_map(p, &flip));
        }
        let flipped = |e: &Expr| substitute_map(e, &flip);
        let read_now: Vec<Expr> = read.iter().map(flipped).collect();
        let adjoint: Expr = own
            .iter()
            .map(|c| c.adjoint.clone())
            .reduce(|a, b| a + b)
            .expect("a scan reads itself");
        let adjoint = substitute(&adjoint, self.seed, &scan.at(lhs.clone()));
        self.check_reads(&adjoint, Some(read))?;
        scan.update(read_now.clone(), scan.at(read_now) + flipped(&adjoint))?;
        let previous = self.masked(&scan)?;
        Ok(Carried {
            used: computed_at_root_if_updated(scan),
            previous,
            scan_read: Some(read.clone()),
        })
    }

    /// Fails if `e` reads this Func at a point this update or a later one writes (the value
    /// it reads there would be a later one), except at `scan_read`, the point a scan reads
    /// from an earlier iteration.
    pub fn check_reads(&self, e: &Expr, scan_read: Option<&Vec<Expr>>) -> Result<()> {
        let mut bad: Option<Vec<Expr>> = None;
        visit_exprs(e, &mut |n| {
            if let ExprKind::Call {
                kind: CallKind::Func(link),
                args,
                ..
            } = n.kind()
            {
                if link.function().same_as(self.func) {
                    let later = self.defs[self.index..].iter().enumerate();
                    let overwritten = later.into_iter().any(|(j, d)| {
                        let scan_reads_earlier = j == 0 && scan_read == Some(args);
                        !(scan_reads_earlier || disjoint(args, &d.args))
                    });
                    if overwritten && bad.is_none() {
                        bad = Some(args.clone());
                    }
                }
            }
            bad.is_none()
        });
        match bad {
            Some(args) => Err(self.error(&format!(
                "its derivative uses {}'s value at ({}) before the update, which the pipeline overwrites (Halide's rule: keep intermediate values in a scan, e.g. f(x, r + 1) = g(f(x, r)))",
                self.func.name(),
                join(&args)
            ))),
            None => Ok(()),
        }
    }
}

/// Whether two coordinate lists can never name one point: in some dimension both are
/// different constants.
fn disjoint(a: &[Expr], b: &[Expr]) -> bool {
    a.iter().zip(b).any(
        |(x, y)| match (simplify(x).as_int_const(), simplify(y).as_int_const()) {
            (Some(x), Some(y)) => x != y,
            _ => false,
        },
    )
}

/// Whether a scan over `r` writing `written` and reading `read` reads only points earlier
/// iterations wrote (or none does): the two differ in one coordinate, `a * r + b` written
/// and `a * r + b - c` read, where `c / a > 0` puts the iteration that wrote the point read
/// before the one reading it.
fn reads_earlier_writes(written: &[Expr], read: &[Expr], r: Symbol) -> bool {
    let differing: Vec<usize> = (0..written.len())
        .filter(|&i| simplify(&(written[i].clone() - read[i].clone())).as_int_const() != Some(0))
        .collect();
    let [p] = differing.as_slice() else {
        return false;
    };
    let uses_r = |e: &Expr| uses_var(e, r);
    if written
        .iter()
        .enumerate()
        .any(|(i, w)| i != *p && uses_r(w))
    {
        return false;
    }
    let w = &written[*p];
    // The RVar replaced by a plain Var, so the two ends of the difference cancel.
    let t = Expr::var(Symbol::fresh("t"), Type::i32());
    let step =
        simplify(&(substitute(w, r, &(t.clone() + 1)) - substitute(w, r, &t))).as_int_const();
    let gap = simplify(&(w.clone() - read[*p].clone())).as_int_const();
    matches!((step, gap), (Some(a), Some(c)) if a != 0 && c != 0 && a.signum() == c.signum())
}

fn join(args: &[Expr]) -> String {
    args.iter()
        .map(|a| a.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
