//! A schedule as data (issue 16 §6): the directives of a schedule, in order, each naming its
//! Func (and update definition) and loops by name, so that a schedule can be stored as JSON,
//! loaded, applied to a freshly built pipeline, and printed as the Rust code that applies
//! it. The automatic scheduler emits this form, and `tessera run|bench|lower APP --schedule
//! FILE.json` loads it.
//!
//! Applying a script goes through the scheduling language itself (`Func`, `Stage`), so a
//! script is checked exactly as hand-written directives are: a loop that does not exist, an
//! illegal placement or an invalid split is reported, naming the Func and the directive, when
//! the pipeline is lowered. What only the script can get wrong — a Func the pipeline does not
//! have, malformed JSON — is reported when it is loaded or applied.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::ir::Expr;
use crate::lang::func::Func;
use crate::lang::naming::make_func_names_unique;
use crate::lang::operators::ExprOps;
use crate::lang::schedule::{PrefetchBoundStrategy, TailStrategy};
use crate::lang::stage::{DimName, Stage};
use crate::lang::var::Var;
use crate::lower::realization_order::realization_order;

/// One scheduling directive. `func` names the Func; `update` (absent: the pure definition)
/// the update definition a loop directive applies to, numbered from 0 as Halide's
/// `f.update(i)`; loops are named as the directives that made them name them.
/// The fields are the directive's arguments, named as in the call each variant documents.
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "directive", rename_all = "snake_case", deny_unknown_fields)]
pub enum Directive {
    /// `f.compute_root()`.
    ComputeRoot { func: String },
    /// `f.compute_inline()`.
    ComputeInline { func: String },
    /// `f.compute_at(consumer, var)`.
    ComputeAt {
        func: String,
        consumer: String,
        var: String,
    },
    /// `f.store_root()`.
    StoreRoot { func: String },
    /// `f.store_at(consumer, var)`.
    StoreAt {
        func: String,
        consumer: String,
        var: String,
    },
    /// `f.split_with_tail(var, outer, inner, factor, tail)`.
    Split {
        func: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        update: Option<usize>,
        var: String,
        outer: String,
        inner: String,
        factor: i32,
        #[serde(default = "auto_tail", skip_serializing_if = "is_auto_tail")]
        tail: TailStrategy,
    },
    /// `f.fuse(inner, outer, fused)`.
    Fuse {
        func: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        update: Option<usize>,
        inner: String,
        outer: String,
        fused: String,
    },
    /// `f.reorder(vars)`, innermost first.
    Reorder {
        func: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        update: Option<usize>,
        vars: Vec<String>,
    },
    /// `f.vectorize(var, width)`, or `f.vectorize_loop(var)` without a width.
    Vectorize {
        func: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        update: Option<usize>,
        var: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        width: Option<i32>,
    },
    /// `f.unroll(var, factor)`, or `f.unroll_loop(var)` without a factor.
    Unroll {
        func: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        update: Option<usize>,
        var: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        factor: Option<i32>,
    },
    /// `f.parallel(var)`.
    Parallel {
        func: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        update: Option<usize>,
        var: String,
    },
    /// `f.fold_storage(var, factor)`.
    FoldStorage {
        func: String,
        var: String,
        factor: i32,
    },
    /// `f.store_nontemporal()`.
    StoreNontemporal { func: String },
    /// `f.async_()`.
    Async { func: String },
    /// `f.prefetch(&producer, at, from, offset, strategy)` of a Func `producer` (the script
    /// names Funcs only, not input images).
    Prefetch {
        func: String,
        producer: String,
        at: String,
        from: String,
        offset: i32,
        #[serde(default)]
        strategy: PrefetchBoundStrategy,
    },
    /// `let wrapper = f.in_(&consumer)`: a copy of `f` that `consumer` reads instead of `f`,
    /// scheduled by later directives under the name `wrapper` (the name `in_` gives it).
    Wrap {
        func: String,
        consumer: String,
        wrapper: String,
    },
    /// `f.bound(var, min, extent)`.
    Bound {
        func: String,
        var: String,
        min: i32,
        extent: i32,
    },
    /// `f.align_bounds(var, modulus)`.
    AlignBounds {
        func: String,
        var: String,
        modulus: i32,
    },
    /// `f.update_stage(update).rfactor_named(intermediate, preserved)`: each preserved pair
    /// is a reduction loop of the update (an RVar or a loop split from one) and the pure Var
    /// it becomes in the intermediate Func, which later directives schedule by its name.
    Rfactor {
        func: String,
        update: usize,
        preserved: Vec<(String, String)>,
        intermediate: String,
    },
    /// `let s = f.specialize(c1 & c2 & ...)` (each `when` a condition, all of them holding),
    /// then `directives` — loop directives of the pure definition — applied to `s`: a loop
    /// structure for the runs where the conditions hold, the directives on `f` itself
    /// (before or after) making the general one.
    Specialize {
        func: String,
        when: Vec<SpecializeCondition>,
        directives: Vec<Directive>,
    },
}

