//! The seed of every randomized test, chosen one way: a fixed default, so `cargo test` is
//! deterministic; `TESSERA_SEED=<n>` to replay or vary a run; `TESSERA_SEED=random` to opt
//! into a fresh seed. The seed in use is printed so any run can be repeated.

/// The environment variable that overrides a randomized test's seed.
pub const SEED_VARIABLE: &str = "TESSERA_SEED";

/// The seed test `what` runs with: `default` unless `TESSERA_SEED` is set to a number (that
/// seed) or to `random` (a fresh one). The seed is printed on stderr with how to re-run it.
///
/// # Panics
///
/// When `TESSERA_SEED` is set to anything else, so a mistyped seed cannot quietly run the
/// default one.
pub fn test_seed(what: &str, default: u64) -> u64 {
    let seed = seed_from(std::env::var(SEED_VARIABLE).ok().as_deref(), default)
        .unwrap_or_else(|message| panic!("{what}: {message}"));
    eprintln!("{what}: seed {seed} (re-run with {SEED_VARIABLE}={seed})");
    seed
}

/// The seed `setting` (the variable's value, if set) asks for, or why it is not one.
fn seed_from(setting: Option<&str>, default: u64) -> Result<u64, String> {
    match setting.map(str::trim) {
        None => Ok(default),
        Some("random") => Ok(rand::random()),
        Some(s) => s.parse().map_err(|_| {
            format!("{SEED_VARIABLE} must be an unsigned 64-bit integer or `random`, not {s:?}")
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_is_the_default_and_a_number_is_itself() {
        assert_eq!(seed_from(None, 17), Ok(17));
        assert_eq!(seed_from(Some("42"), 17), Ok(42));
        assert_eq!(seed_from(Some(" 42\n"), 17), Ok(42));
    }

    #[test]
    fn random_seeds_differ_between_runs() {
        let seeds: Vec<u64> = (0..4)
            .map(|_| seed_from(Some("random"), 17).unwrap())
            .collect();
        assert!(seeds.windows(2).any(|w| w[0] != w[1]), "{seeds:?}");
    }

    #[test]
    fn anything_else_is_refused_by_name() {
        let e = seed_from(Some("0x2a"), 17).unwrap_err();
        assert!(e.contains("TESSERA_SEED") && e.contains("\"0x2a\""), "{e}");
        assert!(seed_from(Some(""), 17).is_err());
    }
}
