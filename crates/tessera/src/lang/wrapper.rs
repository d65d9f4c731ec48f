//! Wrappers (Halide's `Func::in`, `Func::clone_in` and `ImageParam::in`): `f.in_(&g)` is a
//! new Func equal to `f` that `g` reads instead of `f`, so the copy of `f` that `g` consumes
//! can be scheduled on its own — computed at one of `g`'s loops and sliding down it, say —
//! while `f` stays where it is for its other consumers (inlined, typically). `f.clone_in(&g)`
//! gives `g` a copy of `f`'s whole definition (updates and schedule too) instead, and
//! `input.in_(&g)` stages an input image into a Func `g` reads. Several consumers may share
//! one wrapper, and `in_all` makes the global wrapper every other consumer reads. A wrapper
//! is inlined until scheduled; either way every value is the wrapped one's, so the results do
//! not change.

use super::func::{Func, Tuple};
use super::function::{redirect_func_calls, Definition, FuncId, Function};
use super::image_param::ImageParam;
use super::naming::reachable_from;
use super::var::Var;
use crate::error::ScheduleError;
use crate::ir::function::{Wrapped, Wrapper};
use crate::ir::visit::{mutate_exprs, visit_exprs};
use crate::ir::{CallKind, Expr, ExprKind, Symbol};

/// The consumers a wrapper is made for: one Func (`&g`), or several sharing one wrapper
/// (`&[&g1, &g2]`, as Halide's `f.in({g1, g2})`).
pub trait Consumers {
    /// The consumers, in the order given.
    fn into_funcs(self) -> Vec<Func>;
}

impl Consumers for &Func {
    fn into_funcs(self) -> Vec<Func> {
        vec![self.clone()]
    }
}

impl Consumers for &[&Func] {
    fn into_funcs(self) -> Vec<Func> {
        self.iter().map(|&f| f.clone()).collect()
    }
}

impl<const N: usize> Consumers for &[&Func; N] {
    fn into_funcs(self) -> Vec<Func> {
        self.as_slice().into_funcs()
    }
}

impl Consumers for &[Func] {
    fn into_funcs(self) -> Vec<Func> {
        self.to_vec()
    }
}

/// One request for a wrapper: of what, for which consumers, by which directive.
struct Request {
    of: Wrapped,
    name: Symbol,
    directive: &'static str,
    is_clone: bool,
    consumers: Vec<Func>,
}

impl Request {
    /// The consumers' names, joined by `separator`.
    fn consumer_names(&self, separator: &str) -> String {
        let names: Vec<String> = (self.consumers.iter())
            .map(|c| c.name().to_string())
            .collect();
        names.join(separator)
    }

    /// `f.in_(g1, g2)` as written, for messages.
    fn call(&self) -> String {
        let consumers = self.consumer_names(", ");
        format!("{}.{}({consumers})", self.name, self.directive)
    }

    /// The new wrapper's name: `f_in_g`, `f_clone_in_g1_g2`.
    fn wrapper_name(&self) -> String {
        let kind = if self.is_clone { "clone_in" } else { "in" };
        format!("{}_{kind}_{}", self.name, self.consumer_names("_"))
    }

    /// The wrapper the consumers already share for this request, `None` if they have none
    /// yet, or what is wrong with the request.
    fn existing(&self) -> Result<Option<Func>, String> {
        let me = self.name;
        let Some(first) = self.consumers.first() else {
            return Err(format!("no consumer given; name the Funcs that read {me}"));
        };
        let existing = |c: &Func| {
            let contents = c.function().read();
            let found = contents.wrappers.iter().find(|w| w.of.same_as(&self.of));
            found.cloned()
        };
        if let Some(w) = existing(first) {
            let shared =
                (self.consumers.iter()).all(|c| existing(c).is_some_and(|v| v.by.same_as(&w.by)));
            if shared && w.is_clone == self.is_clone {
                return Ok(Some(Func::from_function(w.by)));
            }
        }
        for c in &self.consumers {
            if let Some(w) = existing(c) {
                return Err(format!(
                    "{} already reads {}, a {} of {me}; ask for the same consumers again to get it",
                    c.name(),
                    w.by.name(),
                    if w.is_clone { "clone" } else { "wrapper" },
                ));
            }
        }
        for c in &self.consumers {
            let them = c.name();
            if matches!(&self.of, Wrapped::Func(f) if f.same_as(c.function())) {
                return Err(format!(
                    "a Func cannot wrap itself; wrap {me} in one of the Funcs that call it"
                ));
            }
            if !c.is_defined() {
                return Err(format!(
                    "{them} has no definition yet; define it before wrapping {me} in it"
                ));
            }
            let calls = (c.function().definitions().iter())
                .any(|d| d.exprs().any(|e| calls_wrapped(e, &self.of)));
            if !calls {
                return Err(format!(
                    "{them} does not call {me}, so there is nothing to wrap"
                ));
            }
        }
        Ok(None)
    }

