//! The LLVM backend: compiles a lowered, flat `Stmt` and its `Signature` into an LLVM module
//! holding one entry function
//!
//! ```c
//! int32_t NAME(const void *const *args);
//! ```
//!
//! `args` holds, in this order: a `BufferAbi *` for each output buffer and then each input
//! image (in the Signature's order), a pointer to the value of each scalar parameter (in the
//! Signature's order; bools as one byte), and last the user context pointer the runtime
//! functions receive. The function returns 0, or a non-zero code after reporting an error
//! through `tessera_error`. Buffer fields are visible to the statement as the i32 names
//! `NAME.min.D`, `NAME.extent.D` and `NAME.stride.D`.
//!
//! Modules: `values` (a type-uniform layer over inkwell), `expr` and `arith` (expressions and
//! the exact integer semantics), `intrinsics` (math functions and the other intrinsics),
//! `linear` (integer vectors as base + stride * lane), `vector` (loads and stores), `parity`
//! (loads made as their even and odd lanes where each half is dense), `table_lookup` (byte
//! gathers from small tables as in-register permutes or byte shuffles), `bounds_checks` (checked mode), `stmt`
//! (control flow, allocations, assertions), `atomic` (atomic stores), `streaming`
//! (non-temporal stores), `closure` (parallel loop bodies outlined into
//! task functions), `passes` (the optimization pipeline), `late_order` (each block's
//! instructions as late as their uses allow, after optimization, for short live ranges).

mod arith;
mod atomic;
mod bounds_checks;
mod clamped;
mod closure;
mod expr;
mod gathers;
mod intrinsics;
mod late_order;
mod linear;
mod memoize;
mod parity;
mod passes;
mod prefetch;
mod print;
mod requirements;
mod runs;
mod stmt;
mod streaming;
mod table_lookup;
mod values;
mod vector;

use std::sync::OnceLock;

use inkwell::attributes::AttributeLoc;
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::targets::{
    CodeModel, InitializationConfig, RelocMode, Target as LlvmTarget, TargetMachine, TargetTriple,
};
use inkwell::types::BasicType;
use inkwell::values::{BasicValueEnum, FunctionValue, PhiValue, PointerValue};
use inkwell::{AddressSpace, OptimizationLevel};

use self::values::Built;
use super::signature::Signature;
use super::target::Target;
use crate::error::{Error, Result};
use crate::ir::{Stmt, Symbol, Type};

/// Statement compilation state shared by every function of the module.
pub(super) struct Codegen<'ctx> {
    ctx: &'ctx Context,
    module: Module<'ctx>,
    builder: Builder<'ctx>,
    target: Target,
    /// The function being generated (the entry point or a parallel task).
    f: FunctionState<'ctx>,
    /// Task functions made so far (for unique names).
    tasks: usize,
    /// Inside an `Atomic` statement: stores are atomic read-modify-writes (`atomic`).
    atomic_stores: bool,
    /// The gathers of the store being made that can share work (`gathers`).
    gather_groups: gathers::GatherGroups<'ctx>,
}

/// Where a buffer's elements are: flat index 0 at `base`, elements of type `elem`.
#[derive(Clone, Copy)]
struct Storage<'ctx> {
    base: PointerValue<'ctx>,
    elem: Type,
    /// The element count of an allocation whose size is a constant (none for the pipeline's
    /// buffers): a small one can be held in registers (`table_lookup`).
    entries: Option<u64>,
    /// In checked mode, the flat indices `[first, end)` an access may touch (i64 values).
    valid: Option<(values::Value<'ctx>, values::Value<'ctx>)>,
    /// Whether full vector stores bypass the caches (an output's `store_nontemporal`).
    nontemporal: bool,
}

/// A name in scope: its value; for an integer vector `base + stride * [0, 1, ...]`, that
/// linear form (so accesses indexed through it stay dense; see `linear`); for a scalar i32
/// let or loop variable, its value as an i64 computed in 64 bits (so addresses built from it
/// need no sign extension inside loops and LLVM sees a 64-bit induction variable it can
/// strength-reduce; see `vector::address`).
#[derive(Clone, Copy)]
struct Binding<'ctx> {
    value: BasicValueEnum<'ctx>,
    linear: Option<linear::Linear<'ctx>>,
    wide: Option<BasicValueEnum<'ctx>>,
}

impl<'ctx> From<BasicValueEnum<'ctx>> for Binding<'ctx> {
    fn from(value: BasicValueEnum<'ctx>) -> Self {
        Binding {
            value,
            linear: None,
            wide: None,
        }
    }
}

