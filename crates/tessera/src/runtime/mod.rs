//! The Rust side of compiled pipelines: the buffer ABI generated code reads, and the
//! `extern "C"` functions it calls — parallel loops on a rayon pool (`parallel`, each worker
//! on its own CPU: `affinity`), scratch
//! allocation with reuse across runs (`memory`, large blocks on huge pages: `huge_pages`), and
//! error reporting and `print` (`context`), `Func::memoize`'s cache (`memo_cache`), and
//! `Func::async_`'s forks (`parallel`) and semaphores (`semaphore`).
//!
//! Generated code calls exactly the functions of `RUNTIME_FUNCTIONS`; the JIT maps their
//! names to these implementations, and AOT users link their own (or call through the JIT).

pub mod affinity;
pub mod buffer;
pub mod context;
pub mod huge_pages;
pub mod libm;
pub mod memo_cache;
pub mod memory;
pub mod parallel;
pub mod semaphore;

/// Every runtime function generated code may call, by symbol name, with its address.
pub fn runtime_functions() -> [(&'static str, usize); 10] {
    [
        ("tessera_fork", parallel::tessera_fork as *const () as usize),
        (
            "tessera_semaphore_acquire",
            semaphore::tessera_semaphore_acquire as *const () as usize,
        ),
        (
            "tessera_semaphore_release",
            semaphore::tessera_semaphore_release as *const () as usize,
        ),
        (
            "tessera_parallel_for",
            parallel::tessera_parallel_for as *const () as usize,
        ),
        (
            "tessera_malloc",
            memory::tessera_malloc as *const () as usize,
        ),
        ("tessera_free", memory::tessera_free as *const () as usize),
        (
            "tessera_error",
            context::tessera_error as *const () as usize,
        ),
        (
            "tessera_print",
            context::tessera_print as *const () as usize,
        ),
        (
            "tessera_memoize_lookup",
            memo_cache::tessera_memoize_lookup as *const () as usize,
        ),
        (
            "tessera_memoize_store",
            memo_cache::tessera_memoize_store as *const () as usize,
        ),
    ]
}