    /// Makes every consumer read `wrapper` instead, in the definitions it has and those it
    /// gets later.
    fn attach(&self, wrapper: &Func) {
        for c in &self.consumers {
            let mut contents = c.function().write();
            contents.wrappers.push(Wrapper {
                of: self.of.clone(),
                by: wrapper.function().clone(),
                is_clone: self.is_clone,
            });
            let contents = &mut *contents;
            let stages = contents.pure.iter_mut().chain(contents.updates.iter_mut());
            for definition in stages {
                redirect_definition(definition, &contents.wrappers);
            }
        }
    }
}

impl Func {
    /// The wrapper of this Func that `consumers` read: `{f}_in_{consumer}(args) = f(args)`,
    /// with every call to this Func in the consumers' definitions (those they have and those
    /// they get later) redirected to it. Several consumers (`&[&g1, &g2]`) share one wrapper.
    /// Asking again for the same consumers, in any order, returns the same wrapper. A
    /// consumer that does not call this Func, or this Func itself, or one that already reads
    /// another wrapper of it, is a schedule error lowering reports (this Func is returned
    /// then, so chained directives still apply somewhere).
    pub fn in_(&self, consumers: impl Consumers) -> Func {
        self.wrap_in(consumers.into_funcs(), false, |name| self.reader(name))
    }

    /// A copy of this Func's whole definition — pure definition, updates and schedule as they
    /// are now — that `consumers` read instead of this Func (Halide's `clone_in`); its calls
    /// to itself call the copy. The copy is scheduled on its own from then on. Errors as
    /// `in_`'s.
    pub fn clone_in(&self, consumers: impl Consumers) -> Func {
        self.wrap_in(consumers.into_funcs(), true, |name| self.copy(name))
    }

    /// The global wrapper of this Func (Halide's `f.in()`): every Func that calls this one
    /// reads `{f}_global_wrapper` instead, except this Func's own wrappers (`in_`), which read
    /// it. Redirected when a pipeline is built, so consumers defined later read it too.
    pub fn in_all(&self) -> Func {
        if let Some(w) = self.function().read().global_wrapper.clone() {
            return Func::from_function(w);
        }
        let me = self.name();
        if !self.is_defined() {
            let message =
                format!("{me}.in_all(): {me} has no definition yet; define it before wrapping it");
            self.push_error("in_all", message);
            return self.clone();
        }
        let wrapper = self.reader(&format!("{me}_global_wrapper"));
        self.function().write().global_wrapper = Some(wrapper.function().clone());
        wrapper
    }

    fn wrap_in(
        &self,
        consumers: Vec<Func>,
        is_clone: bool,
        make: impl FnOnce(&str) -> Func,
    ) -> Func {
        let directive = if is_clone { "clone_in" } else { "in_" };
        let request = Request {
            of: Wrapped::Func(self.function().clone()),
            name: self.name(),
            directive,
            is_clone,
            consumers,
        };
        let problem = if self.is_defined() {
            request.existing()
        } else {
            let me = self.name();
            Err(format!(
                "{me} has no definition yet; define it before wrapping it"
            ))
        };
        match problem {
            Ok(Some(existing)) => existing,
            Ok(None) => {
                let wrapper = make(&request.wrapper_name());
                request.attach(&wrapper);
                wrapper
            }
            Err(msg) => {
                self.push_error(directive, format!("{}: {msg}", request.call()));
                self.clone()
            }
        }
    }

