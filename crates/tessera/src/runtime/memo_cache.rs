//! The memoization cache of one compiled pipeline (Halide's runtime `cache.cpp`), which
//! `Func::memoize`'s lookups and stores reach through the run's context: whole buffers by
//! key (the buffer's name, its key values' bits and its size), least recently used first out
//! once the bytes held pass the size limit (`set_size`, Halide's `set_cache_size`; 1 MiB by
//! default, as Halide's). Entries are copies, so a run never holds one; one lock makes it
//! safe from parallel loops (two threads missing one key both compute, the last store wins).

use std::collections::HashMap;
use std::ffi::{c_char, CStr};
use std::sync::Mutex;

use super::context::RunContext;

/// Halide's default cache size.
pub const DEFAULT_SIZE: usize = 1 << 20;

#[derive(Default)]
pub struct MemoCache {
    inner: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    map: HashMap<Vec<u8>, Entry>,
    /// Bytes held by all entries.
    held: usize,
    /// The size limit; 0 for `DEFAULT_SIZE`.
    limit: usize,
    /// Counts lookups and stores, to date each entry's last use.
    clock: u64,
}

struct Entry {
    data: Box<[u8]>,
    last_used: u64,
    eviction_key: Option<u64>,
}

impl Entries {
    fn limit(&self) -> usize {
        if self.limit == 0 {
            DEFAULT_SIZE
        } else {
            self.limit
        }
    }

    fn remove(&mut self, key: &[u8]) {
        if let Some(e) = self.map.remove(key) {
            self.held -= e.data.len();
        }
    }

    /// Drops the least recently used entries until at most `limit` bytes are held.
    fn shrink_to(&mut self, limit: usize) {
        while self.held > limit {
            let oldest = self
                .map
                .iter()
                .min_by_key(|(_, e)| e.last_used)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(k) => self.remove(&k),
                None => break,
            }
        }
    }
}

