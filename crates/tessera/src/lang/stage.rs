//! The schedule handle of one definition of a Func ([`Stage`], Halide's `Stage`): which
//! definition and which `specialize`d loop structure of it directives change, and how a
//! directive's error is recorded (naming the Func, the stage and the call) for lowering to
//! report. The directives themselves live in submodules, one concept each:
//! - `dim_names`: how directives name loops ([`DimName`], [`DimList`]);
//! - `loop_directives`: the loop structure of a stage (`split`, `fuse`, `reorder`, `tile`,
//!   `parallel`, `vectorize`, `unroll`, `atomic`), also callable on a Func for its pure
//!   definition;
//! - `placement`: where a whole Func is computed and stored, and its storage and bounds
//!   (`compute_root`, `compute_at`, `store_at`, `compute_inline`, `bound`,
//!   `reorder_storage`, `align_storage`, ...);
//! - `prefetch`: `prefetch` of a producer's region ahead of its use ([`Prefetchable`]);
//! - `races`: the check, at lowering, that parallel and vectorized reduction loops are
//!   race-free or atomic.
//!
//! Directives chain; a directive that cannot apply records an error naming the Func, the stage
//! and the legal choices, and lowering reports it.

mod dim_names;
mod loop_directives;
mod placement;
mod prefetch;
mod races;

pub use dim_names::{DimList, DimName};
pub use placement::LoopOwner;
pub use prefetch::Prefetchable;
pub(crate) use races::race_errors;

use super::func::Func;
use super::function::{Definition, Function};
use super::schedule::{missing_update, Specialization, StageSchedule};
use crate::error::ScheduleError;
use crate::ir::{Expr, ExprKind};

/// One definition of a Func (or one specialization of it), as a target for loop-structure
/// directives (Halide's `Stage`): [`Func::pure_stage`] for the pure definition,
/// [`Func::update_stage`]`(i)` for update `i` (Halide's `f.update(i)`).
///
/// ```
/// use tessera::prelude::*;
///
/// # fn main() -> Result<()> {
/// let x = Var::new("x");
/// let r = RDom::named("r", [(0, 4)]);
/// let histogram = Func::new("histogram");
/// histogram.define(x, 0)?;
/// // histogram(x) += (x + r.x) % 3;
/// histogram.update(x, histogram.at(x) + (x + r.x()) % 3)?;
///
/// histogram
///     .update_stage(0) // histogram.update(0)
///     .reorder((r.x(), x)) // .reorder(r.x, x)
///     .vectorize(x, 4); // .vectorize(x, 4);
///
/// let out = histogram.realize::<i32>(&[8])?;
/// assert_eq!(out.get(&[5]), (0..4).map(|r| (5 + r) % 3).sum::<i32>());
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Stage {
    func: Function,
    index: usize,
    /// Which `specialize`d loop structure the directives change: indices into the nested
    /// specializations, outermost first (empty: the stage's own).
    specialization: Vec<usize>,
}

impl Stage {
    /// The stage `index` of `func`: 0 for the pure definition, k + 1 for update k (users
    /// write [`Func::pure_stage`] and [`Func::update_stage`]).
    pub fn new(func: Function, index: usize) -> Stage {
        Stage {
            func,
            index,
            specialization: Vec::new(),
        }
    }
    /// The Func this stage belongs to.
    pub fn function(&self) -> &Function {
        &self.func
    }
    /// 0 for the pure definition, k + 1 for update k.
    pub fn index(&self) -> usize {
        self.index
    }

    /// `f` or `f.update(k)`, as messages name the stage.
    fn describe(&self) -> String {
        let name = self.func.name();
        let stage = if self.index == 0 {
            name.to_string()
        } else {
            format!("{name}.update({})", self.index - 1)
        };
        self.specialization
            .iter()
            .fold(stage, |s, i| format!("{s}.specialization({i})"))
    }

    /// A loop structure used instead of this one in runs where `condition` holds (Halide's
    /// `specialize`): it starts as a copy of this stage's loops, and directives on the
    /// returned Stage change only it. `condition` is a boolean over Params and buffer sizes;
    /// the first specialization whose condition holds is used. Specializing on the same
    /// condition again returns the same specialization; specializing a specialization nests
    /// (`f.specialize(a).specialize(b)` is used where `a` and `b` hold, `f.specialize(a)`
    /// where only `a` does).
    pub fn specialize(&self, condition: impl Into<Expr>) -> Stage {
        let condition = condition.into();
        if let Err(msg) = check_specialize_condition(&condition) {
            self.record_error(&format!("specialize({condition})"), msg);
            return self.clone();
        }
        let mut contents = self.func.write();
        let Some(def) = contents.stage_mut(self.index) else {
            let msg = missing_update(self.func.name(), self.index, contents.updates.len());
            drop(contents);
            self.record_error("specialize", msg);
            return self.clone();
        };
        let parent = def.schedule.specialized_mut(&self.specialization);
        let existing = parent
            .specializations
            .iter()
            .position(|s| s.condition == condition);
        let i = match existing {
            Some(i) => i,
            None => {
                let schedule = StageSchedule {
                    specializations: Vec::new(),
                    ..parent.clone()
                };
                parent.specializations.push(Specialization {
                    condition,
                    schedule,
                });
                parent.specializations.len() - 1
            }
        };
        Stage {
            func: self.func.clone(),
            index: self.index,
            specialization: self.specialization.iter().copied().chain([i]).collect(),
        }
    }

