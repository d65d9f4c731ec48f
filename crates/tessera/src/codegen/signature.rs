//! `Signature`: what a compiled pipeline takes — its output buffers, input image buffers and
//! scalar parameters, each with its type — and so the layout of the generated entry point's
//! argument array (see `codegen::llvm`).

use crate::ir::{Symbol, Type};

/// A buffer argument: an output or an input image.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BufferArgument {
    pub name: Symbol,
    /// The element type (scalar).
    pub ty: Type,
    pub dims: usize,
    /// Stores of whole vectors bypass the caches (`Func::store_nontemporal`; outputs only).
    pub nontemporal: bool,
}

/// A scalar parameter.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ScalarArgument {
    pub name: Symbol,
    pub ty: Type,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Signature {
    pub outputs: Vec<BufferArgument>,
    pub images: Vec<BufferArgument>,
    pub params: Vec<ScalarArgument>,
}

impl Signature {
    /// The buffer arguments in argument order: outputs, then images.
    pub fn buffers(&self) -> impl Iterator<Item = &BufferArgument> {
        self.outputs.iter().chain(&self.images)
    }

    /// The length of the entry point's argument array: every buffer and parameter, plus the
    /// user context pointer last.
    pub fn argument_count(&self) -> usize {
        self.outputs.len() + self.images.len() + self.params.len() + 1
    }
}
