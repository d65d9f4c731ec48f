//! `Func`: a pure function over an infinite integer grid, given by one pure definition and any
//! number of update definitions. Every definition is validated here, so the evaluator and the
//! compiler only ever see well-formed Funcs; mistakes come back as `Error`s naming the Func.

use std::collections::{HashMap, HashSet};

use super::args::{coordinate_args, IntoArgs, IntoVars};
use super::dimension::OutputBuffer;
use super::function::{Definition, Function};
use super::image_param::{buffer_field, value_buffer};
use super::implicit::{expand_call, expand_pure_lhs, expand_update};
use super::random::{coordinates_of, place_random};
use super::rdom::{RDomLink, ReductionDomain};
use super::schedule::StageSchedule;
use super::undef::{take_out_undef, WithoutUndef};
use super::var::Var;
use super::wrapper::redirect_definition;
use crate::error::{Error, Result};
use crate::ir::cse::common_subexpressions_of_expr;
use crate::ir::visit::{
    distinct_nodes, mutate_exprs, tree_nodes_within, visit_exprs, MAX_TREE_NODES,
};
use crate::ir::{CallKind, Expr, ExprKind, Symbol, Type};

/// The values of a Tuple-valued definition.
#[derive(Clone, Debug)]
pub struct Tuple(pub Vec<Expr>);

/// What a definition's right-hand side may be: one value or a Tuple of them.
pub trait IntoValues {
    /// The values, one per Tuple element.
    fn into_values(self) -> Vec<Expr>;
}
impl IntoValues for Tuple {
    fn into_values(self) -> Vec<Expr> {
        self.0
    }
}
impl IntoValues for Vec<Expr> {
    fn into_values(self) -> Vec<Expr> {
        self
    }
}
macro_rules! single_value {
    ($($t:ty),*) => {$(
        impl IntoValues for $t {
            fn into_values(self) -> Vec<Expr> {
                vec![self.into()]
            }
        }
    )*};
}
single_value!(Expr, &Expr, Var, super::rdom::RVar, i32, f32, f64, bool);

/// A function over an infinite integer grid (Halide's `Func`): a pure definition
/// `f(x, y) = value`, then any number of update definitions, and a schedule saying where and
/// in what loop order its points are computed. Clones share the same Func.
///
/// Each directive below is named as in Halide; those that change loops apply to the pure
/// definition (use [`Func::update_stage`] for an update's loops):
///
/// ```
/// use tessera::prelude::*;
///
/// # fn main() -> Result<()> {
/// let (x, y) = (Var::new("x"), Var::new("y"));
/// let gradient = Func::new("gradient"); // Func gradient("gradient");
/// gradient.define((x, y), x + y * 10)?; // gradient(x, y) = x + y * 10;
/// let blur = Func::new("blur");
/// blur.define((x, y), (gradient.at((x, y)) + gradient.at((x + 1, y))) / 2)?;
///
/// let (yo, yi) = blur.split_vars(y, "yo", "yi", 4); // blur.split(y, yo, yi, 4)
/// blur.parallel(yo) // .parallel(yo)
///     .vectorize(x, 8); // .vectorize(x, 8);
/// gradient.compute_at(&blur, yi); // gradient.compute_at(blur, yi);
///
/// let out = blur.realize::<i32>(&[16, 8])?; // Buffer<int> out = blur.realize({16, 8});
/// assert_eq!(out.get(&[3, 2]), (3 + 20 + 4 + 20) / 2);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Func(Function);

impl Func {
    /// A Func without definitions, named `name` (names label the lowered code and error
    /// messages; two Funcs may share one).
    pub fn new(name: &str) -> Func {
        Func(Function::new(Symbol::new(name)))
    }
    /// Wraps existing contents (used by passes and inline reductions).
    pub fn from_function(f: Function) -> Func {
        Func(f)
    }
    /// Its shared contents: definitions and schedule.
    pub fn function(&self) -> &Function {
        &self.0
    }
    /// Its name.
    pub fn name(&self) -> Symbol {
        self.0.name()
    }

