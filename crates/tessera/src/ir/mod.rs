//! The intermediate representation: types, interned names, expression and statement trees,
//! traversal, substitution and printing.

pub mod expr;
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
