//! The intermediate representation, the bottom layer (it imports nothing from `lang` or the
//! passes): types, interned names, expression and statement trees, traversal, substitution
//! and printing, and the contents that expressions link to, as in Halide's internal IR:
//! Funcs (`function`) with their schedules (`schedule`), inputs (`parameter`) and reduction
//! domains (`reduction`). The user's language (`lang`) wraps these in its handles.

pub mod expr;
pub mod function;
pub mod lanes;
pub mod line_wrap;
pub mod loop_nest;
pub mod parameter;
pub mod printer;
pub mod read_modify_write;
pub mod reduction;
pub mod schedule;
pub mod stmt;
pub mod substitute;
pub mod symbol;
pub mod types;
pub mod visit;

pub use expr::{
    BinaryOp, CallKind, Expr, ExprKind, Intrinsic, MessagePart, UnaryOp, MESSAGE_VALUE_MARK,
};
pub use stmt::{ForKind, MemoryType, Range, Stmt, StmtKind};
pub use symbol::Symbol;
pub use types::{Type, TypeCode};
