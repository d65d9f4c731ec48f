//! Pass 1: the pipeline's environment (every Func reachable from the output, by name) and the
//! order Funcs are realized in (producers before consumers). Also where schedule mistakes
//! recorded by directives surface, and where pipeline-wide rules are checked: Func names are
//! unique, each output is listed once and computed at root.

use std::collections::HashMap;

use crate::error::{Error, Result, ScheduleError};
use crate::ir::Symbol;
use crate::lang::function::Function;
use crate::lang::schedule::LoopLevel;

/// Every Func of a pipeline, by name, with a realization order.
#[derive(Clone, Debug)]
pub struct Environment {
    pub funcs: HashMap<Symbol, Function>,
    /// Producers before consumers; the last output is last.
    pub order: Vec<Symbol>,
    /// The Funcs realized into buffers of the caller (Halide's `Pipeline({f, g})`), in the
    /// order given, at least one.
    pub outputs: Vec<Symbol>,
}

impl Environment {
    pub fn func(&self, name: Symbol) -> &Function {
        &self.funcs[&name]
    }
    /// Whether `name` is one of the pipeline's outputs.
    pub fn is_output(&self, name: Symbol) -> bool {
        self.outputs.contains(&name)
    }
    /// The outputs' names, joined for messages (`f, g`).
    pub fn describe_outputs(&self) -> String {
        let names: Vec<&str> = self.outputs.iter().map(|o| o.as_str()).collect();
        names.join(", ")
    }
}

/// The Funcs that definitions of `f` call (other than `f` itself), in first-call order.
pub fn direct_callees(f: &Function) -> Vec<Function> {
    let mut callees = f.callees();
    callees.retain(|g| !g.same_as(f));
    callees
}

/// The environment of the pipeline computing `outputs`: an error unless there is at least one
/// and each is listed once.
pub fn realization_order(outputs: &[Function]) -> Result<Environment> {
    if outputs.is_empty() {
        return Err(Error::Definition(
            "a pipeline needs at least one output Func, and none was given".into(),
        ));
    }
    let mut funcs: HashMap<Symbol, Function> = HashMap::new();
    let mut order = Vec::new();
    let mut visiting = Vec::new();
    for (i, output) in outputs.iter().enumerate() {
        if outputs[..i].iter().any(|o| o.same_as(output)) {
            return Err(Error::Definition(format!(
                "Func {} is listed twice among the pipeline's outputs; list each output once",
                output.name()
            )));
        }
        visit(output, &mut funcs, &mut order, &mut visiting)?;
    }
    let outputs: Vec<Symbol> = outputs.iter().map(|o| o.name()).collect();
    for name in &order {
        let f = &funcs[name];
        let c = f.read();
        let errors: Vec<ScheduleError> = c
            .schedule
            .errors
            .iter()
            .cloned()
            .chain(crate::lang::stage::race_errors(&c))
            .collect();
        if let Some(first) = errors.first() {
            let more = errors.len() - 1;
            let suffix = if more > 0 {
                format!(" (and {more} more schedule errors in {name})")
            } else {
                String::new()
            };
            return Err(Error::Schedule(ScheduleError {
                message: format!("{}{suffix}", first.message),
                ..first.clone()
            }));
        }
    }
    keep_fused_funcs_together(&mut order, &funcs);
    let env = Environment {
        funcs,
        order,
        outputs,
    };
    if let Some(f) = env
        .order
        .iter()
        .find(|n| !env.is_output(**n) && env.funcs[*n].read().schedule.nontemporal_stores)
    {
        return Err(Error::schedule(format!(
            "{f}.store_nontemporal(): only the pipeline's outputs can bypass the caches, and {f} is computed inside the pipeline of {}",
            env.describe_outputs()
        )));
    }
    if let Some(f) = env.order.iter().find(|n| {
        let schedule = &env.funcs[*n].read().schedule;
        schedule.async_producer
            && (env.is_output(**n) || schedule.compute_level == LoopLevel::Inlined)
    }) {
        let why = if env.is_output(*f) {
            format!("{f} is an output of the pipeline, which has no consumer to run beside")
        } else {
            format!("{f} is inlined, so it has no production of its own; compute it at root or at a loop of its consumer")
        };
        return Err(Error::Schedule(ScheduleError::of_directive(
            *f,
            "async_",
            format!("{f}.async_(): {why}"),
        )));
    }
    // The default level, inlined, means root for an output, as in Halide; an explicit
    // `compute_inline` (which Halide cannot tell from the default) is refused.
    let role = if env.outputs.len() == 1 { "the" } else { "an" };
    for &name in &env.outputs {
        let schedule = &env.funcs[&name].read().schedule;
        match &schedule.compute_level {
            LoopLevel::Inlined if schedule.inline_requested => {
                return Err(Error::Schedule(ScheduleError::of_directive(
                    name,
                    "compute_inline",
                    format!("{name}.compute_inline(): {name} is {role} output of the pipeline, computed into the caller's buffer, so it cannot be inlined"),
                )))
            }
            LoopLevel::Inlined | LoopLevel::Root => {}
            other => {
                return Err(Error::schedule(format!(
                    "{name} is {role} output of the pipeline, so it is computed at root; it cannot be computed at {}",
                    other.describe()
                )))
            }
        }
    }
    Ok(env)
}

