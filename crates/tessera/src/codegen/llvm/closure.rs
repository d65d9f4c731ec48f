//! Parallel loops: the body is outlined into a task function `i32 task(ptr closure, i32 i)`
//! that the runtime's `tessera_parallel_for` calls for every index. The closure is a struct on
//! the caller's stack holding what the body uses from outside: the user context, the values of
//! the names it reads (lets, loop variables, parameters, buffer fields; vectors too, with their
//! linear forms) and the base pointers of the buffers it accesses. Nested parallel loops nest task functions.
//! A `Fork` is outlined the same way, its task running side 0 or side 1 by its index, which
//! the runtime's `tessera_fork` runs concurrently; its semaphores (`Semaphore`) are `i64`s
//! on the stack that the sides reach through their closure.

use std::collections::HashSet;

use inkwell::types::BasicTypeEnum;
use inkwell::values::PointerValue;
use inkwell::AddressSpace;

use super::linear::Linear;
use super::values::{Built, Value};
use super::{Binding, Codegen, Storage};
use crate::error::{Error, Result};
use crate::ir::visit::{walk_expr, walk_stmt, Visitor};
use crate::ir::{BinaryOp, Expr, ExprKind, Stmt, StmtKind, Symbol, Type};

/// The names and buffers a statement refers to (some may be bound inside it; capturing those
/// too is harmless).
#[derive(Default)]
struct References {
    names: HashSet<Symbol>,
    buffers: HashSet<Symbol>,
    /// The semaphores acquired or released, in the order first met (deterministic code).
    semaphores: Vec<Symbol>,
}