    fn push_error(&self, directive: &str, message: String) {
        let error = ScheduleError::of_directive(self.name(), directive, message);
        self.function().write().schedule.errors.push(error);
    }

    /// A new Func named `name` reading this one: `name(args) = self(args)`.
    fn reader(&self, name: &str) -> Func {
        let wrapper = Func::new(name);
        let args = self.args();
        wrapper
            .define(args.clone(), Tuple(self.tuple_at(args)))
            .expect("internal error: a Func's copy is a valid definition");
        wrapper
    }

    /// A new Func named `name` with this one's definitions and schedule, its calls to itself
    /// calling the copy.
    fn copy(&self, name: &str) -> Func {
        let copy = Func::new(name);
        let copy_link = copy.function().weak_link();
        let copy_id = copy.function().id();
        let me = self.function();
        let original = me.read();
        let self_calls =
            |e: &Expr| redirect_func_calls(e, &|link| link.calls(me).then(|| copy_link.clone()));
        let relink = |d: &Definition| {
            let mut d = d.clone();
            d.map_exprs(self_calls);
            d
        };
        let mut contents = copy.function().write();
        contents.args = original.args.clone();
        contents.output_types = original.output_types.clone();
        contents.pure = original.pure.as_ref().map(relink);
        contents.updates = original.updates.iter().map(relink).collect();
        contents.wrappers = original.wrappers.clone();
        contents.estimates = original.estimates.clone();
        contents.schedule = original.schedule.clone();
        // Stages of the Func fused with one another are stages of the copy.
        for fused in &mut contents.schedule.compute_with {
            if fused.with_id == original.id {
                (fused.with, fused.with_id) = (Symbol::new(name), copy_id);
            }
        }
        drop(contents);
        copy
    }

    /// Undoes `self.in_(consumer)`: `consumer` reads this Func again, and the wrapper is
    /// left unused. The automatic scheduler wraps tentatively, to compare its plans with
    /// and without the wrapper.
    pub(crate) fn remove_wrapper(&self, consumer: &Func) {
        let mut contents = consumer.function().write();
        let me = Wrapped::Func(self.function().clone());
        let Some(k) = (contents.wrappers.iter()).position(|w| w.of.same_as(&me)) else {
            return;
        };
        let wrapper = contents.wrappers.remove(k);
        let original = [Wrapper {
            of: Wrapped::Func(wrapper.by),
            by: self.function().clone(),
            is_clone: false,
        }];
        let contents = &mut *contents;
        for definition in contents.pure.iter_mut().chain(contents.updates.iter_mut()) {
            redirect_definition(definition, &original);
        }
    }
}

impl ImageParam {
    /// The wrapper of this input that `consumers` read (Halide's `ImageParam::in`):
    /// `{input}_in_{consumer}(_0, _1, ..) = input(_0, _1, ..)`, a Func that can be scheduled
    /// (computed at a loop of the consumer, vectorized, ...) to stage the input. As
    /// `Func::in_`: several consumers share one wrapper, asking again returns it, and a
    /// consumer that does not read this input is a schedule error lowering reports (on the
    /// consumer; the wrapper returned then is read by nothing).
    pub fn in_(&self, consumers: impl Consumers) -> Func {
        let request = Request {
            of: Wrapped::Image(self.id()),
            name: self.name(),
            directive: "in_",
            is_clone: false,
            consumers: consumers.into_funcs(),
        };
        match request.existing() {
            Ok(Some(existing)) => existing,
            Ok(None) => {
                let wrapper = self.reader(&request.wrapper_name());
                request.attach(&wrapper);
                wrapper
            }
            Err(msg) => {
                let message = format!("{}: {msg}", request.call());
                for c in &request.consumers {
                    c.push_error("in_", message.clone());
                }
                self.reader(&request.wrapper_name())
            }
        }
    }

