//! The loop structure of a lowered statement on its own (`Lowered::loop_nest`, `tessera
//! lower --summary`): one line per loop with its kind (`for`, `parallel for`, `vectorized
//! for`, `unrolled for`), the `produce`/`consume` of each Func, every allocation and
//! realization with its size, and on each `produce` where the Func is computed (`// at
//! blur_y.s0.y.y`, the innermost enclosing loop, or `// at root`). Lets, assertions, stores
//! and the rest are left out; an `if`/`else` appears only around loop structure, since its
//! branches may hold different versions of the same loops. Indentation, its cap and line
//! wrapping are the printer's.

use std::fmt::{self, Write};

use super::line_wrap::{wrap_long_lines, MAX_LINE_COLUMNS};
use super::printer::{indent, indents_body, write_header};
use super::stmt::{Stmt, StmtKind};
use super::symbol::Symbol;

/// The loop nest of `s`, one line per loop, allocation and produce/consume.
pub fn loop_nest(s: &Stmt) -> String {
    let mut summary = Summary {
        out: String::new(),
        loops: Vec::new(),
    };
    // Writing to a String cannot fail.
    let _ = summary.visit(s, 0);
    wrap_long_lines(&summary.out, MAX_LINE_COLUMNS)
}

struct Summary {
    out: String,
    /// The loops enclosing the statement being visited, outermost first.
    loops: Vec<Symbol>,
}

impl Summary {
    fn visit(&mut self, s: &Stmt, depth: usize) -> fmt::Result {
        match s.kind() {
            StmtKind::For { name, .. } => {
                self.loops.push(*name);
                let result = self.visit_block(s, depth);
                self.loops.pop();
                result
            }
            StmtKind::ProducerConsumer { .. }
            | StmtKind::Allocate { .. }
            | StmtKind::Realize { .. } => self.visit_block(s, depth),
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } if holds_loop_structure(s) => {
                indent(&mut self.out, depth);
                writeln!(self.out, "if ({condition})")?;
                self.visit(then_case, depth + 1)?;
                if let Some(else_case) = else_case {
                    indent(&mut self.out, depth);
                    self.out.push_str("else\n");
                    self.visit(else_case, depth + 1)?;
                }
                Ok(())
            }
            _ => {
                let mut result = Ok(());
                s.for_each_child(
                    |_| {},
                    |child| result = result.and(self.visit(child, depth)),
                );
                result
            }
        }
    }

    /// A loop, produce/consume, allocation or realization: its header, then its body.
    fn visit_block(&mut self, s: &Stmt, depth: usize) -> fmt::Result {
        indent(&mut self.out, depth);
        let Some(body) = write_header(&mut self.out, s)? else {
            return Ok(());
        };
        if let StmtKind::ProducerConsumer {
            is_producer: true, ..
        } = s.kind()
        {
            match self.loops.last() {
                Some(at) => write!(self.out, "  // at {at}")?,
                None => self.out.push_str("  // at root"),
            }
        }
        self.out.push('\n');
        self.visit(body, depth + usize::from(indents_body(s)))
    }
}

/// Whether `s` holds a loop, produce/consume, allocation or realization.
fn holds_loop_structure(s: &Stmt) -> bool {
    match s.kind() {
        StmtKind::For { .. }
        | StmtKind::ProducerConsumer { .. }
        | StmtKind::Allocate { .. }
        | StmtKind::Realize { .. } => true,
        _ => {
            let mut found = false;
            s.for_each_child(|_| {}, |child| found = found || holds_loop_structure(child));
            found
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinaryOp, Expr, ForKind, Type};

    fn var(name: &str) -> Expr {
        Expr::var(name, Type::i32())
    }
    fn store(buffer: &str) -> Stmt {
        Stmt::new(StmtKind::Store {
            buffer: buffer.into(),
            index: var("x"),
            value: Expr::i32(0),
            predicate: None,
        })
    }
    fn produce_consume(func: &str, produce: Stmt, consume: Stmt) -> Stmt {
        let pc = |is_producer, body| {
            Stmt::new(StmtKind::ProducerConsumer {
                name: func.into(),
                is_producer,
                body,
            })
        };
        Stmt::block([pc(true, produce), pc(false, consume)])
    }

    #[test]
    fn only_loops_allocations_and_compute_points_are_shown() {
        let inner = Stmt::for_loop(
            "f.x".into(),
            Expr::i32(0),
            var("n"),
            ForKind::Vectorized,
            store("f"),
        );
        let guarded = Stmt::if_then(Expr::binary(BinaryOp::Lt, var("y"), var("n")), inner);
        let f = produce_consume(
            "f",
            Stmt::let_stmt("t".into(), Expr::i32(1), guarded),
            Stmt::if_then(Expr::var("b", Type::bool_()), store("g")),
        );
        let rows = Stmt::for_loop(
            "g.y".into(),
            Expr::i32(0),
            Expr::binary(BinaryOp::Add, var("h"), Expr::i32(-1)),
            ForKind::Parallel,
            Stmt::allocate("f".into(), Type::u16(), vec![var("n"), Expr::i32(2)], f),
        );
        let root = produce_consume("g", rows, Stmt::empty());
        assert_eq!(
            loop_nest(&root),
            "produce g  // at root\n\
             \x20 parallel for (g.y, 0, h - 1)\n\
             \x20   alloc f[u16 * n * 2]\n\
             \x20   produce f  // at g.y\n\
             \x20     if (y < n)\n\
             \x20       vectorized for (f.x, 0, n)\n\
             \x20   consume f\n\
             consume g\n"
        );
    }
}
