//! Native code generation: the `Target` machine description, the pipeline `Signature`, the
//! LLVM backend (`llvm`) that compiles a lowered `Stmt` to machine code, and its two products:
//! in-process JIT pipelines (`jit`) and object files with C headers for ahead-of-time use
//! (`aot`).

pub mod aot;
pub mod jit;
pub mod llvm;
pub mod signature;
pub mod target;

pub use aot::{c_header, emit_assembly, emit_llvm_ir, emit_object};
pub use jit::{compile_jit, CompiledPipeline};
pub use signature::{BufferArgument, ScalarArgument, Signature};
pub use target::Target;