    /// `compute_with` of stages (Halide's `f.update(0).compute_with(g.update(1), y)`): this
    /// stage's loops, from the outermost down to `var` (a loop of both, or
    /// `Var::outermost()` to fuse none), join those of stage `other`, and each iteration
    /// computes both stages' points there. The other stages of both Funcs keep their order
    /// around the fused nest. Each stage has one such request (a later one replaces it), so
    /// several stages of a Func may each join a stage of another; all Funcs so linked must
    /// be computed at the same level and none may use another (lowering checks).
    pub fn compute_with(&self, other: &Stage, var: impl Into<DimName>) -> &Stage {
        let (name, with, var) = (self.func.name(), other.func.name(), var.into().0);
        // Identities, not names: two Funcs may share a name until lowering makes names unique.
        let itself = self.func.id() == other.func.id();
        let fused = super::schedule::FusedLoops {
            with,
            with_id: other.func.id(),
            var,
            stage: self.index,
            with_stage: other.index,
        };
        // Names are read before the write lock is taken (see `apply`).
        let what = format!(
            "{}.compute_with({}, {var})",
            self.describe(),
            other.describe()
        );
        let mut contents = self.func.write();
        let schedule = &mut contents.schedule;
        let error = if itself {
            Some("a Func cannot be computed with itself")
        } else if !self.specialization.is_empty() || !other.specialization.is_empty() {
            Some("a specialization cannot be computed with another stage; fuse the stages themselves")
        } else {
            None
        };
        match error {
            Some(msg) => schedule.errors.push(ScheduleError::of_directive(
                name,
                "compute_with",
                format!("{what}: {msg}"),
            )),
            None => {
                // Each stage has one fuse level (Halide's): a later request replaces it.
                schedule
                    .compute_with
                    .retain(|earlier| earlier.stage != self.index);
                schedule.compute_with.push(fused);
            }
        }
        drop(contents);
        self
    }

    fn record_error(&self, directive: &str, msg: String) {
        let what = format!("{}.{directive}", self.describe());
        let error =
            ScheduleError::of_directive(self.func.name(), directive, format!("{what}: {msg}"));
        self.func.write().schedule.errors.push(error);
    }

    /// Applies `change` to this stage's schedule, recording its error (if any) instead.
    fn apply(
        &self,
        directive: &str,
        change: impl FnOnce(&mut StageSchedule, &Definition) -> Result<(), String>,
    ) -> &Stage {
        let what = format!("{}.{directive}", self.describe());
        // The name is read before the write lock is taken: reading it under the lock would
        // wait on that lock forever.
        let func_name = self.func.name();
        let mut contents = self.func.write();
        let result = match contents.stage_mut(self.index) {
            None => Err(missing_update(
                func_name,
                self.index,
                contents.updates.len(),
            )),
            Some(def) => {
                let mut schedule = def.schedule.specialized(&self.specialization).clone();
                let r = change(&mut schedule, def);
                if r.is_ok() {
                    *def.schedule.specialized_mut(&self.specialization) = schedule;
                }
                r
            }
        };
        if let Err(msg) = result {
            let error = ScheduleError::of_directive(func_name, directive, format!("{what}: {msg}"));
            contents.schedule.errors.push(error);
        }
        drop(contents);
        self
    }
}

/// A specialization condition must be a scalar bool that is the same for the whole run.
fn check_specialize_condition(condition: &Expr) -> Result<(), String> {
    if !condition.ty().is_bool() || !condition.ty().is_scalar() {
        return Err(format!(
            "the condition has type {}; it must be a scalar bool",
            condition.ty()
        ));
    }
    let mut bad = None;
    crate::ir::visit::visit_exprs(condition, &mut |n| {
        match n.kind() {
            ExprKind::Var(v) | ExprKind::RVar(v, _) => {
                bad.get_or_insert(format!("it uses the variable {v}"));
            }
            ExprKind::Call { name, kind, .. }
                if !matches!(kind, crate::ir::CallKind::Intrinsic(_)) =>
            {
                bad.get_or_insert(format!("it reads {name}"));
            }
            ExprKind::Invalid(msg) => {
                bad.get_or_insert(msg.to_string());
            }
            _ => {}
        }
        bad.is_none()
    });
    match bad {
        Some(why) => Err(format!(
            "{why}; a specialization condition may use only Params and buffer sizes"
        )),
        None => Ok(()),
    }
}

/// The schedule handles of a Func's stages.
impl Func {
    /// The schedule handle of update definition `k`, counted from 0 in the order the updates
    /// were defined (Halide's `f.update(k)`; `update(args, values)` defines one). An index
    /// past the last update is reported, naming the Func and its updates, when the pipeline
    /// is lowered.
    pub fn update_stage(&self, k: usize) -> Stage {
        Stage::new(self.function().clone(), k + 1)
    }
    /// The schedule handle of the pure definition.
    pub fn pure_stage(&self) -> Stage {
        Stage::new(self.function().clone(), 0)
    }
    /// `specialize` of the pure definition: a loop structure for runs where `condition`
    /// holds.
    pub fn specialize(&self, condition: impl Into<Expr>) -> Stage {
        self.pure_stage().specialize(condition)
    }
}
