//! Pass 3, bounds inference (Halide §4.2): defines the region each stage of each Func must
//! compute, as lets `f.s<k>.<x>.min/max` = the union, over every use of `f` in the code that
//! consumes it, of the coordinates used (by interval analysis, with the loops inside ranging
//! over their bounds, and a use in an arm of a `select` comparing a variable counted only
//! where the arm is taken). The lets of every Func computed at a loop level sit together at the
//! top of that loop's body (or of the pipeline), consumers first, so each region is written
//! in terms of its consumers' region names and the lets stay small however deep the
//! pipeline; the names interval analysis gives the bounds of big lets inside the consumers
//! (`analysis::boxes`) become lets `f.<name>` just before f's. The pure stage also covers
//! every point its updates write or read, so they update initialized values. An update
//! writing a pure Var at several positions (`g(x, x)`) loops over the points it writes inside
//! its region. The output's regions come from the output buffer (or its explicit bounds,
//! which must cover it).
//!
//! A Func computed at a loop `compute_with` fuses, for several of the fused stages, is
//! placed once, in the loop of the first (`schedule_functions`); the others read it from
//! their own loops until `compute_with` fuses them. Its region is the union of what each
//! stage reads in the iteration where it runs (the fused loop covers the union of the
//! stages' iterations; a stage outside its own reads nothing): the statement is inferred
//! once to find the other stages' code with the regions of their own Funcs, then again with
//! that code counted where the shared Func is computed (`SharedReaders`).

use std::collections::{HashMap, HashSet};

use super::compute_with::{produces, FusedGroups};
use super::names::{i32_var, region_max, region_min, stage_var};
use super::realization_order::Environment;
use crate::analysis::bounds::{bounds_of_expr, Scope};
use crate::analysis::boxes::{
    boxes_provided_stmt, boxes_required_stmt, boxes_required_stmt_within, Box,
};
use crate::analysis::interval::Interval;
use crate::error::{Error, Result};
use crate::ir::substitute::{free_vars, substitute, substitute_map, uses_var};
use crate::ir::visit::{mutate_exprs, visit_exprs, visit_stmt_exprs};
use crate::ir::{BinaryOp, Expr, ExprKind, MessagePart, Stmt, StmtKind, Symbol};
use crate::lang::function::FunctionContents;
use crate::lang::image_param::buffer_field;
use crate::lang::image_param::value_buffer;
use crate::lang::schedule::BoundAlignment;
use crate::simplify::simplify;

/// The per-dimension region of `func` a statement uses (`required`) or writes (`provided`).
pub fn func_box(s: &Stmt, func: Symbol, provided: bool) -> Option<Vec<Interval>> {
    func_box_in(s, func, provided, &Scope::new())
}

/// `func_box` with the names in `scope` ranging over their intervals.
pub fn func_box_in(s: &Stmt, func: Symbol, provided: bool, scope: &Scope) -> Option<Vec<Interval>> {
    // Only the code touching `func` matters: analysing the rest of a big pipeline for every
    // Func would make lowering quadratic in its size.
    let s = touching_without_unused_lets(s, func)?;
    let boxes = if provided {
        boxes_provided_stmt(&s, scope)
    } else {
        boxes_required_stmt(&s, scope)
    };
    boxes.get(&func).map(|b| b.bounds.clone())
}

/// The region of `func` that `s` reads, with the condition under which it is read at all.
pub fn required_box(s: &Stmt, func: Symbol) -> Option<Box> {
    let s = touching_without_unused_lets(s, func)?;
    boxes_required_stmt(&s, &Scope::new()).remove(&func)
}

/// Whether `e` reads `func` (calls it or loads from it).
fn reads(e: &Expr, func: Symbol) -> bool {
    let mut touched = false;
    visit_exprs(e, &mut |n| {
        touched |= match n.kind() {
            ExprKind::Call { name, .. } | ExprKind::Load { buffer: name, .. } => *name == func,
            _ => false,
        };
        !touched
    });
    touched
}

/// `touching`, also leaving out the lets that neither the kept code nor the lets kept use.
/// Around the output of a deep pipeline sit the region and storage lets of every other
/// Func, which the region analysis would otherwise bound one by one (`image_checks` spent
/// seconds on them); a let nothing kept names changes no region.
fn touching_without_unused_lets(s: &Stmt, func: Symbol) -> Option<Stmt> {
    touched_part(s, func).map(|(s, _)| s)
}

/// `touching_without_unused_lets`, with the free names of the part kept.
fn touched_part(s: &Stmt, func: Symbol) -> Option<(Stmt, HashSet<Symbol>)> {
    if let StmtKind::LetStmt { name, value, body } = s.kind() {
        if !reads(value, func) {
            let (body, mut names) = touched_part(body, func)?;
            if !names.remove(name) {
                return Some((body, names));
            }
            names.extend(free_vars(value));
            return Some((Stmt::let_stmt(*name, value.clone(), body), names));
        }
    }
    let mut touched = false;
    s.for_each_child(|e| touched |= reads(e, func), |_| {});
    match s.kind() {
        // The storage of another Func changes no region of `func`, and its bounds would keep
        // that Func's storage lets (a deep pipeline's output is nested in every Func's).
        StmtKind::Realize {
            func: other, body, ..
        }
        | StmtKind::Allocate {
            buffer: other,
            body,
            ..
        } if *other != func && !touched => return touched_part(body, func),
        StmtKind::Provide { func: name, .. } | StmtKind::Store { buffer: name, .. } => {
            touched |= *name == func
        }
        _ => {}
    }
    let mut names: HashSet<Symbol> = HashSet::new();
    let s = s.map_children(
        |e| e.clone(),
        |c| match touched_part(c, func) {
            Some((c, child_names)) => {
                touched = true;
                // The smaller set into the larger: a deep nest merges in linear time.
                let (mut larger, smaller) = if names.len() < child_names.len() {
                    (child_names, std::mem::take(&mut names))
                } else {
                    (std::mem::take(&mut names), child_names)
                };
                larger.extend(smaller);
                names = larger;
                c
            }
            None => Stmt::empty(),
        },
    );
    if !touched {
        return None;
    }
    match s.kind() {
        StmtKind::LetStmt { name, .. } | StmtKind::For { name, .. } => {
            names.remove(name);
        }
        _ => {}
    }
    s.for_each_child(|e| names.extend(free_vars(e)), |_| {});
    Some((s, names))
}