impl MemoCache {
    fn entries(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets the size limit in bytes (0: the default), dropping entries past it.
    pub fn set_size(&self, bytes: usize) {
        let mut entries = self.entries();
        entries.limit = bytes;
        let limit = entries.limit();
        entries.shrink_to(limit);
    }

    /// Drops every entry stored under `eviction_key`.
    pub fn evict(&self, eviction_key: u64) {
        let mut entries = self.entries();
        let keys: Vec<Vec<u8>> = entries
            .map
            .iter()
            .filter(|(_, e)| e.eviction_key == Some(eviction_key))
            .map(|(k, _)| k.clone())
            .collect();
        for k in keys {
            entries.remove(&k);
        }
    }

    /// The number of entries and the bytes they hold.
    pub fn usage(&self) -> (usize, usize) {
        let entries = self.entries();
        (entries.map.len(), entries.held)
    }

    /// Copies the entry under `key` into `out` if there is one of `out`'s size.
    pub fn lookup(&self, key: &[u8], out: &mut [u8]) -> bool {
        let mut entries = self.entries();
        entries.clock += 1;
        let now = entries.clock;
        match entries.map.get_mut(key) {
            Some(e) if e.data.len() == out.len() => {
                e.last_used = now;
                out.copy_from_slice(&e.data);
                true
            }
            _ => false,
        }
    }

    /// Stores a copy of `data` under `key`, unless it is bigger than the whole cache.
    pub fn store(&self, key: Vec<u8>, data: &[u8], eviction_key: Option<u64>) {
        let mut entries = self.entries();
        let limit = entries.limit();
        entries.remove(&key);
        if data.len() > limit {
            return;
        }
        entries.clock += 1;
        let entry = Entry {
            data: data.into(),
            last_used: entries.clock,
            eviction_key,
        };
        entries.shrink_to(limit - data.len());
        entries.held += data.len();
        entries.map.insert(key, entry);
    }
}

/// The key of a buffer's production: its name, a 0, the key values' bits.
///
/// # Safety
/// `name` must be NUL-terminated and `values` hold `count` u64.
unsafe fn key_of(name: *const c_char, values: *const u64, count: i64) -> Vec<u8> {
    // SAFETY: codegen (`memoize_call`) passes a global string constant, NUL-terminated by
    // `build_global_string_ptr`.
    let mut key = CStr::from_ptr(name).to_bytes_with_nul().to_vec();
    if count > 0 {
        // SAFETY: `values` is the array `message_values` fills with exactly `count` key
        // values, the count codegen passes beside it.
        for v in std::slice::from_raw_parts(values, count as usize) {
            key.extend_from_slice(&v.to_le_bytes());
        }
    }
    key
}

/// Whether the run's cache held the `bytes` bytes of buffer `name` under the key values;
/// if so they are copied to `buffer`. 1 for a hit, 0 for a miss.
///
/// # Safety
/// `ctx` must point to a live `RunContext`, `name` and `values` be as `key_of` needs and
/// `buffer` point to `bytes` writable bytes.
pub unsafe extern "C" fn tessera_memoize_lookup(
    ctx: *const RunContext<'_>,
    name: *const c_char,
    values: *const u64,
    count: i64,
    buffer: *mut u8,
    bytes: i64,
) -> i32 {
    // SAFETY: `ctx` is the run's own context, passed by `CompiledPipeline::run_printing` and alive
    // for the whole run.
    let Some(cache) = (*ctx).memo else {
        return 0;
    };
    // SAFETY: `name`, `values` and `count` come from `memoize_call` (see `key_of`).
    let key = key_of(name, values, count);
    // SAFETY: `buffer` is the base of the buffer's innermost allocation and `bytes` that
    // allocation's size (`lower::memoize`'s `bytes`), both taken where it is allocated.
    let out = std::slice::from_raw_parts_mut(buffer, bytes.max(0) as usize);
    i32::from(cache.lookup(&key, out))
}

/// Stores the `bytes` bytes at `buffer` in the run's cache under buffer `name`'s key
/// values (and `eviction_key` where `has_eviction_key` is not 0). Returns 1.
///
/// # Safety
/// As `tessera_memoize_lookup`'s, with `buffer` readable.
pub unsafe extern "C" fn tessera_memoize_store(
    ctx: *const RunContext<'_>,
    name: *const c_char,
    values: *const u64,
    count: i64,
    buffer: *const u8,
    bytes: i64,
    has_eviction_key: i32,
    eviction_key: u64,
) -> i32 {
    // SAFETY: as in `tessera_memoize_lookup`: the run's live context, `memoize_call`'s key
    // arguments, and the allocation's base and size in bytes from `lower::memoize`.
    if let Some(cache) = (*ctx).memo {
        let key = key_of(name, values, count);
        let data = std::slice::from_raw_parts(buffer, bytes.max(0) as usize);
        cache.store(key, data, (has_eviction_key != 0).then_some(eviction_key));
    }
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hit_copies_the_bytes_stored_under_the_same_key_only() {
        let cache = MemoCache::default();
        cache.store(b"f\0a".to_vec(), &[1, 2, 3], None);
        let mut out = [0u8; 3];
        assert!(cache.lookup(b"f\0a", &mut out));
        assert_eq!(out, [1, 2, 3]);
        assert!(!cache.lookup(b"f\0b", &mut out));
        let mut longer = [0u8; 4];
        assert!(
            !cache.lookup(b"f\0a", &mut longer),
            "another size is a miss"
        );
    }

    #[test]
    fn the_least_recently_used_entries_go_first_past_the_size_limit() {
        let cache = MemoCache::default();
        cache.set_size(10);
        cache.store(b"a".to_vec(), &[0; 4], None);
        cache.store(b"b".to_vec(), &[0; 4], None);
        let mut out = [0u8; 4];
        assert!(cache.lookup(b"a", &mut out)); // b is now the oldest
        cache.store(b"c".to_vec(), &[0; 4], None);
        assert_eq!(cache.usage(), (2, 8));
        assert!(cache.lookup(b"a", &mut out));
        assert!(!cache.lookup(b"b", &mut out));
        assert!(cache.lookup(b"c", &mut out));
        // An entry bigger than the cache is not kept; shrinking the limit drops the oldest.
        cache.store(b"d".to_vec(), &[0; 11], None);
        assert_eq!(cache.usage(), (2, 8));
        cache.set_size(4);
        assert_eq!(cache.usage(), (1, 4));
        assert!(cache.lookup(b"c", &mut out));
    }

    #[test]
    fn evicting_a_key_drops_exactly_the_entries_stored_under_it() {
        let cache = MemoCache::default();
        cache.store(b"a".to_vec(), &[1], Some(7));
        cache.store(b"b".to_vec(), &[2], Some(8));
        cache.store(b"c".to_vec(), &[3], None);
        cache.evict(7);
        let mut out = [0u8; 1];
        assert!(!cache.lookup(b"a", &mut out));
        assert!(cache.lookup(b"b", &mut out));
        assert!(cache.lookup(b"c", &mut out));
    }
}
