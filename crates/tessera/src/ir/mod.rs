//! The intermediate representation, the bottom layer (it imports nothing from `lang` or the
//! passes): types, interned names, expression and statement trees, traversal, substitution
//! and printing, and the contents that expressions link to, as in Halide's internal IR:
//! Funcs (`function`) with their schedules (`schedule`), inputs (`parameter`) and reduction
//! domains (`reduction`). The user's language (`lang`) wraps these in its handles.

pub mod cse;
pub mod expr;
pub mod float16;
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
#[cfg(test)]
pub(crate) mod test_builders;
pub mod types;
pub mod visit;

pub use expr::{
    BinaryOp, CallKind, Expr, ExprKind, Intrinsic, MessagePart, UnaryOp, MESSAGE_VALUE_MARK,
};
pub use stmt::{ForKind, MemoryType, Range, Stmt, StmtKind};
pub use symbol::Symbol;
pub use types::{Type, TypeCode};

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// The IR is the bottom layer (issue 15): no file under `src/ir` names anything in `lang`.
    #[test]
    fn ir_imports_nothing_from_lang() {
        // Spelled in two pieces so that this test's own source does not match.
        let needle = ["crate", "::lang"].concat();
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ir");
        let mut dirs = vec![root.clone()];
        let mut files = 0;
        let mut offenders = Vec::new();
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("src/ir is readable") {
                let path = entry.expect("src/ir entry").path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                let text = std::fs::read_to_string(&path).expect("ir source is readable");
                files += 1;
                for (i, line) in text.lines().enumerate() {
                    if line.contains(&needle) {
                        offenders.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
                    }
                }
            }
        }
        assert!(files > 10, "found only {files} files in {}", root.display());
        assert!(
            offenders.is_empty(),
            "ir imports lang:\n{}",
            offenders.join("\n")
        );
    }
}