/// The part of `s` that touches `func` (with the loops, lets and branches around it), or
/// `None` if nothing does: the region analysis then looks at nothing else.
pub fn touching(s: &Stmt, func: Symbol) -> Option<Stmt> {
    let mut touched = false;
    s.for_each_child(|e| touched |= reads(e, func), |_| {});
    touched |= match s.kind() {
        StmtKind::Provide { func: name, .. } | StmtKind::Store { buffer: name, .. } => {
            *name == func
        }
        _ => false,
    };
    let s = s.map_children(
        |e| e.clone(),
        |c| match touching(c, func) {
            Some(c) => {
                touched = true;
                c
            }
            None => Stmt::empty(),
        },
    );
    touched.then_some(s)
}

/// Dimension-wise union of two optional boxes.
pub fn union_boxes(a: Option<Vec<Interval>>, b: Option<Vec<Interval>>) -> Option<Vec<Interval>> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.iter().zip(&b).map(|(x, y)| x.union(y)).collect()),
        (a, None) => a,
        (None, b) => b,
    }
}

/// The bounds of an interval, or an error naming the Func and dimension it leaves unbounded.
pub fn bounded(i: &Interval, what: impl Fn() -> String) -> Result<(Expr, Expr)> {
    match (&i.min, &i.max) {
        (Some(min), Some(max)) => Ok((simplify(min), simplify(max))),
        _ => Err(Error::schedule(format!(
            "{} is accessed in an unbounded way (its coordinates cannot be bounded by interval analysis); clamp the coordinates or use a boundary condition",
            what()
        ))),
    }
}

/// The bounds of `func`'s region in dimension `d`, or an error naming the access in `s` whose
/// coordinate is unbounded (a data-dependent index such as `g(idx(x))`, or a coordinate past
/// the range of 32-bit integers) and what to do about it.
fn bounded_access(
    i: &Interval,
    s: &Stmt,
    func: Symbol,
    d: usize,
    dim: &str,
) -> Result<(Expr, Expr)> {
    if i.is_bounded() {
        return bounded(i, String::new);
    }
    let Some((access, site)) = unbounded_access(s, func, d) else {
        return bounded(i, || dim.to_string());
    };
    Err(Error::schedule(format!(
        "{func} is accessed at {access} in {site}, and its coordinate in {dim} cannot be bounded (it depends on data or exceeds 32 bits), so no storage can hold what {func} would need; clamp the coordinate to the range {func} should cover (e.g. clamp(coordinate, 0, 255)), or compute {func} inline"
    )))
}

/// The first access to `func` in `s` (a call or a definition's left-hand side) whose
/// coordinate `d` interval analysis cannot bound, with the Func whose definition holds it.
fn unbounded_access(s: &Stmt, func: Symbol, d: usize) -> Option<(String, Symbol)> {
    let unbounded = |args: &[Expr]| {
        args.get(d)
            .is_some_and(|a| !bounds_of_expr(a, &Scope::new()).is_bounded())
    };
    let mut found = None;
    let mut producing = Vec::new();
    find_unbounded(s, func, &unbounded, &mut producing, &mut found);
    found
}

fn find_unbounded(
    s: &Stmt,
    func: Symbol,
    unbounded: &dyn Fn(&[Expr]) -> bool,
    producing: &mut Vec<Symbol>,
    found: &mut Option<(String, Symbol)>,
) {
    if found.is_some() {
        return;
    }
    let site = |producing: &Vec<Symbol>, own: Symbol| *producing.last().unwrap_or(&own);
    match s.kind() {
        StmtKind::ProducerConsumer {
            name,
            is_producer: true,
            body,
        } => {
            producing.push(*name);
            find_unbounded(body, func, unbounded, producing, found);
            producing.pop();
            return;
        }
        StmtKind::Provide { func: f, args, .. } if *f == func && unbounded(args) => {
            let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
            *found = Some((format!("{func}({})", args.join(", ")), func));
            return;
        }
        _ => {}
    }
    s.for_each_child(
        |e| {
            visit_exprs(e, &mut |n| {
                if let ExprKind::Call { name, args, .. } = n.kind() {
                    if *name == func && found.is_none() && unbounded(args) {
                        *found = Some((n.to_string(), site(producing, func)));
                    }
                }
                found.is_none()
            })
        },
        |_| {},
    );
    s.for_each_child(
        |_| {},
        |c| find_unbounded(c, func, unbounded, producing, found),
    );
}

