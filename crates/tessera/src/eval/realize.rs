//! The definition-level evaluator: computes any Func over any box straight from its
//! definitions, with no schedule involved. It is the oracle every schedule and every backend
//! is compared with, so it is written to be obviously right rather than fast.
//!
//! Semantics:
//! - A Func is a function of its integer coordinates. Its value at a point is that of its
//!   last definition; definition 0 is the pure one, definitions 1.. are the updates, in the
//!   order they were added. Funcs are identified by name (names are unique in a pipeline; two
//!   different Funcs with one name are an error).
//! - Pure definition: the value expressions evaluated with the pure Vars bound to the point,
//!   memoized per (Func, point).
//! - Update `k` iterates its reduction domain in Halide's default order: the RDom's first
//!   variable fastest, then the next; points where a `where` predicate is false are skipped.
//!   An update without an RDom writes one point. Each iteration evaluates the left-hand side
//!   and the values, then stores the values at that point.
//! - Pure Vars standing bare on an update's left-hand side split the Func into independent
//!   *slices*: the update may only read its own Func at the same coordinates in those
//!   positions (`lang::func` validates this), so the pure Vars act as an outer loop whose
//!   iterations never interact. For a point `p`, the slice key is `p`'s coordinates at those
//!   positions. Update `k` of one slice is simulated once, in order, recording the points it
//!   writes; during the simulation a read of the Func sees the value written earlier in this
//!   update if there is one, else the value after update `k - 1`. Then
//!   `value(f, k, p) = written(k, slice(p))[p]`, or `value(f, k - 1, p)` if `p` was not
//!   written. Scans (`f(r) = f(r - 1) + ...`) are thereby evaluated iteratively, not by
//!   recursing once per point.
//! - Reduction bounds are evaluated when a slice is simulated (they may use Params and image
//!   sizes, not Vars, so every slice sees the same box).
//! - Expressions follow `eval::expr` and `eval::value` exactly (Euclidean division, wrapping
//!   integers, IEEE floats). Calls to other Funcs recurse into their definitions, so the
//!   recursion depth grows with the length of the pipeline, not with the size of the box.
//!
//! Mistakes are errors, never panics: an unbound image or Param (or one of the wrong type),
//! a read outside an input buffer (naming the image, the coordinate and the buffer's bounds),
//! a box that does not fit the Func, and a cyclic pipeline (an update that reads, through
//! other Funcs, its own Func's final value).
//!
//! Inputs are bound with `with_input` (an image and its `min`/`extent`/`stride` Params) and
//! `with_param`; changing a binding clears every memoized value. A Func's definitions are read
//! once, when the evaluator first meets it: evaluate a pipeline only after defining it fully.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use super::expr::{EvalContext, ExprEval};
use super::print::PrintHandler;
use super::value::Value;
use crate::error::{Error, Result};
use crate::ir::function::keeps_element;
use crate::ir::visit::visit_exprs;
use crate::ir::{CallKind, Expr, ExprKind, Symbol, Type};
use crate::lang::buffer::{for_each_coord_in, AnyBuffer, Buffer};
use crate::lang::func::Func;
use crate::lang::function::{Definition, FuncLink, Function};
use crate::lang::image_param::{buffer_field, buffer_field_bindings, value_buffer, ImageParam};
use crate::lang::naming::{make_func_names_unique, reachable};
use crate::lang::param::{same_name_error, InputId, ParamBinding};
use crate::lang::scalar::{check_realized_type, Scalar};

/// The values (one per Tuple element) at each point an update wrote, for one slice.
/// The points an update wrote, per Tuple element its value (`None`: the element was left as
/// it was, undef).
type Written = FastMap<Vec<i64>, Vec<Option<Value>>>;

/// The memo tables are keyed by small integer vectors and symbols, and SipHash (the std
/// default) took a third of the evaluator's time; FxHash (as in rustc) is plenty here.
type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