/// A condition a specialization is chosen by, in a form a script can store.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "condition", rename_all = "snake_case", deny_unknown_fields)]
pub enum SpecializeCondition {
    /// `f.output_min(dim) % modulus == 0`: the output's region starts at a multiple of
    /// `modulus` in dimension `dim` (so a loop stepping by `modulus` knows each point's
    /// residue).
    #[allow(missing_docs)]
    OutputMinMultiple { dim: usize, modulus: i32 },
}

impl SpecializeCondition {
    /// The condition on the pipeline output `f`.
    fn expr(&self, f: &Func) -> Expr {
        match self {
            SpecializeCondition::OutputMinMultiple { dim, modulus } => {
                (f.output_min(*dim) % *modulus).eq_(0)
            }
        }
    }

    /// The condition as Rust, `f` being the output's variable.
    fn to_rust(&self, f: &str) -> String {
        match self {
            SpecializeCondition::OutputMinMultiple { dim, modulus } => {
                format!("({f}.output_min({dim}) % {modulus}).eq_(0)")
            }
        }
    }
}

/// The conjunction of `when` on the output `f` (true when empty).
fn all_of(when: &[SpecializeCondition], f: &Func) -> Expr {
    (when.iter().map(|c| c.expr(f)))
        .reduce(|a, b| a & b)
        .unwrap_or_else(|| Expr::bool_(true))
}

fn auto_tail() -> TailStrategy {
    TailStrategy::Auto
}

fn is_auto_tail(tail: &TailStrategy) -> bool {
    *tail == TailStrategy::Auto
}

impl Directive {
    /// The Func the directive schedules.
    pub fn func(&self) -> &str {
        match self {
            Directive::ComputeRoot { func }
            | Directive::ComputeInline { func }
            | Directive::ComputeAt { func, .. }
            | Directive::StoreRoot { func }
            | Directive::StoreAt { func, .. }
            | Directive::Split { func, .. }
            | Directive::Fuse { func, .. }
            | Directive::Reorder { func, .. }
            | Directive::Vectorize { func, .. }
            | Directive::Unroll { func, .. }
            | Directive::Parallel { func, .. }
            | Directive::FoldStorage { func, .. }
            | Directive::StoreNontemporal { func }
            | Directive::Async { func }
            | Directive::Prefetch { func, .. }
            | Directive::Wrap { func, .. }
            | Directive::Bound { func, .. }
            | Directive::AlignBounds { func, .. }
            | Directive::Rfactor { func, .. }
            | Directive::Specialize { func, .. } => func,
        }
    }

