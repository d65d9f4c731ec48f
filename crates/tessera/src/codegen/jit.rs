//! In-process compilation: `compile_jit` turns a lowered statement into machine code (LLVM's
//! MCJIT, with the runtime and libm functions mapped by name), and `CompiledPipeline` runs it
//! on buffers — on a rayon pool, from any number of threads at once. Compiled code is cached
//! per process (`JitCache`), so compiling the same pipeline again does not run LLVM again.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use inkwell::context::Context;
use inkwell::execution_engine::ExecutionEngine;

use super::llvm;
use super::signature::{BufferArgument, Signature};
use super::target::Target;
use crate::error::{Error, Result};
use crate::eval::print::PrintHandler;
use crate::ir::visit::any_stmt;
use crate::ir::{ForKind, Stmt, StmtKind, Symbol};
use crate::lang::buffer::{dims_alias, AnyBuffer};
use crate::lang::param::ParamBinding;
use crate::runtime;
use crate::runtime::buffer::BoundBuffer;
use crate::runtime::context::RunContext;
use crate::runtime::memo_cache::MemoCache;
use crate::runtime::memory::ScratchPool;

/// The name of the generated entry point in JIT modules.
const ENTRY: &str = "tessera_pipeline";

type EntryFn = unsafe extern "C" fn(args: *const *const c_void) -> i32;

/// The machine code of one module: its entry point and the LLVM objects owning it. The engine
/// borrows the context, so it is declared first and dropped first; the context is boxed so it
/// never moves. Shared (through the cache) by every pipeline compiled from the same key.
struct JitCode {
    entry: EntryFn,
    /// Milliseconds LLVM took to make it.
    llvm_ms: f64,
    _engine: ExecutionEngine<'static>,
    _context: Box<Context>,
}

// SAFETY: the engine and context are only touched when compiling (on one thread) and when
// dropped; running the code they own reads nothing of theirs.
unsafe impl Send for JitCode {}
unsafe impl Sync for JitCode {}

/// What compiled code is a function of, and so what the cache is keyed by: code generation
/// (`llvm::compile_module`) reads nothing but the flat statement, the signature and the target
/// (runtime functions are mapped to addresses fixed for the process). The statement is
/// compared structurally — every node, type, name and constant (floats by their bits) — so,
/// unlike a hash of its printed form (which leaves variables' types out), equal keys cannot
/// stand for different code; hashing is only the lookup. Symbols are interned per process,
/// as the cache is.
#[derive(PartialEq, Eq, Hash)]
struct CacheKey {
    stmt: Stmt,
    signature: Signature,
    target: Target,
}

/// Modules kept by the cache at most; the least recently used one is dropped first (pipelines
/// still using its code keep it alive).
const CACHE_CAPACITY: usize = 64;

/// The process-wide cache of compiled modules, with the time each was last used.
#[derive(Default)]
struct JitCache {
    entries: HashMap<CacheKey, (Arc<JitCode>, u64)>,
    clock: u64,
}

impl JitCache {
    fn get(&mut self, key: &CacheKey) -> Option<Arc<JitCode>> {
        self.clock += 1;
        let clock = self.clock;
        self.entries.get_mut(key).map(|(code, used)| {
            *used = clock;
            code.clone()
        })
    }

    fn insert(&mut self, key: CacheKey, code: Arc<JitCode>) {
        if self.entries.len() >= CACHE_CAPACITY {
            // Use times are distinct, so this drops exactly the least recently used entry.
            if let Some(oldest) = self.entries.values().map(|&(_, used)| used).min() {
                self.entries.retain(|_, (_, used)| *used != oldest);
            }
        }
        self.clock += 1;
        self.entries.insert(key, (code, self.clock));
    }
}

fn cache() -> std::sync::MutexGuard<'static, JitCache> {
    static CACHE: OnceLock<Mutex<JitCache>> = OnceLock::new();
    CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// A pipeline compiled to native code, ready to run many times.
pub struct CompiledPipeline {
    signature: Signature,
    compile_ms: f64,
    from_cache: bool,
    scratch: ScratchPool,
    /// `Func::memoize`'s cache: this compiled pipeline's own, kept across runs.
    memo_cache: MemoCache,
    /// The pool parallel loops run on (one worker per core unless `set_threads` chose).
    pool: Arc<rayon::ThreadPool>,
    code: Arc<JitCode>,
    /// Whether its indices are 64-bit (`Target::large_buffers`): buffers spanning more than
    /// 2^31 - 1 elements are accepted.
    large_buffers: bool,
    /// Whether it runs statements on several threads at once (a parallel loop or a fork), so
    /// that an output whose elements alias each other could be written from two at once.
    concurrent: bool,
}

