//! The optimization pipeline run on generated modules: a short function pipeline (promote
//! closures and message arrays to registers; share repeated loads and computations, over
//! MemorySSA so that a load is reused across stores the TBAA tags say write other buffers
//! however long the block is — GVN's dependence scan gives up after 100 instructions; combine
//! instructions, simplify control flow, reassociate integer sums so that the loop-invariant
//! terms of an address (row and channel offsets) group together and are hoisted — unsharp's
//! seven-row blur loop drops from 30 to 18 instructions —, rotate loops into bottom-tested form
//! — which is what lets the register allocator keep a loop's invariant pointers in registers
//! instead of reloading them every iteration — number values, hoist loop invariants) instead of
//! `default<O3>`, which costs tens of milliseconds and re-vectorizes code that is already
//! vectorized. Instruction selection (in the JIT or the target machine) still strength-reduces
//! loop addressing.

use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::TargetMachine;

use crate::error::{Error, Result};

const PIPELINE: &str =
    "function(sroa,early-cse<memssa>,instcombine<no-verify-fixpoint>,simplifycfg,reassociate,\
loop(loop-rotate),loop-mssa(licm),gvn,instcombine<no-verify-fixpoint>,simplifycfg,dce)";

pub(super) fn optimize(module: &Module<'_>, machine: &TargetMachine) -> Result<()> {
    let options = PassBuilderOptions::create();
    module
        .run_passes(PIPELINE, machine, options)
        .map_err(|e| Error::Codegen(format!("internal error: LLVM passes failed: {e}")))
}
