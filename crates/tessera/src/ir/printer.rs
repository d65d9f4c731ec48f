//! Readable text for expressions and statements: the loop-nest pseudo-code `tessera lower`
//! shows (`parallel for (y, 0, 100) {`, `alloc blur_x[u16 * 3 * 64]`, `produce f {`).
//!
//! Expressions print with C's operator precedence, so parentheses appear only where the tree
//! needs them (`a + b*c`, `(a + b)*c`, `a - (b - c)`), plus where C's rules are a known trap:
//! a comparison, bitwise or shift operand of a comparison, bitwise or shift operator is
//! always parenthesized (`(a & b) == c`, `(a + b) << 2`), and so is `&&` under `||`.
//! Multiplicative operators print without spaces, so the eye sees how tightly they bind.
//! Adding a negative constant prints as a subtraction (`x - 1`, never `x + -1`).
//!
//! Statements indent two spaces a level, up to `MAX_INDENT_LEVELS`; deeper statements print
//! at that indentation behind a `DEPTH| ` marker giving their real depth (`57| for (...) {`).
//! An `alloc`, like a `let`, opens no braces: the statements after it use it.
//! Lines longer than `line_wrap::MAX_LINE_COLUMNS` are wrapped (see `line_wrap`).

use std::fmt::{self, Display, Formatter, Write};

use super::expr::{BinaryOp, CallKind, Expr, ExprKind, FloatBits, Intrinsic, MessagePart, UnaryOp};
use super::line_wrap::{wrap_long_lines, MAX_LINE_COLUMNS};
use super::stmt::{MemoryType, Stmt, StmtKind};
use super::types::{Type, TypeCode};

/// Nesting deeper than this many levels prints at this indentation behind a depth marker.
pub const MAX_INDENT_LEVELS: usize = 40;

/// How tightly a printed expression binds: an operand whose precedence is below what its
/// context requires is parenthesized.
type Precedence = u8;
/// Lets (`let x = v in b`) and predicated loads (`buf[i] if p`): parenthesized as operands.
const LOOSEST: Precedence = 0;
/// An item of a comma-separated list: loosest expressions get parentheses there, so the
/// commas and the `in`/`if` keywords cannot be misread.
const LIST_ITEM: Precedence = 1;
/// Prefix operators, negative constants and typed constants (`-x`, `-1`, `(i64)1`).
const PREFIX: Precedence = 12;
/// Names, calls, loads, positive `i32` constants: never parenthesized.
const ATOM: Precedence = 13;

fn binary_precedence(op: BinaryOp) -> Precedence {
    use BinaryOp::*;
    match op {
        Or => 2,
        And => 3,
        BitOr => 4,
        BitXor => 5,
        BitAnd => 6,
        Eq | Ne => 7,
        Lt | Le | Gt | Ge => 8,
        Shl | Shr => 9,
        Add | Sub => 10,
        Mul | Div | Mod => 11,
        Min | Max => ATOM,
    }
}

fn is_bitwise_or_shift(op: BinaryOp) -> bool {
    use BinaryOp::*;
    matches!(op, BitAnd | BitOr | BitXor | Shl | Shr)
}

fn precedence(e: &Expr) -> Precedence {
    match e.kind() {
        ExprKind::IntImm(v) if *v < 0 || e.ty() != Type::i32() => PREFIX,
        ExprKind::UIntImm(_) if e.ty().code != TypeCode::Bool => PREFIX,
        ExprKind::FloatImm(v) if v.0.is_sign_negative() => PREFIX,
        ExprKind::Unary(..) => PREFIX,
        ExprKind::Binary(op, ..) => binary_precedence(*op),
        ExprKind::Let(..)
        | ExprKind::Load {
            predicate: Some(_), ..
        } => LOOSEST,
        _ => ATOM,
    }
}

