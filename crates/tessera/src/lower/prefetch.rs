//! `Func::prefetch` (Halide's Prefetch.cpp): at the top of each iteration of a Func's loop
//! `at`, the region of a producer that the iteration `offset` iterations ahead along loop
//! `from` reads is brought into the caches, one `Prefetch` statement per cache line of each
//! innermost row of the region (Halide's x86 prefetch: 64 bytes). The region is found by
//! bounds analysis of the loop's body with `from` shifted, then clamped to the producer's
//! buffer (`Clamp`), guarded by an `if` that it lies inside (`GuardWithIf`), or left as is
//! (`NonFaulting`). Runs after image checks, so that prefetches never enlarge the regions
//! required of inputs, and before storage flattening, which makes the statements flat.

use std::collections::{HashMap, HashSet};

use super::names::i32_var;
use super::realization_order::Environment;
use crate::analysis::bounds::Scope;
use crate::analysis::boxes::boxes_required_stmt;
use crate::analysis::interval::Interval;
use crate::error::{Error, Result, ScheduleError};
use crate::ir::visit::{visit_exprs, visit_stmt_exprs};
use crate::ir::{BinaryOp, CallKind, Expr, ExprKind, ForKind, Range, Stmt, StmtKind, Symbol, Type};
use crate::lang::image_param::{buffer_field, value_buffer};
use crate::lang::schedule::{PrefetchBoundStrategy, PrefetchDirective};
use crate::simplify::simplify;

/// The bytes one prefetch brings in: a cache line of x86 (and Halide's choice there).
const CACHE_LINE_BYTES: i32 = 64;

/// One directive of one Func.
struct Request {
    func: Symbol,
    directive: PrefetchDirective,
    placed: bool,
}

/// Places every Func's prefetches; an error names the Func and the loop of a directive whose
/// loops are not the Func's, or whose producer the Func does not read.
pub fn prefetch(s: &Stmt, env: &Environment) -> Result<Stmt> {
    let mut requests = Vec::new();
    for &func in &env.order {
        for directive in env.func(func).read().schedule.prefetches.clone() {
            if !reads_transitively(env, func, directive.producer) {
                return Err(directive_error(
                    func,
                    &directive,
                    format!("{func} does not read {}", directive.producer),
                ));
            }
            requests.push(Request {
                func,
                directive,
                placed: false,
            });
        }
    }
    if requests.is_empty() {
        return Ok(s.clone());
    }
    let mut injector = Injector {
        env,
        requests,
        realized: HashMap::new(),
        loops: Vec::new(),
    };
    let s = injector.stmt(s)?;
    if let Some(r) = injector.requests.iter().find(|r| !r.placed) {
        let message = format!("{} has no loop {}", r.func, r.directive.at);
        return Err(directive_error(r.func, &r.directive, message));
    }
    Ok(s)
}

fn directive_error(func: Symbol, d: &PrefetchDirective, problem: String) -> Error {
    let call = format!(
        "prefetch({}, {}, {}, {}, {:?})",
        d.producer, d.at, d.from, d.offset, d.strategy
    );
    let message = format!("{func}.{call}: {problem}");
    Error::Schedule(ScheduleError::of_directive(func, &call, message))
}

/// Whether `func`'s definitions read `producer` (a Func or an image), directly or through
/// the Funcs they read.
fn reads_transitively(env: &Environment, func: Symbol, producer: Symbol) -> bool {
    let mut seen = HashSet::from([func]);
    let mut pending = vec![func];
    while let Some(f) = pending.pop() {
        let Some(function) = env.funcs.get(&f) else {
            continue;
        };
        for d in function.definitions() {
            for e in d.exprs() {
                visit_exprs(e, &mut |n| {
                    if let ExprKind::Call {
                        name,
                        kind: CallKind::Func(_) | CallKind::Image(_),
                        ..
                    } = n.kind()
                    {
                        if seen.insert(*name) {
                            pending.push(*name);
                        }
                    }
                    true
                });
            }
        }
    }
    seen.contains(&producer) && producer != func
}

struct Injector<'a> {
    env: &'a Environment,
    requests: Vec<Request>,
    /// The bounds of the Funcs realized around the statement being visited.
    realized: HashMap<Symbol, Vec<Range>>,
    /// The loops around it, outermost first.
    loops: Vec<Symbol>,
}