impl std::fmt::Debug for CompiledPipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledPipeline")
            .field("signature", &self.signature)
            .field("compile_ms", &self.compile_ms)
            .field("from_cache", &self.from_cache)
            .field("threads", &self.threads())
            .finish_non_exhaustive()
    }
}

/// Compiles `stmt`, whose arguments `signature` describes, for `target` — or, when the same
/// statement, signature and target were compiled before in this process (and the cache still
/// holds them), returns that code without running LLVM (`CompiledPipeline::from_cache`).
///
/// # Safety
/// Running the compiled code executes `stmt` as it is: every load and store of `stmt` must
/// stay inside its allocation or buffer, as the statements lowering makes do (lowering sizes
/// allocations to what is accessed and asserts that the buffers given cover it), or `target`
/// must have `bounds_checks`, which checks every access; with `target.large_buffers`, the
/// statement must be lowered with `LowerOptions::large_buffers` (its indices 64-bit), since
/// buffers past 32-bit offsets are then accepted. `Pipeline::compile_jit` is the safe way in.
pub unsafe fn compile_jit(
    stmt: &Stmt,
    signature: &Signature,
    target: &Target,
) -> Result<CompiledPipeline> {
    let start = Instant::now();
    let key = CacheKey {
        stmt: stmt.clone(),
        signature: signature.clone(),
        target: target.clone(),
    };
    // LLVM runs outside the lock, so pipelines compile in parallel; two threads compiling the
    // same key at once both compile, and the cache keeps the later.
    let cached = cache().get(&key);
    let from_cache = cached.is_some();
    let code = match cached {
        Some(code) => code,
        None => {
            let code = Arc::new(compile_code(stmt, signature, target)?);
            cache().insert(key, code.clone());
            code
        }
    };
    Ok(CompiledPipeline {
        signature: signature.clone(),
        compile_ms: start.elapsed().as_secs_f64() * 1000.0,
        from_cache,
        scratch: ScratchPool::new(),
        memo_cache: MemoCache::default(),
        pool: runtime::parallel::shared_pool(0)?,
        code,
        large_buffers: target.large_buffers,
        concurrent: runs_concurrently(stmt),
    })
}

/// Whether `stmt` runs some of its statements on several threads at once.
fn runs_concurrently(stmt: &Stmt) -> bool {
    any_stmt(stmt, |s| {
        matches!(
            s.kind(),
            StmtKind::For {
                kind: ForKind::Parallel,
                ..
            } | StmtKind::Fork { .. }
        )
    })
}

/// Runs LLVM: the module, its optimization and its machine code.
fn compile_code(stmt: &Stmt, signature: &Signature, target: &Target) -> Result<JitCode> {
    let start = Instant::now();
    let context = Box::new(Context::create());
    // SAFETY: the context lives in `JitCode` next to the engine, which is dropped first; no
    // other borrow escapes this function.
    let ctx: &'static Context = unsafe { &*(context.as_ref() as *const Context) };
    let module = llvm::compile_module(ctx, stmt, signature, target, ENTRY)?;
    // Instruction selection at -O2 (unless `fast_compile`): -O3 costs more compile time for
    // no gain on code whose vectors and loops are already explicit.
    let engine = module
        .create_jit_execution_engine(target.machine_code_optimization())
        .map_err(|e| Error::Codegen(format!("cannot create the LLVM JIT: {e}")))?;
    for f in module
        .get_functions()
        .filter(|f| f.count_basic_blocks() == 0)
    {
        let name = f.get_name().to_string_lossy().into_owned();
        if name.starts_with("llvm.") {
            continue;
        }
        let address = resolve_symbol(&name).ok_or_else(|| {
            Error::Codegen(format!(
                "internal error: generated code calls unknown {name}"
            ))
        })?;
        engine.add_global_mapping(&f, address);
    }
    let address = engine
        .get_function_address(ENTRY)
        .map_err(|e| Error::Codegen(format!("the JIT did not produce the pipeline: {e}")))?;
    if std::env::var_os(PERF_MAP_VARIABLE).is_some() {
        write_perf_map(&module, &engine);
    }
    // SAFETY: the entry point has this signature (see `codegen::llvm`).
    let entry: EntryFn = unsafe { std::mem::transmute::<usize, EntryFn>(address) };
    Ok(JitCode {
        entry,
        llvm_ms: start.elapsed().as_secs_f64() * 1000.0,
        _engine: engine,
        _context: context,
    })
}