/// Whether `operand`, the left (or right) operand of `parent`, needs parentheses.
fn operand_needs_parens(parent: BinaryOp, operand: &Expr, is_right: bool) -> bool {
    let (outer, inner) = (binary_precedence(parent), precedence(operand));
    // Same-precedence operands group to the left; comparisons do not chain at all.
    if inner < outer || (inner == outer && (is_right || parent.is_comparison())) {
        return true;
    }
    let ExprKind::Binary(op, ..) = operand.kind() else {
        return false;
    };
    let op_is_infix = !matches!(op, BinaryOp::Min | BinaryOp::Max);
    let op_is_tricky = op.is_comparison() || is_bitwise_or_shift(*op);
    (is_bitwise_or_shift(parent) && *op != parent && op_is_infix)
        || (parent.is_comparison() && op_is_tricky)
        || (parent == BinaryOp::Or && *op == BinaryOp::And)
}

/// `e` printed as an operand that must bind at least as tightly as `min_precedence`.
struct Operand<'a>(&'a Expr, Precedence);

impl Display for Operand<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let Operand(e, min_precedence) = *self;
        print_operand(f, e, precedence(e) < min_precedence)
    }
}

fn print_operand(f: &mut Formatter<'_>, e: &Expr, parenthesized: bool) -> fmt::Result {
    if parenthesized {
        write!(f, "({e})")
    } else {
        print_expr(f, e)
    }
}

/// `e` printed as an item of a comma-separated list.
fn list_item(e: &Expr) -> Operand<'_> {
    Operand(e, LIST_ITEM)
}

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
        write!(f, "{}", list_item(e))?;
    }
    Ok(())
}

/// The constant `-c` when `e` is a negative constant `c` whose negation its type holds.
fn negated_constant(e: &Expr) -> Option<Expr> {
    let ty = e.ty();
    match e.kind() {
        ExprKind::IntImm(v) if *v < 0 && v.unsigned_abs() < 1u64 << (ty.bits - 1) => {
            Some(Expr::new(ty, ExprKind::IntImm(-v)))
        }
        ExprKind::FloatImm(v) if v.0 < 0.0 => {
            Some(Expr::new(ty, ExprKind::FloatImm(FloatBits(-v.0))))
        }
        _ => None,
    }
}

fn print_binary(f: &mut Formatter<'_>, op: BinaryOp, a: &Expr, b: &Expr) -> fmt::Result {
    if matches!(op, BinaryOp::Min | BinaryOp::Max) {
        return write!(f, "{}({}, {})", op.symbol(), list_item(a), list_item(b));
    }
    if op == BinaryOp::Add {
        if let Some(magnitude) = negated_constant(b) {
            return print_binary(f, BinaryOp::Sub, a, &magnitude);
        }
    }
    let spacing = if binary_precedence(op) == binary_precedence(BinaryOp::Mul) {
        ""
    } else {
        " "
    };
    print_operand(f, a, operand_needs_parens(op, a, false))?;
    write!(f, "{spacing}{}{spacing}", op.symbol())?;
    print_operand(f, b, operand_needs_parens(op, b, true))
}