pub fn bounds_inference(s: &Stmt, env: &Environment) -> Result<Stmt> {
    let mut cx = Inference {
        env,
        shared: SharedReaders::default(),
    };
    let (mut body, mut root_lets) = infer(s, &cx)?;
    cx.shared = SharedReaders::of(&body, env);
    if !cx.shared.readers.is_empty() {
        (body, root_lets) = infer(s, &cx)?;
    }
    let mut lets = Vec::new();
    let mut checks = Vec::new();
    for &output in &env.outputs {
        let out = env.func(output).read();
        let buffer = value_buffer(out.name, 0, out.output_types.len());
        // Each output computes its buffer's box, or what its explicit bounds say (which must
        // cover the buffer).
        let mut region: Vec<(Expr, Expr)> = (0..out.args.len())
            .map(|d| {
                let min = i32_var(buffer_field(buffer, "min", d));
                let extent = i32_var(buffer_field(buffer, "extent", d));
                let max = Expr::binary(
                    BinaryOp::Sub,
                    Expr::binary(BinaryOp::Add, min.clone(), extent),
                    Expr::i32(1),
                );
                (min, max)
            })
            .collect();
        checks.extend(apply_explicit_bounds(&out, &mut region));
        checks.extend(output_alignment_checks(&out, &region));
        for k in 0..out.stage_count() {
            let def = out.stage(k).expect("stage exists");
            lets.extend(stage_region_lets(out.name, k, &def.args, &region));
        }
    }
    // The regions of the Funcs computed at root follow the outputs', outside their checks
    // (the image checks go below all of them).
    lets.extend(root_lets);
    Ok(wrap_lets(
        lets,
        Stmt::block(checks.into_iter().chain([body])),
    ))
}

/// The lets `f.s<k>.<v>.min/max` bounding each pure Var `v` of stage `k` of `func`, whose
/// left-hand side is `args`, given the region the stage must compute in each dimension. A Var
/// written at several positions (the diagonal `g(x, x)`, or shifted, `g(x, x + 1)`) ranges
/// over the points whose writes land inside the region in all of them: the points outside are
/// needed neither by the consumers nor by the later stages, whose reads the region covers. (A
/// coordinate that is not the Var plus a constant does not narrow it: its writes may land
/// outside the region, which storage covers since it spans every point a stage writes.)
fn stage_region_lets(func: Symbol, k: usize, args: &[Expr], region: &[(Expr, Expr)]) -> Lets {
    let mut ranges: Vec<(Symbol, Expr, Expr)> = Vec::new();
    for (arg, (min, max)) in args.iter().zip(region) {
        let Some((v, offset)) = var_plus_constant(arg) else {
            continue;
        };
        let (min, max) = match offset {
            None => (min.clone(), max.clone()),
            Some(c) => (
                simplify(&Expr::binary(BinaryOp::Sub, min.clone(), c.clone())),
                simplify(&Expr::binary(BinaryOp::Sub, max.clone(), c)),
            ),
        };
        match ranges.iter_mut().find(|(var, ..)| *var == v) {
            Some((_, lo, hi)) => {
                *lo = simplify(&Expr::binary(BinaryOp::Max, lo.clone(), min));
                *hi = simplify(&Expr::binary(BinaryOp::Min, hi.clone(), max));
            }
            None => ranges.push((v, min, max)),
        }
    }
    ranges
        .into_iter()
        .flat_map(|(v, min, max)| [(region_min(func, k, v), min), (region_max(func, k, v), max)])
        .collect()
}

/// `arg` as a Var `v` (`(v, None)`) or `v + c` with `c` a constant (`(v, Some(c))`).
fn var_plus_constant(arg: &Expr) -> Option<(Symbol, Option<Expr>)> {
    if let Some(v) = arg.as_var() {
        return Some((v, None));
    }
    let mut vars = Vec::new();
    visit_exprs(arg, &mut |n| {
        if let ExprKind::Var(v) = n.kind() {
            vars.push(*v);
        }
        true
    });
    let &[v] = vars.as_slice() else {
        return None;
    };
    let offset = simplify(&Expr::binary(
        BinaryOp::Sub,
        arg.clone(),
        Expr::var(v, arg.ty()),
    ));
    offset.as_int_const().is_some().then_some((v, Some(offset)))
}

/// Replaces the `required` region of `f` by its explicit bounds (`f.bound(x, min, extent)`,
/// or `f.bound_extent(x, extent)` from the required min), returning the assertions that
/// each bound covers what was required.
fn apply_explicit_bounds(f: &FunctionContents, required: &mut [(Expr, Expr)]) -> Vec<Stmt> {
    let dimension = |var: Symbol| {
        f.args
            .iter()
            .position(|a| *a == var)
            .expect("validated bound")
    };
    let bounds = f
        .schedule
        .bounds
        .iter()
        .map(|b| (b.var, Some(&b.min), &b.extent, "bound"))
        .chain(
            f.schedule
                .extent_bounds
                .iter()
                .map(|b| (b.var, None, &b.extent, "bound_extent")),
        );
    let mut checks = Vec::new();
    for (var, min, extent, directive) in bounds {
        let d = dimension(var);
        let (req_min, req_max) = required[d].clone();
        let min = min.cloned().unwrap_or_else(|| req_min.clone());
        let max = simplify(&Expr::binary(
            BinaryOp::Sub,
            Expr::binary(BinaryOp::Add, min.clone(), extent.clone()),
            Expr::i32(1),
        ));
        let covers = Expr::binary(
            BinaryOp::And,
            Expr::binary(BinaryOp::Le, min.clone(), req_min.clone()),
            Expr::binary(BinaryOp::Ge, max.clone(), req_max.clone()),
        );
        checks.push(Stmt::new(StmtKind::Assert {
            condition: covers,
            message: vec![
                MessagePart::Text(format!("{}.{directive}({var}, ..) gives [", f.name).into()),
                MessagePart::Value(min.clone()),
                MessagePart::Text(", ".into()),
                MessagePart::Value(max.clone()),
                MessagePart::Text("] but [".into()),
                MessagePart::Value(req_min),
                MessagePart::Text(", ".into()),
                MessagePart::Value(req_max),
                MessagePart::Text("] is needed".into()),
            ],
        }));
        required[d] = (min, max);
    }
    checks
}

