//! The schedule as plain data, now in the IR (`ir::schedule`, as Halide keeps its `Schedule`
//! internal); re-exported here so that paths under `lang::schedule` keep working.

pub(crate) use crate::ir::schedule::missing_update;
pub use crate::ir::schedule::{
    describe_dims, find_dim, Bound, BoundAlignment, ExtentBound, FuncSchedule, FusedLoops, LoopDim,
    LoopLevel, Memoize, PrefetchBoundStrategy, PrefetchDirective, Specialization, SplitDirective,
    StageSchedule, StorageAlignment, StorageFold, TailStrategy, OUTERMOST,
};