impl Injector<'_> {
    fn stmt(&mut self, s: &Stmt) -> Result<Stmt> {
        match s.kind() {
            StmtKind::Realize { func, bounds, .. } => {
                let outer = self.realized.insert(*func, bounds.clone());
                let result = s.try_map_stmts(|c| self.stmt(c));
                match outer {
                    Some(b) => self.realized.insert(*func, b),
                    None => self.realized.remove(func),
                };
                result
            }
            StmtKind::For {
                name,
                min,
                extent,
                kind,
                body,
            } => {
                self.loops.push(*name);
                let body = self.stmt(body);
                self.loops.pop();
                let mut body = body?;
                let mut prefetches = Vec::new();
                // Taken out while the loop's prefetches are built from `self`.
                let mut requests = std::mem::take(&mut self.requests);
                for request in &mut requests {
                    let (func, d) = (request.func, &request.directive);
                    let prefix = format!("{func}.s0.");
                    let is_loop = |l: &Symbol, var: Symbol| {
                        let l = l.as_str();
                        l.starts_with(&prefix) && l.ends_with(&format!(".{var}"))
                    };
                    if !is_loop(name, d.at) {
                        continue;
                    }
                    request.placed = true;
                    if *kind == ForKind::Vectorized {
                        let problem = format!("{func}'s loop {} is vectorized", d.at);
                        return Err(directive_error(func, d, problem));
                    }
                    let Some(from) = std::iter::once(name)
                        .chain(self.loops.iter().rev())
                        .find(|l| is_loop(l, d.from))
                    else {
                        let problem =
                            format!("{} is not a loop of {func} at or outside {}", d.from, d.at);
                        return Err(directive_error(func, d, problem));
                    };
                    prefetches.extend(self.prefetch(d, *from, &body));
                }
                self.requests = requests;
                if !prefetches.is_empty() {
                    prefetches.push(body);
                    body = Stmt::block(prefetches);
                }
                Ok(Stmt::for_loop(
                    *name,
                    min.clone(),
                    extent.clone(),
                    *kind,
                    body,
                ))
            }
            _ => s.try_map_stmts(|c| self.stmt(c)),
        }
    }

    /// The prefetches, for the iteration `offset` ahead along loop `from`, of what `body`
    /// reads of the producer; none when it reads none, or an unbounded region.
    fn prefetch(&self, d: &PrefetchDirective, from: Symbol, body: &Stmt) -> Option<Stmt> {
        let ty = element_type(body, d.producer)?;
        let mut scope = Scope::new();
        let ahead = Expr::binary(BinaryOp::Add, i32_var(from), Expr::i32(d.offset));
        scope.insert(from, Interval::single_point(ahead));
        let region = boxes_required_stmt(body, &scope).remove(&d.producer)?;
        if !region.is_bounded() {
            return None;
        }
        let buffer = self.buffer_bounds(d.producer, region.dimensions());
        let mut condition = region.used.clone();
        let mut bounds = region.bounds.clone();
        match d.strategy {
            PrefetchBoundStrategy::Clamp => {
                bounds = bounds
                    .iter()
                    .zip(&buffer)
                    .map(|(r, b)| r.intersect(b))
                    .collect();
            }
            PrefetchBoundStrategy::GuardWithIf => {
                for (r, b) in bounds.iter().zip(&buffer) {
                    let inside = Expr::binary(
                        BinaryOp::And,
                        Expr::binary(BinaryOp::Ge, end(&r.min), end(&b.min)),
                        Expr::binary(BinaryOp::Le, end(&r.max), end(&b.max)),
                    );
                    condition = Some(match condition {
                        Some(c) => Expr::binary(BinaryOp::And, c, inside),
                        None => inside,
                    });
                }
            }
            PrefetchBoundStrategy::NonFaulting => {}
        }
        let in_bounds = d.strategy != PrefetchBoundStrategy::NonFaulting;
        let s = cache_lines(d.producer, ty, &bounds, in_bounds, from);
        Some(match condition {
            Some(c) => Stmt::new(StmtKind::IfThenElse {
                condition: simplify(&c),
                then_case: s,
                else_case: None,
            }),
            None => s,
        })
    }

    /// The box of the producer's buffer: its realization, or the fields of the caller's
    /// buffer (an input image, or an output).
    fn buffer_bounds(&self, producer: Symbol, dims: usize) -> Vec<Interval> {
        if let Some(bounds) = self.realized.get(&producer) {
            return bounds
                .iter()
                .map(|r| Interval::new(r.min.clone(), last(&r.min, &r.extent)))
                .collect();
        }
        let outputs = self
            .env
            .funcs
            .get(&producer)
            .map_or(1, |f| f.read().output_types.len());
        let buffer = value_buffer(producer, 0, outputs);
        (0..dims)
            .map(|d| {
                let min = i32_var(buffer_field(buffer, "min", d));
                let extent = i32_var(buffer_field(buffer, "extent", d));
                Interval::new(min.clone(), last(&min, &extent))
            })
            .collect()
    }
}

fn end(e: &Option<Expr>) -> Expr {
    e.clone()
        .expect("internal error: a bounded interval has both ends")
}

