//! Wrappers (Halide's `Func::in`): `f.in_(&g)` is a new Func equal to `f` that `g` reads
//! instead of `f`, so the copy of `f` that `g` consumes can be scheduled on its own — computed
//! at one of `g`'s loops and sliding down it, say — while `f` stays where it is for its other
//! consumers (inlined, typically). The wrapper is inlined until scheduled; either way every
//! value is `f`'s, so the results do not change.

use super::func::{calls_func, Func, Tuple};
use super::function::{redirect_func_calls, Definition, Function};
use crate::error::ScheduleError;
use crate::ir::{Expr, Symbol};

impl Func {
    /// The wrapper of this Func that `consumer` reads: `{f}_in_{consumer}(args) = f(args)`,
    /// with every call to this Func in `consumer`'s definitions (those it has and those it
    /// gets later) redirected to it. Asking again returns the same wrapper. A consumer that
    /// does not call this Func, or this Func itself, is a schedule error lowering reports
    /// (this Func is returned then, so chained directives still apply somewhere).
    pub fn in_(&self, consumer: &Func) -> Func {
        let (me, them) = (self.name(), consumer.name());
        if let Some(existing) = consumer.wrapper_of(me) {
            return Func::from_function(existing);
        }
        let problem = if !self.is_defined() {
            Some(format!(
                "{me} has no definition yet; define it before wrapping it"
            ))
        } else if consumer.function().same_as(self.function()) {
            Some(format!(
                "a Func cannot wrap itself; wrap {me} in one of the Funcs that call it"
            ))
        } else if !consumer.is_defined() {
            Some(format!(
                "{them} has no definition yet; define it before wrapping {me} in it"
            ))
        } else if !consumer
            .function()
            .definitions()
            .iter()
            .any(|d| d.exprs().any(|e| calls_func(e, self.function())))
        {
            Some(format!(
                "{them} does not call {me}, so there is nothing to wrap"
            ))
        } else {
            None
        };
        if let Some(msg) = problem {
            let message = format!("{me}.in_({them}): {msg}");
            let error = ScheduleError::of_directive(me, "in_", message);
            self.function().write().schedule.errors.push(error);
            return self.clone();
        }

        let wrapper = Func::new(&format!("{me}_in_{them}"));
        let args = self.args();
        wrapper
            .define(args.clone(), Tuple(self.tuple_at(args)))
            .expect("internal error: a Func's copy is a valid definition");
        let mut contents = consumer.function().write();
        contents.wrappers.push((me, wrapper.function().clone()));
        let contents = &mut *contents;
        let stages = contents.pure.iter_mut().chain(contents.updates.iter_mut());
        for definition in stages {
            redirect_definition(definition, &contents.wrappers);
        }
        wrapper
    }

    /// Undoes `self.in_(consumer)`: `consumer` reads this Func again, and the wrapper is
    /// left unused. The automatic scheduler wraps tentatively, to compare its plans with
    /// and without the wrapper.
    pub(crate) fn remove_wrapper(&self, consumer: &Func) {
        let mut contents = consumer.function().write();
        let Some(k) = (contents.wrappers.iter()).position(|(of, _)| *of == self.name()) else {
            return;
        };
        let (_, wrapper) = contents.wrappers.remove(k);
        let original = [(wrapper.name(), self.function().clone())];
        let contents = &mut *contents;
        for definition in contents.pure.iter_mut().chain(contents.updates.iter_mut()) {
            redirect_definition(definition, &original);
        }
    }

    /// The wrapper `in_` made of the Func named `f` for this Func, if any.
    fn wrapper_of(&self, f: Symbol) -> Option<Function> {
        let contents = self.function().read();
        let found = contents.wrappers.iter().find(|(of, _)| *of == f);
        found.map(|(_, wrapper)| wrapper.clone())
    }
}

/// `d` with its calls to each wrapped Func redirected to the wrapper.
pub(crate) fn redirect_definition(d: &mut Definition, wrappers: &[(Symbol, Function)]) {
    d.map_exprs(|e| redirect_calls(e, wrappers));
}

fn redirect_calls(e: &Expr, wrappers: &[(Symbol, Function)]) -> Expr {
    redirect_func_calls(e, &|link| {
        let (_, wrapper) = wrappers.iter().find(|(f, _)| *f == link.name())?;
        Some(wrapper.link())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::var::Var;

    #[test]
    fn removing_a_wrapper_makes_the_consumer_read_the_func_again() {
        let x = Var::new("x");
        let f = Func::new("f");
        f.define(x, x.expr() * 2).unwrap();
        let g = Func::new("g");
        g.define(x, f.at(x.expr()) + 1).unwrap();
        let wrapper = f.in_(&g);
        let reads = |h: &Func| {
            (g.function().definitions().iter())
                .any(|d| d.exprs().any(|e| calls_func(e, h.function())))
        };
        assert!(reads(&wrapper) && !reads(&f));
        f.remove_wrapper(&g);
        assert!(reads(&f) && !reads(&wrapper));
        assert!(g.wrapper_of(f.name()).is_none());
    }
}
