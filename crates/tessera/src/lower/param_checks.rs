//! Assertions, before anything else runs, that each Param with a declared range
//! (`Param::set_range`) has a value inside it (Halide's parameter checks). Bounds inference
//! took the range as the Param's bounds, so the regions and storage sizes computed from it
//! are only right once it holds.

use super::arguments::definition_exprs;
use super::realization_order::Environment;
use crate::eval::expr::broken_promise_message;
use crate::eval::value::Value;
use crate::ir::{MessagePart, Stmt, StmtKind, Symbol, MESSAGE_VALUE_MARK};
use crate::lang::param::declared_ranges;

/// `s` preceded by an assertion of each declared range of the pipeline's Params.
pub fn add_param_checks(s: &Stmt, env: &Environment) -> Stmt {
    let exprs = definition_exprs(env);
    let checks = declared_ranges(&exprs).into_iter().map(|range| {
        let shown = |e: &crate::ir::Expr| {
            Value::from_const(e)
                .expect("internal error: a declared range is constant")
                .to_string()
        };
        let text = broken_promise_message(
            &range.param,
            [
                MESSAGE_VALUE_MARK.to_string(),
                shown(&range.min),
                shown(&range.max),
            ],
        );
        let message =
            MessagePart::from_interned(Symbol::new(&text), std::slice::from_ref(&range.param));
        Stmt::new(StmtKind::Assert {
            condition: range.holds(),
            message,
        })
    });
    let checks: Vec<Stmt> = checks.collect();
    if checks.is_empty() {
        return s.clone();
    }
    Stmt::block(checks.into_iter().chain([s.clone()]))
}
