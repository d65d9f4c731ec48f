//! The order of the instructions within each basic block, set after optimization: every
//! instruction as late as the instructions that need it allow ("as late as possible"), which
//! keeps the live ranges of values short.
//!
//! Why: LLVM's x86 instruction selection keeps the IR's order ("source" scheduling) and its
//! machine scheduler only trims register pressure locally, so the order the statement was
//! generated in decides what the register allocator faces. That order evaluates one whole
//! expression after another. When several expressions share loaded values — harris's output
//! evaluates three 9-term window sums (of `Ix·Ix`, `Iy·Iy` and `Ix·Iy`) over the same 18
//! loaded vectors — every vector the first sum loads stays live across the second until the
//! third uses it: 18 AVX2 registers of `Ix` alone at 16 lanes, so the loop spilled 25 vectors
//! and reloaded them every iteration. As late as possible, the three sums advance term by term
//! (each loaded vector is used by its three products right away) and nothing spills.
//!
//! As late as possible is not always better: an instruction whose only use is near the end
//! (a store's value computed from values loaded early) keeps its operands live until it
//! runs. So a part of a block is reordered only when the new order needs fewer vector
//! registers at its peak: the most bits of vector values live at once, counting a value live
//! from its definition to its last use in the part, or to the part's end if it is used
//! elsewhere.
//!
//! Only the order changes: each instruction still follows the instructions whose values it
//! uses, and the memory accesses keep their order where it matters (a load stays between the
//! stores around it, a store after the loads and stores before it; loads may pass loads).
//! Anything else with effects — calls that may write memory, atomics, fences, volatile
//! accesses, allocas — stays in place and splits the block into parts ordered separately.

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::llvm_sys::core::{LLVMGetFirstUse, LLVMGetNextUse, LLVMGetOperand, LLVMGetUser};
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::module::Module;
use inkwell::targets::TargetData;
use inkwell::types::AnyTypeEnum;
use inkwell::values::{AsValueRef, CallSiteValue, InstructionOpcode, InstructionValue};
use rustc_hash::FxHashMap;

/// Orders the instructions of every block of `module`'s functions as late as possible where
/// that lowers the peak vector register pressure; `data` gives the sizes of types.
pub(super) fn order_instructions_late(module: &Module<'_>, data: &TargetData) {
    let builder = module.get_context().create_builder();
    for function in module.get_functions() {
        for block in function.get_basic_blocks() {
            for part in parts(block) {
                order_part(&builder, &part, data);
            }
        }
    }
}

/// What an instruction does to memory, as far as reordering it goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Effect {
    /// Computes a value from its operands only.
    None,
    /// Reads memory (a load, or a call that only reads).
    Reads,
    /// Writes memory (a plain store).
    Writes,
    /// Anything else (a call that may write, an atomic, a fence, a volatile access, an
    /// alloca): nothing moves across it.
    Fixed,
}

/// A stretch of a block between fixed instructions: the instructions that may be reordered,
/// and the instruction they must all precede (a fixed instruction or the terminator).
struct Part<'ctx> {
    instructions: Vec<InstructionValue<'ctx>>,
    before: InstructionValue<'ctx>,
}

/// The parts of `block`: its instructions after the phis, split at the fixed ones, up to its
/// terminator.
fn parts(block: BasicBlock<'_>) -> Vec<Part<'_>> {
    let mut parts = Vec::new();
    let mut current = Vec::new();
    for instruction in block.get_instructions() {
        if instruction.get_opcode() == InstructionOpcode::Phi {
            continue;
        }
        if instruction.is_terminator() || effect(instruction) == Effect::Fixed {
            parts.push(Part {
                instructions: std::mem::take(&mut current),
                before: instruction,
            });
        } else {
            current.push(instruction);
        }
    }
    parts
}

fn effect(instruction: InstructionValue<'_>) -> Effect {
    let plain = |effect| {
        let volatile = instruction.get_volatile().unwrap_or(true);
        let atomic = !matches!(
            instruction.get_atomic_ordering(),
            Ok(inkwell::AtomicOrdering::NotAtomic)
        );
        if volatile || atomic {
            Effect::Fixed
        } else {
            effect
        }
    };
    match instruction.get_opcode() {
        InstructionOpcode::Load => plain(Effect::Reads),
        InstructionOpcode::Store => plain(Effect::Writes),
        InstructionOpcode::Call => call_effect(instruction),
        InstructionOpcode::Alloca
        | InstructionOpcode::AtomicRMW
        | InstructionOpcode::AtomicCmpXchg
        | InstructionOpcode::Fence
        | InstructionOpcode::VAArg
        | InstructionOpcode::Invoke
        | InstructionOpcode::CallBr
        | InstructionOpcode::LandingPad
        | InstructionOpcode::CatchPad
        | InstructionOpcode::CleanupPad => Effect::Fixed,
        _ => Effect::None,
    }
}

/// A call's effect from its callee's `memory` attribute (LLVM gives every intrinsic one):
/// none, read-only, or else fixed.
fn call_effect(call: InstructionValue<'_>) -> Effect {
    let memory = CallSiteValue::try_from(call)
        .ok()
        .and_then(|call| call.get_called_fn_value())
        .and_then(|callee| {
            callee.get_enum_attribute(
                AttributeLoc::Function,
                Attribute::get_named_enum_kind_id("memory"),
            )
        })
        .map(|attribute| attribute.get_enum_value());
    // The attribute holds two bits per kind of memory (argument, inaccessible, other): 1
    // reads, 2 writes.
    const WRITES: u64 = 0b10_10_10;
    match memory {
        Some(0) => Effect::None,
        Some(bits) if bits & WRITES == 0 => Effect::Reads,
        _ => Effect::Fixed,
    }
}

/// Moves the instructions of `part` into as-late-as-possible order, just before the
/// instruction that ends the part, if that order needs fewer vector registers at its peak.
fn order_part<'ctx>(builder: &Builder<'ctx>, part: &Part<'ctx>, data: &TargetData) {
    let index: FxHashMap<LLVMValueRef, usize> = part
        .instructions
        .iter()
        .enumerate()
        .map(|(k, i)| (i.as_value_ref(), k))
        .collect();
    let dependents = dependents(&part.instructions, &index);
    let order = late_order(&dependents);
    if order.iter().enumerate().all(|(i, &k)| i == k) {
        return;
    }
    let lives = lives(&part.instructions, &index, data);
    let original: Vec<usize> = (0..part.instructions.len()).collect();
    if peak_vector_bits(&order, &lives) >= peak_vector_bits(&original, &lives) {
        return;
    }
    builder.position_before(&part.before);
    for k in order {
        let instruction = part.instructions[k];
        instruction.remove_from_basic_block();
        builder.insert_instruction(&instruction, None);
    }
}

