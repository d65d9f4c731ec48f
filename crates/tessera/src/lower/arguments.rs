//! The arguments a lowered pipeline takes (Halide's InferArguments): the input images it reads
//! (with element type and dimensionality) and the scalar Params it uses, found in the
//! definitions of its Funcs. Buffer fields of the images (`input.min.0`) are not separate
//! arguments: they come with the image's buffer.

use std::collections::BTreeMap;

use super::realization_order::Environment;
use crate::codegen::signature::{BufferArgument, ScalarArgument, Signature};
use crate::error::{Error, Result};
use crate::ir::visit::visit_exprs;
use crate::ir::{CallKind, Expr, ExprKind, Symbol, Type};
use crate::lang::image_param::{field_image, value_buffer, ImageLink};
use crate::lang::param::same_name_error;

#[derive(Clone, Debug, PartialEq)]
pub struct ImageArgument {
    pub name: Symbol,
    pub ty: Type,
    pub dims: usize,
    /// The ImageParam read, and the constraints on its buffer.
    pub link: ImageLink,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ParamArgument {
    pub name: Symbol,
    pub ty: Type,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Arguments {
    pub images: Vec<ImageArgument>,
    pub params: Vec<ParamArgument>,
}

impl Arguments {
    /// Whether `name` is a field (`min`/`extent`/`stride`) of one of the images.
    pub fn is_image_field(&self, name: Symbol) -> bool {
        self.images.iter().any(|i| {
            name.as_str()
                .strip_prefix(i.name.as_str())
                .is_some_and(|rest| rest.starts_with('.'))
        })
    }

    /// The entry point's arguments (what the lowered statement may read without binding
    /// it): the output buffers of `env`'s output Funcs (one per value, output after
    /// output), the input images and the scalar parameters.
    pub fn signature(&self, env: &Environment) -> Signature {
        let outputs = env
            .outputs
            .iter()
            .flat_map(|&o| {
                let out = env.func(o).read();
                let n = out.output_types.len();
                (0..n)
                    .map(|i| BufferArgument {
                        name: value_buffer(out.name, i, n),
                        ty: out.output_types[i],
                        dims: out.args.len(),
                        nontemporal: out.schedule.nontemporal_stores,
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        let images = self
            .images
            .iter()
            .map(|i| BufferArgument {
                name: i.name,
                ty: i.ty,
                dims: i.dims,
                nontemporal: false,
            })
            .collect();
        let params = self
            .params
            .iter()
            .map(|p| ScalarArgument {
                name: p.name,
                ty: p.ty,
            })
            .collect();
        Signature {
            outputs,
            images,
            params,
        }
    }
}

/// Every expression of the pipeline's definitions and of the schedules' bounds,
/// specialization conditions and split factors.
pub(crate) fn definition_exprs(env: &Environment) -> Vec<Expr> {
    let mut out = Vec::new();
    for name in &env.order {
        // Every expression of each definition, the guard of a select with an undef arm too
        // (a Param may appear only there).
        for d in env.func(*name).definitions() {
            out.extend(d.exprs().cloned());
        }
        let c = env.func(*name).read();
        out.extend(
            c.schedule
                .bounds
                .iter()
                .flat_map(|b| [b.min.clone(), b.extent.clone()]),
        );
        out.extend(c.schedule.extent_bounds.iter().map(|b| b.extent.clone()));
        out.extend(
            c.schedule
                .memoize
                .iter()
                .filter_map(|m| m.eviction_key.clone()),
        );
        for def in c.pure.iter().chain(&c.updates) {
            let structures = def.schedule.structures();
            for structure in &structures {
                out.extend(
                    structure
                        .specializations
                        .iter()
                        .map(|s| s.condition.clone()),
                );
            }
            for split in structures.iter().flat_map(|s| &s.splits) {
                if let crate::lang::schedule::SplitDirective::Split { factor, .. } = split {
                    out.push(factor.clone());
                }
            }
        }
    }
    out
}

/// The images and Params found so far, and the first conflict between two uses of a name.
#[derive(Default)]
struct Found {
    images: BTreeMap<&'static str, ImageArgument>,
    params: BTreeMap<&'static str, ParamArgument>,
    conflict: Option<Error>,
}

impl Found {
    fn visit(&mut self, e: &Expr) {
        visit_exprs(e, &mut |n| {
            match n.kind() {
                ExprKind::Call {
                    name,
                    kind: CallKind::Image(link),
                    args,
                    ..
                } => self.add_image(ImageArgument {
                    name: *name,
                    ty: n.ty(),
                    dims: args.len(),
                    link: link.clone(),
                }),
                // An image used only through its bounds is an argument all the same: its
                // buffer supplies them, and its constraints apply to them.
                ExprKind::Param(_, Some(image)) => self.add_image(ImageArgument {
                    name: image.name(),
                    ty: image.ty(),
                    dims: image.dimensions(),
                    link: image.link().clone(),
                }),
                ExprKind::Param(name, None) => {
                    let arg = ParamArgument {
                        name: *name,
                        ty: n.ty(),
                    };
                    if let Some(prev) = self.params.insert(name.as_str(), arg.clone()) {
                        if prev != arg {
                            self.conflict.get_or_insert(Error::Definition(format!(
                                "parameter {name} is used as {} and as {}",
                                prev.ty, arg.ty
                            )));
                        }
                    }
                }
                _ => {}
            }
            true
        });
    }

    fn add_image(&mut self, arg: ImageArgument) {
        let name = arg.name;
        if let Some(prev) = self.images.insert(name.as_str(), arg.clone()) {
            if prev.link != arg.link {
                self.conflict.get_or_insert(same_name_error("image", name));
            } else if prev != arg {
                self.conflict.get_or_insert(Error::Definition(format!(
                    "image {name} is used as {} with {} dimensions and as {} with {}",
                    prev.ty, prev.dims, arg.ty, arg.dims
                )));
            }
        }
    }
}

pub fn infer_arguments(env: &Environment) -> Result<Arguments> {
    let mut found = Found::default();
    for e in definition_exprs(env) {
        found.visit(&e);
    }
    // The Params the buffers' constraints use are arguments too (constraints hold no calls).
    let mut constraints: Vec<_> = found
        .images
        .values()
        .map(|i| i.link.constraints())
        .collect();
    constraints.extend(
        env.outputs
            .iter()
            .map(|&o| env.func(o).read().output_constraints()),
    );
    for dim in constraints.iter().flat_map(|c| c.dims()) {
        for e in dim.min.iter().chain(&dim.extent).chain(&dim.stride) {
            found.visit(e);
        }
    }
    let Found {
        images,
        params,
        conflict,
    } = found;
    if let Some(c) = conflict {
        return Err(c);
    }
    let mut args = Arguments {
        images: images.into_values().collect(),
        params: Vec::new(),
    };
    // The bounds of the output's buffers (`Func::output_min`) come with those buffers; no
    // other Func has a buffer of its own.
    let buffers_of = |f: Symbol| {
        let values = env.func(f).read().output_types.len();
        (0..values)
            .map(|i| value_buffer(f, i, values))
            .collect::<Vec<_>>()
    };
    let outputs: Vec<Symbol> = env.outputs.iter().flat_map(|&o| buffers_of(o)).collect();
    let mut fields_of_output = Vec::new();
    for p in params.values() {
        let Some(buffer) = field_image(p.name).map(Symbol::new) else {
            continue;
        };
        if outputs.contains(&buffer) {
            fields_of_output.push(p.name);
            continue;
        }
        if let Some(f) = env.order.iter().find(|f| buffers_of(**f).contains(&buffer)) {
            return Err(Error::Definition(format!(
                "the pipeline uses the bounds of {f}'s output buffer ({}), but {f} is not an output of the pipeline ({}); only outputs are realized into buffers of their own",
                p.name,
                env.describe_outputs()
            )));
        }
    }
    args.params = params
        .into_values()
        .filter(|p| !args.is_image_field(p.name) && !fields_of_output.contains(&p.name))
        .collect();
    Ok(args)
}