#[derive(Default)]
struct FxHasher(u64);

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.add(v as u64)
    }
    fn write_u64(&mut self, v: u64) {
        self.add(v)
    }
    fn write_usize(&mut self, v: usize) {
        self.add(v as u64)
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Evaluates Funcs from their definitions. See the module documentation for the semantics.
#[derive(Default)]
pub struct Evaluator {
    images: FastMap<Symbol, AnyBuffer>,
    /// Which ImageParam each image was bound for.
    image_ids: FastMap<Symbol, InputId>,
    params: FastMap<Symbol, ParamBinding>,
    /// The first inconsistent binding, reported by the next evaluation.
    binding_error: Option<Error>,
    funcs: FastMap<Symbol, Arc<FuncDefs>>,
    pure_values: FastMap<Symbol, FastMap<Vec<i64>, Vec<Option<Value>>>>,
    /// For each (Func, update number from 1), the points each slice wrote.
    update_slices: FastMap<(Symbol, usize), FastMap<Vec<i64>, Written>>,
    /// How many simulations of each Func's updates are in progress: reading such a Func's
    /// final value from another Func means the pipeline is cyclic.
    updating: FastMap<Symbol, usize>,
    /// The output Func of a `realize_into` and the buffers it was given, whose values stand
    /// where its pure definition stores nothing.
    prior: Option<(Symbol, Vec<AnyBuffer>)>,
    /// Where `print` writes.
    print: PrintHandler,
}

/// A snapshot of one Func's definitions, prepared for evaluation.
struct FuncDefs {
    function: Function,
    name: Symbol,
    args: Vec<Symbol>,
    types: Vec<Type>,
    pure: Definition,
    updates: Vec<Update>,
}

struct Update {
    def: Definition,
    /// The positions of the left-hand side holding a bare pure Var, with that Var.
    slice_vars: Vec<(usize, Symbol)>,
}

fn slice_vars(pure_args: &[Symbol], def: &Definition) -> Vec<(usize, Symbol)> {
    def.args
        .iter()
        .enumerate()
        .filter_map(|(i, a)| {
            a.as_var()
                .filter(|v| pure_args.get(i) == Some(v))
                .map(|v| (i, v))
        })
        .collect()
}

impl Evaluator {
    /// An evaluator with no inputs bound.
    pub fn new() -> Evaluator {
        Evaluator::default()
    }

    /// Binds `image` to `buffer`, together with the `min`, `extent` and `stride` Params of
    /// each of its dimensions. A buffer of the wrong element type or dimensionality makes
    /// the next evaluation fail.
    pub fn with_input(mut self, image: &ImageParam, buffer: impl Into<AnyBuffer>) -> Evaluator {
        let buffer = buffer.into();
        let dims = buffer.dims().len();
        let previous = self.image_ids.insert(image.name(), image.id());
        if previous.is_some_and(|id| id != image.id()) && self.binding_error.is_none() {
            self.binding_error = Some(same_name_error("image", image.name()));
        }
        if (buffer.ty() != image.ty() || dims != image.dimensions()) && self.binding_error.is_none()
        {
            self.binding_error = Some(Error::Buffer(format!(
                "image {} has element type {} and {} dimensions, but it is bound to a buffer of {} with {dims} dimensions",
                image.name(),
                image.ty(),
                image.dimensions(),
                buffer.ty()
            )));
        }
        for binding in buffer_field_bindings(image.name(), &buffer) {
            self.params.insert(binding.name, binding);
        }
        self.images.insert(image.name(), buffer);
        self.forget_values();
        self
    }

    /// Sends the lines `print` writes to `handler` instead of stderr (Halide's
    /// `set_custom_print`).
    pub fn with_custom_print(mut self, handler: PrintHandler) -> Evaluator {
        self.print = handler;
        self
    }

    /// Binds a scalar Param (`param.bind(value)`).
    pub fn with_param(mut self, binding: ParamBinding) -> Evaluator {
        let previous = self.params.insert(binding.name, binding);
        if previous.is_some_and(|p| p.conflicts_with(&binding)) && self.binding_error.is_none() {
            self.binding_error = Some(same_name_error("parameter", binding.name));
        }
        self.forget_values();
        self
    }

    /// `f` over the box `[mins, mins + extents)`: one buffer per Tuple element.
    pub fn realize(&mut self, f: &Func, mins: &[i64], extents: &[i64]) -> Result<Vec<AnyBuffer>> {
        self.bind_output_bounds(f, mins, extents);
        let defs = self.prepare(f)?;
        check_box(&defs, mins, extents)?;
        let mut outputs = defs
            .types
            .iter()
            .map(|&ty| AnyBuffer::with_mins(ty, mins, extents))
            .collect::<Result<Vec<_>>>()?;
        self.for_each_value(&defs, mins, extents, &mut |p, values| {
            for (out, v) in outputs.iter_mut().zip(values) {
                out.set_value(p, v);
            }
        })?;
        Ok(outputs)
    }

    /// `f` over the box of `outputs` (one buffer per Tuple element, all over one box),
    /// written into them. Where `f`'s pure definition stores nothing (`undef`), the values
    /// are those the buffers held, as when compiled code realizes into them.
    pub fn realize_into(&mut self, f: &Func, outputs: &mut [AnyBuffer]) -> Result<()> {
        let (mins, extents): (Vec<i64>, Vec<i64>) = match outputs.first() {
            Some(b) => b.dims().iter().map(|d| (d.min, d.extent)).unzip(),
            None => (Vec::new(), Vec::new()),
        };
        self.bind_output_bounds(f, &mins, &extents);
        let defs = self.prepare(f)?;
        check_box(&defs, &mins, &extents)?;
        let fits = |b: &AnyBuffer| {
            b.dims()
                .iter()
                .map(|d| (d.min, d.extent))
                .eq(mins.iter().copied().zip(extents.iter().copied()))
        };
        if outputs.len() != defs.types.len()
            || outputs
                .iter()
                .zip(&defs.types)
                .any(|(b, &ty)| b.ty() != ty || !fits(b))
        {
            let types: Vec<String> = defs.types.iter().map(|t| t.to_string()).collect();
            return Err(Error::Buffer(format!(
                "Func {} is realized into {} buffers, but it needs one per value ({}), each over the same box",
                defs.name,
                outputs.len(),
                types.join(", ")
            )));
        }
        // The memoized values of `f` may stand on other buffers' contents.
        self.forget_values();
        self.prior = Some((defs.name, outputs.to_vec()));
        let mut computed: Vec<(Vec<i64>, Vec<Value>)> = Vec::new();
        let result = self.for_each_value(&defs, &mins, &extents, &mut |p, values| {
            computed.push((p.to_vec(), values));
        });
        self.prior = None;
        self.forget_values();
        result?;
        for (p, values) in computed {
            for (out, v) in outputs.iter_mut().zip(values) {
                out.set_value(&p, v);
            }
        }
        Ok(())
    }

    /// `f` (which must have a single value, of type `T`) over `[mins, mins + extents)`.
    pub fn realize_as<T: Scalar>(
        &mut self,
        f: &Func,
        mins: &[i64],
        extents: &[i64],
    ) -> Result<Buffer<T>> {
        self.bind_output_bounds(f, mins, extents);
        let defs = self.prepare(f)?;
        check_realized_type::<T>(defs.name, &defs.types)?;
        check_box(&defs, mins, extents)?;
        let mut output = Buffer::<T>::try_with_mins(mins, extents)?;
        self.for_each_value(&defs, mins, extents, &mut |p, values| {
            output.set(p, T::from_value(values[0]));
        })?;
        Ok(output)
    }

    /// Calls `store` with the values of `f` at every point of the box, stopping at an error.
    fn for_each_value(
        &mut self,
        f: &Arc<FuncDefs>,
        mins: &[i64],
        extents: &[i64],
        store: &mut dyn FnMut(&[i64], Vec<Value>),
    ) -> Result<()> {
        let mut result = Ok(());
        for_each_coord_in(mins, extents, &mut |p| {
            if result.is_ok() {
                result = self.final_values(f, p).map(|values| store(p, values));
            }
        });
        result
    }

    /// The values (one per Tuple element) of `f` at `coords`.
    pub fn value_at(&mut self, f: &Func, coords: &[i64]) -> Result<Vec<Value>> {
        let defs = self.prepare(f)?;
        if coords.len() != defs.args.len() {
            return Err(Error::Definition(format!(
                "Func {} has {} dimensions but is evaluated at {} coordinates",
                defs.name,
                defs.args.len(),
                coords.len()
            )));
        }
        for (d, &c) in coords.iter().enumerate() {
            check_coordinate(&defs, d, c)?;
        }
        self.final_values(&defs, coords)
    }

    /// Binds the bounds of `f`'s output buffers (`Func::output_min`) to the box realized.
    fn bind_output_bounds(&mut self, f: &Func, mins: &[i64], extents: &[i64]) {
        let (name, values) = {
            let c = f.function().read();
            (c.name, c.output_types.len())
        };
        let mut changed = false;
        for i in 0..values {
            let buffer = value_buffer(name, i, values);
            for (d, (&min, &extent)) in mins.iter().zip(extents).enumerate() {
                for (field, v) in [("min", min), ("extent", extent)] {
                    let binding = ParamBinding {
                        name: buffer_field(buffer, field, d),
                        ty: Type::i32(),
                        value: Value::Int(v),
                        origin: None,
                    };
                    let previous = self.params.insert(binding.name, binding);
                    changed |= previous.is_none_or(|p| p.value != binding.value);
                }
            }
        }
        if changed {
            self.forget_values();
        }
    }

    fn forget_values(&mut self) {
        self.funcs.clear();
        self.pure_values.clear();
        self.update_slices.clear();
    }

    /// Reports binding mistakes and loads the Func to evaluate.
    fn prepare(&mut self, f: &Func) -> Result<Arc<FuncDefs>> {
        if let Some(e) = &self.binding_error {
            return Err(e.clone());
        }
        make_func_names_unique(f.function());
        // Values are remembered by Func name: forget them when this pipeline has another
        // Func of a name an earlier one used.
        let stale = reachable(f.function()).values().any(|g| {
            self.funcs
                .get(&g.name())
                .is_some_and(|defs| !defs.function.same_as(g))
        });
        if stale {
            self.forget_values();
        }
        self.load(f.function())
    }

    /// The definitions of `function`, read and checked the first time it is met.
    fn load(&mut self, function: &Function) -> Result<Arc<FuncDefs>> {
        let name = function.name();
        if let Some(defs) = self.funcs.get(&name) {
            if !defs.function.same_as(function) {
                return Err(Error::Definition(format!(
                    "two different Funcs are named {name}; Func names must be unique within a pipeline"
                )));
            }
            return Ok(defs.clone());
        }
        let (args, types, pure, update_defs) = {
            let c = function.read();
            let Some(pure) = c.pure.clone() else {
                return Err(Error::Definition(format!(
                    "Func {name} has no definition; define it before evaluating it"
                )));
            };
            (
                c.args.clone(),
                c.output_types.clone(),
                pure,
                c.updates.clone(),
            )
        };
        for def in std::iter::once(&pure).chain(&update_defs) {
            self.check_inputs_bound(name, def)?;
        }
        let updates = update_defs
            .into_iter()
            .map(|def| Update {
                slice_vars: slice_vars(&args, &def),
                def,
            })
            .collect();
        let defs = Arc::new(FuncDefs {
            function: function.clone(),
            name,
            args,
            types,
            pure,
            updates,
        });
        self.funcs.insert(name, defs.clone());
        Ok(defs)
    }

    /// Every image and Param a definition mentions must be bound (with a Param's type).
    fn check_inputs_bound(&self, func: Symbol, def: &Definition) -> Result<()> {
        let mut problem = None;
        for e in def.exprs() {
            visit_exprs(e, &mut |n| {
                if problem.is_some() {
                    return false;
                }
                match n.kind() {
                    ExprKind::Call {
                        name,
                        kind: CallKind::Image(_),
                        ..
                    } if !self.images.contains_key(name) => {
                        problem = Some(unbound_image(func, *name));
                    }
                    ExprKind::Param(p, _) => match self.params.get(p) {
                        None => {
                            problem = Some(Error::Runtime(format!(
                                "Func {func} uses Param {p}, which is not bound; bind it with Evaluator::with_param (or bind the image it belongs to with with_input)"
                            )))
                        }
                        Some(b) if b.ty != n.ty() => {
                            problem = Some(Error::Type(format!(
                                "Func {func} uses Param {p} as {}, but it is bound to a value of type {}",
                                n.ty(),
                                b.ty
                            )))
                        }
                        Some(_) => {}
                    },
                    _ => {}
                }
                true
            });
        }
        problem.map_or(Ok(()), Err)
    }

    /// The value of a Func called from another Func (or from outside): after all its updates.
    fn call_value(&mut self, link: &FuncLink, coords: &[i64]) -> Result<Vec<Value>> {
        let defs = self.load(&link.function())?;
        self.final_values(&defs, coords)
    }

    fn final_values(&mut self, f: &Arc<FuncDefs>, p: &[i64]) -> Result<Vec<Value>> {
        if self.updating.get(&f.name).is_some_and(|&n| n > 0) {
            return Err(Error::Definition(format!(
                "Func {} depends on itself through another Func (the update being evaluated reads a Func that reads {} back); a pipeline must not be cyclic",
                f.name, f.name
            )));
        }
        (0..f.types.len())
            .map(|i| self.stage_value(f, f.updates.len(), p, i))
            .collect()
    }

    /// Element `index` of `f` at `p` after definition `stage` (0 is the pure definition).
    fn stage_value(
        &mut self,
        f: &Arc<FuncDefs>,
        stage: usize,
        p: &[i64],
        index: usize,
    ) -> Result<Value> {
        for k in (1..=stage).rev() {
            let update = &f.updates[k - 1];
            let key: Vec<i64> = update.slice_vars.iter().map(|&(i, _)| p[i]).collect();
            let done = self
                .update_slices
                .get(&(f.name, k))
                .is_some_and(|slices| slices.contains_key(&key));
            if !done {
                self.simulate_update(f, k, &key)?;
            }
            if let Some(Some(v)) = self.update_slices[&(f.name, k)][&key]
                .get(p)
                .map(|values| values[index])
            {
                return Ok(v);
            }
        }
        match self.pure_values(f, p)?[index] {
            Some(v) => Ok(v),
            None => self.unstored_value(f, p, index),
        }
    }

    /// The values `f`'s pure definition stores at `p` (`None` where it stores nothing).
    fn pure_values(&mut self, f: &Arc<FuncDefs>, p: &[i64]) -> Result<Vec<Option<Value>>> {
        if let Some(v) = self.pure_values.get(&f.name).and_then(|m| m.get(p)) {
            return Ok(v.clone());
        }
        let vars: Vec<(Symbol, Value)> = f
            .args
            .iter()
            .zip(p)
            .map(|(&a, &c)| (a, Value::Int(c)))
            .collect();
        let mut frame = Frame {
            ev: self,
            func: f.name,
            vars: &vars,
            stage: None,
        };
        let mut eval = ExprEval::untracked(&mut frame);
        let stored = match &f.pure.guard {
            Some(guard) => eval.eval(guard, 0)?.is_true(),
            None => true,
        };
        let values = f
            .pure
            .values
            .iter()
            .enumerate()
            .map(
                |(i, e)| match stored && !keeps_element(f.name, &f.pure.args, i, e) {
                    true => eval.eval(e, 0).map(Some),
                    false => Ok(None),
                },
            )
            .collect::<Result<Vec<_>>>()?;
        self.pure_values
            .entry(f.name)
            .or_default()
            .insert(p.to_vec(), values.clone());
        Ok(values)
    }

    /// Element `index` of `f` at a point no definition stored it (`undef`): what the buffer
    /// `realize_into` was given held there. Anything else reads a value no definition wrote,
    /// which is an error rather than an arbitrary value.
    fn unstored_value(&self, f: &FuncDefs, p: &[i64], index: usize) -> Result<Value> {
        match &self.prior {
            Some((name, buffers)) if *name == f.name && buffers[index].contains(p) => {
                Ok(buffers[index].get_value(p))
            }
            _ => Err(Error::Definition(format!(
                "Func {} is read at {p:?}, where its pure definition is undef and no update wrote it; the value is undefined (realize into a buffer holding the values, or define them)",
                f.name
            ))),
        }
    }

    /// Runs update `stage` of `f` over its whole reduction domain for one slice and records
    /// the points it wrote.
    fn simulate_update(&mut self, f: &Arc<FuncDefs>, stage: usize, key: &[i64]) -> Result<()> {
        *self.updating.entry(f.name).or_default() += 1;
        let written = self.run_update(f, stage, key);
        *self
            .updating
            .get_mut(&f.name)
            .expect("internal error: update count") -= 1;
        self.update_slices
            .entry((f.name, stage))
            .or_default()
            .insert(key.to_vec(), written?);
        Ok(())
    }

    fn run_update(&mut self, f: &Arc<FuncDefs>, stage: usize, key: &[i64]) -> Result<Written> {
        let update = &f.updates[stage - 1];
        let mut vars: Vec<(Symbol, Value)> = update
            .slice_vars
            .iter()
            .zip(key)
            .map(|(&(_, v), &c)| (v, Value::Int(c)))
            .collect();
        let (mut mins, mut extents, mut predicates) = (Vec::new(), Vec::new(), &[][..]);
        let first_rvar = vars.len();
        if let Some(r) = &update.def.rdom {
            // The bounds cannot depend on Vars; evaluating them here rather than when the
            // Func is loaded turns bounds that read the Func itself into a cycle error.
            let mut frame = Frame {
                ev: self,
                func: f.name,
                vars: &[],
                stage: None,
            };
            let mut eval = ExprEval::untracked(&mut frame);
            for v in &r.vars {
                mins.push(integer(f.name, &v.min, eval.eval(&v.min, 0)?)?);
                extents.push(integer(f.name, &v.extent, eval.eval(&v.extent, 0)?)?);
            }
            vars.extend(r.vars.iter().map(|v| (v.name, Value::Int(0))));
            predicates = &r.predicates;
        }
        let mut written = Written::default();
        let mut result = Ok(());
        for_each_coord_in(&mins, &extents, &mut |point| {
            if result.is_err() {
                return;
            }
            for (slot, &c) in vars[first_rvar..].iter_mut().zip(point) {
                slot.1 = Value::Int(c);
            }
            let mut frame = Frame {
                ev: self,
                func: f.name,
                vars: &vars,
                stage: Some(StageView {
                    func: f,
                    stage,
                    written: &written,
                }),
            };
            let mut eval = ExprEval::untracked(&mut frame);
            let step = (|| {
                for p in predicates.iter().chain(&update.def.guard) {
                    if !eval.eval(p, 0)?.is_true() {
                        return Ok(None);
                    }
                }
                let target = update
                    .def
                    .args
                    .iter()
                    .map(|a| integer(f.name, a, eval.eval(a, 0)?))
                    .collect::<Result<Vec<_>>>()?;
                let values = update
                    .def
                    .values
                    .iter()
                    .enumerate()
                    .map(
                        |(i, e)| match keeps_element(f.name, &update.def.args, i, e) {
                            true => Ok(None),
                            false => eval.eval(e, 0).map(Some),
                        },
                    )
                    .collect::<Result<Vec<_>>>()?;
                Ok(Some((target, values)))
            })();
            match step {
                Ok(Some((target, values))) => {
                    written.insert(target, values);
                }
                Ok(None) => {}
                Err(e) => result = Err(e),
            }
        });
        result.map(|()| written)
    }

    fn image_value(&self, func: Symbol, image: Symbol, coords: &[i64]) -> Result<Value> {
        let buffer = self
            .images
            .get(&image)
            .ok_or_else(|| unbound_image(func, image))?;
        if !buffer.contains(coords) {
            let covers: Vec<String> = buffer
                .dims()
                .iter()
                .map(|d| format!("[{}, {}]", d.min, d.min + d.extent - 1))
                .collect();
            return Err(Error::Buffer(format!(
                "Func {func} reads image {image} at {coords:?}, outside its buffer, which covers {}",
                covers.join(" x ")
            )));
        }
        Ok(buffer.get_value(coords))
    }
}

fn unbound_image(func: Symbol, image: Symbol) -> Error {
    Error::Runtime(format!(
        "Func {func} reads image {image}, which is not bound; bind it with Evaluator::with_input"
    ))
}

/// A box to realize `f` over must have one min and one non-negative extent per dimension.
fn check_box(f: &FuncDefs, mins: &[i64], extents: &[i64]) -> Result<()> {
    let dims = f.args.len();
    if mins.len() != dims || extents.len() != dims {
        return Err(Error::Buffer(format!(
            "Func {} has {dims} dimensions but is realized with {} mins and {} extents",
            f.name,
            mins.len(),
            extents.len()
        )));
    }
    if let Some(e) = extents.iter().find(|&&e| e < 0) {
        return Err(Error::Buffer(format!(
            "Func {} is realized with the negative extent {e}",
            f.name
        )));
    }
    for (d, (&min, &extent)) in mins.iter().zip(extents).enumerate() {
        check_coordinate(f, d, min)?;
        check_coordinate(f, d, min + extent.max(1) - 1)?;
    }
    Ok(())
}

/// Coordinates are int32 in the language.
fn check_coordinate(f: &FuncDefs, dim: usize, c: i64) -> Result<()> {
    if i32::try_from(c).is_err() {
        return Err(Error::Buffer(format!(
            "coordinate {c} of dimension {dim} of Func {} is outside the int32 range",
            f.name
        )));
    }
    Ok(())
}

/// The integer value of `e` (a coordinate or a reduction bound).
fn integer(func: Symbol, e: &Expr, v: Value) -> Result<i64> {
    v.as_i128().map(|i| i as i64).ok_or_else(|| {
        Error::Type(format!(
            "{e} (in Func {func}) should be an integer but is {v:?}"
        ))
    })
}

/// The update being simulated: reads of its own Func go to `written`, then to the previous
/// definition.
struct StageView<'a> {
    func: &'a Arc<FuncDefs>,
    stage: usize,
    written: &'a Written,
}