    /// The global wrapper of this input (Halide's `ImageParam::in()`): every Func reading it
    /// reads `{input}_global_wrapper` instead, except its own wrappers (`in_`). Redirected when
    /// a pipeline is built, so consumers defined later read it too.
    pub fn in_all(&self) -> Func {
        let make = || {
            let wrapper = self.reader(&format!("{}_global_wrapper", self.name()));
            wrapper.function().clone()
        };
        Func::from_function(self.link().set_global_wrapper(make))
    }

    /// A new Func named `name` reading this input: `name(_0, _1, ..) = self(_0, _1, ..)`.
    fn reader(&self, name: &str) -> Func {
        let wrapper = Func::new(name);
        let args: Vec<Var> = (0..self.dimensions()).map(Var::implicit).collect();
        wrapper
            .define(args.clone(), self.at(args))
            .expect("internal error: an input's copy is a valid definition");
        wrapper
    }
}

/// Makes the Funcs reachable from `outputs` read the global wrappers (`in_all`) of the Funcs
/// and inputs they call, except in the wrappers themselves and in the wrapped one's own
/// wrappers (`in_`), which read the original. Repeated until nothing changes, as a global
/// wrapper newly reachable may call what has a global wrapper of its own.
pub fn redirect_to_global_wrappers(outputs: &[Function]) {
    loop {
        let funcs = reachable_from(outputs);
        let own_wrappers: Vec<(Wrapped, FuncId)> = (funcs.values())
            .flat_map(|f| f.read().wrappers.clone())
            .filter(|w| !w.is_clone)
            .map(|w| (w.of, w.by.id()))
            .collect();
        let mut changed = false;
        for f in funcs.values() {
            let reads_original =
                |of: &Wrapped| (own_wrappers.iter()).any(|(o, by)| *by == f.id() && o.same_as(of));
            let globals: Vec<Wrapper> = global_wrappers_called(f)
                .into_iter()
                .filter(|w| !w.by.same_as(f) && !reads_original(&w.of))
                .collect();
            if globals.is_empty() {
                continue;
            }
            changed = true;
            let (mut pure, mut updates) = {
                let contents = f.read();
                (contents.pure.clone(), contents.updates.clone())
            };
            for d in pure.iter_mut().chain(updates.iter_mut()) {
                redirect_definition(d, &globals);
            }
            let mut contents = f.write();
            contents.pure = pure;
            contents.updates = updates;
        }
        if !changed {
            return;
        }
    }
}

/// The global wrappers of what `f` calls (itself aside), each once.
fn global_wrappers_called(f: &Function) -> Vec<Wrapper> {
    let mut found: Vec<Wrapper> = Vec::new();
    for d in f.definitions() {
        for e in d.exprs() {
            visit_exprs(e, &mut |n| {
                let called = match n.kind() {
                    ExprKind::Call {
                        kind: CallKind::Func(link),
                        ..
                    } if !link.calls(f) => {
                        let callee = link.function();
                        let global = callee.read().global_wrapper.clone();
                        global.map(|by| (Wrapped::Func(callee), by))
                    }
                    ExprKind::Call {
                        kind: CallKind::Image(link),
                        ..
                    } => (link.global_wrapper()).map(|by| (Wrapped::Image(link.id()), by)),
                    _ => None,
                };
                if let Some((of, by)) = called {
                    if !found.iter().any(|w| w.of.same_as(&of)) {
                        found.push(Wrapper {
                            of,
                            by,
                            is_clone: false,
                        });
                    }
                }
                true
            });
        }
    }
    found
}

/// Whether `e` reads what `of` is.
fn calls_wrapped(e: &Expr, of: &Wrapped) -> bool {
    let mut found = false;
    visit_exprs(e, &mut |n| {
        found |= match (n.kind(), of) {
            (
                ExprKind::Call {
                    kind: CallKind::Func(link),
                    ..
                },
                Wrapped::Func(f),
            ) => link.calls(f),
            (
                ExprKind::Call {
                    kind: CallKind::Image(link),
                    ..
                },
                Wrapped::Image(id),
            ) => link.id() == *id,
            _ => false,
        };
        !found
    });
    found
}

/// `d` with its calls to each wrapped Func or input redirected to the wrapper.
pub(crate) fn redirect_definition(d: &mut Definition, wrappers: &[Wrapper]) {
    d.map_exprs(|e| redirect_calls(e, wrappers));
}