/// The state of one generated function.
struct FunctionState<'ctx> {
    function: FunctionValue<'ctx>,
    /// The first block, where allocas go.
    entry: BasicBlock<'ctx>,
    /// The user context pointer passed to the runtime.
    user_context: PointerValue<'ctx>,
    /// Scalar and vector names in scope (lets, loop variables, parameters, buffer fields),
    /// innermost last.
    names: Vec<(Symbol, Binding<'ctx>)>,
    /// Buffers in scope (external buffers and allocations), innermost last.
    buffers: Vec<(Symbol, Storage<'ctx>)>,
    /// Heap allocations live at the current point, innermost last: freed when an error
    /// returns early.
    heap: Vec<PointerValue<'ctx>>,
    /// The blocks errors return through, one per set of live heap allocations, each with
    /// the phi of the error code (`Codegen::return_error`).
    error_exits: Vec<ErrorExit<'ctx>>,
    /// The arrays error messages pass their values in, by length: one per length serves
    /// every message, since an error ends the function (a stack slot per message made
    /// hundreds in a checked deep pipeline).
    message_arrays: Vec<(u32, PointerValue<'ctx>)>,
    /// Whether the function made a non-temporal store, which it must fence (`streaming`).
    streamed: bool,
}

/// A block that frees the heap allocations `heap` and returns the error code its phi
/// receives from every error raised while exactly they are live.
struct ErrorExit<'ctx> {
    heap: Vec<PointerValue<'ctx>>,
    block: BasicBlock<'ctx>,
    code: PhiValue<'ctx>,
}

impl<'ctx> FunctionState<'ctx> {
    /// The state of a function whose generation starts in `entry`; the user context is null
    /// until the function has loaded it from its arguments.
    fn new(function: FunctionValue<'ctx>, entry: BasicBlock<'ctx>, ctx: &'ctx Context) -> Self {
        FunctionState {
            function,
            entry,
            user_context: ctx.ptr_type(AddressSpace::default()).const_null(),
            names: Vec::new(),
            buffers: Vec::new(),
            heap: Vec::new(),
            error_exits: Vec::new(),
            message_arrays: Vec::new(),
            streamed: false,
        }
    }
}

/// Initializes LLVM's native target once per process.
fn initialize_llvm() -> Result<()> {
    static INIT: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    INIT.get_or_init(|| LlvmTarget::initialize_native(&InitializationConfig::default()))
        .clone()
        .map_err(|e| Error::Codegen(format!("cannot initialize LLVM: {e}")))
}

/// A target machine for `target` (position-independent code, aggressive code generation
/// unless `fast_compile`).
pub fn target_machine(target: &Target) -> Result<TargetMachine> {
    initialize_llvm()?;
    let triple = TargetTriple::create(target.triple());
    let llvm_target = LlvmTarget::from_triple(&triple)
        .map_err(|e| Error::Codegen(format!("no LLVM target for {}: {e}", target.triple())))?;
    llvm_target
        .create_target_machine(
            &triple,
            &target.cpu,
            &target.features,
            if target.fast_compile {
                OptimizationLevel::None
            } else {
                OptimizationLevel::Aggressive
            },
            RelocMode::PIC,
            CodeModel::Default,
        )
        .ok_or_else(|| Error::Codegen(format!("LLVM cannot generate code for {target}")))
}

/// Compiles `stmt` into a new module of `ctx` with the entry function `name`, optimized.
pub fn compile_module<'ctx>(
    ctx: &'ctx Context,
    stmt: &Stmt,
    signature: &Signature,
    target: &Target,
    name: &str,
) -> Result<Module<'ctx>> {
    let machine = target_machine(target)?;
    let module = ctx.create_module(name);
    module.set_triple(&machine.get_triple());
    module.set_data_layout(&machine.get_target_data().get_data_layout());
    let entry = entry_function(ctx, &module, target, name);
    let mut cg = Codegen::new(ctx, module, target, entry);
    cg.bind_arguments(signature)?;
    cg.stmt(stmt)?;
    cg.fence_streams();
    cg.builder
        .build_return(Some(&ctx.i32_type().const_zero()))
        .built();
    let module = cg.module;
    verified(&module)?;
    passes::optimize(&module, &machine)?;
    late_order::order_instructions_late(&module, &machine.get_target_data());
    // In debug builds (every test) the reordered module is checked too: an instruction moved
    // above a value it uses would otherwise reach the backend.
    if cfg!(debug_assertions) {
        verified(&module)?;
    }
    Ok(module)
}

