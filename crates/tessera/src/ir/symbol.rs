//! Interned names. Every variable, Func, buffer and loop in the IR is named by a `Symbol`: a
//! copyable id into a global, append-only string table, so names compare and hash as integers
//! and `Var` can be `Copy` (which keeps the embedded language free of `.clone()` noise).

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{OnceLock, RwLock};

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
/// An interned name: of a variable, Func, input image, parameter, buffer or loop.
pub struct Symbol(u32);

#[derive(Default)]
struct Interner {
    ids: HashMap<&'static str, u32>,
    names: Vec<&'static str>,
}

fn interner() -> &'static RwLock<Interner> {
    static TABLE: OnceLock<RwLock<Interner>> = OnceLock::new();
    TABLE.get_or_init(Default::default)
}

impl Symbol {
    /// The symbol for `name`, interning it on first use.
    pub fn new(name: &str) -> Symbol {
        if let Some(&id) = interner().read().unwrap().ids.get(name) {
            return Symbol(id);
        }
        let mut table = interner().write().unwrap();
        if let Some(&id) = table.ids.get(name) {
            return Symbol(id);
        }
        let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
        let id = table.names.len() as u32;
        table.names.push(leaked);
        table.ids.insert(leaked, id);
        Symbol(id)
    }

    /// A fresh symbol `prefix$N` that no earlier call returned (used for generated names).
    pub fn fresh(prefix: &str) -> Symbol {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let candidate = format!("{prefix}${n}");
            if !interner()
                .read()
                .unwrap()
                .ids
                .contains_key(candidate.as_str())
            {
                return Symbol::new(&candidate);
            }
        }
    }

    /// `base`, or else the first of `base2`, `base3`, ... that `taken` does not claim (a
    /// readable generated name, unique where `taken` knows every name in use).
    pub fn first_untaken(base: &str, taken: impl Fn(Symbol) -> bool) -> Symbol {
        (1..)
            .map(|i| match i {
                1 => Symbol::new(base),
                _ => Symbol::new(&format!("{base}{i}")),
            })
            .find(|&n| !taken(n))
            .expect("internal error: no untaken name")
    }

    /// The name.
    pub fn as_str(self) -> &'static str {
        interner().read().unwrap().names[self.0 as usize]
    }

    /// `self.suffix`, the dotted naming scheme used for derived names (`f.s0.x.min`).
    pub fn dot(self, suffix: &str) -> Symbol {
        Symbol::new(&format!("{}.{}", self.as_str(), suffix))
    }
}

impl fmt::Display for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.as_str())
    }
}

impl From<&str> for Symbol {
    fn from(s: &str) -> Symbol {
        Symbol::new(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_stable_and_fresh_names_are_unique() {
        let a = Symbol::new("blur_x");
        assert_eq!(a, Symbol::new("blur_x"));
        assert_eq!(a.as_str(), "blur_x");
        assert_ne!(Symbol::fresh("t"), Symbol::fresh("t"));
        assert_eq!(a.dot("s0").as_str(), "blur_x.s0");
    }
}
