//! Statements to control flow: lets, serial loops (parallel ones go to `closure`),
//! conditionals, stores, assertions and allocations. Small allocations of constant size live
//! on the stack; the others come from `tessera_malloc` and go back through `tessera_free`,
//! also when an error returns early.
//! Errors (a failed assertion, a failed allocation, a failed parallel task) return their code
//! from the current function after freeing its live heap allocations.

use inkwell::basic_block::BasicBlock;
use inkwell::module::Linkage;
use inkwell::types::BasicType;
use inkwell::values::{FunctionValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};

use super::values::{Built, Value};
use super::{Binding, Codegen, Storage};
use crate::error::{Error, Result};
use crate::ir::stmt::constant_elements;
use crate::ir::{Expr, ForKind, MemoryType, MessagePart, Stmt, StmtKind, Symbol, Type};
use crate::runtime::context::{encode_template, TemplatePart};

impl<'ctx> Codegen<'ctx> {
    pub(super) fn stmt(&mut self, s: &Stmt) -> Result<()> {
        match s.kind() {
            StmtKind::LetStmt { name, value, body } => {
                let b = self.let_binding(value)?;
                self.with_name(*name, b, |cg| cg.stmt(body))
            }
            StmtKind::Assert { condition, message } => self.assert(condition, message),
            StmtKind::ProducerConsumer { body, .. } => self.stmt(body),
            StmtKind::For {
                name,
                min,
                extent,
                kind: ForKind::Parallel,
                body,
            } => self.parallel_for(*name, min, extent, body),
            StmtKind::For {
                name,
                min,
                extent,
                body,
                ..
            } => self.serial_for(*name, min, extent, body),
            StmtKind::Store {
                buffer,
                index,
                value,
                predicate,
            } if self.atomic_stores => self.atomic_store(*buffer, index, value, predicate.as_ref()),
            StmtKind::Store {
                buffer,
                index,
                value,
                predicate,
            } => self.store(*buffer, index, value, predicate.as_ref()),
            StmtKind::Atomic { body } => self.atomic(body),
            StmtKind::Free { buffer } => self.free_early(*buffer),
            StmtKind::Fork { first, rest } => self.fork(first, rest),
            StmtKind::Semaphore {
                name,
                initial,
                body,
            } => self.semaphore(*name, initial, body),
            StmtKind::Acquire { semaphore, count } => {
                self.semaphore_units(*semaphore, count, true)
            }
            StmtKind::Release { semaphore, count } => {
                self.semaphore_units(*semaphore, count, false)
            }
            StmtKind::Allocate {
                buffer,
                ty,
                extents,
                memory,
                body,
            } => self.allocate(*buffer, *ty, extents, *memory, body),
            StmtKind::Block(stmts) => stmts.iter().try_for_each(|s| self.stmt(s)),
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                let c = self.scalar_condition(condition, "an if's condition")?;
                match else_case {
                    None => self.if_then(c, |cg| cg.stmt(then_case)),
                    Some(e) => self.if_then_else(c, |cg| cg.stmt(then_case), |cg| cg.stmt(e)),
                }
            }
            StmtKind::Evaluate(e) => self.expr(e).map(drop),
            StmtKind::Prefetch {
                buffer,
                ty,
                args,
                in_bounds,
                ..
            } => self.prefetch(*buffer, *ty, args, *in_bounds),
            StmtKind::Provide { func, .. } | StmtKind::Realize { func, .. } => {
                Err(Error::Codegen(format!(
                    "storage of {func} was not flattened (Realize and Provide do not reach code generation)"
                )))
            }
        }
    }

    fn scalar_condition(&mut self, e: &Expr, what: &str) -> Result<Value<'ctx>> {
        if !e.ty().is_bool() || e.ty().is_vector() {
            return Err(Error::Codegen(format!(
                "{what} {e} is {}, not a scalar bool",
                e.ty()
            )));
        }
        self.expr(e)
    }

    pub(super) fn current_block(&self) -> BasicBlock<'ctx> {
        self.builder
            .get_insert_block()
            .expect("internal error: the builder is positioned")
    }

    /// Runs `then` in a block entered when the scalar `condition` holds.
    pub(super) fn if_then(
        &mut self,
        condition: Value<'ctx>,
        then: impl FnOnce(&mut Self) -> Result<()>,
    ) -> Result<()> {
        let then_block = self.ctx.append_basic_block(self.f.function, "then");
        let join = self.ctx.append_basic_block(self.f.function, "endif");
        self.builder
            .build_conditional_branch(condition.into_int_value(), then_block, join)
            .built();
        self.builder.position_at_end(then_block);
        then(self)?;
        self.builder.build_unconditional_branch(join).built();
        self.builder.position_at_end(join);
        Ok(())
    }

    pub(super) fn if_then_else(
        &mut self,
        condition: Value<'ctx>,
        then: impl FnOnce(&mut Self) -> Result<()>,
        otherwise: impl FnOnce(&mut Self) -> Result<()>,
    ) -> Result<()> {
        let then_block = self.ctx.append_basic_block(self.f.function, "then");
        let else_block = self.ctx.append_basic_block(self.f.function, "else");
        let join = self.ctx.append_basic_block(self.f.function, "endif");
        self.builder
            .build_conditional_branch(condition.into_int_value(), then_block, else_block)
            .built();
        self.builder.position_at_end(then_block);
        then(self)?;
        self.builder.build_unconditional_branch(join).built();
        self.builder.position_at_end(else_block);
        otherwise(self)?;
        self.builder.build_unconditional_branch(join).built();
        self.builder.position_at_end(join);
        Ok(())
    }

    /// `for name in [min, min + extent)`, serially; nothing when the extent is not positive.
    fn serial_for(&mut self, name: Symbol, min: &Expr, extent: &Expr, body: &Stmt) -> Result<()> {
        let ty = min.ty();
        if !ty.is_int_or_uint() || ty.is_vector() || extent.ty() != ty {
            return Err(Error::Codegen(format!(
                "loop {name} has bounds of types {} and {}; they must be one scalar integer type",
                ty,
                extent.ty()
            )));
        }
        let lo = self.expr(min)?;
        let count = self.expr(extent)?;
        self.serial_loop(name, lo, count, body, ty)
    }

    /// `for name in [lo, lo + count)` over compiled bounds of type `ty`. An i32 loop counts
    /// in 64 bits and binds its variable's 64-bit form too, so addresses in the body are
    /// affine in one 64-bit induction variable.
    fn serial_loop(
        &mut self,
        name: Symbol,
        lo: Value<'ctx>,
        count: Value<'ctx>,
        body: &Stmt,
        ty: Type,
    ) -> Result<()> {
        let counter = if ty == Type::i32() { Type::i64() } else { ty };
        let count = self.cast(count, ty, counter);
        let before = self.current_block();
        let header = self.ctx.append_basic_block(self.f.function, name.as_str());
        let body_block = self.ctx.append_basic_block(self.f.function, "body");
        let exit = self.ctx.append_basic_block(self.f.function, "end");
        self.builder.build_unconditional_branch(header).built();
        self.builder.position_at_end(header);
        let i = self.builder.build_phi(self.llvm_type(counter), "i").built();
        let iv = i.as_basic_value();
        let less = if ty.is_int() {
            IntPredicate::SLT
        } else {
            IntPredicate::ULT
        };
        let go = self.icmp(less, iv, count);
        self.builder
            .build_conditional_branch(go.into_int_value(), body_block, exit)
            .built();
        self.builder.position_at_end(body_block);
        // `lo + i` in the counter's type; an i32 variable is its truncation (exactly the
        // wrapping 32-bit sum).
        let sum = self.binop(super::values::Op::Add, self.cast(lo, ty, counter), iv);
        let binding = Binding {
            value: self.cast(sum, counter, ty),
            linear: None,
            wide: (counter != ty).then_some(sum),
        };
        self.with_name(name, binding, |cg| cg.stmt(body))?;
        let next = self.binop(super::values::Op::Add, iv, self.int_const(counter, 1));
        let latch = self.current_block();
        self.builder.build_unconditional_branch(header).built();
        i.add_incoming(&[(&self.zero(counter), before), (&next, latch)]);
        self.builder.position_at_end(exit);
        Ok(())
    }

    /// Checks `condition`; when false, reports the message and returns the error code.
    fn assert(&mut self, condition: &Expr, message: &[MessagePart]) -> Result<()> {
        let ok = self.scalar_condition(condition, "an assertion's condition")?;
        let failed = self.unary(crate::ir::UnaryOp::Not, ok, Type::bool_());
        self.if_then(failed, |cg| cg.report_message(message))
    }

    /// Fails the run with `message`, its values computed here.
    pub(super) fn report_message(&mut self, message: &[MessagePart]) -> Result<()> {
        let parts: Vec<TemplatePart<'_>> = message
            .iter()
            .map(|p| match p {
                MessagePart::Text(t) => TemplatePart::Text(t),
                MessagePart::Value(e) => TemplatePart::Value(e.ty()),
            })
            .collect();
        let values: Vec<&Expr> = message
            .iter()
            .filter_map(|p| match p {
                MessagePart::Value(e) => Some(e),
                MessagePart::Text(_) => None,
            })
            .collect();
        self.report_error(&encode_template(&parts), &values)
    }

    /// Calls `tessera_error` with a message template and its values, then returns its code.
    pub(super) fn report_error(&mut self, template: &str, values: &[&Expr]) -> Result<()> {
        let values = values
            .iter()
            .map(|e| Ok((self.expr(e)?, e.ty())))
            .collect::<Result<Vec<_>>>()?;
        self.report_error_values(template, &values);
        Ok(())
    }

    /// `report_error` with values already computed (each with its type).
    pub(super) fn report_error_values(&mut self, template: &str, values: &[(Value<'ctx>, Type)]) {
        let array = self.message_values(values);
        let text = self
            .builder
            .build_global_string_ptr(template, "message")
            .built();
        let error = self.runtime_function("tessera_error", |cg| {
            let ptr = cg.ctx.ptr_type(AddressSpace::default());
            cg.ctx
                .i32_type()
                .fn_type(&[ptr.into(), ptr.into(), ptr.into()], false)
        });
        let code = self
            .call(
                error,
                &[
                    self.f.user_context.into(),
                    text.as_pointer_value().into(),
                    array.into(),
                ],
            )
            .expect("internal error: tessera_error returns a code");
        self.return_error(code);
    }

    /// An array (allocated once per function and length) holding the raw bits of each lane
    /// of `values`, in order, as the runtime's message functions read them.
    pub(super) fn message_values(&mut self, values: &[(Value<'ctx>, Type)]) -> PointerValue<'ctx> {
        let i64t = self.ctx.i64_type();
        let lanes: u32 = values.iter().map(|(_, ty)| ty.lanes as u32).sum();
        let length = lanes.max(1);
        let array = match self.f.message_arrays.iter().find(|(n, _)| *n == length) {
            Some(&(_, array)) => array,
            None => {
                let array = self.entry_alloca(i64t.array_type(length), None, "message_values");
                self.f.message_arrays.push((length, array));
                array
            }
        };
        let mut slot = 0;
        for &(v, ty) in values {
            for lane in 0..ty.lanes as u32 {
                let x = if ty.is_vector() {
                    self.extract(v, lane)
                } else {
                    v
                };
                let bits = self.message_bits(x, ty.element());
                let p = self.element_ptr(i64t.into(), array, slot as i64);
                self.builder.build_store(p, bits).built();
                slot += 1;
            }
        }
        array
    }

    /// The raw bits of a scalar, zero-extended to 64.
    fn message_bits(&self, v: Value<'ctx>, ty: Type) -> Value<'ctx> {
        let int_ty = self.int_type(ty.bits as u32);
        let bits = if ty.is_float() {
            self.convert(super::values::Op::BitCast, v, int_ty.into())
        } else {
            v
        };
        if ty.bits == 64 {
            bits
        } else {
            self.convert(super::values::Op::ZExt, bits, self.ctx.i64_type().into())
        }
    }

    /// Frees the live heap allocations and returns `code`, leaving the builder in a fresh
    /// (unreachable) block for whatever the caller emits next. Errors raised under the same
    /// live allocations share one exit block that frees them: freeing at every error site
    /// made the code quadratic (each of a chain's checks freed every allocation around it,
    /// and LLVM's register allocation took seconds on it).
    pub(super) fn return_error(&mut self, code: Value<'ctx>) {
        let site = self.current_block();
        let exit = match self
            .f
            .error_exits
            .iter()
            .position(|e| e.heap == self.f.heap)
        {
            Some(i) => i,
            None => {
                let exit = self.error_exit();
                self.builder.position_at_end(site);
                self.f.error_exits.push(exit);
                self.f.error_exits.len() - 1
            }
        };
        let exit = &self.f.error_exits[exit];
        exit.code.add_incoming(&[(&code, site)]);
        self.builder.build_unconditional_branch(exit.block).built();
        let dead = self.ctx.append_basic_block(self.f.function, "unreachable");
        self.builder.position_at_end(dead);
    }

    /// A new exit block freeing the live heap allocations and returning its phi's code (the
    /// builder is left in it).
    fn error_exit(&mut self) -> super::ErrorExit<'ctx> {
        let block = self.ctx.append_basic_block(self.f.function, "error_exit");
        self.builder.position_at_end(block);
        let code = self.builder.build_phi(self.ctx.i32_type(), "error").built();
        for heap_block in self.f.heap.iter().rev() {
            self.free(*heap_block);
        }
        self.builder
            .build_return(Some(&code.as_basic_value()))
            .built();
        super::ErrorExit {
            heap: self.f.heap.clone(),
            block,
            code,
        }
    }

    /// Returns `code` when it is non-zero.
    pub(super) fn propagate_error(&mut self, code: Value<'ctx>) -> Result<()> {
        let failed = self.icmp(IntPredicate::NE, code, self.zero(Type::i32()));
        self.if_then(failed, |cg| {
            cg.return_error(code);
            Ok(())
        })
    }

    /// The declaration of runtime function `name` (declared on first use).
    pub(super) fn runtime_function(
        &self,
        name: &str,
        ty: impl FnOnce(&Self) -> inkwell::types::FunctionType<'ctx>,
    ) -> FunctionValue<'ctx> {
        self.module.get_function(name).unwrap_or_else(|| {
            self.module
                .add_function(name, ty(self), Some(Linkage::External))
        })
    }

    fn allocate(
        &mut self,
        buffer: Symbol,
        ty: Type,
        extents: &[Expr],
        memory: MemoryType,
        body: &Stmt,
    ) -> Result<()> {
        if ty.is_vector() {
            return Err(Error::Codegen(format!(
                "Allocate of {buffer} has the vector element type {ty}"
            )));
        }
        if let Some(e) = extents
            .iter()
            .find(|e| !e.ty().is_int_or_uint() || e.ty().is_vector())
        {
            return Err(Error::Codegen(format!(
                "an extent of {buffer} is {e} of type {}, not a scalar integer",
                e.ty()
            )));
        }
        let elem = self.storage_type(ty);
        let constant = constant_elements(extents);
        let bytes = constant.and_then(|n| n.checked_mul(ty.bytes() as u64));
        let place = memory
            .place(bytes)
            .map_err(|why| Error::Codegen(format!("the allocation {buffer} {why}")))?;
        let stack_elements = constant.filter(|_| place != MemoryType::Heap);
        let base = match stack_elements {
            Some(n) => {
                let array = elem.array_type(n.max(1) as u32);
                self.entry_alloca(array, Some(64), buffer.as_str())
            }
            None => self.heap_allocate(buffer, ty, extents)?,
        };
        let valid = if self.target.bounds_checks {
            Some(self.allocation_span(extents)?)
        } else {
            None
        };
        let on_heap = stack_elements.is_none();
        if on_heap {
            self.f.heap.push(base);
        }
        self.f.buffers.push((
            buffer,
            Storage {
                base,
                elem: ty,
                entries: constant,
                valid,
                nontemporal: false,
            },
        ));
        let result = self.stmt(body);
        self.f.buffers.pop();
        // Unless a `Free` in the body released it already.
        if let Some(at) = self.f.heap.iter().rposition(|p| *p == base) {
            self.f.heap.remove(at);
            self.free(base);
        }
        result
    }

    /// A `Free`: releases the heap allocation of `buffer` now (a stack one lives on until
    /// its function returns), so its `Allocate` does not release it again.
    fn free_early(&mut self, buffer: Symbol) -> Result<()> {
        let base = self.storage(buffer)?.base;
        if let Some(at) = self.f.heap.iter().rposition(|p| *p == base) {
            self.f.heap.remove(at);
            self.free(base);
        }
        Ok(())
    }

    /// `tessera_malloc` of `product(extents)` elements, failing on a negative extent or when
    /// the allocation fails.
    fn heap_allocate(
        &mut self,
        buffer: Symbol,
        ty: Type,
        extents: &[Expr],
    ) -> Result<PointerValue<'ctx>> {
        let i64t = self.ctx.i64_type();
        let mut bytes: Value<'ctx> = i64t.const_int(ty.bytes() as u64, false).into();
        for (d, e) in extents.iter().enumerate() {
            let v = self.expr(e)?;
            let wide = self.cast(v, e.ty(), Type::i64());
            let negative = self.icmp(IntPredicate::SLT, wide, self.zero(Type::i64()));
            self.if_then(negative, |cg| {
                let template = encode_template(&[
                    TemplatePart::Text(&format!("the allocation {buffer} has extent ")),
                    TemplatePart::Value(e.ty()),
                    TemplatePart::Text(&format!(" in dimension {d}; extents must be >= 0")),
                ]);
                cg.report_error(&template, &[e])
            })?;
            bytes = self.binop(super::values::Op::Mul, bytes, wide);
        }
        let ptr = self.ctx.ptr_type(AddressSpace::default());
        let malloc = self.runtime_function("tessera_malloc", |cg| {
            ptr.fn_type(&[ptr.into(), cg.ctx.i64_type().into(), ptr.into()], false)
        });
        let name = self
            .builder
            .build_global_string_ptr(buffer.as_str(), "name")
            .built();
        let block = self
            .call(
                malloc,
                &[
                    self.f.user_context.into(),
                    bytes,
                    name.as_pointer_value().into(),
                ],
            )
            .expect("internal error: tessera_malloc returns a pointer")
            .into_pointer_value();
        let failed = self.builder.build_is_null(block, "").built();
        self.if_then(failed.into(), |cg| {
            let code = cg.int_const(Type::i32(), crate::runtime::context::ERROR_CODE as i64);
            cg.return_error(code);
            Ok(())
        })?;
        Ok(block)
    }

    fn free(&self, block: PointerValue<'ctx>) {
        let ptr = self.ctx.ptr_type(AddressSpace::default());
        let free = self.runtime_function("tessera_free", |cg| {
            cg.ctx.void_type().fn_type(&[ptr.into(), ptr.into()], false)
        });
        self.call(free, &[self.f.user_context.into(), block.into()]);
    }
}