/// The dimension of `f` an alignment directive names.
fn aligned_dimension(f: &FunctionContents, a: &BoundAlignment) -> usize {
    f.args
        .iter()
        .position(|arg| *arg == a.var)
        .expect("validated alignment")
}

/// Widens the `required` region of `f` in each dimension it aligns (`align_bounds`,
/// `align_extent`): the min down to the remainder modulo the modulus (or kept), the extent up
/// to a multiple of the modulus. Division rounds toward −∞, so `((min - r) / m) * m + r` is
/// the point at or below `min` with remainder `r`, which the simplifier knows is aligned.
fn align_bounds(f: &FunctionContents, required: &mut [(Expr, Expr)]) {
    let binary = Expr::binary;
    for a in &f.schedule.bound_alignments {
        let d = aligned_dimension(f, a);
        let m = Expr::i32(a.modulus);
        let (min, max) = required[d].clone();
        let aligned_min = match a.remainder {
            Some(r) => {
                let r = Expr::i32(r);
                let below = binary(
                    BinaryOp::Div,
                    binary(BinaryOp::Sub, min, r.clone()),
                    m.clone(),
                );
                binary(BinaryOp::Add, binary(BinaryOp::Mul, below, m.clone()), r)
            }
            None => min,
        };
        // extent = ceil((max - min + 1) / m) * m = ((max - min + m) / m) * m
        let span = binary(
            BinaryOp::Add,
            binary(BinaryOp::Sub, max, aligned_min.clone()),
            m.clone(),
        );
        let extent = binary(BinaryOp::Mul, binary(BinaryOp::Div, span, m.clone()), m);
        let aligned_max = binary(
            BinaryOp::Sub,
            binary(BinaryOp::Add, aligned_min.clone(), extent),
            Expr::i32(1),
        );
        required[d] = (simplify(&aligned_min), simplify(&aligned_max));
    }
}

/// The assertions that the output's buffer satisfies the output's alignment directives: its
/// region is the buffer's, so it cannot be widened.
fn output_alignment_checks(out: &FunctionContents, region: &[(Expr, Expr)]) -> Vec<Stmt> {
    let binary = Expr::binary;
    let multiple_of = |e: Expr, m: i32| {
        binary(
            BinaryOp::Eq,
            binary(BinaryOp::Mod, e, Expr::i32(m)),
            Expr::i32(0),
        )
    };
    out.schedule
        .bound_alignments
        .iter()
        .map(|a| {
            let (min, max) = region[aligned_dimension(out, a)].clone();
            let extent = binary(
                BinaryOp::Add,
                binary(BinaryOp::Sub, max.clone(), min.clone()),
                Expr::i32(1),
            );
            let (directive, rule) = match a.remainder {
                Some(r) => (
                    format!("align_bounds({}, {}, {r})", a.var, a.modulus),
                    format!(
                        "start at {r} modulo {} and have an extent that is a multiple of {}",
                        a.modulus, a.modulus
                    ),
                ),
                None => (
                    format!("align_extent({}, {})", a.var, a.modulus),
                    format!("have an extent that is a multiple of {}", a.modulus),
                ),
            };
            let extent_ok = multiple_of(extent, a.modulus);
            let condition = match a.remainder {
                Some(r) => binary(
                    BinaryOp::And,
                    multiple_of(binary(BinaryOp::Sub, min.clone(), Expr::i32(r)), a.modulus),
                    extent_ok,
                ),
                None => extent_ok,
            };
            Stmt::new(StmtKind::Assert {
                condition,
                message: vec![
                    MessagePart::Text(
                        format!(
                            "{}.{directive}: the output buffer must {rule}, but it covers [",
                            out.name
                        )
                        .into(),
                    ),
                    MessagePart::Value(min),
                    MessagePart::Text(", ".into()),
                    MessagePart::Value(max),
                    MessagePart::Text("]".into()),
                ],
            })
        })
        .collect()
}

/// `e` with its `Let`s (the names interval analysis gives the bounds of big varying lets and
/// loops) lifted out into `lets`, renamed `<owner>.<name>` so the lets lifted for different
/// Funcs never clash: the regions stay small and share what they have in common.
pub fn hoist_lets(e: &Expr, owner: Symbol, lets: &mut Lets) -> Expr {
    mutate_exprs(e, &mut |n| {
        let ExprKind::Let(name, value, body) = n.kind() else {
            return None;
        };
        let value = hoist_lets(value, owner, lets);
        // The first name not defined differently (one defined the same is shared).
        let fresh = Symbol::first_untaken(owner.dot(name.as_str()).as_str(), |f| {
            lets.iter().any(|(m, v)| *m == f && *v != value)
        });
        if lets.iter().all(|(m, _)| *m != fresh) {
            lets.push((fresh, value.clone()));
        }
        let body = substitute(body, *name, &Expr::var(fresh, value.ty()));
        Some(hoist_lets(&body, owner, lets))
    })
}