/// `min + extent - 1`.
fn last(min: &Expr, extent: &Expr) -> Expr {
    Expr::binary(
        BinaryOp::Sub,
        Expr::binary(BinaryOp::Add, min.clone(), extent.clone()),
        Expr::i32(1),
    )
}

/// The element type of the producer's first value where `body` reads it.
fn element_type(body: &Stmt, producer: Symbol) -> Option<Type> {
    let mut ty = None;
    visit_stmt_exprs(body, &mut |n| {
        if let ExprKind::Call { name, .. } = n.kind() {
            if *name == producer && ty.is_none() {
                ty = Some(n.ty().element());
            }
        }
        ty.is_none()
    });
    ty
}

/// Prefetches of `bounds` of `producer`: a loop over each outer dimension, and one over the
/// cache lines of the innermost, whose elements are adjacent.
fn cache_lines(
    producer: Symbol,
    ty: Type,
    bounds: &[Interval],
    in_bounds: bool,
    at: Symbol,
) -> Stmt {
    let per_line = (CACHE_LINE_BYTES / ty.bytes() as i32).max(1);
    let loop_var = |d: usize| Symbol::new(&format!("{at}.prefetch.{producer}.{d}"));
    let mut args: Vec<Expr> = (0..bounds.len()).map(|d| i32_var(loop_var(d))).collect();
    if let Some(first) = args.first_mut() {
        let offset = Expr::binary(BinaryOp::Mul, first.clone(), Expr::i32(per_line));
        *first = Expr::binary(BinaryOp::Add, end(&bounds[0].min), offset);
    }
    let mut s = Stmt::new(StmtKind::Prefetch {
        buffer: producer,
        ty,
        args,
        flat: false,
        in_bounds,
    });
    for (d, b) in bounds.iter().enumerate() {
        let (min, max) = (end(&b.min), end(&b.max));
        let points = Expr::binary(BinaryOp::Sub, max, min.clone());
        let (min, extent) = if d == 0 {
            // ceil((max - min + 1) / per_line) lines, the last starting inside the row.
            let lines = Expr::binary(
                BinaryOp::Div,
                Expr::binary(BinaryOp::Add, points, Expr::i32(per_line)),
                Expr::i32(per_line),
            );
            (Expr::i32(0), lines)
        } else {
            (min, Expr::binary(BinaryOp::Add, points, Expr::i32(1)))
        };
        s = Stmt::for_loop(
            loop_var(d),
            simplify(&min),
            simplify(&extent),
            ForKind::Serial,
            s,
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A loop's name, min and extent.
    type Loop = (String, Option<i128>, Option<i128>);

    /// The loops of `s` from the outside in, and the prefetch's arguments inside.
    fn nest(s: &Stmt) -> (Vec<Loop>, Vec<Expr>) {
        match s.kind() {
            StmtKind::For {
                name,
                min,
                extent,
                body,
                ..
            } => {
                let (mut loops, args) = nest(body);
                loops.insert(
                    0,
                    (name.to_string(), min.as_int_const(), extent.as_int_const()),
                );
                (loops, args)
            }
            StmtKind::Prefetch { args, .. } => (Vec::new(), args.clone()),
            _ => panic!("unexpected {s}"),
        }
    }

    #[test]
    fn one_prefetch_per_cache_line_of_each_row() {
        // Rows 5 and 6, columns 3 to 130 of u8: 128 bytes from column 3 span two lines.
        let bounds = [
            Interval::new(Expr::i32(3), Expr::i32(130)),
            Interval::new(Expr::i32(5), Expr::i32(6)),
        ];
        let s = cache_lines(
            Symbol::new("f"),
            Type::u8(),
            &bounds,
            true,
            Symbol::new("g.s0.y"),
        );
        let (loops, args) = nest(&s);
        assert_eq!(
            loops,
            [
                ("g.s0.y.prefetch.f.1".to_string(), Some(5), Some(2)),
                ("g.s0.y.prefetch.f.0".to_string(), Some(0), Some(2)),
            ]
        );
        assert_eq!(args.len(), 2);
        assert_eq!(args[0].to_string(), "3 + g.s0.y.prefetch.f.0*64");
        // f32: 16 elements a line, so 128 elements are 8 lines; one element is one line.
        let row = |max| [Interval::new(Expr::i32(0), Expr::i32(max))];
        let lines = |max| {
            nest(&cache_lines(
                Symbol::new("f"),
                Type::f32(),
                &row(max),
                false,
                Symbol::new("x"),
            ))
            .0[0]
                .2
        };
        assert_eq!(lines(127), Some(8));
        assert_eq!(lines(128), Some(9));
        assert_eq!(lines(0), Some(1));
    }
}
