//! Transparent huge pages for large memory: image buffers and large scratch blocks are
//! advised to the kernel as huge-page candidates (`madvise(MADV_HUGEPAGE)`, as NumPy does for
//! its arrays), so that streaming over tens of megabytes walks 2 MiB pages instead of
//! 512 times as many 4 KiB ones. Where the system's policy is `madvise` (Debian's default),
//! memory gets huge pages only this way. The advice is given before the memory is first
//! touched, so the pages are huge from their first fault; it is only advice, and a no-op
//! off Linux.

/// Memory smaller than this is not advised (NumPy's threshold): a huge page's worth of it
/// could not fill one anyway, and small buffers do not stress the TLB.
pub const MIN_ADVISED_BYTES: usize = 4 << 20;

/// Advises the whole pages inside `[ptr, ptr + bytes)` as huge-page candidates, when
/// `bytes` is at least `MIN_ADVISED_BYTES`.
pub fn advise(ptr: *const u8, bytes: usize) {
    if bytes < MIN_ADVISED_BYTES || ptr.is_null() {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = (ptr as usize).next_multiple_of(PAGE);
        let end = (ptr as usize + bytes) / PAGE * PAGE;
        if end > start {
            // SAFETY: the range lies within memory the caller owns; MADV_HUGEPAGE changes
            // no contents, and a failure (a kernel without THP) leaves the memory as it was.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
}

/// An empty `Vec` with room for `len` elements, advised as huge-page memory when large; an
/// error, not an abort, when the memory cannot be had (callers say what it was for).
pub fn try_vec_with_capacity<T>(len: usize) -> Result<Vec<T>, std::collections::TryReserveError> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)?;
    advise(
        v.as_ptr() as *const u8,
        len.saturating_mul(std::mem::size_of::<T>()),
    );
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advised_vectors_hold_what_is_pushed() {
        let n = MIN_ADVISED_BYTES / 4 + 3;
        let mut v: Vec<u32> = try_vec_with_capacity(n).expect("16 MiB");
        assert!(v.capacity() >= n);
        v.extend(0..n as u32);
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u32));
        // Null and small ranges are left alone.
        advise(std::ptr::null(), MIN_ADVISED_BYTES);
        advise(v.as_ptr() as *const u8, 16);
    }

    #[test]
    fn impossible_sizes_are_errors_not_aborts() {
        assert!(try_vec_with_capacity::<u64>(usize::MAX / 4).is_err());
    }
}
