//! `require(condition, value, message)` (Halide's `require`): the value where the condition
//! holds; where it does not, the realization fails with the message — in the evaluator, the
//! interpreter and native code alike. It is checked wherever its value is computed: for
//! the points a schedule computes (which may be more than the output's), and, in native
//! code, in both arms of a `select` (the evaluator computes only the arm chosen).

use crate::ir::{Expr, ExprKind, Intrinsic, MessagePart, Symbol};

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
    const REQUIRE: MessageCall = MessageCall {
        what: "require",
        value_leads_message: false,
    };
    REQUIRE.call(condition.into(), value.into(), message, |message| {
        Intrinsic::Require { message }
    })
}

/// How `require` and `print_when` build their calls.
pub(super) struct MessageCall {
    /// The function's name, for errors.
    pub what: &'static str,
    /// Whether the message begins with the value itself (a print's), which is then its
    /// first message value rather than an argument of its own.
    pub value_leads_message: bool,
}

impl MessageCall {
    /// The call `intrinsic(condition, value, message values..)` of `value`'s type (without
    /// `value` a second time where it leads the message), the message's `parts` separated
    /// by spaces and interned; the first invalid argument, or an invalid expression where
    /// the condition is not a scalar bool.
    pub fn call(
        &self,
        condition: Expr,
        value: Expr,
        parts: &[MessagePart],
        intrinsic: impl FnOnce(Symbol) -> Intrinsic,
    ) -> Expr {
        let ty = value.ty();
        if let Some(bad) = [&condition, &value]
            .into_iter()
            .chain(parts.iter().filter_map(|p| match p {
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
                    "{}'s condition {condition} is {}, not a scalar bool",
                    self.what,
                    condition.ty()
                ),
            );
        }
        let leading = self
            .value_leads_message
            .then(|| MessagePart::Value(value.clone()));
        let mut spaced = Vec::new();
        for (i, part) in leading.iter().chain(parts).enumerate() {
            if i > 0 {
                spaced.push(MessagePart::from(" "));
            }
            spaced.push(part.clone());
        }
        let (text, values) = MessagePart::intern(&spaced);
        let value = (!self.value_leads_message).then_some(value);
        let args = std::iter::once(condition)
            .chain(value)
            .chain(values)
            .collect();
        Expr::intrinsic(ty, intrinsic(text), args)
    }
}