/// Set, this environment variable makes the JIT list the generated functions in
/// `/tmp/perf-PID.map`, where `perf report` finds their names (profiling aid).
const PERF_MAP_VARIABLE: &str = "TESSERA_PERF_MAP";

/// Appends the generated functions (the entry point and its parallel tasks) to perf's map of
/// JIT code for this process. A function's size is taken as the distance to the next one.
fn write_perf_map(module: &inkwell::module::Module<'_>, engine: &ExecutionEngine<'_>) {
    use std::io::Write as _;
    let mut functions: Vec<(usize, String)> = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .filter_map(|f| {
            let name = f.get_name().to_string_lossy().into_owned();
            let address = engine.get_function_address(&name).ok()?;
            Some((address, name))
        })
        .collect();
    functions.sort();
    let path = format!("/tmp/perf-{}.map", std::process::id());
    let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    else {
        return;
    };
    for (i, (address, name)) in functions.iter().enumerate() {
        let size = functions
            .get(i + 1)
            .map_or(1 << 16, |(next, _)| next - address);
        let _ = writeln!(file, "{address:x} {size:x} tessera::{name}");
    }
}

/// The address of a function generated code may call by name.
fn resolve_symbol(name: &str) -> Option<usize> {
    runtime::runtime_functions()
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, a)| a)
        .or_else(|| runtime::libm::address(name))
}

/// The argument array of one call, and what its pointers point to.
struct CallArguments {
    _buffers: Vec<BoundBuffer>,
    _params: Vec<u64>,
    pointers: Vec<*const c_void>,
}

/// Raw argument pointers handed to a worker thread of the pool.
struct SendPointers(*const *const c_void);
// SAFETY: the pointers stay valid for the whole run, which `run` waits for, and the buffers
// they point to are not otherwise touched meanwhile (outputs are borrowed mutably).
unsafe impl Send for SendPointers {}
unsafe impl Sync for SendPointers {}

impl CompiledPipeline {
    /// Milliseconds `compile_jit` took: code generation, optimization and machine code, or
    /// only the cache lookup when the code came from the cache.
    pub fn compile_ms(&self) -> f64 {
        self.compile_ms
    }

    /// Milliseconds LLVM took to make this code (when it was first compiled, for cached code).
    pub fn llvm_ms(&self) -> f64 {
        self.code.llvm_ms
    }

    /// Whether `compile_jit` found this code in the cache instead of running LLVM.
    pub fn from_cache(&self) -> bool {
        self.from_cache
    }

    pub fn signature(&self) -> &Signature {
        &self.signature
    }

    /// Runs parallel loops on `threads` workers (0: one per core, the default; at most
    /// `runtime::parallel::MAX_THREADS`). Pools are shared between pipelines asking for the
    /// same count, and released when none uses them.
    pub fn set_threads(&mut self, threads: usize) -> Result<()> {
        self.pool = runtime::parallel::shared_pool(threads)?;
        Ok(())
    }

    /// `Func::memoize`'s cache, which this pipeline's runs share.
    pub fn memo_cache(&self) -> &MemoCache {
        &self.memo_cache
    }

    /// The number of worker threads parallel loops run on.
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// Runs the pipeline: `outputs` in the Signature's order, images and parameters by name.
    /// An output whose elements alias each other (`lang::buffer::dims_alias`, e.g. a stride
    /// of 0) is refused when the pipeline runs on several threads at once, which could then
    /// write one element from two threads; a serial pipeline writes its elements in loop
    /// order, the last write to an element staying, as Halide does. Inputs may alias.
    pub fn run(
        &self,
        outputs: &mut [&mut AnyBuffer],
        images: &[(Symbol, &AnyBuffer)],
        params: &[ParamBinding],
    ) -> Result<()> {
        self.run_printing(outputs, images, params, &PrintHandler::default())
    }

