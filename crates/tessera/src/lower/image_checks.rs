//! Buffer checks (Halide's AddImageChecks): before anything runs, assert that every input image
//! covers the region the pipeline reads from it and that the output buffer covers every point
//! the pipeline writes, with messages naming the buffer, the dimension, the region needed and
//! the region given (the constraints on the buffers' fields, the default stride 1 in
//! dimension 0 among them, are `buffer_constraints`'). Generated code never touches memory outside its buffers.

use super::arguments::Arguments;
use super::bounds_inference::{bounded, func_box, required_box, union_boxes};
use super::names::i32_var;
use super::realization_order::Environment;
use super::stage_loops::resolve_tail;
use crate::error::Result;
use crate::ir::substitute::uses_var;
use crate::ir::{BinaryOp, Expr, MessagePart, Stmt, StmtKind, Symbol, Type, UnaryOp};
use crate::lang::function::FunctionContents;
use crate::lang::image_param::buffer_field;
use crate::lang::image_param::value_buffer;
use crate::lang::schedule::{SplitDirective, TailStrategy};

fn field(buffer: Symbol, name: &str, d: usize) -> Expr {
    i32_var(buffer_field(buffer, name, d))
}

fn text(t: String) -> MessagePart {
    MessagePart::Text(t.into())
}

/// The check that `buffer` covers `[min, max]` in dimension `d` wherever `used` holds
/// (`None`: always).
fn bounds_check(
    buffer: Symbol,
    role: &str,
    d: usize,
    (min, max): (Expr, Expr),
    used: Option<Expr>,
) -> Stmt {
    // The required ends, named (`input.min.0.required`), keep the condition and the message
    // one short line each: they are often long, and each is used twice.
    let mut required = Vec::new();
    let mut name_required = |end: &str, e: Expr| {
        if e.as_var().is_some() || e.is_const() {
            return e;
        }
        let name = buffer_field(buffer, end, d).dot("required");
        required.push((name, e));
        i32_var(name)
    };
    let (min, max) = (name_required("min", min), name_required("max", max));
    let field = |f: &str| field(buffer, f, d);
    let buf_min = field("min");
    let buf_max = Expr::binary(
        BinaryOp::Sub,
        Expr::binary(BinaryOp::Add, field("min"), field("extent")),
        Expr::i32(1),
    );
    let ok = Expr::binary(
        BinaryOp::And,
        Expr::binary(BinaryOp::Ge, min.clone(), buf_min.clone()),
        Expr::binary(BinaryOp::Le, max.clone(), buf_max.clone()),
    );
    let ok = match used {
        Some(used) => Expr::binary(BinaryOp::Or, Expr::unary(UnaryOp::Not, used), ok),
        None => ok,
    };
    let check = Stmt::new(StmtKind::Assert {
        condition: ok,
        message: vec![
            text(format!("{role} `{buffer}` needs dimension {d} in [")),
            MessagePart::Value(min),
            text(", ".into()),
            MessagePart::Value(max),
            text("] but the buffer covers [".into()),
            MessagePart::Value(buf_min),
            text(", ".into()),
            MessagePart::Value(buf_max),
            text("]".into()),
        ],
    });
    required
        .into_iter()
        .rev()
        .fold(check, |body, (name, value)| {
            Stmt::let_stmt(name, value, body)
        })
}

/// The check that output buffer `other` covers the same interval of dimension `d` as
/// `first` (the output buffers of a Tuple Func hold one box).
fn same_box_check(first: Symbol, other: Symbol, d: usize) -> Stmt {
    let (min, extent) = (field(first, "min", d), field(first, "extent", d));
    let (other_min, other_extent) = (field(other, "min", d), field(other, "extent", d));
    Stmt::new(StmtKind::Assert {
        condition: Expr::binary(
            BinaryOp::And,
            Expr::binary(BinaryOp::Eq, other_min.clone(), min.clone()),
            Expr::binary(BinaryOp::Eq, other_extent.clone(), extent.clone()),
        ),
        message: vec![
            text(format!(
                "output `{other}` has min and extent in dimension {d} of "
            )),
            MessagePart::Value(other_min),
            text(" and ".into()),
            MessagePart::Value(other_extent),
            text(format!(", but output `{first}` has ")),
            MessagePart::Value(min),
            text(" and ".into()),
            MessagePart::Value(extent),
            text("; the outputs of a Tuple are realized over one box".into()),
        ],
    })
}