    /// The update definition a loop directive applies to (`None`: the pure definition or
    /// the whole Func).
    fn update(&self) -> Option<usize> {
        match self {
            Directive::Split { update, .. }
            | Directive::Fuse { update, .. }
            | Directive::Reorder { update, .. }
            | Directive::Vectorize { update, .. }
            | Directive::Unroll { update, .. }
            | Directive::Parallel { update, .. } => *update,
            Directive::Rfactor { update, .. } => Some(*update),
            _ => None,
        }
    }

    /// The stage of `f` a loop directive applies to, or an error when `f` has no such
    /// update.
    fn stage(&self, f: &Func) -> Result<Stage> {
        match self.update() {
            None => Ok(f.pure_stage()),
            Some(k) if k < f.update_count() => Ok(f.update_stage(k)),
            Some(k) => Err(Error::schedule(format!(
                "the schedule script directs update {k} of {}, which has {} update definitions",
                f.name(),
                f.update_count()
            ))),
        }
    }

    /// The other Func a directive names (a consumer, or the producer prefetched).
    fn consumer(&self) -> Option<&str> {
        match self {
            Directive::ComputeAt { consumer, .. }
            | Directive::StoreAt { consumer, .. }
            | Directive::Wrap { consumer, .. } => Some(consumer),
            Directive::Prefetch { producer, .. } => Some(producer),
            _ => None,
        }
    }

    /// Whether the directive changes only the loops of the pure definition, as the
    /// directives of a specialization must.
    pub(crate) fn is_pure_loop_directive(&self) -> bool {
        let loops = matches!(
            self,
            Directive::Split { .. }
                | Directive::Fuse { .. }
                | Directive::Reorder { .. }
                | Directive::Vectorize { .. }
                | Directive::Unroll { .. }
                | Directive::Parallel { .. }
        );
        loops && self.update().is_none()
    }

    /// The error for a specialization of `func` directing something other than the loops of
    /// the pure definition, if it does.
    fn check_specialization(&self) -> Result<()> {
        let Directive::Specialize {
            func, directives, ..
        } = self
        else {
            return Ok(());
        };
        match directives.iter().find(|d| !d.is_pure_loop_directive() || d.func() != func) {
            Some(d) => Err(Error::schedule(format!(
                "the schedule script specializes {func} with {d:?}; a specialization of {func} takes only loop directives of {func}'s pure definition (split, fuse, reorder, vectorize, unroll, parallel)"
            ))),
            None => Ok(()),
        }
    }

    /// Applies the directive to `f`; `consumer` finds the Funcs it names. The Func it
    /// creates, if any (a wrapper, rfactor's intermediate).
    fn apply(&self, f: &Func, consumer: &dyn Fn(&str) -> Result<Func>) -> Result<Option<Func>> {
        self.apply_to(f, None, consumer)
    }

