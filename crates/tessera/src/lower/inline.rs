//! Inlining: replaces every call to a pure Func scheduled `compute_inline` by its definition
//! with the call's coordinates substituted for its Vars.

use std::collections::HashMap;

use crate::ir::substitute::substitute_map;
use crate::ir::visit::{mutate_exprs, Mutator};
use crate::ir::{CallKind, Expr, ExprKind, Stmt};
use crate::lang::function::FunctionContents;

/// `e` with calls to `f` replaced by `f`'s pure definition.
pub fn inline_in_expr(e: &Expr, f: &FunctionContents) -> Expr {
    let def = f
        .pure
        .as_ref()
        .expect("internal error: inlining an undefined Func");
    mutate_exprs(e, &mut |n| match n.kind() {
        ExprKind::Call {
            kind: CallKind::Func(link),
            args,
            value_index,
            ..
        } if link.name() == f.name => {
            let args: Vec<Expr> = args.iter().map(|a| inline_in_expr(a, f)).collect();
            let map: HashMap<_, _> = f.args.iter().copied().zip(args).collect();
            Some(substitute_map(&def.values[*value_index], &map))
        }
        _ => None,
    })
}

struct Inliner<'a>(&'a FunctionContents);

impl Mutator for Inliner<'_> {
    fn mutate_expr(&mut self, e: &Expr) -> Expr {
        inline_in_expr(e, self.0)
    }
}

/// `s` with calls to `f` replaced by `f`'s pure definition.
pub fn inline_in_stmt(s: &Stmt, f: &FunctionContents) -> Stmt {
    Inliner(f).mutate_stmt(s)
}
