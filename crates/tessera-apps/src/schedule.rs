//! Named schedules. An app's algorithm is written once, as a struct of its Funcs (`AppFuncs`);
//! a schedule is a function applying directives to the Funcs of a freshly built pipeline,
//! listed with its name and the smallest output it can compute. Here are also the schedules
//! every app has in the same form — `root` and `inline` — and the helpers schedules share.

use tessera::lang::schedule::TailStrategy;
use tessera::prelude::*;
use tessera::schedule_script::ScheduleScript;
use tessera::Type;

use crate::app::{pipeline_functions, AppPipeline};

/// The Funcs of an app's algorithm, each by name, for its schedules to direct.
pub trait AppFuncs {
    /// The pipeline these Funcs compute (the output and the input images it reads, in the
    /// order the app's description declares them).
    fn pipeline(&self) -> AppPipeline;
}

/// One named schedule of an app whose Funcs are `F`.
pub struct Schedule<F> {
    pub name: &'static str,
    /// The smallest output `(width, height)` the schedule computes. Like Halide's, schedules
    /// compute whole vectors, strips and tiles (a split's last iteration shifts inwards rather
    /// than being guarded), so an output narrower than a vector or shorter than a strip does not
    /// fit.
    pub min_output: (i64, i64),
    pub apply: fn(&F),
}

/// What callers of an app know of one of its schedules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScheduleInfo {
    pub name: &'static str,
    pub min_output: (i64, i64),
}

/// The names and minimum outputs of `schedules`, in order.
pub fn infos<F>(schedules: &[Schedule<F>]) -> Vec<ScheduleInfo> {
    schedules
        .iter()
        .map(|s| ScheduleInfo {
            name: s.name,
            min_output: s.min_output,
        })
        .collect()
}

/// Whether schedule name `name` is the path of a schedule file (a `ScheduleScript` as JSON,
/// as `tessera autoschedule --json` writes) rather than the name of one of an app's schedules.
pub fn is_schedule_file(name: &str) -> bool {
    name.ends_with(".json")
}

/// The schedule script in the JSON file at `path`.
pub fn read_schedule_file(path: &str) -> Result<ScheduleScript> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::schedule(format!("cannot read schedule file {path}: {e}")))?;
    ScheduleScript::from_json(&text).map_err(|e| match e {
        e @ Error::Schedule(_) => e.context(path),
        other => other,
    })
}

/// The error for a schedule `name` that app `app` does not have, listing those it has.
pub fn unknown_schedule<'a>(app: &str, names: impl Iterator<Item = &'a str>, name: &str) -> Error {
    let names: Vec<&str> = names.collect();
    Error::schedule(format!(
        "app {app} has no schedule `{name}`; its schedules are: {}",
        names.join(", ")
    ))
}

/// The lanes of a vector of `ty` in 256-bit registers (AVX2, the native backend's target).
pub const fn natural_vector_width(ty: Type) -> i32 {
    let lanes = 32 / ty.bytes() as i32;
    if lanes > 1 {
        lanes
    } else {
        1
    }
}

/// The vector width of Func `f`: the natural width of its widest value type.
pub fn vector_width(f: &Func) -> i32 {
    f.output_types()
        .into_iter()
        .map(natural_vector_width)
        .min()
        .unwrap_or(1)
}

/// `f`'s pure definition parallel over its outermost Var (when it has two or more; a
/// one-dimensional Func is only vectorized) and vectorized over its innermost at the natural
/// width. Updates stay serial: whether their loops may run in parallel depends on the update.
pub fn parallel_vectorized(f: &Func) {
    parallel_vectorized_with_tail(f, TailStrategy::Auto);
}

/// `parallel_vectorized`, the last vector of each row handled by `tail`.
pub fn parallel_vectorized_with_tail(f: &Func, tail: TailStrategy) {
    let args = f.args();
    if let [_, .., outer] = args.as_slice() {
        f.parallel(outer);
    }
    if let Some(inner) = args.first() {
        f.vectorize_with_tail(inner, vector_width(f), tail);
    }
}

/// `root`: every Func computed at root (breadth-first), each pure definition parallel over its
/// outermost dimension and vectorized over its innermost (`parallel_vectorized`).
pub fn root<F: AppFuncs>(funcs: &F) {
    for function in pipeline_functions(&funcs.pipeline().output) {
        let f = Func::from_function(function);
        f.compute_root();
        parallel_vectorized(&f);
    }
}

/// `inline`: every Func that can be inlined is, and the output is computed in plain serial
/// loops — the pipeline as written, with no schedule. A Func with update definitions
/// (a reduction or scan) cannot be substituted into its uses; Halide would compute it right
/// around every statement using it, recomputing a whole reduction per point, so here it is
/// computed once, at root.
pub fn inline<F: AppFuncs>(funcs: &F) {
    let output = funcs.pipeline().output;
    for function in pipeline_functions(&output) {
        let f = Func::from_function(function);
        if f.name() == output.name() {
            continue;
        }
        if f.update_count() > 0 {
            f.compute_root();
        } else {
            f.compute_inline();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_widths_fill_256_bits() {
        let widths: Vec<i32> = [Type::u8(), Type::u16(), Type::i32(), Type::f64()]
            .into_iter()
            .map(natural_vector_width)
            .collect();
        assert_eq!(widths, vec![32, 16, 8, 4]);
    }

    #[test]
    fn unknown_schedules_are_refused_with_the_list() {
        let e = unknown_schedule("app", ["manual", "root"].into_iter(), "fast").to_string();
        assert!(
            e.contains("app app has no schedule `fast`; its schedules are: manual, root"),
            "{e}"
        );
    }
}