pub fn wrap_lets(lets: Vec<(Symbol, Expr)>, body: Stmt) -> Stmt {
    lets.into_iter()
        .rev()
        .fold(body, |b, (n, v)| Stmt::let_stmt(n, v, b))
}

/// Region lets waiting to be placed, outermost first.
pub type Lets = Vec<(Symbol, Expr)>;

/// `s` with the regions of the Funcs produced in it defined, and the region lets that can
/// still move further out. A Func's region lets go at the top of the loop body (or of the
/// whole pipeline) where it is computed, with those of its consumers computed there outside
/// them: its region is then defined in terms of its consumers' region *names*, and its
/// producers' regions in terms of its own, so their size does not grow with the depth of the
/// pipeline (Halide places them the same way).
fn infer(s: &Stmt, cx: &Inference) -> Result<(Stmt, Lets)> {
    match s.kind() {
        StmtKind::Block(stmts) => infer_block(stmts, cx),
        StmtKind::Realize {
            func,
            types,
            bounds,
            body,
        } => {
            let (body, lets) = infer(body, cx)?;
            let realize = Stmt::new(StmtKind::Realize {
                func: *func,
                types: types.clone(),
                bounds: bounds.clone(),
                body,
            });
            Ok((realize, lets))
        }
        StmtKind::LetStmt { name, value, body } => {
            let (body, mut lets) = infer(body, cx)?;
            // Lets from the first one using `name` on stay inside it.
            let inside = lets
                .iter()
                .position(|(_, v)| uses_var(v, *name))
                .unwrap_or(lets.len());
            let body = wrap_lets(lets.split_off(inside), body);
            Ok((Stmt::let_stmt(*name, value.clone(), body), lets))
        }
        _ => {
            // Loops, branches and producers: the lets found inside stay inside.
            let mut error = None;
            let s = s.map_children(
                |e| e.clone(),
                |c| match infer(c, cx) {
                    Ok((c, lets)) => wrap_lets(lets, c),
                    Err(e) => {
                        error.get_or_insert(e);
                        c.clone()
                    }
                },
            );
            match error {
                Some(e) => Err(e),
                None => Ok((s, Lets::new())),
            }
        }
    }
}

/// The stages of a producer, each with the region lets found in it at its top.
fn infer_stages(produce: &Stmt, cx: &Inference) -> Result<Stmt> {
    let StmtKind::Block(stmts) = produce.kind() else {
        return infer(produce, cx).map(|(s, lets)| wrap_lets(lets, s));
    };
    // The block flattens the stages' statements: a Func computed at a stage's
    // `Var::outermost()` level leaves that stage as a `produce g; consume g` pair, which is
    // one stage (its lets and its consumer's code go together), not two.
    let mut stages = Vec::new();
    let mut i = 0;
    while i < stmts.len() {
        let len = if is_produce_consume_pair(&stmts[i..]) {
            2
        } else {
            1
        };
        let (stage, lets) = infer_block(&stmts[i..i + len], cx)?;
        stages.push(wrap_lets(lets, stage));
        i += len;
    }
    Ok(Stmt::block(stages))
}

/// Whether `stmts` starts with `produce g` followed by `consume g`.
fn is_produce_consume_pair(stmts: &[Stmt]) -> bool {
    let [first, second, ..] = stmts else {
        return false;
    };
    matches!(
        (first.kind(), second.kind()),
        (
            StmtKind::ProducerConsumer { name: produced, is_producer: true, .. },
            StmtKind::ProducerConsumer { name: consumed, is_producer: false, .. },
        ) if produced == consumed
    )
}

/// A block, where each `produce f; consume f` pair gets f's regions.
fn infer_block(stmts: &[Stmt], cx: &Inference) -> Result<(Stmt, Lets)> {
    let env = cx.env;
    let mut out = Vec::with_capacity(stmts.len());
    let mut lets = Lets::new();
    let mut i = 0;
    while i < stmts.len() {
        if let (
            StmtKind::ProducerConsumer {
                name,
                is_producer: true,
                body: produce,
            },
            Some(next),
        ) = (stmts[i].kind(), stmts.get(i + 1))
        {
            if let StmtKind::ProducerConsumer {
                name: consumer,
                is_producer: false,
                body: consume,
            } = next.kind()
            {
                if consumer == name {
                    let produce = infer_stages(produce, cx)?;
                    let (consume, consumer_lets) = infer(consume, cx)?;
                    // An output's regions are its buffer's (`bounds_inference`), not what
                    // its consumers read: those reads are checked against the buffer.
                    let (own_lets, checks) = if env.is_output(*name) {
                        (Lets::new(), Vec::new())
                    } else {
                        define_regions(*name, &produce, &consume, cx)?
                    };
                    lets.extend(consumer_lets);
                    lets.extend(own_lets);
                    out.extend(checks);
                    out.push(Stmt::new(StmtKind::ProducerConsumer {
                        name: *name,
                        is_producer: true,
                        body: produce,
                    }));
                    out.push(Stmt::new(StmtKind::ProducerConsumer {
                        name: *name,
                        is_producer: false,
                        body: consume,
                    }));
                    i += 2;
                    continue;
                }
            }
        }
        let (s, inner) = infer(&stmts[i], cx)?;
        lets.extend(inner);
        out.push(s);
        i += 1;
    }
    Ok((Stmt::block(out), lets))
}

