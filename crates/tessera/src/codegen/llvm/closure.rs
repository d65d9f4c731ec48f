//! Parallel loops: the body is outlined into a task function `i32 task(ptr closure, i32 i)`
//! that the runtime's `tessera_parallel_for` calls for every index. The closure is a struct on
//! the caller's stack holding what the body uses from outside: the user context, the values of
//! the names it reads (lets, loop variables, parameters, buffer fields; vectors too) and the
//! base pointers of the buffers it accesses. Nested parallel loops nest task functions.

use std::collections::HashSet;

use inkwell::types::BasicTypeEnum;
use inkwell::AddressSpace;

use super::values::{Built, Value};
use super::{Codegen, Storage};
use crate::error::{Error, Result};
use crate::ir::visit::{walk_expr, walk_stmt, Visitor};
use crate::ir::{Expr, ExprKind, Stmt, StmtKind, Symbol, Type};

/// The names and buffers a statement refers to (some may be bound inside it; capturing those
/// too is harmless).
#[derive(Default)]
struct References {
    names: HashSet<Symbol>,
    buffers: HashSet<Symbol>,
}

impl Visitor for References {
    fn visit_expr(&mut self, e: &Expr) {
        match e.kind() {
            ExprKind::Var(n) | ExprKind::Param(n) => {
                self.names.insert(*n);
            }
            ExprKind::Load { buffer, .. } => {
                self.buffers.insert(*buffer);
            }
            _ => {}
        }
        walk_expr(self, e)
    }
    fn visit_stmt(&mut self, s: &Stmt) {
        if let StmtKind::Store { buffer, .. } = s.kind() {
            self.buffers.insert(*buffer);
        }
        walk_stmt(self, s)
    }
}

impl<'ctx> Codegen<'ctx> {
    /// `parallel for name in [min, min + extent)`.
    pub(super) fn parallel_for(
        &mut self,
        name: Symbol,
        min: &Expr,
        extent: &Expr,
        body: &Stmt,
    ) -> Result<()> {
        if min.ty() != Type::i32() || extent.ty() != Type::i32() {
            return Err(Error::Codegen(format!(
                "parallel loop {name} has bounds of types {} and {}; they must be i32",
                min.ty(),
                extent.ty()
            )));
        }
        let lo = self.expr(min)?;
        let count = self.expr(extent)?;

        let mut refs = References::default();
        refs.visit_stmt(body);
        // Innermost bindings only, in scope order (deterministic code).
        let mut seen = HashSet::new();
        let values: Vec<(Symbol, Value<'ctx>)> = self
            .f
            .names
            .iter()
            .rev()
            .filter(|(n, _)| refs.names.contains(n) && seen.insert(*n))
            .copied()
            .collect();
        let mut seen = HashSet::new();
        let buffers: Vec<(Symbol, Storage<'ctx>)> = self
            .f
            .buffers
            .iter()
            .rev()
            .filter(|(n, _)| refs.buffers.contains(n) && seen.insert(*n))
            .copied()
            .collect();

        let ptr = self.ctx.ptr_type(AddressSpace::default());
        let fields: Vec<BasicTypeEnum<'ctx>> = std::iter::once(ptr.into())
            .chain(values.iter().map(|(_, v)| v.get_type()))
            .chain(buffers.iter().map(|_| ptr.into()))
            .collect();
        let closure_ty = self.ctx.struct_type(&fields, false);
        let closure = self.entry_alloca(closure_ty, None, "closure");
        let contents: Vec<Value<'ctx>> = std::iter::once(self.f.user_context.into())
            .chain(values.iter().map(|(_, v)| *v))
            .chain(buffers.iter().map(|(_, s)| s.base.into()))
            .collect();
        for (i, v) in contents.iter().enumerate() {
            let field = self
                .builder
                .build_struct_gep(closure_ty, closure, i as u32, "")
                .built();
            self.builder.build_store(field, *v).built();
        }

        let i32t = self.ctx.i32_type();
        let task_ty = i32t.fn_type(&[ptr.into(), i32t.into()], false);
        let parent = self.f.function.get_name().to_string_lossy().into_owned();
        self.tasks += 1;
        let task = self.add_function(&format!("{parent}.par_{name}.{}", self.tasks), task_ty);
        let saved = self.begin_function(task);
        let result = self.task_body(task, closure_ty, &values, &buffers, name, body);
        self.end_function(saved);
        result?;

        let parallel_for = self.runtime_function("tessera_parallel_for", |cg| {
            let i32t = cg.ctx.i32_type();
            i32t.fn_type(&[ptr.into(), ptr.into(), i32t.into(), i32t.into()], false)
        });
        let task_ptr = task.as_global_value().as_pointer_value();
        let code = self
            .call(parallel_for, &[task_ptr.into(), closure.into(), lo, count])
            .expect("internal error: tessera_parallel_for returns a code");
        self.propagate_error(code)
    }

    /// The body of a task function: unpack the closure, bind the loop variable, run the body.
    fn task_body(
        &mut self,
        task: inkwell::values::FunctionValue<'ctx>,
        closure_ty: inkwell::types::StructType<'ctx>,
        values: &[(Symbol, Value<'ctx>)],
        buffers: &[(Symbol, Storage<'ctx>)],
        loop_var: Symbol,
        body: &Stmt,
    ) -> Result<()> {
        let closure = task
            .get_nth_param(0)
            .expect("internal error: a task takes its closure")
            .into_pointer_value();
        let index = task
            .get_nth_param(1)
            .expect("internal error: a task takes its index");
        let field = |cg: &Self, i: usize, ty: BasicTypeEnum<'ctx>| {
            let p = cg
                .builder
                .build_struct_gep(closure_ty, closure, i as u32, "")
                .built();
            cg.builder.build_load(ty, p, "").built()
        };
        let ptr: BasicTypeEnum<'ctx> = self.ctx.ptr_type(AddressSpace::default()).into();
        self.f.user_context = field(self, 0, ptr).into_pointer_value();
        for (i, (name, v)) in values.iter().enumerate() {
            let loaded = field(self, 1 + i, v.get_type());
            self.f.names.push((*name, loaded));
        }
        for (i, (name, s)) in buffers.iter().enumerate() {
            let base = field(self, 1 + values.len() + i, ptr).into_pointer_value();
            self.f.buffers.push((*name, Storage { base, elem: s.elem }));
        }
        self.with_name(loop_var, index, |cg| cg.stmt(body))?;
        self.builder
            .build_return(Some(&self.ctx.i32_type().const_zero()))
            .built();
        Ok(())
    }
}
