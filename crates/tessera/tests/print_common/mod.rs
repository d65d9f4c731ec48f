//! Runs a Func with `print`s in it on each runner — the evaluator, the interpreter and
//! native code — capturing what each prints (shared by the tests of `print`).

use std::sync::{Arc, Mutex};

use tessera::prelude::*;

/// What one runner computed and printed.
pub struct Printed {
    pub runner: &'static str,
    pub output: AnyBuffer,
    pub lines: Vec<String>,
}

/// A handler keeping the lines it is given, and those lines.
fn capture() -> (PrintHandler, Arc<Mutex<Vec<String>>>) {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let kept = lines.clone();
    let handler = PrintHandler::new(move |line| kept.lock().unwrap().push(line.to_string()));
    (handler, lines)
}

fn take(lines: &Arc<Mutex<Vec<String>>>) -> Vec<String> {
    std::mem::take(&mut *lines.lock().unwrap())
}

/// `f` realized over `[0, extents)` with `params` bound, by the evaluator, the interpreter
/// and native code, each with its own captured lines.
pub fn print_in_each_runner(f: &Func, params: &[ParamBinding], extents: &[i64]) -> Vec<Printed> {
    let mins = vec![0; extents.len()];
    let (handler, lines) = capture();
    let mut evaluator = Evaluator::new().with_custom_print(handler.clone());
    let mut inputs = Inputs::new().custom_print(handler);
    for &p in params {
        evaluator = evaluator.with_param(p);
        inputs = inputs.param(p);
    }
    let evaluated = evaluator.realize(f, &mins, extents).unwrap().remove(0);
    let evaluated_lines = take(&lines);
    let pipeline = Pipeline::new(f);
    let interpreted = pipeline.realize_interp(&inputs, &mins, extents).unwrap();
    let interpreted_lines = take(&lines);
    let compiled = pipeline.compile_jit(&Target::host()).unwrap();
    let native = compiled.realize(&inputs, &mins, extents).unwrap().remove(0);
    vec![
        Printed {
            runner: "evaluator",
            output: evaluated,
            lines: evaluated_lines,
        },
        Printed {
            runner: "interpreter",
            output: interpreted.buffers[0].clone(),
            lines: interpreted_lines,
        },
        Printed {
            runner: "native",
            output: native,
            lines: take(&lines),
        },
    ]
}
