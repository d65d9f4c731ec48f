//! `Pipeline`: the output Funcs of a pipeline (one, or several as Halide's `Pipeline({f, g})`),
//! lowered and run. Inputs and scalar parameters are bound by name through `Inputs`; the
//! output buffers are created over the requested box of each output (grown to what the
//! schedule computes of it, then cropped: `computed_boxes`).
//! A pipeline runs on the Stmt interpreter (`realize_interp`, exact and checked, for tests) or
//! compiled to native code by the LLVM JIT (`compile_jit`, compile once and run many times;
//! compiling the same pipeline again for the same target reuses the code, see `codegen::jit`).
//! `Compiled::realize_as` and `Func::realize` give the output as a typed `Buffer<T>`.

use std::collections::HashMap;

use crate::codegen::jit::{compile_jit, CompiledPipeline};
use crate::codegen::signature::Signature;
use crate::codegen::target::Target;
use crate::error::{Error, Result};
use crate::eval::expr::eval_scalar;
use crate::eval::print::PrintHandler;
use crate::eval::realize::Evaluator;
use crate::eval::value::Value;
use crate::input_bounds::{bind_dense_fields, infer_bounds, InferredBounds, InputBounds};
use crate::interp::{InterpStats, Interpreter};
use crate::ir::Symbol;
use crate::ir::Type;
use crate::lang::buffer::{dense_dims, dense_len, AnyBuffer, Buffer};
use crate::lang::func::Func;
use crate::lang::image_param::ImageLink;
use crate::lang::image_param::{buffer_field_bindings, value_buffer, ImageParam};
use crate::lang::param::{same_name_error, ParamBinding};
use crate::lang::scalar::{check_realized_type, Scalar};
use crate::lower::arguments::Arguments;
use crate::lower::{lower_outputs, LowerOptions, Lowered};
use crate::runtime::buffer::{abi_dims, check_span, needs_large_buffers};

/// The images and scalar parameters a pipeline run reads.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    images: Vec<(Symbol, AnyBuffer)>,
    /// Which ImageParam each image was bound for.
    image_links: Vec<(Symbol, ImageLink)>,
    params: Vec<ParamBinding>,
    /// Two different inputs of one name were bound: reported by `check`.
    conflict: Option<Error>,
    /// Where the run's `print`s write.
    print: PrintHandler,
}

impl Inputs {
    /// No images and no parameters bound yet.
    pub fn new() -> Inputs {
        Inputs::default()
    }
    /// Sends the lines the run's `print`s write to `handler` instead of stderr (Halide's
    /// `set_custom_print`), in native code and on the interpreter alike. Under `parallel`
    /// loops the handler is called from several threads at once, a whole line each call.
    pub fn custom_print(mut self, handler: PrintHandler) -> Inputs {
        self.print = handler;
        self
    }
    /// Binds `image` to `buffer` (replacing an earlier buffer for the same ImageParam).
    pub fn image(self, image: &ImageParam, buffer: impl Into<AnyBuffer>) -> Inputs {
        self.linked_image(image.name(), image.link(), buffer.into())
    }
    /// `image`, for the image `name` whose calls carry `link`.
    fn linked_image(mut self, name: Symbol, link: &ImageLink, buffer: AnyBuffer) -> Inputs {
        let other = self
            .image_links
            .iter()
            .any(|(n, l)| *n == name && l.id() != link.id());
        if other && self.conflict.is_none() {
            self.conflict = Some(same_name_error("image", name));
        }
        let fields = buffer_field_bindings(name, &buffer);
        self.params
            .retain(|p| fields.iter().all(|f| f.name != p.name));
        self.params.extend(fields);
        self.images.retain(|(n, _)| *n != name);
        self.images.push((name, buffer));
        self.image_links.retain(|(n, _)| *n != name);
        self.image_links.push((name, link.clone()));
        self
    }
    /// Binds a scalar parameter (replacing an earlier value for the same Param).
    pub fn param(mut self, binding: ParamBinding) -> Inputs {
        let other = self.params.iter().any(|p| p.conflicts_with(&binding));
        if other && self.conflict.is_none() {
            self.conflict = Some(same_name_error("parameter", binding.name));
        }
        self.params.retain(|p| p.name != binding.name);
        self.params.push(binding);
        self
    }
    /// The images bound, by name.
    pub fn images(&self) -> &[(Symbol, AnyBuffer)] {
        &self.images
    }
    /// The parameters bound.
    pub fn params(&self) -> &[ParamBinding] {
        &self.params
    }