    /// `apply`, a loop directive changing the loops of `specialization` (a specialized
    /// stage of `f`) when given, instead of the stage the directive names.
    fn apply_to(
        &self,
        f: &Func,
        specialization: Option<&Stage>,
        consumer: &dyn Fn(&str) -> Result<Func>,
    ) -> Result<Option<Func>> {
        let stage = || match specialization {
            Some(s) => Ok(s.clone()),
            None => self.stage(f),
        };
        match self {
            Directive::ComputeRoot { .. } => {
                f.compute_root();
            }
            Directive::ComputeInline { .. } => {
                f.compute_inline();
            }
            Directive::ComputeAt {
                consumer: c, var, ..
            } => {
                f.compute_at(&consumer(c)?, dim(var));
            }
            Directive::StoreRoot { .. } => {
                f.store_root();
            }
            Directive::StoreAt {
                consumer: c, var, ..
            } => {
                f.store_at(&consumer(c)?, dim(var));
            }
            Directive::Split {
                var,
                outer,
                inner,
                factor,
                tail,
                ..
            } => {
                stage()?.split_with_tail(dim(var), dim(outer), dim(inner), *factor, *tail);
            }
            Directive::Fuse {
                inner,
                outer,
                fused,
                ..
            } => {
                stage()?.fuse(dim(inner), dim(outer), dim(fused));
            }
            Directive::Reorder { vars, .. } => {
                let dims: Vec<DimName> = vars.iter().map(|v| dim(v)).collect();
                stage()?.reorder(&dims);
            }
            Directive::Vectorize { var, width, .. } => {
                match width {
                    Some(w) => stage()?.vectorize(dim(var), *w),
                    None => stage()?.vectorize_loop(dim(var)),
                };
            }
            Directive::Unroll { var, factor, .. } => {
                match factor {
                    Some(k) => stage()?.unroll(dim(var), *k),
                    None => stage()?.unroll_loop(dim(var)),
                };
            }
            Directive::Parallel { var, .. } => {
                stage()?.parallel(dim(var));
            }
            Directive::FoldStorage { var, factor, .. } => {
                f.fold_storage(Var::new(var), *factor);
            }
            Directive::StoreNontemporal { .. } => {
                f.store_nontemporal();
            }
            Directive::Async { .. } => {
                f.async_();
            }
            Directive::Prefetch {
                producer,
                at,
                from,
                offset,
                strategy,
                ..
            } => {
                f.prefetch(&consumer(producer)?, dim(at), dim(from), *offset, *strategy);
            }
            Directive::Wrap {
                consumer: c,
                wrapper,
                ..
            } => {
                let made = f.in_(&consumer(c)?);
                if made.name().as_str() != wrapper {
                    // `in_` names its wrapper `{f}_in_{consumer}`, and returns `f` itself when
                    // it refuses (a consumer that does not call `f`).
                    let name = f.name();
                    let why = match made.name() == name {
                        true => format!(": {c} does not call {name}, or cannot wrap it"),
                        false => String::new(),
                    };
                    return Err(Error::schedule(format!(
                        "the schedule script wraps {name} in {c} as `{wrapper}`, but {name}.in_(&{c}) made `{}`{why}",
                        made.name()
                    )));
                }
                return Ok(Some(made));
            }
            Directive::Bound {
                var, min, extent, ..
            } => {
                f.bound(Var::new(var), *min, *extent);
            }
            Directive::AlignBounds { var, modulus, .. } => {
                f.align_bounds(Var::new(var), *modulus);
            }
            Directive::Rfactor {
                preserved,
                intermediate,
                ..
            } => {
                let pairs: Vec<(DimName, Var)> = (preserved.iter())
                    .map(|(rvar, var)| (dim(rvar), Var::new(var)))
                    .collect();
                return stage()?.rfactor_named(intermediate, &pairs).map(Some);
            }
            Directive::Specialize {
                when, directives, ..
            } => {
                let specialized = f.specialize(all_of(when, f));
                for d in directives {
                    d.apply_to(f, Some(&specialized), consumer)?;
                }
            }
        }
        Ok(None)
    }

    /// The Rust statement applying the directive, the Funcs being variables of their names.
    fn to_rust(&self) -> String {
        self.to_rust_on(None)
    }

