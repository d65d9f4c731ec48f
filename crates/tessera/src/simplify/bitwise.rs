//! Bitwise operators and shifts on integers. Shifts keep the evaluator's meaning (a negative
//! amount shifts the other way, an amount of the full width or more shifts everything out),
//! so shift chains combine only for amounts known to stay in range.

use std::sync::OnceLock;

use super::rules::RuleSet;
use super::Simplifier;
use crate::ir::Expr;

pub(super) fn rules() -> &'static RuleSet {
    static RULES: OnceLock<RuleSet> = OnceLock::new();
    RULES.get_or_init(|| {
        rules! {
            Int {
                "x & 0" => "0";
                "x & -1" => "x";
                "x | 0" => "x";
                "x | -1" => "-1";
                "x ^ 0" => "x";
                "x & x" => "x";
                "x | x" => "x";
                "x ^ x" => "0";
                "x & (x | y)" => "x";
                "x | (x & y)" => "x";
                "~~x" => "x";
                // c0 = 2^k - 1 and x already fits in k bits.
                "x & c0" => "x" if "lo(x) >= 0 && hi(x) <= c0 && ((c0 + 1) & c0) == 0";
                "(x & c0) & c1" => "x & fold(c0 & c1)";
                "(x | c0) | c1" => "x | fold(c0 | c1)";
                "(x ^ c0) ^ c1" => "x ^ fold(c0 ^ c1)";
                "x << 0" => "x";
                "x >> 0" => "x";
                "0 << x" => "0";
                "0 >> x" => "0";
                "(x << c0) << c1" => "x << fold(c0 + c1)" if "c0 >= 0 && c1 >= 0 && c0 + c1 < bits(x)";
                "(x >> c0) >> c1" => "x >> fold(c0 + c1)" if "c0 >= 0 && c1 >= 0 && c0 + c1 < bits(x)";
            }
        }
    })
}

pub(super) fn simplify(s: &mut Simplifier, e: &Expr) -> Option<Expr> {
    rules().apply(s, e)
}