    /// Checks these inputs against what the pipeline takes: every image and parameter is
    /// given, with the right element type and dimensionality.
    pub fn check(&self, args: &Arguments) -> Result<()> {
        if let Some(conflict) = &self.conflict {
            return Err(conflict.clone());
        }
        for image in &args.images {
            let Some((_, buffer)) = self.images.iter().find(|(n, _)| *n == image.name) else {
                return Err(Error::Buffer(format!("the pipeline reads image {} ({}, {} dimensions) but no buffer was given for it", image.name, image.ty, image.dims)));
            };
            if buffer.ty() != image.ty || buffer.dims().len() != image.dims {
                return Err(Error::Buffer(format!(
                    "image {} is {} with {} dimensions, but the buffer given holds {} with {} dimensions",
                    image.name,
                    image.ty,
                    image.dims,
                    buffer.ty(),
                    buffer.dims().len()
                )));
            }
        }
        for p in &args.params {
            let Some(binding) = self.params.iter().find(|b| b.name == p.name) else {
                return Err(Error::Buffer(format!(
                    "the pipeline uses parameter {} ({}) but no value was given for it",
                    p.name, p.ty
                )));
            };
            if binding.ty != p.ty {
                return Err(Error::Type(format!(
                    "parameter {} is {} but the value given is {}",
                    p.name, p.ty, binding.ty
                )));
            }
        }
        Ok(())
    }
}

/// A pipeline computing one output Func (Halide's `Pipeline`): lowered, printed, compiled
/// and run with its inputs bound.
///
/// ```
/// use tessera::prelude::*;
///
/// # fn main() -> Result<()> {
/// let input = ImageParam::new(Type::u8(), 2, "input"); // ImageParam input(UInt(8), 2);
/// let (x, y) = (Var::new("x"), Var::new("y"));
/// let brighter = Func::new("brighter");
/// brighter.define((x, y), input.at((x, y)) + 10)?;
/// brighter.vectorize(x, 16);
///
/// let pipeline = Pipeline::new(&brighter); // Pipeline pipeline(brighter);
/// let nest = pipeline.loop_nest()?; // pipeline.print_loop_nest();
/// assert!(nest.contains("for (brighter.s0.y"));
///
/// let compiled = pipeline.compile_jit(&Target::host())?; // pipeline.compile_jit(target);
/// let image = Buffer::<u8>::from_fn(&[0, 0], &[32, 4], |c| (c[0] + c[1]) as u8);
/// let inputs = Inputs::new().image(&input, image); // input.set(image);
/// // Buffer<uint8_t> out = pipeline.realize({32, 4});
/// let out = compiled.realize_as::<u8>(&inputs, &[0, 0], &[32, 4])?;
/// assert_eq!(out.get(&[5, 2]), 17);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Pipeline {
    /// At least one for a pipeline that lowers (`with_outputs` takes any list; lowering
    /// reports an empty one or a Func listed twice).
    outputs: Vec<Func>,
}

/// The box of one output: its min coordinates and extents.
pub type OutputBox<'a> = (&'a [i64], &'a [i64]);

/// The result of running a pipeline: one buffer per value of each output.
#[derive(Debug)]
pub struct Realization {
    /// The output buffers, one per value of each output Func, output after output.
    pub buffers: Vec<AnyBuffer>,
    /// What the interpreter counted while running.
    pub stats: InterpStats,
}

