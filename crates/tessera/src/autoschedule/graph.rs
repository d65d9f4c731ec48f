//! The stage graph of a pipeline: its Funcs in realization order, each with its stages (the
//! pure definition, then the updates), the input images and Funcs each stage reads
//! (producer → consumer edges, with every call site), and the pipeline's inputs.

use std::collections::BTreeSet;

use crate::error::Result;
use crate::ir::visit::visit_exprs;
use crate::ir::{CallKind, Expr, ExprKind, Symbol};
use crate::lang::func::Func;
use crate::lang::function::{Definition, Function};
use crate::lang::image_param::ImageLink;
use crate::lang::naming::make_func_names_unique;
use crate::lower::realization_order::realization_order;

/// What a stage reads: another Func of the pipeline or an input image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Producer {
    /// A Func of the pipeline.
    Func(Symbol),
    /// An input image.
    Image(Symbol),
}

impl Producer {
    /// The Func's or image's name.
    pub fn name(self) -> Symbol {
        match self {
            Producer::Func(n) | Producer::Image(n) => n,
        }
    }
}

impl std::fmt::Display for Producer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Producer::Func(n) => write!(f, "Func {n}"),
            Producer::Image(n) => write!(f, "input `{n}`"),
        }
    }
}

/// One stage: definition `stage` of Func `func` (0 is the pure definition, k the k-th update).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StageId {
    /// The Func.
    pub func: Symbol,
    /// 0 for the pure definition, k for update k - 1.
    pub stage: usize,
}

impl std::fmt::Display for StageId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.stage {
            0 => write!(f, "{}", self.func),
            k => write!(f, "{}.update({})", self.func, k - 1),
        }
    }
}

/// A Func of the pipeline with its definitions.
#[derive(Clone, Debug)]
pub struct FuncNode {
    /// The Func itself.
    pub function: Function,
    /// Its (unique) name.
    pub name: Symbol,
    /// The pure Vars, in dimension order.
    pub args: Vec<Symbol>,
    /// The pure definition, then the updates.
    pub definitions: Vec<Definition>,
}

/// An input image the pipeline reads.
#[derive(Clone, Debug)]
pub struct InputImage {
    /// The image's name.
    pub name: Symbol,
    /// Its number of dimensions.
    pub dimensions: usize,
    /// Its identity and buffer constraints (estimates included).
    pub link: ImageLink,
}

/// A producer read by a consumer stage, with the coordinates of each call to it there.
#[derive(Clone, Debug)]
pub struct Edge {
    /// The Func or image read.
    pub producer: Producer,
    /// The stage reading it.
    pub consumer: StageId,
    /// The coordinates of each call, one list per call.
    pub call_sites: Vec<Vec<Expr>>,
}

/// The whole pipeline as stages and edges.
#[derive(Clone, Debug)]
pub struct StageGraph {
    /// Producers before consumers; the output is last.
    pub funcs: Vec<FuncNode>,
    /// The output Func.
    pub output: Symbol,
    /// The input images the pipeline reads.
    pub inputs: Vec<InputImage>,
    /// The names of the scalar parameters (and buffer fields) the definitions use.
    pub params: BTreeSet<Symbol>,
    /// Every producer → consumer-stage edge; a stage reading its own Func is no edge.
    pub edges: Vec<Edge>,
}

impl StageGraph {
    /// The graph of the pipeline computing `output`, after making its Func names unique as
    /// lowering does; errors are lowering's (an undefined Func, a cycle).
    pub fn new(output: &Func) -> Result<StageGraph> {
        make_func_names_unique(output.function());
        let env = realization_order(&[output.function().clone()])?;
        let funcs: Vec<FuncNode> = env
            .order
            .iter()
            .map(|&name| {
                let function = env.func(name).clone();
                let args = function.read().args.clone();
                let definitions = function.definitions();
                FuncNode {
                    function,
                    name,
                    args,
                    definitions,
                }
            })
            .collect();
        let mut graph = StageGraph {
            funcs,
            output: env.outputs[0],
            inputs: Vec::new(),
            params: BTreeSet::new(),
            edges: Vec::new(),
        };
        for f in 0..graph.funcs.len() {
            for stage in 0..graph.funcs[f].definitions.len() {
                graph.add_reads(f, stage);
            }
        }
        Ok(graph)
    }

    /// Records what stage `stage` of `self.funcs[f]` reads.
    fn add_reads(&mut self, f: usize, stage: usize) {
        let consumer = StageId {
            func: self.funcs[f].name,
            stage,
        };
        let definition = self.funcs[f].definitions[stage].clone();
        for e in definition.exprs() {
            visit_exprs(e, &mut |n| {
                match n.kind() {
                    ExprKind::Param(p, _) => {
                        self.params.insert(*p);
                    }
                    ExprKind::Call {
                        name, kind, args, ..
                    } => {
                        let producer = match kind {
                            CallKind::Func(_) if *name == consumer.func => None,
                            CallKind::Func(_) => Some(Producer::Func(*name)),
                            CallKind::Image(link) => {
                                if !self.inputs.iter().any(|i| i.name == *name) {
                                    self.inputs.push(InputImage {
                                        name: *name,
                                        dimensions: args.len(),
                                        link: link.clone(),
                                    });
                                }
                                Some(Producer::Image(*name))
                            }
                            CallKind::Intrinsic(_) => None,
                        };
                        if let Some(producer) = producer {
                            self.edge_mut(producer, consumer)
                                .call_sites
                                .push(args.clone());
                        }
                    }
                    _ => {}
                }
                true
            });
        }
    }

    fn edge_mut(&mut self, producer: Producer, consumer: StageId) -> &mut Edge {
        let found =
            (self.edges.iter()).position(|e| e.producer == producer && e.consumer == consumer);
        let index = found.unwrap_or_else(|| {
            self.edges.push(Edge {
                producer,
                consumer,
                call_sites: Vec::new(),
            });
            self.edges.len() - 1
        });
        &mut self.edges[index]
    }

    /// The Func called `name`.
    pub fn func(&self, name: Symbol) -> Option<&FuncNode> {
        self.funcs.iter().find(|f| f.name == name)
    }

    /// The input image called `name`.
    pub fn input(&self, name: Symbol) -> Option<&InputImage> {
        self.inputs.iter().find(|i| i.name == name)
    }

    /// Every stage, Funcs in realization order, each Func's stages in order.
    pub fn stages(&self) -> impl Iterator<Item = StageId> + '_ {
        self.funcs.iter().flat_map(|f| {
            (0..f.definitions.len()).map(|stage| StageId {
                func: f.name,
                stage,
            })
        })
    }

    /// The edges into `consumer`.
    pub fn producers_of(&self, consumer: StageId) -> impl Iterator<Item = &Edge> {
        self.edges.iter().filter(move |e| e.consumer == consumer)
    }

    /// The edges out of `producer`.
    pub fn consumers_of(&self, producer: Producer) -> impl Iterator<Item = &Edge> {
        self.edges.iter().filter(move |e| e.producer == producer)
    }

    /// The definition of `stage`.
    pub fn definition(&self, stage: StageId) -> Option<&Definition> {
        self.func(stage.func)?.definitions.get(stage.stage)
    }
}
