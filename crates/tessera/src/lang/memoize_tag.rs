//! Halide's `memoize_tag`: an expression whose value is what it wraps, but which a memoized
//! Func (`Func::memoize`) keys its cache on in place of the Params and images it reads.
//!
//! `memoize_tag(cast(u8, val))` keys on the u8, so two floats rounding to it share an entry;
//! `memoize_tag_with(sum(input.at(r)), &[version.expr()])` keys on `version` alone, which
//! lets a Func reading an input image be memoized: the caller promises the image's
//! contents change only with the keys (a stale entry is served otherwise, as in Halide).
//! Keys are Params, buffer fields and constants: lowering refuses a key reading a Var, a
//! Func or an image, naming the memoized Func. Outside a memoized Func, and wherever values
//! are computed without a cache (the evaluator, the interpreter), a tag is its value.

use crate::ir::{Expr, Intrinsic};

/// `value`, keyed by its own value in a memoized Func's cache instead of what it reads.
pub fn memoize_tag(value: impl Into<Expr>) -> Expr {
    memoize_tag_with(value, &[])
}

/// `value`, keyed by `keys` in a memoized Func's cache instead of by anything `value`
/// reads (Halide's `memoize_tag(value, keys..)`).
pub fn memoize_tag_with(value: impl Into<Expr>, keys: &[Expr]) -> Expr {
    let value = value.into();
    let mut args = vec![value.clone()];
    args.extend(keys.iter().cloned());
    Expr::intrinsic(value.ty(), Intrinsic::MemoizeTag, args)
}