/// Into `regions`: the variables of the stages of the Funcs produced in `s` (but the
/// outputs), each with its stage's region. A stage computes points outside its region only in
/// the last iteration of a `ShiftInwards` split bigger than the region; those points are
/// never used, so what they read need not be computed (it only needs storage: allocation
/// bounds cover every read). Otherwise each level of a pyramid whose coarse levels are
/// narrower than a vector doubles the overreach of the level above it. Halide's regions
/// likewise come from its consumers' regions, not their loops. A Func computed at a loop of
/// its consumer sees only part of that consumer's nest (its `produce` is outside `s`): there
/// the loops outside fix the tile, whose reads are exact. The output's region is its buffer,
/// which its last iterations never leave.
fn stage_regions(s: &Stmt, env: &Environment, regions: &mut HashMap<Symbol, Interval>) {
    if let StmtKind::ProducerConsumer {
        name,
        is_producer: true,
        ..
    } = s.kind()
    {
        if !env.is_output(*name) {
            let f = env.func(*name).read();
            for k in 0..f.stage_count() {
                let def = f.stage(k).expect("stage exists");
                for v in def.args.iter().filter_map(|a| a.as_var()) {
                    let region = Interval::new(
                        i32_var(region_min(*name, k, v)),
                        i32_var(region_max(*name, k, v)),
                    );
                    regions.insert(stage_var(*name, k, v), region);
                }
            }
        }
    }
    s.for_each_child(|_| {}, |c| stage_regions(c, env, regions));
}

/// The lets defining the regions of f's stages, and the assertions that its explicit bounds
/// cover what its consumers (in `consume`) require.
fn define_regions(
    func: Symbol,
    produce: &Stmt,
    consume: &Stmt,
    cx: &Inference,
) -> Result<(Lets, Vec<Stmt>)> {
    let env = cx.env;
    let f = env.func(func).read();
    let dim_name = |d: usize| format!("dimension {} ({})", d, f.args[d]);
    // Only what the consumers' points inside their regions read.
    let read_by = |code: &Stmt| -> Result<Option<Vec<(Expr, Expr)>>> {
        let read = touching(code, func).and_then(|s| {
            let mut regions = HashMap::new();
            stage_regions(&s, env, &mut regions);
            boxes_required_stmt_within(&s, &Scope::new(), &regions)
                .remove(&func)
                .map(|b| b.bounds)
        });
        let Some(read) = read else {
            return Ok(None);
        };
        let bounds = read.iter().enumerate();
        bounds
            .map(|(d, i)| bounded_access(i, code, func, d, &dim_name(d)))
            .collect::<Result<_>>()
            .map(Some)
    };
    let required = match cx.shared.readers.get(&func) {
        None => read_by(consume)?,
        Some(readers) => {
            let mut parts = Vec::new();
            for (runs, code) in readers {
                if let Some(read) = read_by(code.as_ref().unwrap_or(consume))? {
                    parts.push((runs.clone(), read));
                }
            }
            union_where_run(parts)
        }
    };
    // No box: every use is in code that never runs (e.g. under an RDom predicate that is
    // always false), so nothing of `func` is needed.
    let required = required.unwrap_or_else(|| vec![(Expr::i32(0), Expr::i32(-1)); f.args.len()]);
    let mut hoisted = Lets::new();
    let mut hoist = |(min, max): &(Expr, Expr)| {
        (
            hoist_lets(min, func, &mut hoisted),
            hoist_lets(max, func, &mut hoisted),
        )
    };
    let mut required: Vec<(Expr, Expr)> = required.iter().map(&mut hoist).collect();
    let checks = apply_explicit_bounds(&f, &mut required);
    align_bounds(&f, &mut required);

    // Stages are given their regions last to first: each computes what the consumers
    // require and what the later stages of `func` read of it (an x-scan followed by a
    // y-scan must cover every row the y-scan reads, not just the consumers' rows); the pure
    // definition also covers every point the updates write, so they update initialized
    // values. A stage's reads are measured with its own region lets around it.
    let stages: Vec<Stmt> = match produce.kind() {
        StmtKind::Block(s) => s.clone(),
        _ => vec![produce.clone()],
    };
    let mut lets: Vec<(Symbol, Expr)> = Vec::new();
    let mut later_reads: Option<Vec<Interval>> = None;
    let mut later_touched: Option<Vec<Interval>> = None;
    for k in (0..f.stage_count()).rev() {
        let later = if k == 0 { &later_touched } else { &later_reads };
        let region: Vec<(Expr, Expr)> = match later {
            None => required.clone(),
            Some(t) => required
                .iter()
                .zip(t)
                .enumerate()
                .map(|(d, ((min, max), t))| {
                    let region = Interval::new(min.clone(), max.clone()).union(t);
                    bounded_access(&region, produce, func, d, &dim_name(d))
                })
                .collect::<Result<Vec<_>>>()?
                .iter()
                .map(&mut hoist)
                .collect(),
        };
        let def = f.stage(k).expect("stage exists");
        let stage_lets = stage_region_lets(func, k, &def.args, &region);
        if k > 0 {
            if let Some(stage) = stages.get(k) {
                let with_lets = wrap_lets(stage_lets.clone(), stage.clone());
                let reads = func_box(&with_lets, func, false);
                let writes = func_box(&with_lets, func, true);
                later_touched = union_boxes(later_touched, union_boxes(reads.clone(), writes));
                later_reads = union_boxes(later_reads, reads);
            }
        }
        lets.extend(stage_lets);
    }
    hoisted.extend(lets);
    Ok((hoisted, checks))
}

