//! The shared contents behind a `Func` handle, now in the IR (`ir::function`, as Halide keeps
//! its `Function` internal); re-exported here so that paths under `lang::function` keep
//! working.

pub use crate::ir::function::{
    redirect_func_calls, Definition, FuncId, FuncLink, Function, FunctionContents,
};