impl Pipeline {
    /// The pipeline computing `output` and every Func it uses.
    pub fn new(output: &Func) -> Pipeline {
        Pipeline {
            outputs: vec![output.clone()],
        }
    }
    /// The pipeline computing each of `outputs` into buffers of its own, and every Func they
    /// use (Halide's `Pipeline({f, g})`). Each output is computed at root, once, even where
    /// another output reads it (it reads the output's buffer). Lowering fails, naming the
    /// Func, where an output is listed twice or computed at another Func; an empty list
    /// fails too. A run gives one buffer per value of each output, output after output.
    ///
    /// ```
    /// use tessera::prelude::*;
    ///
    /// # fn main() -> Result<()> {
    /// let x = Var::new("x");
    /// let (f, g) = (Func::new("f"), Func::new("g"));
    /// f.define(x, x * 2)?;
    /// g.define(x, f.at(x) + 1)?; // g reads the output f
    /// let pipeline = Pipeline::with_outputs(&[&f, &g]); // Pipeline pipeline({f, g});
    /// let compiled = pipeline.compile_jit(&Target::host())?;
    /// // Realization r = pipeline.realize({8}); every output over the same box
    /// let out = compiled.realize(&Inputs::new(), &[0], &[8])?;
    /// let (f_out, g_out) = (out[0].clone().into_typed::<i32>()?, out[1].clone().into_typed::<i32>()?);
    /// assert_eq!((f_out.get(&[3]), g_out.get(&[3])), (6, 7));
    /// # Ok(())
    /// # }
    /// ```
    pub fn with_outputs(outputs: &[&Func]) -> Pipeline {
        Pipeline {
            outputs: outputs.iter().map(|&f| f.clone()).collect(),
        }
    }
    /// The output Func (the first, for a pipeline of several).
    pub fn output(&self) -> &Func {
        &self.outputs[0]
    }
    /// The output Funcs, in the order given.
    pub fn outputs(&self) -> &[Func] {
        &self.outputs
    }

    /// Lowers the pipeline to one loop-nest statement with its arguments (Halide's
    /// `compile_to_lowered_stmt`, without the printing).
    pub fn lower(&self, options: &LowerOptions) -> Result<Lowered> {
        lower_outputs(&self.outputs, options)
    }

    /// The lowered loop nest as readable pseudo-code.
    pub fn lower_to_string(&self) -> Result<String> {
        Ok(self.lower(&LowerOptions::default())?.stmt.to_string())
    }

    /// The lowered loop structure alone (`Lowered::loop_nest`): a line per loop, produce,
    /// consume and allocation.
    pub fn loop_nest(&self) -> Result<String> {
        Ok(self.lower(&LowerOptions::default())?.loop_nest())
    }

    /// Schedules the pipeline automatically for `target` (Halide's `apply_autoscheduler`):
    /// PolyMage-DP's dynamic programming or PolyMage's greedy grouping, as `options` choose,
    /// over a cost model of this machine. The schedule is applied to the Funcs and returned
    /// with the groups, their predicted times and the search time. The output's and the
    /// inputs' estimates must be set.
    pub fn auto_schedule(
        &self,
        target: &Target,
        options: &crate::autoschedule::AutoScheduleOptions,
    ) -> Result<crate::autoschedule::AutoSchedule> {
        let [output] = self.outputs.as_slice() else {
            return Err(Error::schedule(format!(
                "the automatic scheduler schedules pipelines of one output, and this one has {} ({})",
                self.outputs.len(),
                output_names(&self.outputs)
            )));
        };
        crate::autoschedule::auto_schedule(output, target, options)
    }

    /// Lowers and compiles the pipeline to native code for `target`.
    pub fn compile_jit(&self, target: &Target) -> Result<Compiled> {
        let lowered = self.lower(&LowerOptions {
            large_buffers: target.large_buffers,
            ..LowerOptions::default()
        })?;
        // SAFETY: the statement was just lowered from this pipeline, so its accesses stay
        // inside the allocations it sizes and the buffers its entry assertions check.
        let jit = unsafe { compile_jit(&lowered.stmt, &signature(&lowered), target)? };
        Ok(Compiled { lowered, jit })
    }

    /// The bounds a run over the output box `[mins, mins + extents)` needs (Halide's
    /// `infer_input_bounds`): of every input image `inputs` does not give, the region the run
    /// reads, honouring the image's constraints; and the output box, changed by the output's
    /// constraints. The scalar parameters the regions depend on must be in `inputs`.
    pub fn infer_input_bounds(
        &self,
        inputs: &Inputs,
        mins: &[i64],
        extents: &[i64],
    ) -> Result<InferredBounds> {
        let lowered = self.lower(&LowerOptions::default())?;
        infer_bounds(&lowered, inputs, mins, extents)
    }

