//! `Pipeline`: the output Func of a pipeline, lowered and run. Inputs and scalar parameters are
//! bound by name through `Inputs`; the output buffers are created over the requested box.
//! For now pipelines run on the Stmt interpreter; the native backend plugs in behind the same
//! interface.

use crate::error::{Error, Result};
use crate::interp::{InterpStats, Interpreter};
use crate::ir::Symbol;
use crate::lang::buffer::AnyBuffer;
use crate::lang::func::Func;
use crate::lang::image_param::ImageParam;
use crate::lang::param::ParamBinding;
use crate::lower::arguments::Arguments;
use crate::lower::storage_flattening::value_buffer;
use crate::lower::{lower, LowerOptions, Lowered};

/// The images and scalar parameters a pipeline run reads.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    images: Vec<(Symbol, AnyBuffer)>,
    params: Vec<ParamBinding>,
}

impl Inputs {
    pub fn new() -> Inputs {
        Inputs::default()
    }
    pub fn image(mut self, image: &ImageParam, buffer: impl Into<AnyBuffer>) -> Inputs {
        self.images.retain(|(n, _)| *n != image.name());
        self.images.push((image.name(), buffer.into()));
        self
    }
    pub fn param(mut self, binding: ParamBinding) -> Inputs {
        self.params.retain(|p| p.name != binding.name);
        self.params.push(binding);
        self
    }
    pub fn images(&self) -> &[(Symbol, AnyBuffer)] {
        &self.images
    }
    pub fn params(&self) -> &[ParamBinding] {
        &self.params
    }

    /// Checks these inputs against what the pipeline takes: every image and parameter is
    /// given, with the right element type and dimensionality.
    pub fn check(&self, args: &Arguments) -> Result<()> {
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

/// A pipeline computing one output Func.
#[derive(Clone, Debug)]
pub struct Pipeline {
    output: Func,
}

/// The result of running a pipeline: one buffer per value of the output.
#[derive(Debug)]
pub struct Realization {
    pub buffers: Vec<AnyBuffer>,
    pub stats: InterpStats,
}

impl Pipeline {
    pub fn new(output: &Func) -> Pipeline {
        Pipeline {
            output: output.clone(),
        }
    }
    pub fn output(&self) -> &Func {
        &self.output
    }

    pub fn lower(&self, options: &LowerOptions) -> Result<Lowered> {
        lower(&self.output, options)
    }

    /// The lowered loop nest as readable pseudo-code.
    pub fn lower_to_string(&self) -> Result<String> {
        Ok(self.lower(&LowerOptions::default())?.stmt.to_string())
    }

    /// Runs the lowered pipeline on the interpreter over the box `[mins, mins + extents)`.
    pub fn realize_interp(
        &self,
        inputs: &Inputs,
        mins: &[i64],
        extents: &[i64],
    ) -> Result<Realization> {
        let lowered = self.lower(&LowerOptions::default())?;
        run_interp(&lowered, &lowered.stmt, inputs, mins, extents, 0)
    }
}

/// Runs `stmt` (the lowered pipeline, or its IR after any pass) on the interpreter, with
/// parallel loops permuted by `parallel_seed`.
pub fn run_interp(
    lowered: &Lowered,
    stmt: &crate::ir::Stmt,
    inputs: &Inputs,
    mins: &[i64],
    extents: &[i64],
    parallel_seed: u64,
) -> Result<Realization> {
    inputs.check(&lowered.arguments)?;
    let out = lowered.env.func(lowered.env.output).read();
    if mins.len() != out.args.len() || extents.len() != out.args.len() {
        return Err(Error::Buffer(format!(
            "{} has {} dimensions but the output box has {} mins and {} extents",
            out.name,
            out.args.len(),
            mins.len(),
            extents.len()
        )));
    }
    let mut interp = Interpreter::new().with_parallel_seed(parallel_seed);
    for (name, buffer) in &inputs.images {
        interp.bind_buffer(*name, buffer.clone());
    }
    for p in &inputs.params {
        interp.bind_param(p.name, p.value);
    }
    let names: Vec<Symbol> = (0..out.output_types.len())
        .map(|i| value_buffer(out.name, i, out.output_types.len()))
        .collect();
    for (name, ty) in names.iter().zip(&out.output_types) {
        interp.bind_buffer(*name, AnyBuffer::with_mins(*ty, mins, extents)?);
    }
    drop(out);
    interp.run(stmt)?;
    let buffers = names
        .iter()
        .map(|n| interp.take_buffer(*n).expect("output buffer bound above"))
        .collect();
    Ok(Realization {
        buffers,
        stats: interp.stats().clone(),
    })
}
