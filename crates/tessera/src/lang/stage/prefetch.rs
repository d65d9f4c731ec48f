//! `Func::prefetch` (Halide's): the directive asking for a producer's region to be brought
//! into the caches ahead of its use, and what can be prefetched ([`Prefetchable`]: a Func or
//! an input image). Lowering (`lower::prefetch`) places it and checks the loops it names.

use super::DimName;
use crate::ir::function::FuncId;
use crate::ir::Symbol;
use crate::lang::func::Func;
use crate::lang::image_param::ImageParam;
use crate::lang::schedule::{PrefetchBoundStrategy, PrefetchDirective};

/// What `Func::prefetch` can prefetch: a Func or an input image.
pub trait Prefetchable {
    /// Its name, and its identity when it is a Func.
    fn prefetched(&self) -> (Symbol, Option<FuncId>);
}

impl Prefetchable for Func {
    fn prefetched(&self) -> (Symbol, Option<FuncId>) {
        (self.name(), Some(self.function().id()))
    }
}

impl Prefetchable for ImageParam {
    fn prefetched(&self) -> (Symbol, Option<FuncId>) {
        (self.name(), None)
    }
}

impl Func {
    /// At the top of each iteration of this Func's loop `at` (of its pure definition),
    /// prefetches the region of `producer` that the iteration `offset` iterations ahead along
    /// loop `from` will read; `from` is `at` or a loop outside it. `strategy` says what
    /// happens to the part of that region outside the producer's buffer. Results are
    /// unchanged. Lowering reports, naming this Func and the loop, an `at` or `from` that is
    /// not one of its loops, a `from` inside `at`, and a producer this Func does not read.
    pub fn prefetch(
        &self,
        producer: &impl Prefetchable,
        at: impl Into<DimName>,
        from: impl Into<DimName>,
        offset: i32,
        strategy: PrefetchBoundStrategy,
    ) -> &Func {
        let (name, id) = producer.prefetched();
        let directive = PrefetchDirective {
            producer: name,
            producer_id: id,
            at: at.into().0,
            from: from.into().0,
            offset,
            strategy,
        };
        self.function().write().schedule.prefetches.push(directive);
        self
    }
}