/// What an expression inside one Func's definition can see.
struct Frame<'a> {
    ev: &'a mut Evaluator,
    /// The Func whose definition is evaluated (for messages).
    func: Symbol,
    /// Pure and reduction variables bound to coordinates.
    vars: &'a [(Symbol, Value)],
    stage: Option<StageView<'a>>,
}

impl EvalContext for Frame<'_> {
    fn print(&mut self, line: &str) {
        self.ev.print.print(line)
    }

    fn lookup(&self, name: Symbol, _lane: usize) -> Option<Value> {
        self.vars
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, v)| v)
            .or_else(|| self.ev.params.get(&name).map(|b| b.value))
    }

    fn call_func(&mut self, func: &FuncLink, value_index: usize, coords: &[i64]) -> Result<Value> {
        match &self.stage {
            Some(view) if view.func.name == func.name() => {
                match view.written.get(coords).and_then(|v| v[value_index]) {
                    Some(v) => Ok(v),
                    None => self
                        .ev
                        .stage_value(view.func, view.stage - 1, coords, value_index),
                }
            }
            _ => Ok(self.ev.call_value(func, coords)?[value_index]),
        }
    }

    fn call_image(&mut self, image: Symbol, coords: &[i64]) -> Result<Value> {
        self.ev.image_value(self.func, image, coords)
    }
}