/// Checks that the output is wide enough for the splits of its dimensions that compute whole
/// pieces (ShiftInwards: at least one piece; RoundUp: whole pieces), each failing with the
/// directive the user wrote and the tail strategy to use instead. Without them a vector or
/// tile wider than the output would be reported as the output's, or an input's, bounds.
fn whole_piece_checks(out: &FunctionContents, buffer: Symbol) -> Vec<Stmt> {
    let Some(pure) = &out.pure else {
        return Vec::new();
    };
    if !pure.schedule.specializations.is_empty() {
        return Vec::new();
    }
    let mut checks = Vec::new();
    for split in &pure.schedule.splits {
        let SplitDirective::Split {
            old,
            inner,
            factor,
            tail,
            directive,
            ..
        } = split
        else {
            continue;
        };
        let (Some(d), Some(f)) = (
            out.args.iter().position(|a| a == old),
            factor.as_int_const().filter(|&f| f > 1),
        ) else {
            continue;
        };
        let extent = field(buffer, "extent", d);
        let f = Expr::i32(f as i32);
        let (fits, needs) = match resolve_tail(*tail, false) {
            TailStrategy::ShiftInwards => (
                Expr::binary(BinaryOp::Ge, extent.clone(), f.clone()),
                format!("at least {f} wide"),
            ),
            TailStrategy::RoundUp | TailStrategy::PredicateLoads => (
                Expr::binary(
                    BinaryOp::Eq,
                    Expr::binary(BinaryOp::Mod, extent.clone(), f.clone()),
                    Expr::i32(0),
                ),
                format!("a multiple of {f} wide"),
            ),
            _ => continue,
        };
        let empty = Expr::binary(BinaryOp::Le, extent.clone(), Expr::i32(0));
        let inner = inner.as_str().rsplit('.').next().unwrap_or(inner.as_str());
        checks.push(Stmt::new(StmtKind::Assert {
            condition: Expr::binary(BinaryOp::Or, empty, fits),
            message: vec![
                text(format!("output `{buffer}` is ")),
                MessagePart::Value(extent),
                text(format!(
                    " wide in dimension {d} ({old}), but {}.{directive} computes whole pieces of {f} points there, so the output must be {needs}; give the split a tail strategy that guards the last piece ({}.split_with_tail({old}, {old}, {inner}, {f}, TailStrategy::GuardWithIf)) or realize a larger output",
                    out.name, out.name
                )),
            ],
        }));
    }
    checks
}

/// `e` with the top-level `lets` it uses bound around it, so it stands on its own: in terms
/// of the buffers' fields and the parameters.
fn closed_over(lets: &[(Symbol, Expr)], e: Expr) -> Expr {
    lets.iter().rev().fold(e, |e, (name, value)| {
        if uses_var(&e, *name) {
            Expr::let_in(*name, value.clone(), e)
        } else {
            e
        }
    })
}

