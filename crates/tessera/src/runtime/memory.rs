//! Scratch memory for allocations generated code cannot put on its stack (large or of
//! run-time size): `tessera_malloc`/`tessera_free`, backed by a `ScratchPool` that keeps freed
//! blocks for reuse. A pool belongs to one compiled pipeline, so its later runs (and the later
//! iterations of loops around an allocation) reuse warm pages instead of faulting fresh ones,
//! which costs about 1.3 µs per 4 KiB page on the machines this targets.

use std::alloc::{alloc, dealloc, Layout};
use std::ffi::{c_char, CStr};
use std::sync::Mutex;

use super::context::RunContext;

/// Alignment of every block (one cache line, and the widest vector).
const ALIGN: usize = 64;
/// Bytes in front of each block recording its capacity (kept at `ALIGN` for alignment).
const HEADER: usize = ALIGN;
/// Blocks kept for reuse at most, and the bytes they may hold together. With several
/// threads each holds its own copy of every allocation inside a parallel loop, so a run can
/// free many more blocks than it has allocation sites.
const MAX_KEPT_BLOCKS: usize = 64;
const MAX_KEPT_BYTES: usize = 1 << 30;

/// Freed blocks kept for reuse, each as (capacity, pointer past the header).
#[derive(Default)]
pub struct ScratchPool {
    free: Mutex<Vec<(usize, usize)>>,
}

// SAFETY: the pool only holds addresses of blocks nobody uses; the Mutex serializes access to
// that list, and a block is handed to one caller at a time.
unsafe impl Send for ScratchPool {}
unsafe impl Sync for ScratchPool {}

impl ScratchPool {
    pub fn new() -> ScratchPool {
        ScratchPool::default()
    }

    /// A block of at least `bytes` bytes, aligned to 64: a kept block between `bytes` and
    /// twice that if there is one, else a new one. Null when the system is out of memory.
    pub fn allocate(&self, bytes: usize) -> *mut u8 {
        {
            let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
            let best = free
                .iter()
                .enumerate()
                .filter(|(_, &(cap, _))| cap >= bytes && cap / 2 <= bytes)
                .min_by_key(|(_, &(cap, _))| cap)
                .map(|(i, _)| i);
            if let Some(i) = best {
                return free.swap_remove(i).1 as *mut u8;
            }
        }
        let Some(layout) = block_layout(bytes) else {
            return std::ptr::null_mut();
        };
        // SAFETY: the layout has a non-zero size (it includes the header).
        unsafe {
            let base = alloc(layout);
            if base.is_null() {
                return base;
            }
            (base as *mut usize).write(bytes);
            super::huge_pages::advise(base.add(HEADER), bytes);
            base.add(HEADER)
        }
    }

    /// Returns a block from `allocate` to the pool, or to the system when the pool is full.
    /// In a full pool a larger block takes the place of the smallest kept one (when the byte
    /// limit allows): the large blocks (a run's whole-image buffers, freed last) are the ones
    /// whose fresh pages cost the most to fault in again.
    ///
    /// # Safety
    /// `block` must come from `allocate` on this pool and not be used afterwards.
    pub unsafe fn release(&self, block: *mut u8) {
        let capacity = (block.sub(HEADER) as *const usize).read();
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        let kept: usize = free.iter().map(|&(cap, _)| cap).sum();
        if free.len() < MAX_KEPT_BLOCKS && kept + capacity <= MAX_KEPT_BYTES {
            free.push((capacity, block as usize));
            return;
        }
        let smallest = free
            .iter()
            .enumerate()
            .min_by_key(|(_, &(cap, _))| cap)
            .map(|(i, &(cap, _))| (i, cap));
        let dropped = match smallest {
            Some((i, cap)) if cap < capacity && kept - cap + capacity <= MAX_KEPT_BYTES => {
                let smallest = free.swap_remove(i);
                free.push((capacity, block as usize));
                smallest
            }
            _ => (capacity, block as usize),
        };
        drop(free);
        deallocate(dropped.0, dropped.1 as *mut u8);
    }
}