    /// `inputs` with every input image it does not give bound to a buffer over the bounds
    /// `infer_input_bounds` finds, made by `make` (`InputBounds::zeroed` for zeros), which
    /// must cover those bounds.
    pub fn infer_input_buffers(
        &self,
        inputs: Inputs,
        mins: &[i64],
        extents: &[i64],
        mut make: impl FnMut(&InputBounds) -> Result<AnyBuffer>,
    ) -> Result<Inputs> {
        let lowered = self.lower(&LowerOptions::default())?;
        let inferred = infer_bounds(&lowered, &inputs, mins, extents)?;
        let mut inputs = inputs;
        for bounds in &inferred.inputs {
            let buffer = make(bounds)?;
            let covers = buffer.ty() == bounds.ty
                && buffer.dims().len() == bounds.mins.len()
                && buffer
                    .dims()
                    .iter()
                    .zip(bounds.mins.iter().zip(&bounds.extents))
                    .all(|(dim, (&min, &extent))| {
                        extent == 0 || (dim.min <= min && dim.min + dim.extent >= min + extent)
                    });
            if !covers {
                return Err(Error::Buffer(format!(
                    "the buffer made for input {} ({} over {:?}) does not cover the {} bounds it needs, mins {:?} and extents {:?}",
                    bounds.image,
                    buffer.ty(),
                    buffer.dims(),
                    bounds.ty,
                    bounds.mins,
                    bounds.extents
                )));
            }
            let image = lowered
                .arguments
                .images
                .iter()
                .find(|i| i.name == bounds.image)
                .expect("inferred bounds are of the pipeline's images");
            inputs = inputs.linked_image(image.name, &image.link, buffer);
        }
        Ok(inputs)
    }

    /// Runs the lowered pipeline on the interpreter over the box `[mins, mins + extents)`
    /// (of every output, as Halide's `realize(sizes)`).
    pub fn realize_interp(
        &self,
        inputs: &Inputs,
        mins: &[i64],
        extents: &[i64],
    ) -> Result<Realization> {
        self.realize_interp_each(inputs, &vec![(mins, extents); self.outputs.len()])
    }

    /// Runs the lowered pipeline on the interpreter, each output over its own box (one per
    /// output, in order).
    pub fn realize_interp_each(&self, inputs: &Inputs, boxes: &[OutputBox]) -> Result<Realization> {
        let mut lowered = self.lower(&LowerOptions::default())?;
        // As `Compiled::realize`: over the boxes the schedule computes, cropped.
        let run_boxes = computed_boxes(&lowered, inputs, boxes)?;
        // Large buffers where a buffer of this run needs them.
        let large_output = run_boxes
            .iter()
            .map(|(mins, extents)| dense_dims(mins, extents))
            .collect::<Result<Vec<_>>>()?
            .iter()
            .any(|dims| needs_large_buffers(dims));
        if large_output
            || inputs
                .images
                .iter()
                .any(|(_, b)| needs_large_buffers(b.dims()))
        {
            lowered = self.lower(&LowerOptions {
                large_buffers: true,
                ..LowerOptions::default()
            })?;
        }
        let run_refs: Vec<OutputBox> = run_boxes
            .iter()
            .map(|(m, e)| (m.as_slice(), e.as_slice()))
            .collect();
        let mut run = run_interp_each(&lowered, &lowered.stmt, inputs, &run_refs, 0)?;
        run.buffers = crop_each(&lowered, run.buffers, &run_refs, boxes)?;
        Ok(run)
    }

    /// Computes each output with the definition-level `evaluator` (whose inputs are bound)
    /// over its own box: the outputs' values straight from their definitions, one buffer per
    /// value of each output, as the other runners give them.
    pub fn evaluate_each(
        &self,
        evaluator: &mut Evaluator,
        boxes: &[OutputBox],
    ) -> Result<Vec<AnyBuffer>> {
        let shapes: Vec<(Symbol, usize)> = self
            .outputs
            .iter()
            .map(|o| (o.name(), o.dimensions()))
            .collect();
        check_output_boxes(&shapes, boxes)?;
        let mut buffers = Vec::new();
        for (output, (mins, extents)) in self.outputs.iter().zip(boxes) {
            buffers.extend(evaluator.realize(output, mins, extents)?);
        }
        Ok(buffers)
    }
}

/// The outputs' names, joined for messages.
fn output_names(outputs: &[Func]) -> String {
    let names: Vec<String> = outputs.iter().map(|o| o.name().to_string()).collect();
    names.join(", ")
}

/// One output of a lowered pipeline: the Func, its buffers (one per value) and their types,
/// and its dimensionality.
struct OutputBuffers {
    func: Symbol,
    buffers: Vec<Symbol>,
    types: Vec<Type>,
    dims: usize,
}