/// What inferring the regions needs besides the statement.
struct Inference<'a> {
    env: &'a Environment,
    shared: SharedReaders,
}

/// The Funcs computed once at a fused loop for several of the stages `compute_with` fuses
/// there, with what reads them in each iteration of that loop.
#[derive(Default)]
struct SharedReaders {
    /// For each such Func, each stage reading it: the condition that the stage runs in an
    /// iteration (in the variables of the loops where the Func is computed) and its code in
    /// that iteration (in those variables), or `None` for the code consuming the Func where
    /// it is computed.
    readers: HashMap<Symbol, Vec<(Expr, Option<Stmt>)>>,
}

/// A loop `compute_with` fuses with others, as found in a statement.
struct FusedSite {
    name: Symbol,
    min: Expr,
    extent: Expr,
    body: Stmt,
    /// The lets between the production it is in and the loop.
    lets: Lets,
    /// The fused loops around it, outermost first.
    outer: Vec<Symbol>,
}

impl SharedReaders {
    /// The shared Funcs of `s` (inferred without them) and their readers.
    fn of(s: &Stmt, env: &Environment) -> SharedReaders {
        let groups = FusedGroups::new(env);
        let mut shared = SharedReaders::default();
        let mut sites = Vec::new();
        fused_sites(s, &groups, &mut Lets::new(), &mut Vec::new(), &mut sites);
        if sites.is_empty() {
            return shared;
        }
        for at in &sites {
            let mut produced = Vec::new();
            produced_here(&at.body, &mut produced);
            for func in produced {
                if env.is_output(func) || shared.readers.contains_key(&func) {
                    continue;
                }
                let others: Vec<&FusedSite> = (sites.iter())
                    .filter(|b| b.name != at.name && groups.fused_with(at.name).contains(&b.name))
                    .filter(|b| reads_func(&b.body, func) && !produces(&b.body, func))
                    .collect();
                if others.is_empty() {
                    continue;
                }
                let chain = |x| site_chain(&sites, x);
                let mut readers = vec![(runs_at(&chain(at)), None)];
                for b in others {
                    let (b_chain, at_chain) = (chain(b), chain(at));
                    if b_chain.len() != at_chain.len() {
                        continue;
                    }
                    // The other stage's loop variables are those of the loops here.
                    let renamed: Lets = (b_chain.iter().zip(&at_chain))
                        .map(|(b, a)| (b.name, i32_var(a.name)))
                        .collect();
                    let map: HashMap<Symbol, Expr> = renamed.iter().cloned().collect();
                    let runs = substitute_map(&runs_at(&b_chain), &map);
                    let code = wrap_lets(renamed, wrap_lets(b.lets.clone(), b.body.clone()));
                    readers.push((runs, Some(code)));
                }
                shared.readers.insert(func, readers);
            }
        }
        shared
    }
}

/// `x` and the fused loops around it, outermost first.
fn site_chain<'a>(sites: &'a [FusedSite], x: &'a FusedSite) -> Vec<&'a FusedSite> {
    let outer = x.outer.iter();
    let outer = outer.filter_map(|&o| sites.iter().find(|site| site.name == o));
    outer.chain([x]).collect()
}

/// Into `out`: the loops of `s` that `groups` fuses; `lets` are those since the production
/// `s` is in, `outer` the fused loops around `s`.
fn fused_sites(
    s: &Stmt,
    groups: &FusedGroups,
    lets: &mut Lets,
    outer: &mut Vec<Symbol>,
    out: &mut Vec<FusedSite>,
) {
    match s.kind() {
        StmtKind::ProducerConsumer {
            is_producer: true,
            body,
            ..
        } => {
            let around = std::mem::take(lets);
            fused_sites(body, groups, lets, outer, out);
            *lets = around;
        }
        StmtKind::LetStmt { name, value, body } => {
            lets.push((*name, value.clone()));
            fused_sites(body, groups, lets, outer, out);
            lets.pop();
        }
        StmtKind::For {
            name,
            min,
            extent,
            body,
            ..
        } if groups.is_fused(*name) => {
            out.push(FusedSite {
                name: *name,
                min: min.clone(),
                extent: extent.clone(),
                body: body.clone(),
                lets: lets.clone(),
                outer: outer.clone(),
            });
            outer.push(*name);
            fused_sites(body, groups, lets, outer, out);
            outer.pop();
        }
        _ => s.for_each_child(|_| {}, |c| fused_sites(c, groups, lets, outer, out)),
    }
}

/// Whether the stage whose fused loops are `chain` (outermost first) runs in an iteration
/// of them: each loop's variable inside that loop's own bounds.
fn runs_at(chain: &[&FusedSite]) -> Expr {
    let within = chain.iter().map(|x| {
        let var = i32_var(x.name);
        let end = Expr::binary(BinaryOp::Add, x.min.clone(), x.extent.clone());
        let inside = Expr::binary(
            BinaryOp::And,
            Expr::binary(BinaryOp::Le, x.min.clone(), var.clone()),
            Expr::binary(BinaryOp::Lt, var, end),
        );
        (x.lets.iter().rev()).fold(inside, |e, (n, v)| Expr::let_in(*n, v.clone(), e))
    });
    within
        .reduce(|a, b| Expr::binary(BinaryOp::And, a, b))
        .unwrap_or_else(|| Expr::bool_(true))
}

