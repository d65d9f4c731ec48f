//! Counting semaphores of generated code (`Func::async_`'s `Acquire` and `Release`): eight
//! bytes the generated code reserves on its stack and initializes with the units it starts
//! with. An acquire spins briefly, then yields, then sleeps, until it can take its units: the
//! side it waits for runs on another thread (`parallel::tessera_fork`), so the wait needs no
//! wake-up from it.

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

/// Waits until the semaphore at `semaphore` holds `count` units and takes them.
///
/// # Safety
/// `semaphore` must point at an 8-byte-aligned `i64` that every side using it reaches only
/// through these functions while they run.
pub unsafe extern "C" fn tessera_semaphore_acquire(semaphore: *mut i64, count: i32) {
    // SAFETY: the caller passes an aligned i64 accessed only atomically while shared.
    let units = unsafe { AtomicI64::from_ptr(semaphore) };
    let count = i64::from(count);
    let mut attempts = 0u32;
    loop {
        let held = units.load(Ordering::Acquire);
        if held >= count {
            if units
                .compare_exchange_weak(held, held - count, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return;
            }
            continue;
        }
        attempts += 1;
        match attempts {
            0..=64 => std::hint::spin_loop(),
            65..=256 => std::thread::yield_now(),
            _ => std::thread::sleep(Duration::from_micros(20)),
        }
    }
}

/// Gives `count` units to the semaphore at `semaphore`.
///
/// # Safety
/// As `tessera_semaphore_acquire`.
pub unsafe extern "C" fn tessera_semaphore_release(semaphore: *mut i64, count: i32) {
    // SAFETY: the caller passes an aligned i64 accessed only atomically while shared.
    let units = unsafe { AtomicI64::from_ptr(semaphore) };
    units.fetch_add(i64::from(count), Ordering::AcqRel);
}
