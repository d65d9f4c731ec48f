//! Storage flattening (Halide §4.4): multi-dimensional `Realize`/`Provide`/`Call` become flat
//! `Allocate`/`Store`/`Load`. A Func's storage is laid out densely over its realized box in
//! storage order (first dimension innermost unless `reorder_storage` says otherwise), each
//! dimension's extent padded to the multiple `align_storage` asks for; the output and the
//! input images are addressed through their buffers' `min` and `stride` fields (the first
//! dimension's stride becomes the constant 1 afterwards, where the buffer is constrained to be
//! dense there: `buffer_constraints`). Element `i` of a Tuple-valued Func lives in buffer `f.i`.

use std::collections::HashMap;

use super::names::i32_var;
use super::realization_order::Environment;
use crate::ir::function::keeps_element;
use crate::ir::visit::{mutate_exprs, Mutator};
use crate::ir::{BinaryOp, CallKind, Expr, ExprKind, ForKind, Stmt, StmtKind, Symbol, Type};
use crate::lang::image_param::{buffer_field, value_buffer};

/// How one Func's coordinates map to a flat index: `Σ (c_d - min_d) * stride_d`.
#[derive(Clone)]
struct Layout {
    mins: Vec<Expr>,
    strides: Vec<Expr>,
}

impl Layout {
    fn index(&self, coords: &[Expr]) -> Expr {
        let terms = coords
            .iter()
            .zip(&self.mins)
            .zip(&self.strides)
            .map(|((c, m), s)| {
                Expr::binary(
                    BinaryOp::Mul,
                    Expr::binary(BinaryOp::Sub, c.clone(), m.clone()),
                    s.clone(),
                )
            });
        terms
            .reduce(|a, b| Expr::binary(BinaryOp::Add, a, b))
            .unwrap_or_else(|| Expr::i32(0))
    }

    /// An external buffer's layout (the output, or an input image): its fields.
    fn of_buffer(name: Symbol, dims: usize) -> Layout {
        let fields = |field| {
            (0..dims)
                .map(|d| i32_var(buffer_field(name, field, d)))
                .collect()
        };
        Layout {
            mins: fields("min"),
            strides: fields("stride"),
        }
    }
}

struct Flattener<'a> {
    env: &'a Environment,
    layouts: HashMap<Symbol, Layout>,
    /// Inside an atomic update's statement.
    in_atomic: bool,
}

impl Flattener<'_> {
    /// The layout of `func`'s value stored in `buffer`: the allocation's when `func` is
    /// realized inside the pipeline, else that external buffer's (each value of a Tuple
    /// output is its own buffer).
    fn layout(&self, func: Symbol, buffer: Symbol, dims: usize) -> Layout {
        self.layouts
            .get(&func)
            .cloned()
            .unwrap_or_else(|| Layout::of_buffer(buffer, dims))
    }

    fn flatten_expr(&self, e: &Expr) -> Expr {
        mutate_exprs(e, &mut |n| match n.kind() {
            ExprKind::Call {
                name,
                kind: CallKind::Func(link),
                args,
                value_index,
            } => {
                let args: Vec<Expr> = args.iter().map(|a| self.flatten_expr(a)).collect();
                let outputs = self
                    .env
                    .funcs
                    .get(name)
                    .map_or(link.output_count(), |f| f.read().output_types.len());
                let buffer = value_buffer(*name, *value_index, outputs);
                let index = self.layout(*name, buffer, args.len()).index(&args);
                Some(Expr::load(n.ty(), buffer, index))
            }
            ExprKind::Call {
                name,
                kind: CallKind::Image(_),
                args,
                ..
            } => {
                let args: Vec<Expr> = args.iter().map(|a| self.flatten_expr(a)).collect();
                Some(Expr::load(
                    n.ty(),
                    *name,
                    Layout::of_buffer(*name, args.len()).index(&args),
                ))
            }
            _ => None,
        })
    }
}

