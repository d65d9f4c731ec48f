//! `print` in generated code: where its condition holds in some lane, the message's values
//! are computed and handed, with the condition's lanes, to the runtime's `tessera_print`,
//! which prints a line per lane whose condition holds (`runtime::context`). The value is
//! the print's either way.

use inkwell::AddressSpace;

use super::values::{Built, Value};
use super::Codegen;
use crate::error::Result;
use crate::ir::{Expr, MessagePart, Symbol, Type};
use crate::runtime::context::{encode_template, TemplatePart};

impl<'ctx> Codegen<'ctx> {
    /// `print_when(args[0], args[1], args[2..])` with the interned message text `message`,
    /// whose first value is `args[1]`.
    pub(super) fn print(&mut self, message: Symbol, args: &[Expr]) -> Result<Value<'ctx>> {
        let value = self.expr(&args[1])?;
        let when = self.expr(&args[0])?;
        let any_lane = self.any_lane(when, args[0].ty());
        self.if_then(any_lane, |cg| {
            let parts = MessagePart::from_interned(message, &args[1..]);
            let template: Vec<TemplatePart<'_>> = parts
                .iter()
                .map(|p| match p {
                    MessagePart::Text(t) => TemplatePart::Text(t),
                    MessagePart::Value(e) => TemplatePart::Value(e.ty()),
                })
                .collect();
            let mut values: Vec<(Value<'ctx>, Type)> =
                vec![(when, args[0].ty()), (value, args[1].ty())];
            for e in &args[2..] {
                values.push((cg.expr(e)?, e.ty()));
            }
            let array = cg.message_values(&values);
            let text = cg
                .builder
                .build_global_string_ptr(&encode_template(&template), "print")
                .built();
            let print = cg.runtime_function("tessera_print", |cg| {
                let ptr = cg.ctx.ptr_type(AddressSpace::default());
                cg.ctx
                    .i32_type()
                    .fn_type(&[ptr.into(), ptr.into(), ptr.into()], false)
            });
            cg.call(
                print,
                &[
                    cg.f.user_context.into(),
                    text.as_pointer_value().into(),
                    array.into(),
                ],
            );
            Ok(())
        })?;
        Ok(value)
    }
}