    /// The smallest coordinate, in dimension `d`, of the buffer this Func is realized into
    /// as the pipeline's output (Halide's `output_buffer().dim(d).min()`): a value fixed for
    /// a run, for conditions such as `f.specialize(f.output_extent(0).ge(8))`. Define the Func
    /// first; a Func that is not the output has no such buffer (lowering says so).
    pub fn output_min(&self, d: usize) -> Expr {
        self.output_field("min", d)
    }
    /// The number of coordinates in dimension `d` of the output buffer (`output_min`).
    pub fn output_extent(&self, d: usize) -> Expr {
        self.output_field("extent", d)
    }
    /// The largest coordinate in dimension `d` of the output buffer (`output_min`).
    pub fn output_max(&self, d: usize) -> Expr {
        self.output_min(d) + self.output_extent(d) - 1
    }

    /// The output buffer, to constrain its dimensions (Halide's `output_buffer()`):
    /// `f.output_buffer().dim(0).set_bounds(0, 10)`. Define the Func first. The constraints
    /// are checked, and used in lowering, when the Func is a pipeline's output; they apply
    /// to each of a Tuple's buffers.
    pub fn output_buffer(&self) -> OutputBuffer {
        let c = self.0.read();
        OutputBuffer {
            buffer: value_buffer(c.name, 0, c.output_types.len()),
            dims: c.args.len(),
            constraints: c.output_constraints.clone(),
        }
    }

    fn output_field(&self, field: &str, d: usize) -> Expr {
        let (name, dims, values) = {
            let c = self.0.read();
            (c.name, c.args.len(), c.output_types.len())
        };
        if d >= dims {
            return Expr::invalid(
                Type::i32(),
                format!("{name} has no dimension {d} (define it before using its output's bounds)"),
            );
        }
        let buffer = value_buffer(name, 0, values);
        Expr::new(
            Type::i32(),
            ExprKind::Param(buffer_field(buffer, field, d), None),
        )
    }
    /// Whether it has a pure definition.
    pub fn is_defined(&self) -> bool {
        self.0.is_defined()
    }
    /// Its number of dimensions (pure Vars).
    pub fn dimensions(&self) -> usize {
        self.0.dimensions()
    }
    /// The types of its values (one per Tuple element).
    pub fn output_types(&self) -> Vec<Type> {
        self.0.output_types()
    }
    /// The type of the (first) value.
    pub fn output_type(&self) -> Option<Type> {
        self.0.output_types().first().copied()
    }
    /// The pure variables of the definition, in dimension order.
    pub fn args(&self) -> Vec<Var> {
        self.0
            .read()
            .args
            .iter()
            .map(|s| Var::new(s.as_str()))
            .collect()
    }
    /// The number of update definitions; [`Func::update_stage`] takes 0 to this minus 1.
    pub fn update_count(&self) -> usize {
        self.0.read().updates.len()
    }

    /// The value of this Func at the given coordinates (element `0` of a Tuple).
    pub fn at(&self, args: impl IntoArgs) -> Expr {
        self.value_at(args, 0)
    }

    /// Element `index` of this Func's Tuple value at the given coordinates.
    pub fn value_at(&self, args: impl IntoArgs, index: usize) -> Expr {
        let name = self.name();
        let args = args.into_args();
        let c = self.0.read();
        if c.pure.is_none() {
            return Expr::invalid(Type::i32(), called_before_definition(name));
        }
        let args = match expand_call(name, c.args.len(), args) {
            Ok(args) => args,
            Err(msg) => return Expr::invalid(c.output_types[0], msg),
        };
        if args.len() != c.args.len() {
            return Expr::invalid(
                c.output_types[0],
                format!(
                    "Func {name} has {} dimensions but is called with {} coordinates",
                    c.args.len(),
                    args.len()
                ),
            );
        }
        let Some(&ty) = c.output_types.get(index) else {
            return Expr::invalid(
                c.output_types[0],
                format!(
                    "Func {name} has {} values; there is no value {index}",
                    c.output_types.len()
                ),
            );
        };
        drop(c);
        match coordinate_args(name.as_str(), args) {
            Ok(args) => Expr::new(
                ty,
                ExprKind::Call {
                    name,
                    kind: CallKind::Func(self.0.link()),
                    args,
                    value_index: index,
                },
            ),
            Err(bad) => bad,
        }
    }