impl Mutator for Flattener<'_> {
    fn mutate_expr(&mut self, e: &Expr) -> Expr {
        self.flatten_expr(e)
    }

    fn mutate_stmt(&mut self, s: &Stmt) -> Stmt {
        match s.kind() {
            StmtKind::Realize {
                func,
                types,
                bounds,
                body,
            } => {
                let f = self.env.func(*func).read();
                let order: Vec<usize> = if f.schedule.storage_order.is_empty() {
                    (0..f.args.len()).collect()
                } else {
                    f.schedule
                        .storage_order
                        .iter()
                        .map(|v| {
                            f.args
                                .iter()
                                .position(|a| a == v)
                                .expect("validated storage order")
                        })
                        .collect()
                };
                let storage_extents: Vec<Expr> = f
                    .args
                    .iter()
                    .zip(bounds)
                    .map(|(arg, r)| {
                        let alignment = f.schedule.alignments.iter().find(|a| a.var == *arg);
                        match alignment {
                            Some(a) if a.alignment > 1 => round_up(&r.extent, a.alignment),
                            _ => r.extent.clone(),
                        }
                    })
                    .collect();
                let mut strides = vec![Expr::i32(0); bounds.len()];
                let mut stride = Expr::i32(1);
                for &d in &order {
                    strides[d] = stride.clone();
                    stride = Expr::binary(BinaryOp::Mul, stride, storage_extents[d].clone());
                }
                let mins = bounds.iter().map(|r| r.min.clone()).collect();
                let extents: Vec<Expr> =
                    order.iter().map(|&d| storage_extents[d].clone()).collect();
                let zero_filled = f.pure_leaves_points_unstored();
                let memory = f.schedule.memory;
                drop(f);
                let previous = self.layouts.insert(*func, Layout { mins, strides });
                let mut body = self.mutate_stmt(body);
                match previous {
                    Some(p) => self.layouts.insert(*func, p),
                    None => self.layouts.remove(func),
                };
                if zero_filled {
                    body = Stmt::block([zero_fill(*func, types, &extents), body]);
                }
                for (i, ty) in types.iter().enumerate().rev() {
                    let buffer = value_buffer(*func, i, types.len());
                    body = Stmt::new(StmtKind::Allocate {
                        buffer,
                        ty: *ty,
                        extents: extents.clone(),
                        memory,
                        body,
                    });
                }
                body
            }
            StmtKind::Prefetch {
                buffer,
                ty,
                args,
                in_bounds,
                ..
            } => {
                let args: Vec<Expr> = args.iter().map(|a| self.flatten_expr(a)).collect();
                let outputs = self
                    .env
                    .funcs
                    .get(buffer)
                    .map_or(1, |f| f.read().output_types.len());
                let flat = value_buffer(*buffer, 0, outputs);
                Stmt::new(StmtKind::Prefetch {
                    buffer: flat,
                    ty: *ty,
                    args: vec![self.layout(*buffer, flat, args.len()).index(&args)],
                    flat: true,
                    in_bounds: *in_bounds,
                })
            }
            StmtKind::Provide {
                func,
                args: coordinates,
                values: given,
            } => {
                let count = given.len();
                let args: Vec<Expr> = coordinates.iter().map(|a| self.flatten_expr(a)).collect();
                // An undef element stores nothing (its value is itself at the point).
                let values: Vec<(usize, Expr)> = given
                    .iter()
                    .enumerate()
                    .filter(|&(i, v)| !keeps_element(*func, coordinates, i, v))
                    .map(|(i, v)| (i, self.flatten_expr(v)))
                    .collect();
                let store = |i: usize, value: Expr| {
                    let buffer = value_buffer(*func, i, count);
                    Stmt::new(StmtKind::Store {
                        buffer,
                        index: self.layout(*func, buffer, args.len()).index(&args),
                        value,
                        predicate: None,
                    })
                };
                if let [(i, value)] = values.as_slice() {
                    return store(*i, value.clone());
                }
                // In an atomic update, elements that do not read each other at the point are
                // stored straight from their values, so each store is an atomic update of
                // its own element that reads it.
                if self.in_atomic
                    && !elements_read_each_other(&values, |i| {
                        let buffer = value_buffer(*func, i, count);
                        (buffer, self.layout(*func, buffer, args.len()).index(&args))
                    })
                {
                    return Stmt::block(values.iter().map(|(i, v)| store(*i, v.clone())));
                }
                // A Tuple's values are all computed before any is stored (they may read the
                // point being overwritten).
                let temps: Vec<Symbol> = values
                    .iter()
                    .map(|(i, _)| func.dot(&format!("value{i}")))
                    .collect();
                let mut body = Stmt::block(
                    temps
                        .iter()
                        .zip(&values)
                        .map(|(t, (i, v))| store(*i, Expr::var(*t, v.ty()))),
                );
                for (t, (_, v)) in temps.iter().zip(&values).rev() {
                    body = Stmt::let_stmt(*t, v.clone(), body);
                }
                body
            }
            StmtKind::Atomic { .. } => {
                let outer = std::mem::replace(&mut self.in_atomic, true);
                let flat = crate::ir::visit::mutate_stmt_children(self, s);
                self.in_atomic = outer;
                flat
            }
            _ => crate::ir::visit::mutate_stmt_children(self, s),
        }
    }
}