/// The outputs of `lowered`, in order.
fn output_buffers(lowered: &Lowered) -> Vec<OutputBuffers> {
    let env = &lowered.env;
    env.outputs
        .iter()
        .map(|&o| {
            let out = env.func(o).read();
            let n = out.output_types.len();
            OutputBuffers {
                func: out.name,
                buffers: (0..n).map(|v| value_buffer(out.name, v, n)).collect(),
                types: out.output_types.clone(),
                dims: out.args.len(),
            }
        })
        .collect()
}

/// An error unless `boxes` has one box for each output (given by name and dimensionality),
/// with one min and one extent per dimension.
fn check_output_boxes(outputs: &[(Symbol, usize)], boxes: &[OutputBox]) -> Result<()> {
    if boxes.len() != outputs.len() {
        let names: Vec<&str> = outputs.iter().map(|(n, _)| n.as_str()).collect();
        return Err(Error::Buffer(format!(
            "the pipeline has {} outputs ({}) but {} output boxes were given; give one box per output",
            outputs.len(),
            names.join(", "),
            boxes.len()
        )));
    }
    for (&(func, dims), (mins, extents)) in outputs.iter().zip(boxes) {
        check_box_dimensions(func, dims, "output box", mins, extents)?;
    }
    Ok(())
}

/// `check_output_boxes` for the outputs of `lowered`.
fn check_lowered_boxes(lowered: &Lowered, boxes: &[OutputBox]) -> Result<Vec<OutputBuffers>> {
    let outputs = output_buffers(lowered);
    let shapes: Vec<(Symbol, usize)> = outputs.iter().map(|o| (o.func, o.dims)).collect();
    check_output_boxes(&shapes, boxes)?;
    Ok(outputs)
}

/// The box a run over `[mins, mins + extents)` computes into: that box grown to what the
/// schedule computes of the output (`Lowered::output_region`: a `RoundUp` tile past the
/// edge, a scatter beyond it), which the run then crops. The region depends on the
/// buffer's own size, so it is evaluated until the box stops growing. (`computed_boxes`
/// gives each output of a pipeline of several its own.)
pub fn computed_box(
    lowered: &Lowered,
    inputs: &Inputs,
    mins: &[i64],
    extents: &[i64],
) -> (Vec<i64>, Vec<i64>) {
    let boxes = vec![(mins, extents); lowered.env.outputs.len()];
    computed_boxes(lowered, inputs, &boxes)
        .ok()
        .and_then(|b| b.into_iter().next())
        .unwrap_or_else(|| (mins.to_vec(), extents.to_vec()))
}

/// `computed_box` of each output, one box per output given: what the schedule computes of
/// each (another output reading it beyond its box grows it too); every output's buffer
/// bounds are bound while the regions are evaluated, since one output's region may depend
/// on another's box. An error naming the output whose box has the wrong dimensionality.
pub fn computed_boxes(
    lowered: &Lowered,
    inputs: &Inputs,
    boxes: &[OutputBox],
) -> Result<Vec<(Vec<i64>, Vec<i64>)>> {
    let outputs = check_lowered_boxes(lowered, boxes)?;
    let requested: Vec<(Vec<i64>, Vec<i64>)> = boxes
        .iter()
        .map(|(m, e)| (m.to_vec(), e.to_vec()))
        .collect();
    let empty = boxes.iter().any(|(_, e)| e.iter().any(|&e| e <= 0));
    if empty || lowered.output_regions.iter().all(Option::is_none) {
        return Ok(requested);
    }
    let given: HashMap<Symbol, Value> = inputs.params().iter().map(|p| (p.name, p.value)).collect();
    // `(lo, hi)` per dimension of each output, grown until they settle.
    let mut ends: Vec<(Vec<i64>, Vec<i64>)> = boxes
        .iter()
        .map(|(mins, extents)| {
            let hi = mins.iter().zip(*extents).map(|(m, e)| m + e - 1).collect();
            (mins.to_vec(), hi)
        })
        .collect();
    for _ in 0..4 {
        let mut params = given.clone();
        for (output, (lo, hi)) in outputs.iter().zip(&ends) {
            let bounds: Vec<(i64, i64)> = lo.iter().zip(hi).map(|(l, h)| (*l, h - l + 1)).collect();
            for &name in &output.buffers {
                bind_dense_fields(&mut params, name, &bounds);
            }
        }
        let mut grew = false;
        for (region, (lo, hi)) in lowered.output_regions.iter().zip(ends.iter_mut()) {
            let Some(region) = region else { continue };
            for (d, (min, max)) in region.iter().enumerate() {
                let (Ok(Value::Int(min)), Ok(Value::Int(max))) =
                    (eval_scalar(min, &mut params), eval_scalar(max, &mut params))
                else {
                    return Ok(requested);
                };
                if min < lo[d] || max > hi[d] {
                    (lo[d], hi[d]) = (lo[d].min(min), hi[d].max(max));
                    grew = true;
                }
            }
        }
        if !grew {
            break;
        }
    }
    Ok(ends
        .into_iter()
        .map(|(lo, hi)| {
            let extents = lo.iter().zip(&hi).map(|(l, h)| h - l + 1).collect();
            (lo, extents)
        })
        .collect())
}

