//! Readable text for expressions and statements: the loop-nest pseudo-code `tessera lower`
//! shows (`parallel for (y, 0, 100) {`, `alloc blur_x[u16 * 3 * 64]`, `produce f {`).

use std::fmt::{self, Display, Formatter, Write};

use super::expr::{CallKind, Expr, ExprKind, MessagePart, UnaryOp};
use super::stmt::{MemoryType, Stmt, StmtKind};
use super::types::{Type, TypeCode};

impl Display for Expr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        print_expr(f, self)
    }
}

fn print_list(f: &mut Formatter<'_>, items: &[Expr]) -> fmt::Result {
    for (i, e) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        print_expr(f, e)?;
    }
    Ok(())
}

fn print_expr(f: &mut Formatter<'_>, e: &Expr) -> fmt::Result {
    let ty = e.ty();
    match e.kind() {
        ExprKind::IntImm(v) if ty == Type::i32() => write!(f, "{v}"),
        ExprKind::IntImm(v) => write!(f, "({ty}){v}"),
        ExprKind::UIntImm(v) if ty.code == TypeCode::Bool => write!(f, "{}", *v != 0),
        ExprKind::UIntImm(v) => write!(f, "({ty}){v}"),
        ExprKind::FloatImm(v) if ty.bits == 32 => write!(f, "{:?}f", v.0 as f32),
        ExprKind::FloatImm(v) => write!(f, "{:?}", v.0),
        ExprKind::Var(n) | ExprKind::RVar(n, _) | ExprKind::Param(n) => write!(f, "{n}"),
        ExprKind::Cast(a) => write!(f, "{ty}({a})"),
        ExprKind::Unary(op, a) => {
            let sym = match op {
                UnaryOp::Neg => "-",
                UnaryOp::Not => "!",
                UnaryOp::BitNot => "~",
            };
            write!(f, "{sym}{a}")
        }
        ExprKind::Binary(op, a, b) => {
            use super::expr::BinaryOp::{Max, Min};
            if matches!(op, Min | Max) {
                write!(f, "{}({a}, {b})", op.symbol())
            } else {
                write!(f, "({a} {} {b})", op.symbol())
            }
        }
        ExprKind::Select(c, t, e) => write!(f, "select({c}, {t}, {e})"),
        ExprKind::Let(n, v, b) => write!(f, "(let {n} = {v} in {b})"),
        ExprKind::Ramp(b, s) => write!(f, "ramp({b}, {s}, {})", ty.lanes / b.ty().lanes),
        ExprKind::Broadcast(v) => write!(f, "x{}({v})", ty.lanes / v.ty().lanes),
        ExprKind::Load {
            buffer,
            index,
            predicate,
        } => {
            write!(f, "{buffer}[{index}]")?;
            match predicate {
                Some(p) => write!(f, " if {p}"),
                None => Ok(()),
            }
        }
        ExprKind::Call {
            name,
            kind,
            args,
            value_index,
        } => {
            if let CallKind::Intrinsic(
                super::expr::Intrinsic::SaturatingCast | super::expr::Intrinsic::Reinterpret,
            ) = kind
            {
                write!(f, "{name}<{ty}>(")?;
            } else {
                write!(f, "{name}(")?;
            }
            print_list(f, args)?;
            f.write_str(")")?;
            match kind {
                CallKind::Func(link) if link.output_count() > 1 => write!(f, "[{value_index}]"),
                _ => Ok(()),
            }
        }
        ExprKind::Invalid(msg) => write!(f, "<invalid: {msg}>"),
    }
}

impl Display for Stmt {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        print_stmt(&mut out, self, 0)?;
        f.write_str(&out)
    }
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

fn print_body(out: &mut String, body: &Stmt, depth: usize) -> fmt::Result {
    out.push_str(" {\n");
    print_stmt(out, body, depth + 1)?;
    indent(out, depth);
    out.push_str("}\n");
    Ok(())
}

fn print_stmt(out: &mut String, s: &Stmt, depth: usize) -> fmt::Result {
    match s.kind() {
        StmtKind::Block(stmts) => {
            for c in stmts {
                print_stmt(out, c, depth)?;
            }
            return Ok(());
        }
        _ => indent(out, depth),
    }
    match s.kind() {
        StmtKind::Block(_) => unreachable!(),
        StmtKind::LetStmt { name, value, body } => {
            writeln!(out, "let {name} = {value}")?;
            print_stmt(out, body, depth)
        }
        StmtKind::Assert { condition, message } => {
            write!(out, "assert({condition}, \"")?;
            for part in message {
                match part {
                    MessagePart::Text(t) => out.push_str(t),
                    MessagePart::Value(e) => write!(out, "{{{e}}}")?,
                }
            }
            out.push_str("\")\n");
            Ok(())
        }
        StmtKind::ProducerConsumer {
            name,
            is_producer,
            body,
        } => {
            write!(
                out,
                "{} {name}",
                if *is_producer { "produce" } else { "consume" }
            )?;
            print_body(out, body, depth)
        }
        StmtKind::For {
            name,
            min,
            extent,
            kind,
            body,
        } => {
            write!(out, "{} ({name}, {min}, {extent})", kind.keyword())?;
            print_body(out, body, depth)
        }
        StmtKind::Store {
            buffer,
            index,
            value,
            predicate,
        } => {
            write!(out, "{buffer}[{index}] = {value}")?;
            if let Some(p) = predicate {
                write!(out, " if {p}")?;
            }
            out.push('\n');
            Ok(())
        }
        StmtKind::Provide { func, args, values } => {
            write!(out, "{func}(")?;
            for (i, a) in args.iter().enumerate() {
                write!(out, "{}{a}", if i > 0 { ", " } else { "" })?;
            }
            out.push_str(") = ");
            if values.len() == 1 {
                writeln!(out, "{}", values[0])
            } else {
                out.push('{');
                for (i, v) in values.iter().enumerate() {
                    write!(out, "{}{v}", if i > 0 { ", " } else { "" })?;
                }
                out.push_str("}\n");
                Ok(())
            }
        }
        StmtKind::Allocate {
            buffer,
            ty,
            extents,
            memory,
            body,
        } => {
            write!(out, "alloc {buffer}[{ty}")?;
            for e in extents {
                write!(out, " * {e}")?;
            }
            out.push(']');
            if *memory != MemoryType::Auto {
                write!(out, " in {memory}")?;
            }
            print_body(out, body, depth)
        }
        StmtKind::Realize {
            func,
            types,
            bounds,
            body,
        } => {
            write!(out, "realize {func}(")?;
            for (i, r) in bounds.iter().enumerate() {
                write!(
                    out,
                    "{}[{}, {}]",
                    if i > 0 { ", " } else { "" },
                    r.min,
                    r.extent
                )?;
            }
            out.push_str(") of ");
            for (i, t) in types.iter().enumerate() {
                write!(out, "{}{t}", if i > 0 { ", " } else { "" })?;
            }
            print_body(out, body, depth)
        }
        StmtKind::IfThenElse {
            condition,
            then_case,
            else_case,
        } => {
            write!(out, "if ({condition})")?;
            print_body(out, then_case, depth)?;
            if let Some(e) = else_case {
                indent(out, depth);
                out.push_str("else");
                print_body(out, e, depth)?;
            }
            Ok(())
        }
        StmtKind::Evaluate(e) => writeln!(out, "{e}"),
        StmtKind::Free { buffer } => writeln!(out, "free {buffer}"),
        StmtKind::Atomic { body } => {
            out.push_str("atomic");
            print_body(out, body, depth)
        }
    }
}