impl Visitor for References {
    fn visit_expr(&mut self, e: &Expr) {
        match e.kind() {
            ExprKind::Var(n) | ExprKind::Param(n, _) => {
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
        match s.kind() {
            StmtKind::Store { buffer, .. } | StmtKind::Prefetch { buffer, .. } => {
                self.buffers.insert(*buffer);
            }
            StmtKind::Acquire { semaphore, .. } | StmtKind::Release { semaphore, .. } => {
                self.names.insert(*semaphore);
                if !self.semaphores.contains(semaphore) {
                    self.semaphores.push(*semaphore);
                }
            }
            _ => {}
        }
        walk_stmt(self, s)
    }
}

/// Whether `v` is a constant (valid in every function of the module).
fn is_constant(v: Value<'_>) -> bool {
    match v {
        Value::IntValue(x) => x.is_const(),
        Value::FloatValue(x) => x.is_const(),
        Value::VectorValue(x) => x.is_const(),
        Value::PointerValue(x) => x.is_const(),
        _ => false,
    }
}

/// What a captured binding is stored as: its value, then its linear form's parts, then its
/// 64-bit form.
fn binding_parts<'ctx>(b: &Binding<'ctx>) -> Vec<Value<'ctx>> {
    let mut parts = vec![b.value];
    if let Some(l) = b.linear {
        parts.push(l.base);
        parts.extend(l.stride);
    }
    parts.extend(b.wide);
    parts
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
        let (task, closure) = self.outline_task(name, body)?;
        let ptr = self.ctx.ptr_type(AddressSpace::default());
        let parallel_for = self.runtime_function("tessera_parallel_for", |cg| {
            let i32t = cg.ctx.i32_type();
            i32t.fn_type(&[ptr.into(), ptr.into(), i32t.into(), i32t.into()], false)
        });
        let code = self
            .call(parallel_for, &[task.into(), closure.into(), lo, count])
            .expect("internal error: tessera_parallel_for returns a code");
        self.propagate_error(code)
    }

    /// `fork { first } and { rest }`: one task whose index picks the side.
    pub(super) fn fork(&mut self, first: &Stmt, rest: &Stmt) -> Result<()> {
        let side = Symbol::new("fork.side");
        let body = Stmt::new(StmtKind::IfThenElse {
            condition: Expr::binary(BinaryOp::Eq, Expr::var(side, Type::i32()), Expr::i32(0)),
            then_case: first.clone(),
            else_case: Some(rest.clone()),
        });
        let (task, closure) = self.outline_task(side, &body)?;
        // The semaphores declared outside that the sides use, which the runtime opens when
        // a side fails.
        let mut refs = References::default();
        refs.visit_stmt(&body);
        let shared: Vec<_> = refs
            .semaphores
            .iter()
            .filter_map(|name| match self.lookup(*name) {
                Ok(Value::PointerValue(units)) => Some(units),
                _ => None,
            })
            .collect();
        let ptr = self.ctx.ptr_type(AddressSpace::default());
        let i32t = self.ctx.i32_type();
        // A struct of pointers: an array's layout, filled field by field.
        let array_ty = self.ctx.struct_type(&vec![ptr.into(); shared.len()], false);
        let semaphores = self.entry_alloca(array_ty, None, "fork.semaphores");
        for (i, units) in shared.iter().enumerate() {
            let slot = self
                .builder
                .build_struct_gep(array_ty, semaphores, i as u32, "")
                .built();
            self.builder.build_store(slot, *units).built();
        }
        let fork = self.runtime_function("tessera_fork", |_| {
            i32t.fn_type(&[ptr.into(), ptr.into(), ptr.into(), i32t.into()], false)
        });
        let count = i32t.const_int(shared.len() as u64, false);
        let code = self
            .call(
                fork,
                &[task.into(), closure.into(), semaphores.into(), count.into()],
            )
            .expect("internal error: tessera_fork returns a code");
        self.propagate_error(code)
    }

    /// A semaphore holding `initial` units, on the stack, bound to `name` during `body`.
    pub(super) fn semaphore(&mut self, name: Symbol, initial: &Expr, body: &Stmt) -> Result<()> {
        let i64t = self.ctx.i64_type();
        let units = self.entry_alloca(i64t, Some(8), &name.to_string());
        let initial = self.expr(initial)?.into_int_value();
        let initial = self.builder.build_int_s_extend(initial, i64t, "").built();
        self.builder.build_store(units, initial).built();
        self.with_name(name, Value::from(units), |cg| cg.stmt(body))
    }

    /// `acquire` (or `release`) `count` units of `semaphore`.
    pub(super) fn semaphore_units(
        &mut self,
        semaphore: Symbol,
        count: &Expr,
        acquire: bool,
    ) -> Result<()> {
        let units = self.lookup(semaphore)?;
        let count = self.expr(count)?;
        let ptr = self.ctx.ptr_type(AddressSpace::default());
        let name = if acquire {
            "tessera_semaphore_acquire"
        } else {
            "tessera_semaphore_release"
        };
        let f = self.runtime_function(name, |cg| {
            cg.ctx
                .void_type()
                .fn_type(&[ptr.into(), cg.ctx.i32_type().into()], false)
        });
        self.call(f, &[units, count]);
        Ok(())
    }

    /// `body` outlined into a task function of the index `index`, and the closure it takes,
    /// filled here.
    fn outline_task(
        &mut self,
        index: Symbol,
        body: &Stmt,
    ) -> Result<(PointerValue<'ctx>, PointerValue<'ctx>)> {
        let mut refs = References::default();
        refs.visit_stmt(body);
        // Innermost bindings only, in scope order (deterministic code).
        let mut seen = HashSet::new();
        let values: Vec<(Symbol, Binding<'ctx>)> = self
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
        // Constants need no field: the task uses them directly (and sees them as constants,
        // which keeps a captured index's unit stride visible).
        let captured = values
            .iter()
            .flat_map(|(_, b)| binding_parts(b))
            .chain(buffers.iter().flat_map(|(_, s)| buffer_parts(s)))
            .filter(|v| !is_constant(*v));
        let contents: Vec<Value<'ctx>> = std::iter::once(self.f.user_context.into())
            .chain(captured)
            .collect();
        let fields: Vec<BasicTypeEnum<'ctx>> = contents.iter().map(|v| v.get_type()).collect();
        let closure_ty = self.ctx.struct_type(&fields, false);
        let closure = self.entry_alloca(closure_ty, None, "closure");
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
        let task = self.add_function(&format!("{parent}.par_{index}.{}", self.tasks), task_ty);
        let saved = self.begin_function(task);
        let result = self.task_body(task, closure_ty, &values, &buffers, index, body);
        self.end_function(saved);
        result?;
        Ok((task.as_global_value().as_pointer_value(), closure))
    }

    /// The body of a task function: unpack the closure, bind the loop variable, run the body.
    fn task_body(
        &mut self,
        task: inkwell::values::FunctionValue<'ctx>,
        closure_ty: inkwell::types::StructType<'ctx>,
        values: &[(Symbol, Binding<'ctx>)],
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
        let fields: Vec<Value<'ctx>> = closure_ty
            .get_field_types()
            .into_iter()
            .enumerate()
            .map(|(i, ty)| {
                let p = self
                    .builder
                    .build_struct_gep(closure_ty, closure, i as u32, "")
                    .built();
                self.builder.build_load(ty, p, "").built()
            })
            .collect();
        let mut fields = fields.into_iter();
        let mut next = || {
            fields
                .next()
                .expect("internal error: a closure field is missing")
        };
        self.f.user_context = next().into_pointer_value();
        let mut unpack = |captured: Value<'ctx>| {
            if is_constant(captured) {
                captured
            } else {
                next()
            }
        };
        for (name, captured) in values {
            let value = unpack(captured.value);
            let linear = captured.linear.map(|l| Linear {
                base: unpack(l.base),
                stride: l.stride.map(&mut unpack),
            });
            let wide = captured.wide.map(&mut unpack);
            self.f.names.push((
                *name,
                Binding {
                    value,
                    linear,
                    wide,
                },
            ));
        }
        for (name, s) in buffers {
            let base = unpack(s.base.into()).into_pointer_value();
            let valid = s.valid.map(|(first, end)| (unpack(first), unpack(end)));
            self.f.buffers.push((*name, Storage { base, valid, ..*s }));
        }
        self.with_name(loop_var, index, |cg| cg.stmt(body))?;
        self.fence_streams();
        self.builder
            .build_return(Some(&self.ctx.i32_type().const_zero()))
            .built();
        Ok(())
    }
}

/// The values a task needs of a buffer: its base, and in checked mode its valid indices.
fn buffer_parts<'ctx>(s: &Storage<'ctx>) -> impl Iterator<Item = Value<'ctx>> {
    std::iter::once(s.base.into()).chain(s.valid.into_iter().flat_map(|(first, end)| [first, end]))
}