    /// `run`, the lines its `print`s write sent to `print`.
    pub fn run_printing(
        &self,
        outputs: &mut [&mut AnyBuffer],
        images: &[(Symbol, &AnyBuffer)],
        params: &[ParamBinding],
        print: &PrintHandler,
    ) -> Result<()> {
        let args = self.arguments(outputs, images, params)?;
        let context =
            RunContext::new(&self.scratch, print.clone()).with_memo_cache(&self.memo_cache);
        let mut pointers = args.pointers.clone();
        pointers.push(&context as *const RunContext<'_> as *const c_void);
        let raw = SendPointers(pointers.as_ptr());
        let entry = self.code.entry;
        // SAFETY: the arguments match the signature, were checked against it, and outlive the
        // call; the context outlives it too.
        let call = move || {
            let raw = &raw;
            unsafe { entry(raw.0) }
        };
        let code = self.pool.install(call);
        if code == 0 {
            return Ok(());
        }
        Err(Error::Runtime(context.take_error().unwrap_or_else(|| {
            format!("the pipeline failed with code {code}")
        })))
    }

    fn arguments(
        &self,
        outputs: &mut [&mut AnyBuffer],
        images: &[(Symbol, &AnyBuffer)],
        params: &[ParamBinding],
    ) -> Result<CallArguments> {
        let sig = &self.signature;
        if outputs.len() != sig.outputs.len() {
            let names: Vec<&str> = sig.outputs.iter().map(|o| o.name.as_str()).collect();
            return Err(Error::Buffer(format!(
                "the pipeline writes {} output buffers ({}) but {} were given",
                sig.outputs.len(),
                names.join(", "),
                outputs.len()
            )));
        }
        let mut buffers = Vec::with_capacity(sig.outputs.len() + sig.images.len());
        for (arg, buffer) in sig.outputs.iter().zip(outputs.iter_mut()) {
            check_buffer("output", arg, buffer)?;
            if self.concurrent && dims_alias(buffer.dims()) {
                return Err(Error::Buffer(format!(
                    "output {} has dimensions {:?} whose elements overlap, and the pipeline writes it from several threads at once (a parallel loop or an async producer), which could race; give it one element per coordinate (strides at least the span of the dimensions inside them) or schedule it without parallel loops",
                    arg.name,
                    buffer.dims()
                )));
            }
            buffers.push(BoundBuffer::output(arg.name, buffer, self.large_buffers)?);
        }
        for arg in &sig.images {
            let (_, buffer) = images.iter().find(|(n, _)| *n == arg.name).ok_or_else(|| {
                Error::Buffer(format!(
                    "the pipeline reads image {} ({}, {} dimensions) but no buffer was given for it",
                    arg.name, arg.ty, arg.dims
                ))
            })?;
            check_buffer("image", arg, buffer)?;
            buffers.push(BoundBuffer::input(arg.name, buffer, self.large_buffers)?);
        }
        let mut values = Vec::with_capacity(sig.params.len());
        for p in &sig.params {
            let binding = params.iter().find(|b| b.name == p.name).ok_or_else(|| {
                Error::Buffer(format!(
                    "the pipeline uses parameter {} ({}) but no value was given for it",
                    p.name, p.ty
                ))
            })?;
            if binding.ty != p.ty {
                return Err(Error::Type(format!(
                    "parameter {} is {} but the value given is {}",
                    p.name, p.ty, binding.ty
                )));
            }
            // Little-endian: the low bytes of the u64 hold the value at any width.
            values.push(binding.value.to_bits());
        }
        let pointers = buffers
            .iter()
            .map(|b| b.abi() as *const _ as *const c_void)
            .chain(values.iter().map(|v| v as *const u64 as *const c_void))
            .collect();
        Ok(CallArguments {
            _buffers: buffers,
            _params: values,
            pointers,
        })
    }
}

fn check_buffer(role: &str, arg: &BufferArgument, buffer: &AnyBuffer) -> Result<()> {
    if buffer.ty() != arg.ty || buffer.dims().len() != arg.dims {
        return Err(Error::Buffer(format!(
            "{role} {} is {} with {} dimensions, but the buffer given holds {} with {} dimensions",
            arg.name,
            arg.ty,
            arg.dims,
            buffer.ty(),
            buffer.dims().len()
        )));
    }
    Ok(())
}