/// The Funcs produced in `s` outside any loop of it.
fn produced_here(s: &Stmt, out: &mut Vec<Symbol>) {
    match s.kind() {
        StmtKind::For { .. } => {}
        StmtKind::ProducerConsumer {
            name,
            is_producer: true,
            ..
        } => out.push(*name),
        _ => s.for_each_child(|_| {}, |c| produced_here(c, out)),
    }
}

/// Whether some expression of `s` reads `func`.
fn reads_func(s: &Stmt, func: Symbol) -> bool {
    let mut found = false;
    visit_stmt_exprs(s, &mut |e| {
        found |= reads(e, func);
        !found
    });
    found
}

/// The union of `parts`' regions (min and max per dimension), each counted where its
/// condition holds; where none holds, an empty region (its max below its min, which stays
/// where the regions are, not to widen the storage holding them).
fn union_where_run(parts: Vec<(Expr, Vec<(Expr, Expr)>)>) -> Option<Vec<(Expr, Expr)>> {
    let mut parts = parts.into_iter();
    let (mut any, mut union) = parts.next()?;
    for (runs, region) in parts {
        let joined = |op: BinaryOp, sofar: &Expr, this: &Expr| {
            let both = Expr::binary(op, sofar.clone(), this.clone());
            let with_this = Expr::select(any.clone(), both, this.clone());
            Expr::select(runs.clone(), with_this, sofar.clone())
        };
        union = (union.iter().zip(&region))
            .map(|((min, max), (this_min, this_max))| {
                (
                    joined(BinaryOp::Min, min, this_min),
                    joined(BinaryOp::Max, max, this_max),
                )
            })
            .collect();
        any = Expr::binary(BinaryOp::Or, any, runs);
    }
    let below = |min: &Expr| Expr::binary(BinaryOp::Sub, min.clone(), Expr::i32(1));
    let union = union.into_iter().map(|(min, max)| {
        let max = Expr::select(any.clone(), max, below(&min));
        (simplify(&min), simplify(&max))
    });
    Some(union.collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::stmt::{ForKind, Range};
    use crate::ir::Type;

    /// `f` written at `x + 1` for `x` in `[0, 10)`, inside the storage of another Func `g`
    /// whose extent is the let `g.extent`, bound to `extent`.
    fn f_inside_the_storage_of_g(extent: Expr) -> Stmt {
        let (x, g_extent, f, g) = (
            Symbol::new("x"),
            Symbol::new("g.extent"),
            Symbol::new("f"),
            Symbol::new("g"),
        );
        let store = Stmt::new(StmtKind::Provide {
            func: f,
            args: vec![Expr::binary(
                BinaryOp::Add,
                Expr::var(x, Type::i32()),
                Expr::i32(1),
            )],
            values: vec![Expr::i32(7)],
        });
        let producer = Stmt::for_loop(x, Expr::i32(0), Expr::i32(10), ForKind::Serial, store);
        let storage = Stmt::new(StmtKind::Realize {
            func: g,
            types: vec![Type::i32()],
            bounds: vec![Range {
                min: Expr::i32(0),
                extent: Expr::var(g_extent, Type::i32()),
            }],
            body: producer,
        });
        Stmt::let_stmt(g_extent, extent, storage)
    }

    fn constant_ends(i: &Interval) -> (Option<i128>, Option<i128>) {
        let constant = |e: &Option<Expr>| e.as_ref().and_then(Expr::as_int_const);
        (constant(&i.min), constant(&i.max))
    }

    #[test]
    fn the_storage_of_other_funcs_and_its_lets_are_left_out_of_a_funcs_region() {
        let s = f_inside_the_storage_of_g(Expr::i32(20));
        let kept = touching_without_unused_lets(&s, Symbol::new("f")).expect("f is written");
        let text = kept.to_string();
        assert!(!text.contains("realize"), "{text}");
        assert!(!text.contains("g.extent"), "{text}");
        let region = func_box(&s, Symbol::new("f"), true).expect("f is written");
        // The points written, by a plain loop over the producer's x.
        let written: Vec<i128> = (0..10).map(|x| x + 1).collect();
        assert_eq!(
            constant_ends(&region[0]),
            (written.first().copied(), written.last().copied())
        );
    }

    #[test]
    fn the_storage_of_another_func_whose_bounds_read_the_func_is_kept() {
        let f = Symbol::new("f");
        let s = f_inside_the_storage_of_g(Expr::i32(0));
        let StmtKind::LetStmt { name, body, .. } = s.kind() else {
            unreachable!("built as a let")
        };
        let StmtKind::Realize {
            func,
            types,
            bounds,
            body,
        } = body.kind()
        else {
            unreachable!("built as a realize")
        };
        let read_f = Expr::load(Type::i32(), f, Expr::i32(3));
        let storage = Stmt::new(StmtKind::Realize {
            func: *func,
            types: types.clone(),
            bounds: vec![Range {
                min: bounds[0].min.clone(),
                extent: read_f,
            }],
            body: body.clone(),
        });
        let s = Stmt::let_stmt(*name, Expr::i32(0), storage);
        let kept = touching_without_unused_lets(&s, f).expect("f is read");
        assert!(kept.to_string().contains("realize"), "{kept}");
        let region = func_box(&s, f, false).expect("f is read");
        assert_eq!(constant_ends(&region[0]), (Some(3), Some(3)));
    }
}