/// `buffers`, computed over bigger boxes than `[mins, mins + extents)`, cropped to it.
fn crop_all(buffers: Vec<AnyBuffer>, mins: &[i64], extents: &[i64]) -> Result<Vec<AnyBuffer>> {
    buffers.iter().map(|b| b.crop(mins, extents)).collect()
}

/// `buffers` (one per value of each output of `lowered`), computed over the boxes `run`,
/// each cropped to the output's box `wanted` where they differ.
fn crop_each(
    lowered: &Lowered,
    buffers: Vec<AnyBuffer>,
    run: &[OutputBox],
    wanted: &[OutputBox],
) -> Result<Vec<AnyBuffer>> {
    let mut buffers = buffers.into_iter();
    let mut cropped = Vec::new();
    for (output, (ran, want)) in output_buffers(lowered).iter().zip(run.iter().zip(wanted)) {
        let of_output: Vec<AnyBuffer> = buffers.by_ref().take(output.buffers.len()).collect();
        if ran == want {
            cropped.extend(of_output);
        } else {
            cropped.extend(crop_all(of_output, want.0, want.1)?);
        }
    }
    Ok(cropped)
}

/// Runs `stmt` (the lowered pipeline, or its IR after any pass) on the interpreter, with
/// parallel loops permuted by `parallel_seed`, into output buffers over exactly the box given
/// (of every output; `computed_box` gives the box a schedule computing past it needs).
pub fn run_interp(
    lowered: &Lowered,
    stmt: &crate::ir::Stmt,
    inputs: &Inputs,
    mins: &[i64],
    extents: &[i64],
    parallel_seed: u64,
) -> Result<Realization> {
    let boxes = vec![(mins, extents); lowered.env.outputs.len()];
    run_interp_each(lowered, stmt, inputs, &boxes, parallel_seed)
}

/// `run_interp`, each output over its own box (one per output, in order).
pub fn run_interp_each(
    lowered: &Lowered,
    stmt: &crate::ir::Stmt,
    inputs: &Inputs,
    boxes: &[OutputBox],
    parallel_seed: u64,
) -> Result<Realization> {
    inputs.check(&lowered.arguments)?;
    let outputs = check_lowered_boxes(lowered, boxes)?;
    let mut interp = Interpreter::new()
        .with_parallel_seed(parallel_seed)
        .with_custom_print(inputs.print.clone());
    // The statement's indices reach the elements of these buffers (as for compiled code).
    for (name, buffer) in &inputs.images {
        check_span(*name, buffer.dims(), lowered.large_buffers)?;
        interp.bind_buffer(*name, buffer.clone());
    }
    for p in &inputs.params {
        interp.bind_param(p.name, p.value);
    }
    for (output, (mins, extents)) in outputs.iter().zip(boxes) {
        for (name, ty) in output.buffers.iter().zip(&output.types) {
            check_span(*name, &dense_dims(mins, extents)?, lowered.large_buffers)?;
            interp.bind_buffer(*name, AnyBuffer::with_mins(*ty, mins, extents)?);
        }
    }
    // As for compiled code (`Compiled::realize_into`), empty outputs compute nothing.
    if boxes
        .iter()
        .any(|(_, extents)| extents.iter().all(|&e| e > 0))
    {
        interp.run(stmt)?;
    }
    let buffers = outputs
        .iter()
        .flat_map(|o| &o.buffers)
        .map(|n| interp.take_buffer(*n).expect("output buffer bound above"))
        .collect();
    Ok(Realization {
        buffers,
        stats: interp.stats().clone(),
    })
}

/// The arguments of the lowered pipeline's entry point: the output buffers (one per value),
/// the input images and the scalar parameters.
pub fn signature(lowered: &Lowered) -> Signature {
    lowered.arguments.signature(&lowered.env)
}