/// Whether some element of a Tuple's flattened `values` (each with its element's index)
/// reads another stored element at the point being stored (`point(j)`: element j's buffer
/// and index there).
fn elements_read_each_other(
    values: &[(usize, Expr)],
    point: impl Fn(usize) -> (Symbol, Expr),
) -> bool {
    values.iter().any(|(i, v)| {
        values.iter().filter(|(j, _)| j != i).any(|&(j, _)| {
            let (buffer, index) = point(j);
            crate::ir::read_modify_write::reads_point(v, buffer, &index)
        })
    })
}

/// Stores of zero to every element of `func`'s fresh storage (flat, `extents` elements per
/// dimension): a point its pure definition leaves undef and no update writes reads 0, never
/// uninitialised memory, which LLVM may treat as undefined behaviour.
fn zero_fill(func: Symbol, types: &[Type], extents: &[Expr]) -> Stmt {
    let size = extents
        .iter()
        .cloned()
        .reduce(|a, b| Expr::binary(BinaryOp::Mul, a, b))
        .unwrap_or_else(|| Expr::i32(1));
    let index = func.dot("zero_fill");
    Stmt::for_loop(
        index,
        Expr::i32(0),
        size,
        ForKind::Serial,
        Stmt::block(types.iter().enumerate().map(|(i, &ty)| {
            Stmt::new(StmtKind::Store {
                buffer: value_buffer(func, i, types.len()),
                index: i32_var(index),
                value: Expr::zero(ty),
                predicate: None,
            })
        })),
    )
}

/// `extent` (never negative) rounded up to a multiple of `alignment`, as
/// `((extent - 1) / alignment + 1) * alignment`: no step exceeds the result, which the
/// allocation's size check bounds, so none wraps.
fn round_up(extent: &Expr, alignment: i32) -> Expr {
    let a = Expr::i32(alignment);
    let below = Expr::binary(BinaryOp::Sub, extent.clone(), Expr::i32(1));
    let multiples = Expr::binary(
        BinaryOp::Add,
        Expr::binary(BinaryOp::Div, below, a.clone()),
        Expr::i32(1),
    );
    Expr::binary(BinaryOp::Mul, multiples, a)
}

pub fn storage_flattening(s: &Stmt, env: &Environment) -> Stmt {
    Flattener {
        env,
        layouts: HashMap::new(),
        in_atomic: false,
    }
    .mutate_stmt(s)
}