/// `module`, or an internal error if LLVM's verifier rejects it.
fn verified(module: &Module<'_>) -> Result<()> {
    module
        .verify()
        .map_err(|e| Error::Codegen(format!("internal error: invalid LLVM IR: {e}")))
}

fn entry_function<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    target: &Target,
    name: &str,
) -> FunctionValue<'ctx> {
    let ptr = ctx.ptr_type(AddressSpace::default());
    let ty = ctx.i32_type().fn_type(&[ptr.into()], false);
    let f = module.add_function(name, ty, Some(Linkage::External));
    set_target_attributes(ctx, f, target);
    f
}

/// The attributes that make LLVM generate code for `target` whatever target machine runs it,
/// and that align every function's frame to its widest stack slot (`stackrealign`). Without
/// it, LLVM only learns during register allocation that it spills 32- or 64-byte vectors, too
/// late to reserve the frame pointer a realignment needs: it then spills them with unaligned
/// moves into slots aligned to 16 only; a slot straddling two cache lines makes every spill
/// and reload a split access, which also defeats store forwarding on many x86 cores. Which
/// slots straddle then depends on incidental register allocation and on where the worker's
/// stack stands: harris ran 2x slower on 2 threads after an unrelated simplifier change moved
/// four spill slots of its output loop to 48 mod 64 from a stack pointer at 0 mod 64.
fn set_target_attributes(ctx: &Context, f: FunctionValue<'_>, target: &Target) {
    let width = target.vector_bits.to_string();
    for (key, value) in [
        ("target-cpu", target.cpu.as_str()),
        ("target-features", target.features.as_str()),
        ("min-legal-vector-width", width.as_str()),
        ("prefer-vector-width", width.as_str()),
        ("stackrealign", ""),
    ] {
        f.add_attribute(
            AttributeLoc::Function,
            ctx.create_string_attribute(key, value),
        );
    }
    let nounwind = inkwell::attributes::Attribute::get_named_enum_kind_id("nounwind");
    f.add_attribute(
        AttributeLoc::Function,
        ctx.create_enum_attribute(nounwind, 0),
    );
}