/// A pipeline compiled to native code.
#[derive(Debug)]
pub struct Compiled {
    lowered: Lowered,
    jit: CompiledPipeline,
}

impl Compiled {
    /// The lowered pipeline it was compiled from.
    pub fn lowered(&self) -> &Lowered {
        &self.lowered
    }
    /// Milliseconds compiling the lowered pipeline took (only the cache lookup when the code
    /// came from the JIT cache; see `codegen::jit`).
    pub fn compile_ms(&self) -> f64 {
        self.jit.compile_ms()
    }
    /// Whether the code came from the JIT cache: this pipeline, lowered to the same statement,
    /// was compiled for the same target before in this process.
    pub fn from_cache(&self) -> bool {
        self.jit.from_cache()
    }
    /// Runs parallel loops on `threads` workers (0: one per core); an error above
    /// `runtime::parallel::MAX_THREADS`.
    pub fn set_threads(&mut self, threads: usize) -> Result<()> {
        self.jit.set_threads(threads)
    }
    /// Limits the bytes `Func::memoize`'s cache of this compiled pipeline holds (Halide's
    /// `set_cache_size`; 0 restores the default, 1 MiB), dropping the least recently used
    /// entries past it.
    pub fn set_memoize_cache_size(&self, bytes: usize) {
        self.jit.memo_cache().set_size(bytes)
    }
    /// Drops the cached productions stored under `eviction_key`
    /// (`Func::memoize_with_eviction_key`; Halide's `memoization_cache_evict`).
    pub fn memoize_evict(&self, eviction_key: u64) {
        self.jit.memo_cache().evict(eviction_key)
    }
    /// The number of productions `Func::memoize`'s cache holds, and their bytes.
    pub fn memoize_cache_usage(&self) -> (usize, usize) {
        self.jit.memo_cache().usage()
    }

    /// Runs the pipeline over the output box `[mins, mins + extents)` into fresh buffers (for
    /// every output the same box, as Halide's `Pipeline::realize(sizes)`; outputs of
    /// different dimensionalities take `realize_each`). The box is checked before anything
    /// is allocated: no negative extent, every min, extent and stride within the 32 bits
    /// compiled code addresses, each buffer within `MAX_BUFFER_BYTES`; an allocation that
    /// fails is an error too.
    pub fn realize(
        &self,
        inputs: &Inputs,
        mins: &[i64],
        extents: &[i64],
    ) -> Result<Vec<AnyBuffer>> {
        self.realize_each(
            inputs,
            &vec![(mins, extents); self.lowered.env.outputs.len()],
        )
    }

    /// `realize`, each output over its own box (one per output, in order): one buffer per
    /// value of each output, output after output.
    pub fn realize_each(&self, inputs: &Inputs, boxes: &[OutputBox]) -> Result<Vec<AnyBuffer>> {
        let outputs = check_lowered_boxes(&self.lowered, boxes)?;
        let sig = self.jit.signature();
        let mut args = sig.outputs.iter();
        for (output, (mins, extents)) in outputs.iter().zip(boxes) {
            for o in args.by_ref().take(output.buffers.len()) {
                let what = || format!("output {}", o.name);
                let dims = dense_dims(mins, extents).map_err(|e| e.context(what()))?;
                abi_dims(o.name, &dims)?;
                dense_len(extents, o.ty.bytes()).map_err(|e| e.context(what()))?;
            }
        }
        // A schedule computing past the box asked for (a RoundUp tile) computes into a
        // bigger buffer, cropped afterwards.
        let run_boxes = computed_boxes(&self.lowered, inputs, boxes)?;
        let run_refs: Vec<OutputBox> = run_boxes
            .iter()
            .map(|(m, e)| (m.as_slice(), e.as_slice()))
            .collect();
        let allocate = |boxes: &[OutputBox]| -> Result<Vec<AnyBuffer>> {
            let mut buffers = Vec::new();
            for (output, (mins, extents)) in outputs.iter().zip(boxes) {
                for (name, ty) in output.buffers.iter().zip(&output.types) {
                    buffers.push(
                        AnyBuffer::with_mins(*ty, mins, extents)
                            .map_err(|e| e.context(format!("output {name}")))?,
                    );
                }
            }
            Ok(buffers)
        };
        let mut buffers = allocate(&run_refs)?;
        let grown = run_refs.as_slice() != boxes;
        if let Err(e) = self.realize_into(inputs, &mut buffers) {
            // Where computing the grown box fails (an input too small for it), the box asked
            // for fails too, with the error that names the schedule (a vector or tile wider
            // than the output, and the tail strategy that fits).
            if grown {
                self.realize_into(inputs, &mut allocate(boxes)?)?;
            }
            return Err(e);
        }
        crop_each(&self.lowered, buffers, &run_refs, boxes)
    }

