//! Worker threads of compiled pipelines: a pool lives as long as a pipeline uses it, so a
//! process that tries many thread counts ends with about the threads it started with. (A test
//! binary of its own, with one test: it counts the threads of the process.)

use std::time::{Duration, Instant};

use tessera::codegen::Target;
use tessera::pipeline::Pipeline;
use tessera::prelude::*;

fn thread_count() -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("Linux lists a process's threads")
        .count()
}

#[test]
fn pools_are_released_when_no_pipeline_uses_them() {
    let start = thread_count();
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("threads_f");
    f.define((x, y), x + y).expect("a valid definition");
    f.parallel("y");
    let mut compiled = Pipeline::new(&f)
        .compile_jit(&Target::host())
        .expect("compiles");
    for threads in 1..=40 {
        compiled.set_threads(threads).expect("a pool");
        compiled
            .realize(&tessera::pipeline::Inputs::new(), &[0, 0], &[8, 64])
            .expect("runs");
    }
    drop(compiled);
    // Workers end asynchronously once their pool is dropped.
    let deadline = Instant::now() + Duration::from_secs(10);
    while thread_count() > start + 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let end = thread_count();
    assert!(
        end <= start + 2,
        "{start} threads at the start, {end} at the end"
    );
}
