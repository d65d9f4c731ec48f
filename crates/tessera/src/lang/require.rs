//! `require(condition, value, message)` (Halide's `require`): the value where the condition
//! holds; where it does not, the realization fails with the message — in the evaluator, the
//! interpreter and native code alike. It is checked wherever its value is computed: for
//! the points a schedule computes (which may be more than the output's), and, in native
//! code, in both arms of a `select` (the evaluator computes only the arm chosen).

use crate::ir::{Expr, ExprKind, Intrinsic, MessagePart};

impl From<&str> for MessagePart {
    fn from(text: &str) -> MessagePart {
        MessagePart::Text(text.into())
    }
}

impl From<String> for MessagePart {
    fn from(text: String) -> MessagePart {
        MessagePart::Text(text.into())
    }
}

impl From<Expr> for MessagePart {
    fn from(value: Expr) -> MessagePart {
        MessagePart::Value(value)
    }
}

impl From<&Expr> for MessagePart {
    fn from(value: &Expr) -> MessagePart {
        MessagePart::Value(value.clone())
    }
}

/// `value` where the scalar bool `condition` holds; elsewhere the run fails with `message`
/// (its parts separated by spaces, values printed as computed there, as Halide prints them).
pub fn require(
    condition: impl Into<Expr>,
    value: impl Into<Expr>,
    message: &[MessagePart],
) -> Expr {
    let (condition, value) = (condition.into(), value.into());
    let ty = value.ty();
    if let Some(bad) = [&condition, &value]
        .into_iter()
        .chain(message.iter().filter_map(|p| match p {
            MessagePart::Value(v) => Some(v),
            MessagePart::Text(_) => None,
        }))
        .find(|e| matches!(e.kind(), ExprKind::Invalid(_)))
    {
        return bad.clone();
    }
    if !condition.ty().is_bool() || condition.ty().is_vector() {
        return Expr::invalid(
            ty,
            format!(
                "require's condition {condition} is {}, not a scalar bool",
                condition.ty()
            ),
        );
    }
    let mut spaced = Vec::new();
    for (i, part) in message.iter().enumerate() {
        if i > 0 {
            spaced.push(MessagePart::from(" "));
        }
        spaced.push(part.clone());
    }
    let (text, values) = MessagePart::intern(&spaced);
    let args = [condition, value].into_iter().chain(values).collect();
    Expr::intrinsic(ty, Intrinsic::Require { message: text }, args)
}