    /// Every element of this Func's (Tuple) value at the given coordinates.
    pub fn tuple_at(&self, args: impl IntoArgs) -> Vec<Expr> {
        let args = args.into_args();
        (0..self.output_types().len().max(1))
            .map(|i| self.value_at(args.clone(), i))
            .collect()
    }

    /// The pure definition `self(vars) = values`. A placeholder (`Var::placeholder()`) among
    /// the Vars stands for the implicit Vars the values use (`lang::implicit`).
    pub fn define(&self, vars: impl IntoVars, values: impl IntoValues) -> Result<()> {
        let name = self.name();
        // Before anything walks the values as trees.
        let values = shared_as_lets(name, values.into_values())?;
        if self.is_defined() {
            return Err(Error::Definition(format!("Func {name} already has a pure definition; use {name}.update(...) to add an update definition")));
        }
        let vars = expand_pure_lhs(name, vars.into_vars(), &values)?;
        let mut seen = HashSet::new();
        for v in &vars {
            if !seen.insert(v.name()) {
                return Err(Error::Definition(format!(
                    "Var {} appears twice on the left-hand side of {name}'s definition",
                    v.name()
                )));
            }
        }
        check_values(name, "definition", &values)?;
        let coordinates: Vec<Expr> = vars.iter().map(|v| v.expr()).collect();
        let values = place_random(name, 0, &coordinates, &values);
        let WithoutUndef {
            values: stored,
            guard,
            ..
        } = take_out_undef(name, "definition", &[], &values)?;
        // Where nothing is stored the values are never read: they only give the types.
        let stores_nothing = stored.iter().all(Option::is_none);
        for value in stored.iter().flatten().chain(&guard) {
            for free in free_var_names(value) {
                if !seen.contains(&free) {
                    let args: Vec<String> = vars.iter().map(|v| v.name().to_string()).collect();
                    return Err(Error::Definition(format!(
                        "the definition of {name} uses Var {free}, which is not one of its arguments ({})",
                        args.join(", ")
                    )));
                }
            }
            if let Some(r) = rvar_links(value).into_iter().next() {
                return Err(Error::Definition(format!(
                    "the pure definition of {name} uses the reduction variable {}; reductions belong in update definitions ({name}.update(...)) or inline reductions (sum, maximum, ...)",
                    r.0
                )));
            }
            if calls_func(value, &self.0) {
                return Err(Error::Definition(format!("the pure definition of {name} calls {name} itself; recursion needs an update definition")));
            }
        }
        let coordinates: Vec<Expr> = vars.iter().map(|v| v.expr()).collect();
        // An undef element keeps what its storage held: its value is the element itself
        // at the point (`ir::function::keeps_element`), a store lowering leaves out.
        let values: Vec<Expr> = stored
            .into_iter()
            .zip(&values)
            .enumerate()
            .map(|(i, (v, given))| match v {
                Some(v) => v,
                None if stores_nothing => Expr::zero(given.ty()),
                None => Expr::new(
                    given.ty(),
                    ExprKind::Call {
                        name,
                        kind: CallKind::Func(self.0.weak_link()),
                        args: coordinates.clone(),
                        value_index: i,
                    },
                ),
            })
            .collect();
        let mut c = self.0.write();
        c.args = vars.iter().map(|v| v.name()).collect();
        c.output_types = values.iter().map(|v| v.ty()).collect();
        let schedule = StageSchedule::for_pure(&c.args);
        c.pure = Some(Definition {
            args: coordinates,
            values,
            rdom: None,
            guard,
            schedule,
        });
        Ok(())
    }