    /// Runs the pipeline over the output box `[mins, mins + extents)` into a fresh
    /// `Buffer<T>`: `realize` for an output Func with a single value of type `T` (the first
    /// output, of a pipeline of several), or an error naming the Func and both types, before
    /// anything runs.
    pub fn realize_as<T: Scalar>(
        &self,
        inputs: &Inputs,
        mins: &[i64],
        extents: &[i64],
    ) -> Result<Buffer<T>> {
        let output = self.lowered.env.func(self.lowered.env.outputs[0]).read();
        check_realized_type::<T>(output.name, &output.output_types)?;
        drop(output);
        let mut buffers = self.realize(inputs, mins, extents)?;
        buffers.swap_remove(0).into_typed()
    }

    /// Runs the pipeline into existing output buffers (one per value of each output Func,
    /// output after output; each output's values over one box, each output over its own),
    /// which must not alias (see `codegen::jit::CompiledPipeline::run`). Empty outputs have
    /// nothing to compute: the code is not run, since a schedule's strips and vectors would
    /// reach outside an empty box.
    pub fn realize_into(&self, inputs: &Inputs, outputs: &mut [AnyBuffer]) -> Result<()> {
        inputs.check(&self.lowered.arguments)?;
        if !outputs.is_empty()
            && outputs
                .iter()
                .all(|o| o.dims().iter().any(|d| d.extent == 0))
        {
            return Ok(());
        }
        let images: Vec<(Symbol, &AnyBuffer)> =
            inputs.images().iter().map(|(n, b)| (*n, b)).collect();
        let mut refs: Vec<&mut AnyBuffer> = outputs.iter_mut().collect();
        self.jit
            .run_printing(&mut refs, &images, inputs.params(), &inputs.print)
    }
}

impl Func {
    /// Compiles this Func, with its schedule, for the host and computes it over
    /// `[0, sizes)` into a `Buffer<T>` (Halide's `Func::realize`). For pipelines without
    /// inputs: one that reads an image or a parameter is an error naming it (bind them with
    /// `Inputs` and use `Pipeline::compile_jit` and `Compiled::realize_as`); so is a `T`
    /// other than the Func's value type.
    pub fn realize<T: Scalar>(&self, sizes: &[i64]) -> Result<Buffer<T>> {
        if self.is_defined() {
            // Before compiling; an undefined Func is left to the lowering's error.
            check_realized_type::<T>(self.name(), &self.output_types())?;
        }
        // Large buffers when the output needs them.
        let mins = vec![0; sizes.len()];
        let dims =
            dense_dims(&mins, sizes).map_err(|e| e.context(format!("output {}", self.name())))?;
        let large = needs_large_buffers(&dims);
        let target = Target::host().with_large_buffers(large);
        let compiled = Pipeline::new(self).compile_jit(&target)?;
        let arguments = &compiled.lowered.arguments;
        let image = arguments.images.iter().map(|i| ("image", i.name));
        let param = arguments.params.iter().map(|p| ("parameter", p.name));
        if let Some((what, name)) = image.chain(param).next() {
            return Err(Error::Buffer(format!(
                "Func {} reads the {what} {name}, but Func::realize runs pipelines without inputs; bind it with Inputs and run Pipeline::compile_jit and Compiled::realize_as",
                self.name()
            )));
        }
        compiled.realize_as(&Inputs::new(), &mins, sizes)
    }
}

/// An error naming `func` unless the box (`what`) has one min and one extent for each of its
/// `dims` dimensions.
pub(crate) fn check_box_dimensions(
    func: Symbol,
    dims: usize,
    what: &str,
    mins: &[i64],
    extents: &[i64],
) -> Result<()> {
    if mins.len() != dims || extents.len() != dims {
        return Err(Error::Buffer(format!(
            "{func} has {dims} dimensions but the {what} has {} mins and {} extents",
            mins.len(),
            extents.len()
        )));
    }
    Ok(())
}