/// Moves each Func computed with another (`compute_with`) next to it in `order` where
/// producers still come before consumers: the earlier one down past Funcs that do not use
/// it, or else the later one up past Funcs it does not use. (Where neither can move, the
/// compute_with pass reports the Func in between.) Inlined Funcs count: they must stay
/// before the Funcs they are inlined into.
fn keep_fused_funcs_together(order: &mut Vec<Symbol>, funcs: &HashMap<Symbol, Function>) {
    let uses = |a: Symbol, b: Symbol| direct_callees(&funcs[&a]).iter().any(|c| c.name() == b);
    let mut pairs: Vec<(Symbol, Symbol)> = Vec::new();
    for &f in order.iter() {
        for fused in &funcs[&f].read().schedule.compute_with {
            // Several stages of `f` fused with stages of one Func make one pair of Funcs.
            if funcs.contains_key(&fused.with) && !pairs.contains(&(f, fused.with)) {
                pairs.push((f, fused.with));
            }
        }
    }
    // A Func fused with several others stays where it is: moving it next to one could move
    // it away from another.
    let in_one_pair = |n: Symbol| pairs.iter().filter(|(f, g)| *f == n || *g == n).count() == 1;
    for &(f, g) in &pairs {
        if !(in_one_pair(f) && in_one_pair(g)) {
            continue;
        }
        let pos = |n: Symbol, order: &[Symbol]| order.iter().position(|&o| o == n);
        let (Some(a), Some(b)) = (pos(f, order), pos(g, order)) else {
            continue;
        };
        let (i, j) = (a.min(b), a.max(b));
        let (earlier, later) = (order[i], order[j]);
        let between = &order[i + 1..j];
        if between.iter().all(|&h| !uses(h, earlier)) {
            let moved = order.remove(i);
            order.insert(j - 1, moved);
        } else if between.iter().all(|&h| !uses(later, h)) {
            let moved = order.remove(j);
            order.insert(i + 1, moved);
        }
    }
}

fn visit(
    f: &Function,
    funcs: &mut HashMap<Symbol, Function>,
    order: &mut Vec<Symbol>,
    visiting: &mut Vec<Symbol>,
) -> Result<()> {
    let name = f.name();
    if let Some(existing) = funcs.get(&name) {
        if !existing.same_as(f) {
            return Err(Error::Definition(format!(
                "two different Funcs are named {name}; give each Func of a pipeline its own name"
            )));
        }
        return Ok(());
    }
    if !f.is_defined() {
        return Err(Error::Definition(format!(
            "Func {name} is used but never defined"
        )));
    }
    if let Some(start) = visiting.iter().position(|&v| v == name) {
        // "a calls b, which calls c, which calls a"
        let mut cycle = visiting[start..].iter().chain([&name]);
        let first = cycle.next().expect("the cycle starts with name");
        let path = cycle
            .enumerate()
            .fold(first.to_string(), |path, (i, f)| match i {
                0 => format!("{path} calls {f}"),
                _ => format!("{path}, which calls {f}"),
            });
        return Err(Error::Definition(format!(
            "Func {name} depends on itself: {path} (a cycle); a Func can read its own earlier values only in its own update definitions"
        )));
    }
    visiting.push(name);
    for g in direct_callees(f) {
        visit(&g, funcs, order, visiting)?;
    }
    visiting.pop();
    funcs.insert(name, f.clone());
    order.push(name);
    Ok(())
}