    /// An update definition `self(args) = values`, applied after the previous definitions.
    /// The coordinates may be the pure Vars (in their positions), reduction variables, or any
    /// integer expressions of them; the values may call `self`. A placeholder
    /// (`Var::placeholder()`) among the coordinates stands for the pure Vars of the
    /// dimensions the others leave out (`lang::implicit`).
    pub fn update(&self, args: impl IntoArgs, values: impl IntoValues) -> Result<()> {
        let args = args.into_args();
        if !tree_nodes_within(&args, MAX_TREE_NODES) {
            return Err(definition_too_large(self.name()));
        }
        let values = shared_as_lets(self.name(), values.into_values())?;
        // Without a pure definition there are no dimensions to expand a placeholder to;
        // `validated_update` says so.
        let (args, values) = if self.is_defined() {
            let pure_args = self.0.read().args.clone();
            expand_update(self.name(), &pure_args, args, values)?
        } else {
            (args, values)
        };
        // The update's coordinates: its pure Vars and reduction variables.
        let coordinates = coordinates_of(args.iter().chain(&values));
        let stage = self.update_count() + 1;
        let values = place_random(self.name(), stage, &coordinates, &values);
        let definition = self.validated_update(args, values)?;
        self.0.write().updates.push(definition);
        Ok(())
    }

    /// Update definition `k` replaced by `f(args) = values` (used by `rfactor`, which
    /// rewrites an update in place), validated like any update.
    pub(crate) fn replace_update(
        &self,
        k: usize,
        args: Vec<Expr>,
        values: Vec<Expr>,
    ) -> Result<()> {
        let definition = self.validated_update(args, values)?;
        self.0.write().updates[k] = definition;
        Ok(())
    }

    /// Checks an update definition and builds it (with a default schedule).
    fn validated_update(&self, args: Vec<Expr>, values: Vec<Expr>) -> Result<Definition> {
        let name = self.name();
        let (pure_args, output_types) = {
            let c = self.0.read();
            if c.pure.is_none() {
                return Err(Error::Definition(format!("Func {name} has no pure definition; define it with {name}.define(...) before adding updates")));
            }
            (c.args.clone(), c.output_types.clone())
        };
        if args.len() != pure_args.len() {
            return Err(Error::Definition(format!(
                "the update of {name} has {} coordinates but {name} has {} dimensions; an update cannot change a Func's dimensions",
                args.len(),
                pure_args.len()
            )));
        }
        let args = coordinate_args(name.as_str(), args)
            .map_err(|bad| invalid_error(name, "update", &bad))?;
        if values.len() != output_types.len() {
            return Err(Error::Definition(format!(
                "the update of {name} gives {} values but {name} has {}",
                values.len(),
                output_types.len()
            )));
        }
        check_values(name, "update", &values)?;
        let WithoutUndef {
            args,
            values: stored,
            guard,
        } = take_out_undef(name, "update", &args, &values)?;
        // An undef element keeps the value it had: the update stores it back.
        let values = stored
            .into_iter()
            .zip(&output_types)
            .enumerate()
            .map(|(i, (v, &ty))| match v {
                Some(v) => conform_update_value(name, v, ty),
                None => Ok(self.value_at(args.clone(), i)),
            })
            .collect::<Result<Vec<_>>>()?;
        // Self-calls hold weak links so a recursive Func does not keep itself alive.
        let values: Vec<Expr> = values
            .iter()
            .map(|v| weaken_self_calls(v, &self.0))
            .collect();
        let guard = guard.map(|g| weaken_self_calls(&g, &self.0));
        let guarded = || values.iter().chain(&guard);

        let rdom = find_reduction_domain(name, args.iter().chain(guarded()))?;
        let predicates = rdom
            .as_ref()
            .map(|r| r.predicates.clone())
            .unwrap_or_default();
        check_update_vars(name, &pure_args, &args, guarded().chain(&predicates))?;
        check_self_calls(name, &self.0, &pure_args, &args, guarded())?;
        let rvars: Vec<Symbol> = rdom
            .iter()
            .flat_map(|r| r.vars.iter().map(|v| v.name))
            .collect();
        let schedule = StageSchedule::for_update(&args, &pure_args, &rvars);
        let mut definition = Definition {
            args,
            values,
            rdom,
            guard,
            schedule,
        };
        redirect_definition(&mut definition, &self.0.read().wrappers);
        Ok(definition)
    }
}

/// The message of a call to a Func that has no definition yet.
fn called_before_definition(name: Symbol) -> String {
    format!("Func {name} is called before it has a definition; define {name} first")
}

