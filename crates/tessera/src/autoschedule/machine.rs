//! What the cost model needs to know of the machine: the thread count the schedule is made
//! for, the vector width it computes at, and the data cache sizes (`Caches`): given by the
//! caller, or read from the host's `/sys/devices/system/cpu/cpu0/cache` (with common sizes
//! where that is not readable). The host's last-level cache counts at most
//! `USABLE_L3_BYTES`: a socket-wide cache of hundreds of MB is shared with the socket's other
//! cores and tenants, and a pipeline cannot count on all of it.

use crate::codegen::target::Target;
use crate::error::{Error, Result};

/// The machine a schedule is made for.
#[derive(Clone, Debug, PartialEq)]
pub struct Machine {
    /// The threads the pipeline runs on.
    pub threads: usize,
    /// The vector width the schedule computes at, in bits: the target's natural width, as
    /// Tessera's expert schedules vectorize on AVX-512 (16 lanes of f32, 32 of u16).
    pub vector_bits: u32,
    /// Per-core L1 data cache, in bytes.
    pub l1_bytes: i64,
    /// Per-core L2 cache, in bytes.
    pub l2_bytes: i64,
    /// The part of the shared last-level cache a pipeline can count on, in bytes.
    pub l3_bytes: i64,
}

/// The most last-level cache a pipeline counts on, in bytes: about what one AMD core complex
/// holds (32 MiB) or sixteen cores' slices of an Intel server's L3. Measured on a 2-vCPU VM of
/// a Xeon whose sysfs reports 260 MB of L3 (BENCHMARKS.md, 2026-11-28): outputs of 47 to
/// 61 MB ran 11 to 34% faster stored nontemporally, so they did not stay cached from one run
/// to the next; outputs of 16 to 34 MB did no better.
const USABLE_L3_BYTES: i64 = 40 << 20;

/// The data cache sizes a schedule is made for, in bytes: what `AutoScheduleOptions::caches`
/// gives to make a schedule for another machine than the host, or the same on every host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caches {
    /// Per-core L1 data cache.
    pub l1_bytes: i64,
    /// Per-core L2 cache.
    pub l2_bytes: i64,
    /// The part of the shared last-level cache a pipeline can count on.
    pub l3_bytes: i64,
}

impl Caches {
    /// The host's caches, from sysfs, the last level counted at most `USABLE_L3_BYTES`.
    pub fn host() -> Caches {
        let mut caches = Caches {
            l1_bytes: 32 << 10,
            l2_bytes: 1 << 20,
            l3_bytes: 16 << 20,
        };
        for index in 0..8 {
            let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{index}");
            let read = |field: &str| std::fs::read_to_string(format!("{dir}/{field}")).ok();
            let (Some(level), Some(kind), Some(size)) = (read("level"), read("type"), read("size"))
            else {
                continue;
            };
            let Some(bytes) = parse_cache_size(size.trim()) else {
                continue;
            };
            match (level.trim(), kind.trim()) {
                ("1", "Data") => caches.l1_bytes = bytes,
                ("2", _) => caches.l2_bytes = bytes,
                ("3", _) => caches.l3_bytes = bytes.min(USABLE_L3_BYTES),
                _ => {}
            }
        }
        caches
    }

    /// The sizes unchanged, or an error if one is not positive.
    pub fn validated(self) -> Result<Caches> {
        let levels = [
            ("L1", self.l1_bytes),
            ("L2", self.l2_bytes),
            ("L3", self.l3_bytes),
        ];
        match levels.iter().find(|(_, bytes)| *bytes <= 0) {
            Some((level, bytes)) => Err(Error::schedule(format!(
                "the {level} cache size must be positive, not {bytes} bytes"
            ))),
            None => Ok(self),
        }
    }
}

/// `L1,L2,L3` as sysfs writes each size (`32K,512K,32M`).
impl std::str::FromStr for Caches {
    type Err = Error;
    fn from_str(s: &str) -> Result<Caches> {
        let sizes: Vec<&str> = s.split(',').map(str::trim).collect();
        let bad = || {
            Error::schedule(format!(
                "cache sizes `{s}`: give L1,L2,L3 as numbers with K, M or G, e.g. 32K,512K,32M"
            ))
        };
        let [l1, l2, l3] = sizes[..] else {
            return Err(bad());
        };
        let size = |size: &str| parse_cache_size(size).ok_or_else(bad);
        Caches {
            l1_bytes: size(l1)?,
            l2_bytes: size(l2)?,
            l3_bytes: size(l3)?,
        }
        .validated()
    }
}

impl Machine {
    /// The host running this process, for `threads` threads and `target`'s vectors.
    pub fn host(target: &Target, threads: usize) -> Machine {
        Machine::with_caches(target, threads, Caches::host())
    }

    /// A machine with `caches`, for `threads` threads and `target`'s vectors.
    pub fn with_caches(target: &Target, threads: usize, caches: Caches) -> Machine {
        Machine {
            threads: threads.max(1),
            vector_bits: target.vector_bits,
            l1_bytes: caches.l1_bytes,
            l2_bytes: caches.l2_bytes,
            l3_bytes: caches.l3_bytes,
        }
    }

    /// The lanes of a vector of elements of `bits` bits (bools count as bytes).
    pub fn lanes(&self, bits: u32) -> i64 {
        i64::from((self.vector_bits / bits.max(8)).max(1))
    }
}

/// `48K`, `1024K`, `32M` as bytes.
fn parse_cache_size(size: &str) -> Option<i64> {
    let (digits, unit) = size.split_at(size.find(|c: char| !c.is_ascii_digit())?);
    let n: i64 = digits.parse().ok()?;
    let unit_bytes: i64 = match unit {
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        _ => return None,
    };
    // A size too large for i64 is refused rather than wrapped into a plausible one.
    n.checked_mul(unit_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_sizes_parse_as_sysfs_writes_them() {
        assert_eq!(parse_cache_size("48K"), Some(48 << 10));
        assert_eq!(parse_cache_size("32M"), Some(32 << 20));
        assert_eq!(parse_cache_size("12"), None);
        assert_eq!(parse_cache_size("99999999999G"), None);
    }

    #[test]
    fn the_last_level_cache_counts_at_most_the_usable_share() {
        let host = Machine::host(&Target::host(), 2);
        assert!(0 < host.l3_bytes && host.l3_bytes <= USABLE_L3_BYTES);
        assert!(host.l1_bytes <= host.l2_bytes);
    }

    #[test]
    fn cache_sizes_given_as_l1_l2_l3_make_the_machine() {
        let caches: Caches = "32K, 512K,32M".parse().unwrap();
        let machine = Machine::with_caches(&Target::host(), 2, caches);
        assert_eq!(
            (machine.l1_bytes, machine.l2_bytes, machine.l3_bytes),
            (32 << 10, 512 << 10, 32 << 20)
        );
        for bad in [
            "32K,512K",
            "32K,512K,32M,1G",
            "32K,512,32M",
            "0K,512K,32M",
            "",
        ] {
            let error = bad.parse::<Caches>().unwrap_err().to_string();
            assert!(error.contains("cache size"), "{bad}: {error}");
        }
    }

    #[test]
    fn lanes_fill_the_vector() {
        let m = Machine {
            threads: 2,
            vector_bits: 256,
            l1_bytes: 1,
            l2_bytes: 1,
            l3_bytes: 1,
        };
        assert_eq!(
            (m.lanes(8), m.lanes(16), m.lanes(32), m.lanes(1)),
            (32, 16, 8, 32)
        );
    }
}