    /// `to_rust`, a loop directive applied to the stage variable `specialization` when given.
    fn to_rust_on(&self, specialization: Option<&str>) -> String {
        let f = rust_ident(self.func());
        let on = match (specialization, self.update()) {
            (Some(s), _) => s.to_string(),
            (None, None) => f.clone(),
            (None, Some(k)) => format!("{f}.update_stage({k})"),
        };
        match self {
            Directive::ComputeRoot { .. } => format!("{f}.compute_root();"),
            Directive::ComputeInline { .. } => format!("{f}.compute_inline();"),
            Directive::ComputeAt { consumer, var, .. } => {
                format!("{f}.compute_at(&{}, {var:?});", rust_ident(consumer))
            }
            Directive::StoreRoot { .. } => format!("{f}.store_root();"),
            Directive::StoreAt { consumer, var, .. } => {
                format!("{f}.store_at(&{}, {var:?});", rust_ident(consumer))
            }
            Directive::Split {
                var,
                outer,
                inner,
                factor,
                tail,
                ..
            } => format!(
                "{on}.split_with_tail({var:?}, {outer:?}, {inner:?}, {factor}, TailStrategy::{tail:?});"
            ),
            Directive::Fuse {
                inner,
                outer,
                fused,
                ..
            } => format!("{on}.fuse({inner:?}, {outer:?}, {fused:?});"),
            Directive::Reorder { vars, .. } => {
                let list: Vec<String> = vars.iter().map(|v| format!("{v:?}")).collect();
                format!("{on}.reorder([{}]);", list.join(", "))
            }
            Directive::Vectorize { var, width, .. } => match width {
                Some(w) => format!("{on}.vectorize({var:?}, {w});"),
                None => format!("{on}.vectorize_loop({var:?});"),
            },
            Directive::Unroll { var, factor, .. } => match factor {
                Some(k) => format!("{on}.unroll({var:?}, {k});"),
                None => format!("{on}.unroll_loop({var:?});"),
            },
            Directive::Parallel { var, .. } => format!("{on}.parallel({var:?});"),
            Directive::FoldStorage { var, factor, .. } => {
                format!("{f}.fold_storage({var:?}, {factor});")
            }
            Directive::StoreNontemporal { .. } => format!("{f}.store_nontemporal();"),
            Directive::Async { .. } => format!("{f}.async_();"),
            Directive::Prefetch {
                producer,
                at,
                from,
                offset,
                strategy,
                ..
            } => format!(
                "{f}.prefetch(&{}, {at:?}, {from:?}, {offset}, PrefetchBoundStrategy::{strategy:?});",
                rust_ident(producer)
            ),
            Directive::Wrap {
                consumer, wrapper, ..
            } => format!(
                "let {} = {f}.in_(&{});",
                rust_ident(wrapper),
                rust_ident(consumer)
            ),
            Directive::Bound {
                var, min, extent, ..
            } => format!("{f}.bound({var:?}, {min}, {extent});"),
            Directive::AlignBounds { var, modulus, .. } => {
                format!("{f}.align_bounds({var:?}, {modulus});")
            }
            Directive::Rfactor {
                preserved,
                intermediate,
                ..
            } => {
                let pairs: Vec<String> = (preserved.iter())
                    .map(|(rvar, var)| format!("({rvar:?}.into(), Var::new({var:?}))"))
                    .collect();
                format!(
                    "let {} = {on}.rfactor_named({intermediate:?}, &[{}])?;",
                    rust_ident(intermediate),
                    pairs.join(", ")
                )
            }
            Directive::Specialize {
                when, directives, ..
            } => {
                let conditions: Vec<String> = when.iter().map(|c| c.to_rust(&f)).collect();
                let condition = match conditions.is_empty() {
                    true => "Expr::bool_(true)".to_string(),
                    false => conditions.join(" & "),
                };
                let mut block = format!("{{\n    let special = {f}.specialize({condition});\n");
                for d in directives {
                    let _ = writeln!(block, "    {}", d.to_rust_on(Some("special")));
                }
                block + "}"
            }
        }
    }
}

fn dim(name: &str) -> DimName {
    DimName::from(name)
}

/// `name` as a Rust identifier: the characters a Func name may have that an identifier may
/// not become `_`.
fn rust_ident(name: &str) -> String {
    let mut ident: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if ident.is_empty() || ident.starts_with(|c: char| c.is_ascii_digit()) {
        ident.insert(0, '_');
    }
    ident
}

/// A whole schedule as data: directives applied in order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleScript {
    /// The directives, in the order they are applied.
    pub directives: Vec<Directive>,
}

