//! Parallel loops of generated code on a rayon pool: `tessera_parallel_for` runs a task
//! function over an index range. Pipelines run inside `ThreadPool::install`, so the loops they
//! start fork and join on the pool's own workers (tens of nanoseconds, against ~12 µs when
//! injecting from outside), and nested parallel loops work as rayon's nested joins.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use rayon::prelude::*;

use crate::error::{Error, Result};

/// A parallel loop body: `task(closure, index)` returns 0 or an error code.
pub type TaskFn = unsafe extern "C" fn(closure: *const u8, index: i32) -> i32;

/// A closure pointer shared by the tasks of one loop (they only read it).
#[derive(Clone, Copy)]
struct SharedClosure(*const u8);
// SAFETY: the closure outlives the parallel loop (its caller waits for every task), and the
// tasks only read it.
unsafe impl Send for SharedClosure {}
unsafe impl Sync for SharedClosure {}

/// Runs `task(closure, i)` for every `i` in `[min, min + extent)`, in parallel; returns 0, or
/// the first error code a task returned (tasks not yet started then do not run).
///
/// # Safety
/// `task` must be safe to call concurrently with `closure` and every index of the range.
pub unsafe extern "C" fn tessera_parallel_for(
    task: TaskFn,
    closure: *const u8,
    min: i32,
    extent: i32,
) -> i32 {
    if extent <= 0 {
        return 0;
    }
    if extent == 1 {
        return task(closure, min);
    }
    let closure = SharedClosure(closure);
    let first_error = AtomicI32::new(0);
    let end = min as i64 + extent as i64;
    (min as i64..end).into_par_iter().for_each(|i| {
        if first_error.load(Ordering::Relaxed) != 0 {
            return;
        }
        let shared = closure;
        let code = task(shared.0, i as i32);
        if code != 0 {
            let _ = first_error.compare_exchange(0, code, Ordering::Relaxed, Ordering::Relaxed);
        }
    });
    first_error.load(Ordering::Relaxed)
}

/// Runs `task(closure, 0)` and `task(closure, 1)` concurrently (a `Fork`'s two sides) and
/// returns 0, or the first error code a side returned. Side 0 gets a thread of its own, so
/// the sides make progress together whatever the pool's workers are doing: one side may
/// wait at a semaphore for the other however few workers the pool has, and inside a
/// parallel loop. (Parallel loops within side 0 run on rayon's global pool.) When a side
/// fails, the `count` semaphores at `semaphores` (those the sides share) are opened, so the
/// other side, which may be waiting for the failed one, runs to its end instead of waiting
/// forever; what it computes then is discarded with the error.
///
/// # Safety
/// `task` must be safe to call concurrently with `closure` and the indices 0 and 1, and
/// `semaphores` must hold `count` semaphores valid for `semaphore::tessera_semaphore_release`.
pub unsafe extern "C" fn tessera_fork(
    task: TaskFn,
    closure: *const u8,
    semaphores: *const *mut i64,
    count: i32,
) -> i32 {
    let shared = SharedClosure(closure);
    let shared_semaphores = SharedSemaphores(semaphores, count.max(0) as usize);
    let run_side = move |side: i32| {
        let (closure, semaphores) = (shared, shared_semaphores);
        // SAFETY: the caller's contract: the task may run concurrently on its closure.
        let code = unsafe { task(closure.0, side) };
        if code != 0 {
            // SAFETY: the caller's contract: the semaphores are valid while the fork runs.
            unsafe { semaphores.open() };
        }
        code
    };
    std::thread::scope(|scope| {
        let first = std::thread::Builder::new()
            .name("tessera-fork".into())
            .stack_size(FORK_STACK_BYTES)
            .spawn_scoped(scope, move || run_side(0));
        let Ok(first) = first else {
            return FORK_FAILED;
        };
        let rest = run_side(1);
        let first = first.join().unwrap_or(FORK_FAILED);
        if first != 0 {
            first
        } else {
            rest
        }
    })
}

/// The semaphores a fork's sides share.
#[derive(Clone, Copy)]
struct SharedSemaphores(*const *mut i64, usize);
// SAFETY: the semaphores outlive the fork (its caller waits for both sides), and they are
// only changed atomically.
unsafe impl Send for SharedSemaphores {}
unsafe impl Sync for SharedSemaphores {}

impl SharedSemaphores {
    /// Gives every semaphore more units than any wait asks for.
    ///
    /// # Safety
    /// The pointers must be valid semaphores.
    unsafe fn open(self) {
        for i in 0..self.1 {
            // SAFETY: the caller's contract: `self.0` holds `self.1` valid semaphores.
            unsafe { super::semaphore::tessera_semaphore_release(*self.0.add(i), i32::MAX) };
        }
    }
}

/// The stack of a fork's thread: room for several of the largest stack allocations
/// (`MemoryType::MAX_STACK_BYTES`) generated code makes.
const FORK_STACK_BYTES: usize = 8 << 20;

/// The code `tessera_fork` returns when it cannot run a side.
const FORK_FAILED: i32 = -1;

/// The most worker threads a pool may have. Far more threads than cores only adds switching
/// and stack memory (each worker reserves its stack), and a count above this is a mistake
/// (a mistyped count, a size passed for a count); 1024 leaves room for the largest machines.
pub const MAX_THREADS: usize = 1024;

/// The pool of `threads` workers (0: one per core), shared by every pipeline that asks for
/// that many threads while one of them holds it. The map keeps only weak references: a pool
/// whose last pipeline is dropped (or moved to another count) is dropped too, and its workers
/// end, so a process that tries many counts does not keep every pool's threads alive.
pub fn shared_pool(threads: usize) -> Result<Arc<rayon::ThreadPool>> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Weak<rayon::ThreadPool>>>> = OnceLock::new();
    if threads > MAX_THREADS {
        return Err(Error::Runtime(format!(
            "{threads} worker threads asked for; at most {MAX_THREADS} are allowed"
        )));
    }
    let mut pools = POOLS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(pool) = pools.get(&threads).and_then(Weak::upgrade) {
        return Ok(pool);
    }
    // A pool of several workers using all the process's CPUs puts each on its own
    // (`affinity`). A single worker, or a pool that leaves CPUs free, is left to the
    // scheduler: pinning it would pile up separate processes on the first CPUs.
    let cpus = super::affinity::allowed_cpus();
    let workers = if threads == 0 {
        rayon::current_num_threads()
    } else {
        threads
    };
    let placement = (workers >= 2 && workers == cpus.len()).then_some(cpus);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("tessera-worker-{i}"))
        .start_handler(move |i| {
            if let Some(cpu) = placement.as_ref().and_then(|cpus| cpus.get(i)) {
                super::affinity::pin_current_thread(*cpu);
            }
        })
        .build()
        .map_err(|e| Error::Runtime(format!("cannot start {threads} worker threads: {e}")))?;
    let pool = Arc::new(pool);
    pools.retain(|_, pool| pool.strong_count() > 0);
    pools.insert(threads, Arc::downgrade(&pool));
    Ok(pool)
}