impl<'ctx> Codegen<'ctx> {
    fn new(
        ctx: &'ctx Context,
        module: Module<'ctx>,
        target: &Target,
        entry: FunctionValue<'ctx>,
    ) -> Codegen<'ctx> {
        let builder = ctx.create_builder();
        let block = ctx.append_basic_block(entry, "entry");
        builder.position_at_end(block);
        Codegen {
            ctx,
            module,
            builder,
            target: target.clone(),
            f: FunctionState::new(entry, block, ctx),
            tasks: 0,
            atomic_stores: false,
            gather_groups: Default::default(),
        }
    }

    /// Loads the entry point's arguments: buffers (with their fields), parameters and the
    /// user context.
    fn bind_arguments(&mut self, signature: &Signature) -> Result<()> {
        let args = self
            .f
            .function
            .get_nth_param(0)
            .expect("internal error: the entry function takes its arguments")
            .into_pointer_value();
        let ptr = self.ctx.ptr_type(AddressSpace::default());
        let i32t = self.ctx.i32_type();
        let arg = |cg: &Self, i: usize, what: &str| -> PointerValue<'ctx> {
            let slot = cg.element_ptr(ptr.into(), args, i as i64);
            cg.builder
                .build_load(ptr, slot, what)
                .built()
                .into_pointer_value()
        };
        let buffer_ty = self.ctx.struct_type(
            &[
                ptr.into(),
                self.ctx.i8_type().into(),
                self.ctx.i8_type().into(),
                i32t.into(),
                ptr.into(),
            ],
            false,
        );
        let dim_ty = self
            .ctx
            .struct_type(&[i32t.into(), i32t.into(), i32t.into()], false);
        for (i, b) in signature.buffers().enumerate() {
            let abi = arg(self, i, b.name.as_str());
            let field = |cg: &Self, index: u32, ty: inkwell::types::BasicTypeEnum<'ctx>| {
                let p = cg
                    .builder
                    .build_struct_gep(buffer_ty, abi, index, "")
                    .built();
                cg.builder.build_load(ty, p, "").built()
            };
            let host = field(self, 0, ptr.into()).into_pointer_value();
            let dims = field(self, 4, ptr.into()).into_pointer_value();
            for d in 0..b.dims {
                let dim = self.element_ptr(dim_ty.into(), dims, d as i64);
                for (k, field_name) in ["min", "extent", "stride"].iter().enumerate() {
                    let p = self
                        .builder
                        .build_struct_gep(dim_ty, dim, k as u32, "")
                        .built();
                    let name = crate::lang::image_param::buffer_field(b.name, field_name, d);
                    let v = self.builder.build_load(i32t, p, name.as_str()).built();
                    self.f.names.push((name, v.into()));
                }
            }
            let valid = self
                .target
                .bounds_checks
                .then(|| self.buffer_span(b.name, b.dims));
            self.f.buffers.push((
                b.name,
                Storage {
                    base: host,
                    elem: b.ty,
                    entries: None,
                    valid,
                    nontemporal: b.nontemporal,
                },
            ));
        }
        let first_param = signature.outputs.len() + signature.images.len();
        for (i, p) in signature.params.iter().enumerate() {
            let at = arg(self, first_param + i, p.name.as_str());
            let stored = self
                .builder
                .build_load(self.storage_type(p.ty), at, p.name.as_str())
                .built();
            let v = self.loaded_value(stored, p.ty);
            self.f.names.push((p.name, v.into()));
        }
        self.f.user_context = arg(self, signature.argument_count() - 1, "user_context");
        Ok(())
    }

    /// Creates `function`'s entry block and makes it the function being generated; returns
    /// the previous state, for `end_function`.
    fn begin_function(
        &mut self,
        function: FunctionValue<'ctx>,
    ) -> (FunctionState<'ctx>, Option<BasicBlock<'ctx>>) {
        let saved_block = self.builder.get_insert_block();
        let entry = self.ctx.append_basic_block(function, "entry");
        self.builder.position_at_end(entry);
        let state = FunctionState::new(function, entry, self.ctx);
        (std::mem::replace(&mut self.f, state), saved_block)
    }

    /// Returns to the function `begin_function` left.
    fn end_function(&mut self, saved: (FunctionState<'ctx>, Option<BasicBlock<'ctx>>)) {
        self.f = saved.0;
        if let Some(block) = saved.1 {
            self.builder.position_at_end(block);
        }
    }

    /// A new function of the module with the target's attributes.
    fn add_function(
        &self,
        name: &str,
        ty: inkwell::types::FunctionType<'ctx>,
    ) -> FunctionValue<'ctx> {
        let f = self.module.add_function(name, ty, Some(Linkage::Internal));
        set_target_attributes(self.ctx, f, &self.target);
        f
    }

    /// The value of `name` (innermost binding).
    fn lookup(&self, name: Symbol) -> Result<BasicValueEnum<'ctx>> {
        self.binding(name).map(|b| b.value)
    }

    /// The innermost binding of `name`.
    fn binding(&self, name: Symbol) -> Result<Binding<'ctx>> {
        self.f
            .names
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, b)| *b)
            .ok_or_else(|| {
                Error::Codegen(format!(
                    "{name} is not defined here (not a loop variable, let, parameter or buffer field)"
                ))
            })
    }

    /// The storage of buffer `name` (innermost binding).
    fn storage(&self, name: Symbol) -> Result<Storage<'ctx>> {
        self.f
            .buffers
            .iter()
            .rev()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| *s)
            .ok_or_else(|| {
                Error::Codegen(format!(
                    "buffer {name} is neither allocated here nor an argument of the pipeline"
                ))
            })
    }

    /// Runs `f` with `name` bound to `value`.
    fn with_name<T>(
        &mut self,
        name: Symbol,
        value: impl Into<Binding<'ctx>>,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        self.f.names.push((name, value.into()));
        let result = f(self);
        self.f.names.pop();
        result
    }

    /// An alloca of `ty` in the current function's entry block (so it is allocated once per
    /// call, wherever it is used).
    /// `align` raises the alignment above the type's own (never below it: stores into the
    /// slot assume the type's alignment).
    fn entry_alloca(
        &self,
        ty: impl BasicType<'ctx>,
        align: Option<u32>,
        name: &str,
    ) -> PointerValue<'ctx> {
        let b = self.ctx.create_builder();
        match self.f.entry.get_first_instruction() {
            Some(first) => b.position_before(&first),
            None => b.position_at_end(self.f.entry),
        }
        let slot = b.build_alloca(ty, name).built();
        if let Some(align) = align {
            let alloca = slot
                .as_instruction()
                .expect("internal error: an alloca is an instruction");
            let natural = alloca.get_alignment().unwrap_or(1);
            alloca
                .set_alignment(align.max(natural))
                .expect("internal error: alloca alignment is a power of two");
        }
        slot
    }
}