impl ScheduleScript {
    /// The script in `json`, or an error saying where the JSON is malformed. The script may
    /// also be the `schedule` field of a larger object, as `AutoSchedule::to_json` writes.
    pub fn from_json(json: &str) -> Result<ScheduleScript> {
        let invalid =
            |e: serde_json::Error| Error::schedule(format!("not a valid schedule script: {e}"));
        let value: serde_json::Value = serde_json::from_str(json).map_err(invalid)?;
        let script = match value {
            serde_json::Value::Object(mut fields) if fields.contains_key("schedule") => {
                fields.remove("schedule").unwrap_or_default()
            }
            other => other,
        };
        serde_json::from_value(script).map_err(invalid)
    }

    /// The script as pretty-printed JSON, one directive per line.
    pub fn to_json(&self) -> String {
        let mut out = String::from("{\n  \"directives\": [");
        for (i, d) in self.directives.iter().enumerate() {
            let line = serde_json::to_string(d).expect("directives serialize");
            let sep = if i == 0 { "" } else { "," };
            let _ = write!(out, "{sep}\n    {line}");
        }
        out.push_str("\n  ]\n}\n");
        out
    }

    /// The Rust statements applying the script, the Funcs being variables named after them
    /// (with `tessera::prelude::*` in scope).
    pub fn to_rust(&self) -> String {
        self.directives.iter().map(|d| d.to_rust() + "\n").collect()
    }

    /// Applies the directives, in order, to the Funcs of the pipeline computing `output`
    /// and to the Funcs earlier directives create (wrappers, rfactor's intermediates). A
    /// directive naming a Func that is neither is an error listing the pipeline's Funcs, and
    /// so is an intermediate named as a Func that already exists; nothing is applied then.
    pub fn apply(&self, output: &Func) -> Result<()> {
        let mut funcs = pipeline_funcs(output)?;
        let mut created = BTreeSet::new();
        for d in &self.directives {
            for name in std::iter::once(d.func()).chain(d.consumer()) {
                if !created.contains(name) {
                    find(&funcs, name, output)?;
                }
            }
            if !created.contains(d.func()) {
                d.stage(&find(&funcs, d.func(), output)?)?;
            }
            d.check_specialization()?;
            if let Directive::Rfactor { intermediate, .. } = d {
                if funcs.contains_key(intermediate) || !created.insert(intermediate.as_str()) {
                    return Err(Error::schedule(format!(
                        "the schedule script names rfactor's intermediate `{intermediate}`, but a Func of that name already exists; give it another name"
                    )));
                }
            }
            if let Directive::Wrap { wrapper, .. } = d {
                // Wrapping again returns the existing wrapper.
                if !funcs.contains_key(wrapper) {
                    created.insert(wrapper.as_str());
                }
            }
        }
        for d in &self.directives {
            let f = find(&funcs, d.func(), output)?;
            if let Some(made) = d.apply(&f, &|name| find(&funcs, name, output))? {
                funcs.insert(made.name().to_string(), made);
            }
        }
        Ok(())
    }
}

/// The Funcs of the pipeline computing `output`, by name, after making those names unique
/// as lowering and the automatic scheduler do (a script names the renamed Funcs).
pub(crate) fn pipeline_funcs(output: &Func) -> Result<BTreeMap<String, Func>> {
    make_func_names_unique(output.function());
    let env = realization_order(&[output.function().clone()])?;
    Ok((env.order.iter())
        .map(|name| {
            let f = Func::from_function(env.func(*name).clone());
            (name.as_str().to_string(), f)
        })
        .collect())
}

/// Func `name` among `funcs`, or an error naming it and listing them.
fn find(funcs: &BTreeMap<String, Func>, name: &str, output: &Func) -> Result<Func> {
    funcs.get(name).cloned().ok_or_else(|| {
        let names: Vec<&str> = funcs.keys().map(String::as_str).collect();
        Error::schedule(format!(
            "the schedule script names Func `{name}`, which is not part of the pipeline computing {}; its Funcs are: {}",
            output.name(),
            names.join(", ")
        ))
    })
}