/// The error for an expression the front end marked invalid. A Func calling itself before it
/// has a definition is recursion in its pure definition, and is reported as such.
fn invalid_error(name: Symbol, what: &str, bad: &Expr) -> Error {
    match bad.kind() {
        ExprKind::Invalid(msg) if **msg == *called_before_definition(name) => {
            Error::Definition(format!(
                "the {what} of {name} calls {name} itself: a pure definition cannot be recursive; give {name} an initial value first, then refer to it in an update ({name}.update(...))"
            ))
        }
        ExprKind::Invalid(msg) => Error::Type(format!("in the {what} of {name}: {msg}")),
        _ => Error::Type(format!("in the {what} of {name}: invalid expression {bad}")),
    }
}

/// Rejects values containing front-end errors or vectors.
fn check_values(name: Symbol, what: &str, values: &[Expr]) -> Result<()> {
    if values.is_empty() {
        return Err(Error::Definition(format!(
            "the {what} of {name} has no values"
        )));
    }
    for v in values {
        let mut bad = None;
        visit_exprs(v, &mut |e| {
            if bad.is_none() && matches!(e.kind(), ExprKind::Invalid(_)) {
                bad = Some(e.clone());
            }
            bad.is_none()
        });
        if let Some(bad) = bad {
            return Err(invalid_error(name, what, &bad));
        }
        if v.ty().is_vector() {
            return Err(Error::Type(format!("the {what} of {name} has the vector type {}; Func values are scalars (vectorize with a schedule)", v.ty())));
        }
    }
    Ok(())
}

/// An update value must have the Func's type; constants are converted when they fit.
fn conform_update_value(name: Symbol, v: Expr, ty: Type) -> Result<Expr> {
    if v.ty() == ty {
        return Ok(v);
    }
    let fits = match (v.as_int_const(), v.as_float_const()) {
        (Some(i), _) => ty.can_represent_int(i),
        (_, Some(f)) => ty.is_float() || (f.fract() == 0.0 && ty.can_represent_int(f as i128)),
        _ => false,
    };
    if fits {
        return Ok(crate::lang::math::cast(ty, v));
    }
    Err(Error::Type(format!("the update of {name} has type {} but {name} has type {ty}; cast the value (e.g. cast({ty}, ...))", v.ty())))
}

/// The pure variables `e` mentions free, each once: a name a `Let` inside `e` binds is not
/// one where it is bound.
fn free_var_names(e: &Expr) -> Vec<Symbol> {
    fn walk(e: &Expr, bound: &mut Vec<Symbol>, out: &mut Vec<Symbol>) {
        match e.kind() {
            ExprKind::Var(s) if !bound.contains(s) && !out.contains(s) => out.push(*s),
            ExprKind::Let(name, value, body) => {
                walk(value, bound, out);
                bound.push(*name);
                walk(body, bound, out);
                bound.pop();
            }
            _ => e.for_each_child(|c| walk(c, bound, out)),
        }
    }
    let mut out = Vec::new();
    walk(e, &mut Vec::new(), &mut out);
    out
}

/// The first pure or reduction variable `e` mentions free: a name a `Let` inside `e` binds
/// is not one.
fn first_variable(e: &Expr) -> Option<Symbol> {
    fn first_free(e: &Expr, bound: &mut Vec<Symbol>) -> Option<Symbol> {
        match e.kind() {
            ExprKind::Var(s) | ExprKind::RVar(s, _) if !bound.contains(s) => Some(*s),
            ExprKind::Let(name, value, body) => first_free(value, bound).or_else(|| {
                bound.push(*name);
                let found = first_free(body, bound);
                bound.pop();
                found
            }),
            _ => {
                let mut found = None;
                e.for_each_child(|c| {
                    if found.is_none() {
                        found = first_free(c, bound);
                    }
                });
                found
            }
        }
    }
    first_free(e, &mut Vec::new())
}

fn rvar_links(e: &Expr) -> Vec<(Symbol, RDomLink)> {
    let mut out = Vec::new();
    visit_exprs(e, &mut |n| {
        if let ExprKind::RVar(s, link) = n.kind() {
            out.push((*s, link.clone()));
        }
        true
    });
    out
}

