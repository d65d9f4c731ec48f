//! The Stmt interpreter: executes lowered code exactly, at both storage levels (Func
//! realizations with `Provide`/calls before storage flattening, flat `Allocate`/`Store`/`Load`
//! after), with vectors evaluated lane by lane, so every lowering pass can be tested without a
//! native code generator. It is a checker as much as an executor: accesses outside realized
//! boxes, allocations or bound buffers are errors naming what was accessed where; new storage
//! holds garbage, not zeros; and parallel loops run their iterations in a seeded pseudo-random
//! order, so schedules whose parallel iterations are not independent give wrong results.
//! The two sides of a `Fork` run as tasks interleaving at semaphore waits (`tasks`).

mod env;
mod memory;
mod random;
mod symbol_map;
mod tasks;

use std::collections::HashMap;
use std::sync::Arc;

use self::env::Env;
use self::memory::Memory;
use self::random::SplitMix64;
use self::tasks::{Baton, Tasks, Wait};
use crate::error::{Error, Result};
use crate::eval::expr::{EvalContext, ExprEval};
use crate::eval::print::PrintHandler;
use crate::eval::value::{self, Value};
use crate::ir::{Expr, ForKind, MemoryType, MessagePart, Range, Stmt, StmtKind, Symbol, Type};
use crate::lang::buffer::AnyBuffer;
use crate::lang::function::FuncLink;
use crate::lang::image_param::buffer_field;

/// What one run did, per Func or buffer name.
#[derive(Default, Debug, Clone, PartialEq, Eq)]
pub struct InterpStats {
    /// `Provide` executions per Func: points computed, counting each stage and each lane.
    pub provides: HashMap<Symbol, u64>,
    /// `Store` executions per buffer, counting the lanes actually stored.
    pub stores: HashMap<Symbol, u64>,
    /// The largest allocation or realization seen per buffer or Func, in elements (points of
    /// the realized box, for a Func).
    pub allocation_elements: HashMap<Symbol, u64>,
    /// How many times each buffer or Func was allocated or realized.
    pub allocations: HashMap<Symbol, u64>,
    /// How many of those allocations were placed on the heap (`MemoryType::Heap`): the
    /// calls to `tessera_malloc` the native code makes.
    pub heap_allocations: HashMap<Symbol, u64>,
    /// `Prefetch` executions per buffer or Func (`Func::prefetch`): cache lines asked for.
    pub prefetches: HashMap<Symbol, u64>,
}

pub struct Interpreter {
    state: State,
    parallel_seed: u64,
    /// Draws the iteration order of each parallel loop; restarted from the seed by each run.
    parallel_order: SplitMix64,
    stats: InterpStats,
    /// The run's tasks and semaphores, from its first semaphore on.
    tasks: Option<Arc<Tasks>>,
    /// This interpreter's task (0: the run's own; a fork's first side runs another).
    task: usize,
    /// Whether this task holds the shared state (`tasks::Baton`) now.
    holds_baton: bool,
    /// The semaphores declared around the statement executing, innermost last, each with
    /// its instance in `tasks`.
    semaphores: Vec<(Symbol, usize)>,
}

/// The stack of the thread a fork's first side runs on: the interpreter recurses over the
/// statement (reserved, used only as deep as the recursion goes).
const FORK_STACK_BYTES: usize = 256 << 20;

/// What expressions see while a statement executes.
#[derive(Default)]
struct State {
    env: Env,
    memory: Memory,
    /// Where `print` writes.
    print: PrintHandler,
}

impl EvalContext for State {
    fn lookup(&self, name: Symbol, lane: usize) -> Option<Value> {
        self.env.lookup(name, lane)
    }
    fn call_func(&mut self, func: &FuncLink, value_index: usize, coords: &[i64]) -> Result<Value> {
        self.memory.read_func(func.name(), value_index, coords)
    }
    fn call_image(&mut self, image: Symbol, coords: &[i64]) -> Result<Value> {
        self.memory.read_image(image, coords)
    }
    fn load(&mut self, buffer: Symbol, index: i64, ty: Type) -> Result<Value> {
        self.memory.load(buffer, index, ty)
    }
    fn print(&mut self, line: &str) {
        self.print.print(line)
    }
}