impl Drop for ScratchPool {
    fn drop(&mut self) {
        let free = std::mem::take(self.free.get_mut().unwrap_or_else(|e| e.into_inner()));
        for (capacity, block) in free {
            // SAFETY: kept blocks came from `allocate` and are owned by the pool alone.
            unsafe { deallocate(capacity, block as *mut u8) }
        }
    }
}

fn block_layout(bytes: usize) -> Option<Layout> {
    Layout::from_size_align(bytes.checked_add(HEADER)?, ALIGN).ok()
}

unsafe fn deallocate(capacity: usize, block: *mut u8) {
    let layout = block_layout(capacity).expect("internal error: a kept block has a bad size");
    dealloc(block.sub(HEADER), layout);
}

/// Allocates `bytes` bytes for the allocation named `name`; on failure records an error in
/// the context and returns null.
///
/// # Safety
/// `ctx` must point to a live `RunContext` and `name` to a NUL-terminated string.
pub unsafe extern "C" fn tessera_malloc(
    ctx: *const RunContext<'_>,
    bytes: i64,
    name: *const c_char,
) -> *mut u8 {
    let ctx = &*ctx;
    let block = usize::try_from(bytes)
        .map(|b| ctx.scratch.allocate(b))
        .unwrap_or(std::ptr::null_mut());
    if block.is_null() {
        let name = CStr::from_ptr(name).to_string_lossy();
        ctx.record_error(format!(
            "out of memory: the allocation {name} needs {bytes} bytes"
        ));
    }
    block
}

/// Frees a block from `tessera_malloc` (keeping it for reuse).
///
/// # Safety
/// `ctx` must point to the live `RunContext` the block was allocated under, and `block` must
/// come from `tessera_malloc` and not be used afterwards.
pub unsafe extern "C" fn tessera_free(ctx: *const RunContext<'_>, block: *mut u8) {
    (*ctx).scratch.release(block)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_blocks_are_reused_for_similar_sizes() {
        let pool = ScratchPool::new();
        let a = pool.allocate(1000);
        assert_eq!(a as usize % ALIGN, 0);
        // SAFETY: the block came from this pool and is not used again.
        unsafe { pool.release(a) };
        assert_eq!(pool.allocate(900), a);
        let b = pool.allocate(100);
        assert_ne!(b, a);
        // SAFETY: the block came from this pool and is not used again.
        unsafe {
            pool.release(a);
            pool.release(b);
        }
        // No kept block is large enough: a new one.
        let c = pool.allocate(3000);
        assert!(c != a && c != b);
        // SAFETY: the block came from this pool and is not used again.
        unsafe { pool.release(c) };
    }

    #[test]
    fn a_full_pool_keeps_its_largest_blocks() {
        let pool = ScratchPool::new();
        let small: Vec<*mut u8> = (0..MAX_KEPT_BLOCKS)
            .map(|i| pool.allocate(64 + i))
            .collect();
        let large = pool.allocate(1 << 20);
        for &b in &small {
            // SAFETY: the block came from this pool and is not used again.
            unsafe { pool.release(b) };
        }
        // Full: the large block displaces the smallest kept one (64 bytes) ...
        // SAFETY: the block came from this pool and is not used again.
        unsafe { pool.release(large) };
        assert_eq!(pool.allocate(1 << 20), large);
        // SAFETY: the block came from this pool and is not used again.
        unsafe { pool.release(large) };
        let kept: Vec<usize> = pool.free.lock().unwrap().iter().map(|&(c, _)| c).collect();
        assert_eq!(kept.len(), MAX_KEPT_BLOCKS);
        assert!(!kept.contains(&64) && kept.contains(&(1 << 20)));
        // ... and a block no larger than every kept one goes back to the system.
        let tiny = pool.allocate(8);
        // SAFETY: the block came from this pool and is not used again.
        unsafe { pool.release(tiny) };
        let kept: Vec<usize> = pool.free.lock().unwrap().iter().map(|&(c, _)| c).collect();
        assert_eq!(kept.len(), MAX_KEPT_BLOCKS);
        assert!(!kept.contains(&8));
    }
}