/// `values` as trees of at most `MAX_TREE_NODES` nodes. Values built as shared graphs (a
/// subexpression used more than once, as `e = e * e` repeated) may be far larger written out
/// as trees, which every pass walks: those have their repeated parts computed once, by lets,
/// as Halide's passes share them. An error names `name` if that is still too large.
fn shared_as_lets(name: Symbol, values: Vec<Expr>) -> Result<Vec<Expr>> {
    if tree_nodes_within(&values, MAX_TREE_NODES) {
        return Ok(values);
    }
    if distinct_nodes(&values, MAX_TREE_NODES) <= MAX_TREE_NODES {
        let shared: Vec<Expr> = values.iter().map(common_subexpressions_of_expr).collect();
        if tree_nodes_within(&shared, MAX_TREE_NODES) {
            return Ok(shared);
        }
    }
    Err(definition_too_large(name))
}

/// The error for a definition of more than `MAX_TREE_NODES` expression nodes.
pub(crate) fn definition_too_large(name: Symbol) -> Error {
    Error::Definition(format!(
        "the definition of {name} has more than {MAX_TREE_NODES} expression nodes, even with its repeated subexpressions computed once; compute parts of it in Funcs of their own"
    ))
}

/// Whether `e` reads Func `f`.
pub(crate) fn calls_func(e: &Expr, f: &Function) -> bool {
    let mut found = false;
    visit_exprs(e, &mut |n| {
        if let ExprKind::Call {
            kind: CallKind::Func(link),
            ..
        } = n.kind()
        {
            found |= link.calls(f);
        }
        !found
    });
    found
}

/// Whether `e` calls the Func named `name`.
pub(crate) fn calls_func_named(e: &Expr, name: Symbol) -> bool {
    let mut found = false;
    visit_exprs(e, &mut |n| {
        if let ExprKind::Call {
            kind: CallKind::Func(link),
            ..
        } = n.kind()
        {
            found |= link.name() == name;
        }
        !found
    });
    found
}

fn weaken_self_calls(e: &Expr, f: &Function) -> Expr {
    mutate_exprs(e, &mut |n| match n.kind() {
        ExprKind::Call {
            name,
            kind: CallKind::Func(link),
            args,
            value_index,
        } if link.calls(f) && !link.is_weak() => {
            let args = args.iter().map(|a| weaken_self_calls(a, f)).collect();
            Some(Expr::new(
                n.ty(),
                ExprKind::Call {
                    name: *name,
                    kind: CallKind::Func(f.weak_link()),
                    args,
                    value_index: *value_index,
                },
            ))
        }
        _ => None,
    })
}

/// The one reduction domain the update's RVars belong to (if any), validated.
fn find_reduction_domain<'a>(
    name: Symbol,
    exprs: impl Iterator<Item = &'a Expr>,
) -> Result<Option<ReductionDomain>> {
    let mut links: Vec<(Symbol, RDomLink)> = Vec::new();
    for e in exprs {
        links.extend(rvar_links(e));
    }
    let Some((first_var, first)) = links.first().cloned() else {
        return Ok(None);
    };
    for (var, link) in &links {
        if !link.same_domain(&first) {
            return Err(Error::Definition(format!(
                "the update of {name} uses reduction variables {first_var} and {var} from two different RDoms; use one RDom with several dimensions"
            )));
        }
    }
    let dom = first
        .domain()
        .ok_or_else(|| Error::Definition(format!("the RDom of {first_var} (used in the update of {name}) was dropped before the update was defined")))?;
    for (var, _) in &links {
        if !dom.vars.iter().any(|v| v.name == *var) {
            return Err(Error::Definition(format!("the update of {name} uses {var}, which is not a dimension of RDom {} ({} dimensions)", dom.name, dom.vars.len())));
        }
    }
    for v in &dom.vars {
        for bound in [&v.min, &v.extent] {
            if let Some(bad) = first_variable(bound) {
                return Err(Error::Definition(format!(
                    "the bounds of RDom {} (used in the update of {name}) depend on the variable {bad}; reduction bounds may use only constants, Params and image sizes",
                    dom.name
                )));
            }
            if matches!(bound.kind(), ExprKind::Invalid(_)) || !bound.ty().is_int_or_uint() {
                return Err(Error::Type(format!(
                    "the bounds of RDom {} must be integers, not {} ({bound})",
                    dom.name,
                    bound.ty()
                )));
            }
        }
    }
    Ok(Some(dom))
}