/// The buffer fields bound as int32 parameters for every dimension of a bound buffer.
const BUFFER_FIELDS: [&str; 3] = ["min", "extent", "stride"];

impl Default for Interpreter {
    fn default() -> Interpreter {
        Interpreter::new()
    }
}

impl Interpreter {
    pub fn new() -> Interpreter {
        Interpreter {
            state: State::default(),
            parallel_seed: 0,
            parallel_order: SplitMix64::new(0),
            stats: InterpStats::default(),
            tasks: None,
            task: 0,
            holds_baton: true,
            semaphores: Vec::new(),
        }
    }

    /// Chooses the seed of parallel loops' iteration orders (each seed gives different
    /// permutations; the same seed the same ones).
    pub fn with_parallel_seed(self, seed: u64) -> Interpreter {
        Interpreter {
            parallel_seed: seed,
            ..self
        }
    }

    /// Sends the lines `print` writes to `handler` instead of stderr.
    pub fn with_custom_print(mut self, handler: PrintHandler) -> Interpreter {
        self.state.print = handler;
        self
    }

    /// Binds an input or output buffer by name, together with its fields `name.min.d`,
    /// `name.extent.d` and `name.stride.d` as int32 parameters (replacing any earlier binding).
    pub fn bind_buffer(&mut self, name: Symbol, buffer: AnyBuffer) {
        self.take_buffer(name);
        for (d, dim) in buffer.dims().iter().enumerate() {
            for (field, v) in BUFFER_FIELDS.iter().zip([dim.min, dim.extent, dim.stride]) {
                let as_i32 = value::cast(Value::Int(v), Type::i64(), Type::i32());
                self.state
                    .env
                    .bind_param(buffer_field(name, field, d), as_i32);
            }
        }
        self.state.memory.bind(name, buffer);
    }

    /// Binds a scalar parameter (or any free name the statement reads).
    pub fn bind_param(&mut self, name: Symbol, value: Value) {
        self.state.env.bind_param(name, value);
    }

    /// Executes `s`. Bound buffers keep what it wrote, also when it fails part-way.
    pub fn run(&mut self, s: &Stmt) -> Result<()> {
        self.stats = InterpStats::default();
        self.parallel_order = SplitMix64::new(self.parallel_seed);
        self.tasks = None;
        self.exec(s)
    }

    pub fn buffer(&self, name: Symbol) -> Option<&AnyBuffer> {
        self.state.memory.bound(name)
    }

    /// Unbinds a buffer (and its field parameters) and returns it.
    pub fn take_buffer(&mut self, name: Symbol) -> Option<AnyBuffer> {
        let buffer = self.state.memory.take_bound(name)?;
        for d in 0..buffer.dims().len() {
            for field in BUFFER_FIELDS {
                self.state.env.unbind_param(buffer_field(name, field, d));
            }
        }
        Some(buffer)
    }

    /// The counts of the last run.
    pub fn stats(&self) -> &InterpStats {
        &self.stats
    }