/// The indices of a part's instructions (in their block's order, each with its `dependents`)
/// sorted as late as possible: by
/// decreasing length of the longest chain of dependences from the instruction to the end of
/// the part, ties in the original order. An instruction's chain is longer than any of its
/// dependents', so it still comes before them.
fn late_order(dependents: &[Vec<usize>]) -> Vec<usize> {
    let mut depth = vec![0usize; dependents.len()];
    // Dependences point forwards, so every dependent's depth is known when it is needed.
    for k in (0..dependents.len()).rev() {
        depth[k] = dependents[k]
            .iter()
            .map(|&d| depth[d] + 1)
            .max()
            .unwrap_or(0);
    }
    let mut order: Vec<usize> = (0..dependents.len()).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(depth[k]));
    order
}

/// For each instruction, the later instructions of the part that must stay after it: the
/// users of its value and the memory accesses ordered after it.
fn dependents(
    instructions: &[InstructionValue<'_>],
    index: &FxHashMap<LLVMValueRef, usize>,
) -> Vec<Vec<usize>> {
    let mut dependents = vec![Vec::new(); instructions.len()];
    let mut last_write: Option<usize> = None;
    let mut reads_since_write: Vec<usize> = Vec::new();
    for (k, &instruction) in instructions.iter().enumerate() {
        for operand in 0..instruction.get_num_operands() {
            // SAFETY: `operand` is below the instruction's operand count.
            let value = unsafe { LLVMGetOperand(instruction.as_value_ref(), operand) };
            if let Some(&def) = index.get(&value) {
                dependents[def].push(k);
            }
        }
        match effect(instruction) {
            Effect::Reads => {
                dependents_of(&mut dependents, last_write, k);
                reads_since_write.push(k);
            }
            Effect::Writes => {
                dependents_of(&mut dependents, last_write, k);
                for read in reads_since_write.drain(..) {
                    dependents[read].push(k);
                }
                last_write = Some(k);
            }
            Effect::None | Effect::Fixed => {}
        }
    }
    dependents
}

fn dependents_of(dependents: &mut [Vec<usize>], of: Option<usize>, k: usize) {
    if let Some(of) = of {
        dependents[of].push(k);
    }
}

/// What the register pressure of a vector value depends on: its size, and the instructions
/// of the part that use it.
struct Life {
    bits: u64,
    users: Vec<usize>,
    /// Whether it is used outside the part (so live to the part's end).
    escapes: bool,
}

/// The life of each instruction's value (0 bits for a scalar or no value).
fn lives(
    instructions: &[InstructionValue<'_>],
    index: &FxHashMap<LLVMValueRef, usize>,
    data: &TargetData,
) -> Vec<Life> {
    instructions
        .iter()
        .map(|&instruction| {
            let bits = match instruction.get_type() {
                AnyTypeEnum::VectorType(ty) => data.get_bit_size(&ty),
                _ => 0,
            };
            let mut users = Vec::new();
            let mut escapes = false;
            if bits > 0 {
                // SAFETY: the use list of a live instruction, walked to its end.
                let mut at = unsafe { LLVMGetFirstUse(instruction.as_value_ref()) };
                while !at.is_null() {
                    // SAFETY: `at` is a use of the instruction, non-null.
                    let user = unsafe { LLVMGetUser(at) };
                    match index.get(&user) {
                        Some(&k) => users.push(k),
                        None => escapes = true,
                    }
                    // SAFETY: as above.
                    at = unsafe { LLVMGetNextUse(at) };
                }
            }
            Life {
                bits,
                users,
                escapes,
            }
        })
        .collect()
}

/// The most bits of vector values live at once when the part runs in `order`.
fn peak_vector_bits(order: &[usize], lives: &[Life]) -> u64 {
    let mut position = vec![0usize; order.len()];
    for (p, &k) in order.iter().enumerate() {
        position[k] = p;
    }
    // Bits that become live at, and stop being live after, each position.
    let mut change = vec![0i64; order.len() + 1];
    for (k, life) in lives.iter().enumerate().filter(|(_, l)| l.bits > 0) {
        let end = if life.escapes {
            order.len()
        } else {
            life.users
                .iter()
                .map(|&u| position[u])
                .max()
                .unwrap_or(position[k])
                + 1
        };
        change[position[k]] += life.bits as i64;
        change[end] -= life.bits as i64;
    }
    let mut live = 0i64;
    let mut peak = 0i64;
    for delta in change {
        live += delta;
        peak = peak.max(live);
    }
    peak as u64
}