fn print_expr(f: &mut Formatter<'_>, e: &Expr) -> fmt::Result {
    let ty = e.ty();
    match e.kind() {
        ExprKind::IntImm(v) if ty == Type::i32() => write!(f, "{v}"),
        ExprKind::IntImm(v) => write!(f, "({ty}){v}"),
        ExprKind::UIntImm(v) if ty.code == TypeCode::Bool => write!(f, "{}", *v != 0),
        ExprKind::UIntImm(v) => write!(f, "({ty}){v}"),
        ExprKind::FloatImm(v) if ty.bits == 32 => write!(f, "{:?}f", v.0 as f32),
        ExprKind::FloatImm(v) if ty.bits == 16 => write!(f, "{:?}h", v.0 as f32),
        ExprKind::FloatImm(v) => write!(f, "{:?}", v.0),
        ExprKind::Var(n) | ExprKind::RVar(n, _) | ExprKind::Param(n, _) => write!(f, "{n}"),
        ExprKind::Cast(a) => write!(f, "{ty}({a})"),
        ExprKind::Unary(op, a) => {
            let sym = match op {
                UnaryOp::Neg => "-",
                UnaryOp::Not => "!",
                UnaryOp::BitNot => "~",
            };
            write!(f, "{sym}{}", Operand(a, ATOM))
        }
        ExprKind::Binary(op, a, b) => print_binary(f, *op, a, b),
        ExprKind::Select(c, t, e) => write!(
            f,
            "select({}, {}, {})",
            list_item(c),
            list_item(t),
            list_item(e)
        ),
        ExprKind::Let(n, v, b) => write!(f, "let {n} = {} in {b}", list_item(v)),
        ExprKind::Ramp(b, s) => write!(
            f,
            "ramp({}, {}, {})",
            list_item(b),
            list_item(s),
            ty.lanes / b.ty().lanes
        ),
        ExprKind::Broadcast(v) => write!(f, "x{}({v})", ty.lanes / v.ty().lanes),
        ExprKind::Load {
            buffer,
            index,
            predicate,
        } => {
            write!(f, "{buffer}[{index}]")?;
            match predicate {
                Some(p) => write!(f, " if {}", list_item(p)),
                None => Ok(()),
            }
        }
        ExprKind::Call {
            name,
            kind,
            args,
            value_index,
        } => {
            if let CallKind::Intrinsic(Intrinsic::SaturatingCast | Intrinsic::Reinterpret) = kind {
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
        f.write_str(&wrap_long_lines(&out, MAX_LINE_COLUMNS))
    }
}

/// Starts a line at nesting `depth`: two spaces a level up to `MAX_INDENT_LEVELS`, then a
/// `DEPTH| ` marker.
pub(super) fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth.min(MAX_INDENT_LEVELS) {
        out.push_str("  ");
    }
    if depth > MAX_INDENT_LEVELS {
        // Writing to a String cannot fail.
        let _ = write!(out, "{depth}| ");
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
    if let StmtKind::Block(stmts) = s.kind() {
        for c in stmts {
            print_stmt(out, c, depth)?;
        }
        return Ok(());
    }
    indent(out, depth);
    if let Some(body) = write_header(out, s)? {
        if !indents_body(s) {
            out.push('\n');
            return print_stmt(out, body, depth);
        }
        return print_body(out, body, depth);
    }
    match s.kind() {
        StmtKind::Block(_)
        | StmtKind::ProducerConsumer { .. }
        | StmtKind::For { .. }
        | StmtKind::Allocate { .. }
        | StmtKind::Realize { .. }
        | StmtKind::Semaphore { .. }
        | StmtKind::Atomic { .. } => unreachable!("handled above"),
        StmtKind::Fork { first, rest } => {
            out.push_str("fork");
            print_body(out, first, depth)?;
            indent(out, depth);
            out.push_str("and");
            print_body(out, rest, depth)
        }
        StmtKind::Acquire { semaphore, count } => writeln!(out, "acquire {semaphore}({count})"),
        StmtKind::Release { semaphore, count } => writeln!(out, "release {semaphore}({count})"),
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
                write!(out, "{}{}", if i > 0 { ", " } else { "" }, list_item(a))?;
            }
            out.push_str(") = ");
            if values.len() == 1 {
                writeln!(out, "{}", values[0])
            } else {
                out.push('{');
                for (i, v) in values.iter().enumerate() {
                    write!(out, "{}{}", if i > 0 { ", " } else { "" }, list_item(v))?;
                }
                out.push_str("}\n");
                Ok(())
            }
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
        StmtKind::Prefetch {
            buffer,
            args,
            in_bounds,
            ..
        } => {
            let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
            let note = if *in_bounds { "" } else { " (may lie outside)" };
            writeln!(out, "prefetch {buffer}[{}]{note}", args.join(", "))
        }
        StmtKind::Free { buffer } => writeln!(out, "free {buffer}"),
    }
}

/// Whether `s`'s body prints inside braces, one level deeper. An allocation's does not: like
/// a `let`, it declares a name for the statements after it (its `free` says where its memory
/// is released), as in Halide's `.stmt`, so nests of allocations do not drift rightwards.
pub(super) fn indents_body(s: &Stmt) -> bool {
    !matches!(s.kind(), StmtKind::Allocate { .. })
}

/// Writes the header of a statement that opens a block (`for (x, 0, n)`, `produce f`,
/// `alloc f[...]`, `realize f(...)`, `atomic`) and returns the block's body; writes nothing
/// and returns `None` for other statements.
pub(super) fn write_header<'a>(
    out: &mut String,
    s: &'a Stmt,
) -> Result<Option<&'a Stmt>, fmt::Error> {
    let body = match s.kind() {
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
            body
        }
        StmtKind::For {
            name,
            min,
            extent,
            kind,
            body,
        } => {
            write!(
                out,
                "{} ({name}, {}, {})",
                kind.keyword(),
                list_item(min),
                list_item(extent)
            )?;
            body
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
                write!(out, " * {}", Operand(e, binary_precedence(BinaryOp::Mul)))?;
            }
            out.push(']');
            if *memory != MemoryType::Auto {
                write!(out, " in {memory}")?;
            }
            body
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
                    list_item(&r.min),
                    list_item(&r.extent)
                )?;
            }
            out.push_str(") of ");
            for (i, t) in types.iter().enumerate() {
                write!(out, "{}{t}", if i > 0 { ", " } else { "" })?;
            }
            body
        }
        StmtKind::Atomic { body } => {
            out.push_str("atomic");
            body
        }
        StmtKind::Semaphore {
            name,
            initial,
            body,
        } => {
            write!(out, "semaphore {name} = {initial}")?;
            body
        }
        _ => return Ok(None),
    };
    Ok(Some(body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::ForKind;
    use BinaryOp::*;

    fn var(name: &str) -> Expr {
        Expr::var(name, Type::i32())
    }
    fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
        Expr::binary(op, a, b)
    }
    fn printed(e: &Expr) -> String {
        e.to_string()
    }

    #[test]
    fn parentheses_only_where_the_tree_needs_them() {
        let (a, b, c) = (var("a"), var("b"), var("c"));
        let cases = [
            (
                bin(Add, a.clone(), bin(Mul, b.clone(), c.clone())),
                "a + b*c",
            ),
            (
                bin(Mul, bin(Add, a.clone(), b.clone()), c.clone()),
                "(a + b)*c",
            ),
            (
                bin(Sub, bin(Sub, a.clone(), b.clone()), c.clone()),
                "a - b - c",
            ),
            (
                bin(Sub, a.clone(), bin(Sub, b.clone(), c.clone())),
                "a - (b - c)",
            ),
            (bin(Div, bin(Mul, a.clone(), b.clone()), c.clone()), "a*b/c"),
            (
                bin(Mul, a.clone(), bin(Div, b.clone(), c.clone())),
                "a*(b/c)",
            ),
            (
                bin(Add, a.clone(), bin(Add, b.clone(), c.clone())),
                "a + (b + c)",
            ),
            (
                bin(Min, bin(Add, a.clone(), b.clone()), c.clone()),
                "min(a + b, c)",
            ),
            (
                bin(Mul, bin(Max, a.clone(), b.clone()), c.clone()),
                "max(a, b)*c",
            ),
        ];
        for (e, want) in cases {
            assert_eq!(printed(&e), want);
        }
    }

    #[test]
    fn adding_a_negative_constant_prints_as_a_subtraction() {
        let x = var("x");
        assert_eq!(printed(&bin(Add, x.clone(), Expr::i32(-1))), "x - 1");
        assert_eq!(printed(&bin(Sub, x.clone(), Expr::i32(-1))), "x - -1");
        assert_eq!(printed(&bin(Mul, x.clone(), Expr::i32(-3))), "x*-3");
        assert_eq!(printed(&bin(Mul, Expr::i32(-3), x.clone())), "-3*x");
        let wide = Expr::var("w", Type::int(64));
        assert_eq!(
            printed(&bin(Add, wide.clone(), Expr::int(-2, 64))),
            "w - (i64)2"
        );
        assert_eq!(printed(&bin(Add, wide, Expr::int(2, 64))), "w + (i64)2");
        // The negation of the type's minimum does not fit it: printed as it is.
        let narrow = Expr::var("n", Type::int(8));
        assert_eq!(
            printed(&bin(Add, narrow, Expr::int(-128, 8))),
            "n + (i8)-128"
        );
        let f = Expr::var("f", Type::f32());
        assert_eq!(printed(&bin(Add, f, Expr::f32(-0.5))), "f - 0.5f");
    }

    #[test]
    fn unary_operators_casts_and_comparisons_keep_their_grouping() {
        let (a, b, c) = (var("a"), var("b"), var("c"));
        let neg = |e| Expr::unary(UnaryOp::Neg, e);
        assert_eq!(printed(&neg(bin(Add, a.clone(), b.clone()))), "-(a + b)");
        assert_eq!(printed(&bin(Add, neg(a.clone()), b.clone())), "-a + b");
        assert_eq!(printed(&neg(Expr::i32(-1))), "-(-1)");
        let cast = Expr::cast(Type::int(64), bin(Add, a.clone(), b.clone()));
        assert_eq!(
            printed(&bin(Mul, cast, Expr::int(2, 64))),
            "i64(a + b)*(i64)2"
        );
        let less = bin(Lt, a.clone(), bin(Add, b.clone(), c.clone()));
        assert_eq!(printed(&less), "a < b + c");
        let select = Expr::select(less.clone(), a.clone(), bin(Sub, b.clone(), c.clone()));
        assert_eq!(printed(&select), "select(a < b + c, a, b - c)");
        let equal = bin(Eq, less.clone(), Expr::bool_(true));
        assert_eq!(printed(&equal), "(a < b + c) == true");
        let not = Expr::unary(UnaryOp::Not, less.clone());
        assert_eq!(printed(&not), "!(a < b + c)");
        let either = bin(Or, bin(And, less.clone(), not.clone()), not.clone());
        assert_eq!(
            printed(&either),
            "(a < b + c && !(a < b + c)) || !(a < b + c)"
        );
        let masked = bin(BitAnd, bin(Add, a.clone(), b.clone()), c.clone());
        assert_eq!(
            printed(&bin(Eq, masked.clone(), a.clone())),
            "((a + b) & c) == a"
        );
        assert_eq!(
            printed(&bin(Shl, a.clone(), bin(Add, b, c))),
            "a << (b + c)"
        );
    }

    #[test]
    fn lets_and_predicated_loads_are_parenthesized_as_operands() {
        let a = var("a");
        let let_in = Expr::let_in("t".into(), Expr::i32(1), bin(Add, var("t"), a.clone()));
        assert_eq!(printed(&let_in), "let t = 1 in t + a");
        assert_eq!(
            printed(&bin(Mul, let_in.clone(), a.clone())),
            "(let t = 1 in t + a)*a"
        );
        let load = Expr::predicated_load(
            Type::i32(),
            "buf".into(),
            a.clone(),
            Some(Expr::bool_(true)),
        );
        assert_eq!(
            printed(&bin(Add, load.clone(), a.clone())),
            "(buf[a] if true) + a"
        );
        assert_eq!(
            printed(&bin(Min, load, let_in)),
            "min((buf[a] if true), (let t = 1 in t + a))"
        );
    }

    #[test]
    fn deep_nests_indent_up_to_the_cap_then_mark_their_depth() {
        let depth = MAX_INDENT_LEVELS + 5;
        let mut s = Stmt::new(StmtKind::Evaluate(var("leaf")));
        for level in (0..depth).rev() {
            let name = format!("l{level}");
            s = Stmt::for_loop(
                name.as_str().into(),
                Expr::i32(0),
                Expr::i32(2),
                ForKind::Serial,
                s,
            );
        }
        let text = s.to_string();
        let lines: Vec<&str> = text.lines().collect();
        let cap = 2 * MAX_INDENT_LEVELS;
        assert_eq!(
            lines[MAX_INDENT_LEVELS],
            format!("{}for (l40, 0, 2) {{", " ".repeat(cap))
        );
        assert_eq!(
            lines[depth - 1],
            format!("{}44| for (l44, 0, 2) {{", " ".repeat(cap))
        );
        assert_eq!(lines[depth], format!("{}45| leaf", " ".repeat(cap)));
        assert_eq!(lines[depth + 1], format!("{}44| }}", " ".repeat(cap)));
        assert!(lines.iter().all(|l| l.len() <= cap + 4 + 20));
    }
}