    fn exec(&mut self, s: &Stmt) -> Result<()> {
        match s.kind() {
            StmtKind::LetStmt { name, value, body } => {
                let lanes = self.eval_lanes(value)?;
                self.state.env.push(*name, lanes);
                let result = self.exec(body);
                self.state.env.pop();
                result
            }
            StmtKind::Assert { condition, message } => {
                if self
                    .eval_scalar(condition, "an assertion's condition")?
                    .is_true()
                {
                    Ok(())
                } else {
                    Err(Error::Runtime(self.assertion_message(message)?))
                }
            }
            // Loops run one iteration at a time here, so every store is already atomic.
            StmtKind::ProducerConsumer { body, .. } | StmtKind::Atomic { body } => self.exec(body),
            StmtKind::For {
                name,
                min,
                extent,
                kind,
                body,
            } => self.exec_for(*name, min, extent, *kind, body),
            StmtKind::Store {
                buffer,
                index,
                value,
                predicate,
            } => self.exec_store(*buffer, index, value, predicate.as_ref()),
            StmtKind::Provide { func, args, values } => self.exec_provide(*func, args, values),
            StmtKind::Allocate {
                buffer,
                ty,
                extents,
                memory,
                body,
            } => {
                if *memory == MemoryType::Heap {
                    *self.stats.heap_allocations.entry(*buffer).or_default() += 1;
                }
                if ty.is_vector() {
                    return Err(malformed(format!(
                        "Allocate of {buffer} has the vector element type {ty}"
                    )));
                }
                let extents = self.eval_ints(extents, || format!("an extent of {buffer}"))?;
                let elements = self.state.memory.allocate(*buffer, *ty, &extents)?;
                self.record_allocation(*buffer, elements);
                let result = self.exec(body);
                self.state.memory.free(*buffer);
                result
            }
            StmtKind::Realize {
                func,
                types,
                bounds,
                body,
            } => self.exec_realize(*func, types, bounds, body),
            StmtKind::Block(stmts) => stmts.iter().try_for_each(|s| self.exec(s)),
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                if self.eval_scalar(condition, "an if's condition")?.is_true() {
                    self.exec(then_case)
                } else if let Some(e) = else_case {
                    self.exec(e)
                } else {
                    Ok(())
                }
            }
            StmtKind::Evaluate(e) => self.eval_lanes(e).map(drop),
            StmtKind::Prefetch {
                buffer,
                ty,
                args,
                flat,
                in_bounds,
            } => self.exec_prefetch(*buffer, *ty, args, *flat, *in_bounds),
            StmtKind::Free { buffer } => self.state.memory.free_early(*buffer),
            StmtKind::Fork { first, rest } => self.exec_fork(first, rest),
            StmtKind::Semaphore {
                name,
                initial,
                body,
            } => self.exec_semaphore(*name, initial, body),
            StmtKind::Acquire { semaphore, count } => self.exec_acquire(*semaphore, count),
            StmtKind::Release { semaphore, count } => {
                let (instance, count) = self.semaphore_units(*semaphore, count)?;
                self.tasks().release(instance, count);
                Ok(())
            }
        }
    }

    // `exec` recurses once per level of statement nesting, on whatever stack its caller has
    // (2 MB on a test thread): the synchronization arms stay out of line so that their locals
    // do not grow every level's frame.
    #[inline(never)]
    fn exec_semaphore(&mut self, name: Symbol, initial: &Expr, body: &Stmt) -> Result<()> {
        let initial = self.eval_int(initial, || format!("the initial count of {name}"))?;
        let instance = self.tasks().new_semaphore(initial);
        self.semaphores.push((name, instance));
        let result = self.exec(body);
        self.semaphores.pop();
        result
    }

    #[inline(never)]
    fn exec_acquire(&mut self, semaphore: Symbol, count: &Expr) -> Result<()> {
        let (instance, count) = self.semaphore_units(semaphore, count)?;
        let tasks = self.tasks();
        if tasks.try_acquire(instance, count) {
            return Ok(());
        }
        let baton = self.hand_over();
        let wait = Wait::Units {
            semaphore: instance,
            count,
        };
        self.take_back(tasks.wait(self.task, Some(baton), wait)?);
        Ok(())
    }

    /// The run's tasks, made at its first semaphore or fork.
    fn tasks(&mut self) -> Arc<Tasks> {
        self.tasks
            .get_or_insert_with(|| Arc::new(Tasks::new()))
            .clone()
    }

    /// The instance of `semaphore` and the units `count` asks for of it.
    fn semaphore_units(&mut self, semaphore: Symbol, count: &Expr) -> Result<(usize, i64)> {
        let instance = self
            .semaphores
            .iter()
            .rev()
            .find(|(name, _)| *name == semaphore)
            .map(|(_, instance)| *instance)
            .ok_or_else(|| malformed(format!("the semaphore {semaphore} is not declared")))?;
        let count = self.eval_int(count, || format!("the units of {semaphore}"))?;
        if count < 0 {
            return Err(Error::Runtime(format!(
                "{count} units of the semaphore {semaphore} asked for"
            )));
        }
        Ok((instance, count))
    }

    /// Gives up the shared state, for another task to run.
    fn hand_over(&mut self) -> Baton {
        self.holds_baton = false;
        Baton {
            memory: std::mem::take(&mut self.state.memory),
            print: std::mem::take(&mut self.state.print),
            stats: std::mem::take(&mut self.stats),
            parallel_order: std::mem::replace(&mut self.parallel_order, SplitMix64::new(0)),
        }
    }

    fn take_back(&mut self, baton: Baton) {
        self.holds_baton = true;
        self.state.memory = baton.memory;
        self.state.print = baton.print;
        self.stats = baton.stats;
        self.parallel_order = baton.parallel_order;
    }

    /// Runs `first` as a new task on a thread of its own and `rest` here, then waits for
    /// `first` to end; the error of the side that failed first is returned.
    #[inline(never)]
    fn exec_fork(&mut self, first: &Stmt, rest: &Stmt) -> Result<()> {
        let tasks = self.tasks();
        let task = tasks.new_task();
        let mut side = Interpreter {
            state: State {
                env: self.state.env.clone(),
                ..State::default()
            },
            parallel_seed: self.parallel_seed,
            parallel_order: SplitMix64::new(0),
            stats: InterpStats::default(),
            tasks: Some(tasks.clone()),
            task,
            holds_baton: false,
            semaphores: self.semaphores.clone(),
        };
        std::thread::scope(|scope| {
            let side_tasks = tasks.clone();
            let spawned = std::thread::Builder::new()
                .name("tessera-interp-fork".into())
                .stack_size(FORK_STACK_BYTES)
                .spawn_scoped(scope, move || {
                    let result = side_tasks
                        .wait(task, None, Wait::Baton)
                        .map(|baton| side.take_back(baton))
                        .and_then(|()| side.exec(first));
                    let failed_first = result.is_err() && side_tasks.fail();
                    let baton = side.holds_baton.then(|| side.hand_over());
                    side_tasks.finish(task, baton);
                    (result, failed_first)
                });
            let first_side = match spawned {
                Ok(handle) => handle,
                Err(e) => {
                    tasks.finish(task, None);
                    return Err(Error::Runtime(format!("cannot start a fork's thread: {e}")));
                }
            };
            let rest_result = self.exec(rest);
            if rest_result.is_err() {
                tasks.fail();
            }
            let baton = self.holds_baton.then(|| self.hand_over());
            self.take_back(tasks.wait(self.task, baton, Wait::Finished(task))?);
            let (first_result, first_failed_first) = first_side
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            if first_failed_first {
                first_result
            } else {
                rest_result.and(first_result)
            }
        })
    }

    fn exec_for(
        &mut self,
        name: Symbol,
        min: &Expr,
        extent: &Expr,
        kind: ForKind,
        body: &Stmt,
    ) -> Result<()> {
        let what = || format!("the bounds of loop {name}");
        let min_value = self.eval_int(min, what)?;
        let extent = self.eval_int(extent, what)?;
        if extent <= 0 {
            return Ok(());
        }
        let offsets: Box<dyn Iterator<Item = i64>> = if kind == ForKind::Parallel {
            let mut order: Vec<i64> = (0..extent).collect();
            self.parallel_order.shuffle(&mut order);
            Box::new(order.into_iter())
        } else {
            Box::new(0..extent)
        };
        let loop_value = |i: i64| value::cast(Value::Int(min_value + i), Type::i64(), min.ty());
        self.state.env.push_scalar(name, loop_value(0));
        let mut result = Ok(());
        for i in offsets {
            self.state.env.set_innermost_scalar(loop_value(i));
            result = self.exec(body);
            if result.is_err() {
                break;
            }
        }
        self.state.env.pop();
        result
    }

    fn exec_realize(
        &mut self,
        func: Symbol,
        types: &[Type],
        bounds: &[Range],
        body: &Stmt,
    ) -> Result<()> {
        let what = || format!("the realized bounds of {func}");
        let mut mins = Vec::with_capacity(bounds.len());
        let mut extents = Vec::with_capacity(bounds.len());
        for r in bounds {
            mins.push(self.eval_int(&r.min, what)?);
            extents.push(self.eval_int(&r.extent, what)?);
        }
        let points = self.state.memory.realize(func, types, &mins, &extents)?;
        self.record_allocation(func, points);
        let result = self.exec(body);
        self.state.memory.end_realize(func);
        result
    }

    /// A vector Provide writes one point per lane, after evaluating every lane.
    fn exec_provide(&mut self, func: Symbol, args: &[Expr], values: &[Expr]) -> Result<()> {
        let lanes = common_lanes(args.iter().chain(values), || format!("Provide to {func}"))?;
        let mut points = Vec::with_capacity(lanes);
        let mut ev = ExprEval::untracked(&mut self.state);
        for lane in 0..lanes {
            let coords = args
                .iter()
                .map(|a| {
                    let v = ev.eval(a, lane_of(a, lane))?;
                    to_index(v, || format!("coordinate {a} of the Provide to {func}"))
                })
                .collect::<Result<Vec<i64>>>()?;
            let vals = values
                .iter()
                .map(|v| ev.eval(v, lane_of(v, lane)))
                .collect::<Result<Vec<Value>>>()?;
            points.push((coords, vals));
        }
        for (coords, vals) in &points {
            for (element, (v, e)) in vals.iter().zip(values).enumerate() {
                self.state
                    .memory
                    .write_func(func, element, coords, *v, e.ty().element())?;
            }
        }
        *self.stats.provides.entry(func).or_default() += lanes as u64;
        Ok(())
    }

    /// A prefetch changes nothing; its element is read and dropped when it must lie inside its
    /// buffer, so that a prefetch outside is an error as a load there would be.
    fn exec_prefetch(
        &mut self,
        buffer: Symbol,
        ty: Type,
        args: &[Expr],
        flat: bool,
        in_bounds: bool,
    ) -> Result<()> {
        let mut ev = ExprEval::untracked(&mut self.state);
        let coords = args
            .iter()
            .map(|a| {
                let v = ev.eval(a, 0)?;
                to_index(v, || format!("coordinate {a} of the prefetch of {buffer}"))
            })
            .collect::<Result<Vec<i64>>>()?;
        *self.stats.prefetches.entry(buffer).or_default() += 1;
        if !in_bounds {
            return Ok(());
        }
        let memory = &self.state.memory;
        match coords.as_slice() {
            [index] if flat => memory.load(buffer, *index, ty).map(drop),
            _ if memory.bound(buffer).is_some() => memory.read_image(buffer, &coords).map(drop),
            _ => memory.read_func(buffer, 0, &coords).map(drop),
        }
    }

    /// A vector Store evaluates every enabled lane, then writes them in lane order; lanes whose
    /// predicate is false evaluate nothing and store nothing.
    fn exec_store(
        &mut self,
        buffer: Symbol,
        index: &Expr,
        value: &Expr,
        predicate: Option<&Expr>,
    ) -> Result<()> {
        let lanes = value.ty().lanes as usize;
        let mut operands = [Some(index), predicate].into_iter().flatten();
        if operands.any(|e| e.ty().lanes as usize != lanes) {
            return Err(malformed(format!(
                "Store to {buffer}: the index, value and predicate differ in lanes ({index}, {value})"
            )));
        }
        let mut writes = Vec::with_capacity(lanes);
        let mut ev = ExprEval::untracked(&mut self.state);
        for lane in 0..lanes {
            if let Some(p) = predicate {
                if !ev.eval(p, lane)?.is_true() {
                    continue;
                }
            }
            let i = to_index(ev.eval(index, lane)?, || {
                format!("the index {index} of a Store to {buffer}")
            })?;
            writes.push((i, ev.eval(value, lane)?));
        }
        let ty = value.ty().element();
        for &(i, v) in &writes {
            self.state.memory.store(buffer, i, v, ty)?;
        }
        *self.stats.stores.entry(buffer).or_default() += writes.len() as u64;
        Ok(())
    }

    fn assertion_message(&mut self, message: &[MessagePart]) -> Result<String> {
        let mut out = String::new();
        for part in message {
            match part {
                MessagePart::Text(t) => out.push_str(t),
                MessagePart::Value(e) => {
                    let lanes: Vec<String> =
                        self.eval_lanes(e)?.iter().map(Value::to_string).collect();
                    if lanes.len() == 1 {
                        out.push_str(&lanes[0]);
                    } else {
                        out.push_str(&format!("[{}]", lanes.join(", ")));
                    }
                }
            }
        }
        Ok(out)
    }

    fn record_allocation(&mut self, name: Symbol, elements: u64) {
        *self.stats.allocations.entry(name).or_default() += 1;
        let largest = self.stats.allocation_elements.entry(name).or_default();
        *largest = (*largest).max(elements);
    }

    fn eval_lanes(&mut self, e: &Expr) -> Result<Vec<Value>> {
        ExprEval::untracked(&mut self.state).eval_lanes(e)
    }

    fn eval_scalar(&mut self, e: &Expr, what: &str) -> Result<Value> {
        if e.ty().is_vector() {
            return Err(malformed(format!("{what} {e} is a vector")));
        }
        ExprEval::untracked(&mut self.state).eval(e, 0)
    }

    fn eval_int(&mut self, e: &Expr, what: impl Fn() -> String) -> Result<i64> {
        let v = self.eval_scalar(e, &what())?;
        to_index(v, what)
    }

    fn eval_ints(&mut self, es: &[Expr], what: impl Fn() -> String) -> Result<Vec<i64>> {
        es.iter().map(|e| self.eval_int(e, &what)).collect()
    }
}

/// The lane count shared by `exprs`, where scalars go with any lane count.
fn common_lanes<'a>(
    exprs: impl Iterator<Item = &'a Expr>,
    what: impl Fn() -> String,
) -> Result<usize> {
    let mut lanes = 1;
    for e in exprs {
        let l = e.ty().lanes as usize;
        if l != 1 && lanes != 1 && l != lanes {
            return Err(malformed(format!(
                "{} mixes vectors of {lanes} and {l} lanes",
                what()
            )));
        }
        lanes = lanes.max(l);
    }
    Ok(lanes)
}

/// The lane of `e` that lane `lane` of a vector statement reads (a scalar's only lane).
fn lane_of(e: &Expr, lane: usize) -> usize {
    if e.ty().is_scalar() {
        0
    } else {
        lane
    }
}

fn to_index(v: Value, what: impl Fn() -> String) -> Result<i64> {
    v.as_i128()
        .and_then(|i| i64::try_from(i).ok())
        .ok_or_else(|| malformed(format!("{} is {v:?}, not an integer", what())))
}

/// An error for a statement no correct lowering produces.
fn malformed(message: String) -> Error {
    Error::Runtime(format!("malformed statement: {message}"))
}