/// Pure Vars in an update must stand bare in their own position on the left-hand side. The
/// other coordinates (data-dependent ones, like a histogram's bin, or a pure Var elsewhere,
/// like the diagonal `g(x, x)`) and the right-hand side may use only those: as in Halide,
/// `hist(x, bin(x, r)) = ...` writes within the slice of its own `x`, so slices stay
/// independent.
fn check_update_vars<'a>(
    name: Symbol,
    pure_args: &[Symbol],
    args: &[Expr],
    rhs: impl Iterator<Item = &'a Expr>,
) -> Result<()> {
    // A pure Var at its own position is a pure dimension of the update; anywhere else it is
    // a coordinate like any other (`g(x, x)` writes the diagonal).
    let mut bare = HashSet::new();
    for (i, a) in args.iter().enumerate() {
        if let ExprKind::Var(v) = a.kind() {
            if !pure_args.contains(v) {
                return Err(Error::Definition(format!(
                    "the update of {name} uses Var {v}, which is not one of {name}'s pure Vars; use an RDom for reduction coordinates"
                )));
            }
            if pure_args.get(i) == Some(v) {
                bare.insert(*v);
            }
        }
    }
    for (i, a) in args.iter().enumerate() {
        if a.as_var()
            .is_some_and(|v| bare.contains(&v) && pure_args.get(i) == Some(&v))
        {
            continue;
        }
        if let Some(v) = free_var_names(a).into_iter().find(|v| !bare.contains(v)) {
            return Err(Error::Definition(format!(
                "coordinate {i} of the update of {name} is {a}; a pure Var ({v}) on the left-hand side of an update must stand alone in its own position (it may also appear inside other coordinates then)"
            )));
        }
    }
    for e in rhs {
        for v in free_var_names(e) {
            if !bare.contains(&v) {
                return Err(Error::Definition(format!(
                    "the update of {name} uses Var {v} on its right-hand side, but {v} is not a coordinate of its left-hand side"
                )));
            }
        }
    }
    Ok(())
}

/// In an update, a call to the Func itself must read each pure dimension at the same Var the
/// left-hand side writes, which keeps pure dimensions independent (and parallelizable). Its
/// other coordinates may read any point, also where the left-hand side writes a pure Var
/// off its position (the diagonal `g(x, x) = g(x, x - 1) + ..`): each iteration of `x`
/// still reads and writes only its own slice, `g(x, _)`, and bounds inference has the earlier
/// stages compute the points read.
fn check_self_calls<'a>(
    name: Symbol,
    f: &Function,
    pure_args: &[Symbol],
    args: &[Expr],
    values: impl Iterator<Item = &'a Expr>,
) -> Result<()> {
    // The pure dimensions: pure Vars at their own positions (`check_update_vars`).
    let pure_positions: HashMap<usize, Symbol> = args
        .iter()
        .enumerate()
        .filter_map(|(i, a)| {
            a.as_var()
                .filter(|v| pure_args.get(i) == Some(v))
                .map(|v| (i, v))
        })
        .collect();
    for v in values {
        let mut problem = None;
        visit_exprs(v, &mut |n| {
            if let ExprKind::Call {
                kind: CallKind::Func(link),
                args: call_args,
                ..
            } = n.kind()
            {
                if link.calls(f) {
                    for (&i, &var) in &pure_positions {
                        if call_args[i].as_var() != Some(var) && problem.is_none() {
                            problem = Some(format!(
                                "the update of {name} reads {name} at {} in dimension {i}, where its left-hand side has the pure Var {var}; an update may only read its own Func at the same pure coordinates",
                                call_args[i]
                            ));
                        }
                    }
                }
            }
            true
        });
        if let Some(p) = problem {
            return Err(Error::Definition(p));
        }
    }
    Ok(())
}