fn redirect_calls(e: &Expr, wrappers: &[Wrapper]) -> Expr {
    mutate_exprs(e, &mut |n| {
        let ExprKind::Call {
            kind,
            args,
            value_index,
            ..
        } = n.kind()
        else {
            return None;
        };
        let wrapper = wrappers.iter().find(|w| match (kind, &w.of) {
            (CallKind::Func(link), Wrapped::Func(f)) => link.calls(f),
            (CallKind::Image(link), Wrapped::Image(id)) => link.id() == *id,
            _ => false,
        })?;
        let to = wrapper.by.link();
        Some(Expr::new(
            n.ty(),
            ExprKind::Call {
                name: to.name(),
                kind: CallKind::Func(to),
                args: args.iter().map(|a| redirect_calls(a, wrappers)).collect(),
                value_index: *value_index,
            },
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Type;

    /// Whether any definition of `consumer` reads `f`.
    fn reads(consumer: &Func, f: &Func) -> bool {
        let of = Wrapped::Func(f.function().clone());
        (consumer.function().definitions().iter()).any(|d| d.exprs().any(|e| calls_wrapped(e, &of)))
    }

    fn errors(f: &Func) -> Vec<String> {
        let contents = f.function().read();
        contents
            .schedule
            .errors
            .iter()
            .map(|e| e.message.clone())
            .collect()
    }

    /// `f(x) = x`, and consumers `g{i}(x) = f(x) + i` for each name given.
    fn f_and_consumers(names: &[&str]) -> (Var, Func, Vec<Func>) {
        let x = Var::new("x");
        let f = Func::new("f");
        f.define(x, Expr::from(x)).unwrap();
        let consumers = (names.iter().enumerate())
            .map(|(i, name)| {
                let g = Func::new(name);
                g.define(x, f.at(x) + i as i32).unwrap();
                g
            })
            .collect();
        (x, f, consumers)
    }

    #[test]
    fn removing_a_wrapper_makes_the_consumer_read_the_func_again() {
        let (_, f, gs) = f_and_consumers(&["g"]);
        let g = &gs[0];
        let wrapper = f.in_(g);
        assert!(reads(g, &wrapper) && !reads(g, &f));
        f.remove_wrapper(g);
        assert!(reads(g, &f) && !reads(g, &wrapper));
        assert!(g.function().read().wrappers.is_empty());
    }

    #[test]
    fn consumers_sharing_a_wrapper_get_it_in_any_order() {
        let (_, f, gs) = f_and_consumers(&["g1", "g2", "g3"]);
        let shared = f.in_(&[&gs[0], &gs[1]]);
        assert_eq!(f.in_(&[&gs[1], &gs[0]]).name(), shared.name());
        assert_eq!(f.in_(&gs[0]).name(), shared.name());
        assert!(reads(&gs[0], &shared) && reads(&gs[1], &shared) && reads(&gs[2], &f));
        assert!(errors(&f).is_empty());
        // g1 reads the shared wrapper already: a wrapper of its own would be a second one.
        assert_eq!(f.in_(&[&gs[0], &gs[2]]).name(), f.name());
        let message = &errors(&f)[0];
        assert!(
            message.contains("f.in_(g1, g3)") && message.contains("g1 already reads f_in_g1_g2")
        );
    }

    #[test]
    fn a_clone_copies_the_updates_and_calls_itself() {
        let (x, f, gs) = f_and_consumers(&["g", "h"]);
        f.update(x, f.at(x) * 2).unwrap();
        f.compute_root();
        let clone = f.clone_in(&gs[0]);
        assert_eq!(clone.name().as_str(), "f_clone_in_g");
        assert_eq!(f.clone_in(&gs[0]).name(), clone.name());
        let copy = clone.function().definitions();
        assert_eq!(copy.len(), 2);
        assert!(reads(&clone, &clone) && !reads(&clone, &f));
        assert!(reads(&gs[0], &clone) && reads(&gs[1], &f));
        assert_eq!(
            clone.function().read().schedule,
            f.function().read().schedule
        );
        // The clone is scheduled on its own from then on.
        clone.compute_inline();
        assert_ne!(
            clone.function().read().schedule,
            f.function().read().schedule
        );
        // A wrapper of f for g now would be a second stand-in for f there.
        assert_eq!(f.in_(&gs[0]).name(), f.name());
        assert!(errors(&f)[0].contains("g already reads f_clone_in_g, a clone of f"));
    }

    #[test]
    fn wrapping_what_cannot_be_wrapped_is_a_schedule_error_naming_the_funcs() {
        let (x, f, gs) = f_and_consumers(&["g"]);
        let undefined = Func::new("u");
        assert_eq!(undefined.clone_in(&gs[0]).name(), undefined.name());
        assert!(errors(&undefined)[0].contains("u.clone_in(g): u has no definition yet"));
        let unrelated = Func::new("unrelated");
        unrelated.define(x, 1).unwrap();
        assert_eq!(f.clone_in(&unrelated).name(), f.name());
        assert!(errors(&f)[0].contains("unrelated does not call f"));
        f.in_(&f);
        assert!(errors(&f)[1].contains("f.in_(f): a Func cannot wrap itself"));
        f.clone_in(&[] as &[&Func]);
        assert!(errors(&f)[2].contains("no consumer given"));
        assert_eq!(undefined.in_all().name(), undefined.name());
        assert!(errors(&undefined)[1].contains("u.in_all(): u has no definition yet"));
    }

    #[test]
    fn an_input_wrapper_reads_the_input_for_its_consumers() {
        let x = Var::new("x");
        let input = ImageParam::new(Type::i32(), 1, "input");
        let (g, h) = (Func::new("g"), Func::new("h"));
        g.define(x, input.at(x) + 1).unwrap();
        h.define(x, input.at(x) * 2).unwrap();
        let wrapper = input.in_(&g);
        assert_eq!(input.in_(&g).name(), wrapper.name());
        let of_input = Wrapped::Image(input.id());
        let reads_input = |f: &Func| {
            (f.function().definitions().iter())
                .any(|d| d.exprs().any(|e| calls_wrapped(e, &of_input)))
        };
        assert!(reads(&g, &wrapper) && !reads_input(&g));
        assert!(reads_input(&wrapper) && reads_input(&h));
        // An update defined later reads the wrapper too.
        g.update(x, g.at(x) + input.at(x)).unwrap();
        assert!(!reads_input(&g));
        let unrelated = Func::new("unrelated");
        unrelated.define(x, 0).unwrap();
        input.in_(&unrelated);
        assert!(
            errors(&unrelated)[0].contains("input.in_(unrelated): unrelated does not call input")
        );
    }

    #[test]
    fn global_wrappers_are_read_by_every_other_consumer_when_a_pipeline_is_built() {
        let x = Var::new("x");
        let input = ImageParam::new(Type::i32(), 1, "input");
        let f = Func::new("f");
        f.define(x, input.at(x)).unwrap();
        let (g, out) = (Func::new("g"), Func::new("out"));
        g.define(x, f.at(x) + input.at(x)).unwrap();
        let f_in_g = f.in_(&g);
        out.define(x, f.at(x) + g.at(x)).unwrap();
        let (f_everywhere, input_everywhere) = (f.in_all(), input.in_all());
        assert_eq!(f.in_all().name(), f_everywhere.name());
        assert_eq!(input.in_all().name(), input_everywhere.name());
        assert_eq!(f_everywhere.name().as_str(), "f_global_wrapper");
        redirect_to_global_wrappers(std::slice::from_ref(out.function()));
        assert!(reads(&out, &f_everywhere) && !reads(&out, &f));
        // g's own wrapper of f reads f; the global wrappers read what they wrap.
        assert!(reads(&g, &f_in_g) && reads(&f_in_g, &f) && reads(&f_everywhere, &f));
        assert!(reads(&g, &input_everywhere) && reads(&f, &input_everywhere));
        let of_input = Wrapped::Image(input.id());
        let wrapper_reads_input = (input_everywhere.function().definitions().iter())
            .any(|d| d.exprs().any(|e| calls_wrapped(e, &of_input)));
        assert!(wrapper_reads_input);
    }
}