/// What the pipeline writes and reads of its output `out`, per dimension `(min, max)`, closed
/// over the lets at the top of `s` (in terms of the output buffer's fields and the
/// parameters), or `None` if it touches none of it. A run over a box smaller than that — a
/// `RoundUp` tile past the output's edge, or another output reading beyond it — computes
/// into a buffer this big, then crops it.
pub fn output_region(s: &Stmt, out: Symbol) -> Result<Option<Vec<(Expr, Expr)>>> {
    let (lets, body) = s.let_chain();
    let Some(region) = union_boxes(func_box(body, out, true), func_box(body, out, false)) else {
        return Ok(None);
    };
    region
        .iter()
        .enumerate()
        .map(|(d, i)| {
            let (min, max) = bounded(i, || format!("output {out} in dimension {d}"))?;
            Ok((closed_over(&lets, min), closed_over(&lets, max)))
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

/// What a run reads of one input image: the region `image_checks` asserts the image covers,
/// standing on its own like `output_region`, for bounds queries.
#[derive(Clone, Debug)]
pub struct RequiredRegion {
    pub image: Symbol,
    /// `(min, max)` per dimension.
    pub bounds: Vec<(Expr, Expr)>,
    /// `Some(c)`: the image is read only where `c` holds (a specialization's branch).
    pub used: Option<Expr>,
}

/// The region of each input image that the body of `s` (inside its top-level lets) reads,
/// in terms of those lets; images it never reads are left out.
pub fn read_regions(s: &Stmt, args: &Arguments) -> Result<Vec<RequiredRegion>> {
    let (_, body) = s.let_chain();
    let mut regions = Vec::new();
    for image in &args.images {
        let Some(region) = required_box(body, image.name) else {
            continue;
        };
        let bounds = region
            .bounds
            .iter()
            .enumerate()
            .map(|(d, i)| bounded(i, || format!("input image {} in dimension {d}", image.name)))
            .collect::<Result<Vec<_>>>()?;
        regions.push(RequiredRegion {
            image: image.name,
            bounds,
            used: region.used,
        });
    }
    Ok(regions)
}

/// `regions` (from `read_regions(s, ..)`) closed over the top-level lets of `s`.
pub fn closed_regions(s: &Stmt, regions: &[RequiredRegion]) -> Vec<RequiredRegion> {
    let (lets, _) = s.let_chain();
    regions
        .iter()
        .map(|r| RequiredRegion {
            image: r.image,
            bounds: r
                .bounds
                .iter()
                .map(|(min, max)| {
                    (
                        closed_over(&lets, min.clone()),
                        closed_over(&lets, max.clone()),
                    )
                })
                .collect(),
            used: r.used.clone().map(|c| closed_over(&lets, c)),
        })
        .collect()
}

/// The checks that the buffers cover what `s` reads and writes of them, around `s`.
pub fn add_image_checks(s: &Stmt, env: &Environment, args: &Arguments) -> Result<Stmt> {
    add_checks_of_regions(s, env, &read_regions(s, args)?)
}

/// `add_image_checks` with the input images' `regions` already analysed (`read_regions`).
pub fn add_checks_of_regions(
    s: &Stmt,
    env: &Environment,
    regions: &[RequiredRegion],
) -> Result<Stmt> {
    // The output's region lets stay outside: the checks are expressed in terms of them.
    if let StmtKind::LetStmt { name, value, body } = s.kind() {
        return Ok(Stmt::let_stmt(
            *name,
            value.clone(),
            add_checks_of_regions(body, env, regions)?,
        ));
    }
    let outputs: Vec<_> = env.outputs.iter().map(|&o| env.func(o).read()).collect();
    let mut checks: Vec<Stmt> = outputs
        .iter()
        .flat_map(|o| output_shape_checks(o))
        .collect();
    // An image is checked where it is read: an input only a branch not taken reads (a
    // specialization) need not cover anything.
    for region in regions {
        // Where the image is read (every dimension's check holds there), named once.
        let used_name = region.image.dot("used");
        let dimensions = region.bounds.iter().enumerate().map(|(d, ends)| {
            let used = region
                .used
                .as_ref()
                .map(|_| Expr::var(used_name, Type::bool_()));
            bounds_check(region.image, "input", d, ends.clone(), used)
        });
        let dimensions = Stmt::block(dimensions);
        checks.push(match &region.used {
            Some(used) => Stmt::let_stmt(used_name, used.clone(), dimensions),
            None => dimensions,
        });
    }
    for out in &outputs {
        checks.extend(output_cover_checks(s, out)?);
    }
    Ok(Stmt::block(checks.into_iter().chain([s.clone()])))
}

/// The buffers of the output `out`, one per value.
fn output_buffers(out: &FunctionContents) -> Vec<Symbol> {
    (0..out.output_types.len())
        .map(|v| value_buffer(out.name, v, out.output_types.len()))
        .collect()
}

/// The checks that each buffer of the output `out` is whole, and its values' buffers share
/// one box.
fn output_shape_checks(out: &FunctionContents) -> Vec<Stmt> {
    let buffers = output_buffers(out);
    let mut checks: Vec<Stmt> = buffers
        .iter()
        .flat_map(|&b| whole_piece_checks(out, b))
        .collect();
    // The values of a Tuple are computed over one box, the first buffer's: the others must
    // cover exactly that box (a larger one would keep stale values outside it).
    for &b in buffers.iter().skip(1) {
        for d in 0..out.args.len() {
            checks.push(same_box_check(buffers[0], b, d));
        }
    }
    checks
}

/// The checks that the buffers of the output `out` cover what `s` writes and reads of it
/// (another output reading it included).
fn output_cover_checks(s: &Stmt, out: &FunctionContents) -> Result<Vec<Stmt>> {
    let mut checks = Vec::new();
    let touched = union_boxes(func_box(s, out.name, true), func_box(s, out.name, false));
    if let Some(region) = touched {
        for (d, i) in region.iter().enumerate() {
            let ends = bounded(i, || format!("output {} in dimension {d}", out.name))?;
            for b in output_buffers(out) {
                checks.push(bounds_check(b, "output", d, ends.clone(), None));
            }
        }
    }
    Ok(checks)
}
