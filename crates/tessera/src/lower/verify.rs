//! The statement verifier: checks, after a lowering pass, that the statement it made is well
//! formed, so a pass that breaks the IR is named by the error instead of being found later
//! by code generation or by a wrong value. `lower` runs it after every pass when
//! `LowerOptions::verify` is set (by default in debug builds and tests). It checks
//!
//! - scoping: every name read is bound by an enclosing let, loop or allocation, or is an
//!   argument of the pipeline (a parameter or a field of an input or output buffer), with
//!   the type it was bound with;
//! - types: operands agree in type and lanes, conditions are bools, loop bounds are scalar
//!   integers, an access's index, value and predicate have one lane count;
//! - storage: every access goes to storage in scope (a realization or allocation, or a buffer
//!   passed in) with its element type; before storage flattening a Func's points are given
//!   and read at as many coordinates as it has dimensions, after it only flat storage remains;
//!   until `compute_with` fuses their loops, a Func computed at a fused loop may be read
//!   by the other stages fused there outside its realization.
//!
//! What holds depends on how far lowering has gone (`Phase`).

use rustc_hash::{FxHashMap, FxHashSet};

use super::names::is_region_or_storage_name;
use super::realization_order::Environment;
use crate::codegen::signature::Signature;
use crate::error::{Error, Result};
use crate::ir::{
    BinaryOp, CallKind, Expr, ExprKind, MessagePart, Stmt, StmtKind, Symbol, Type, TypeCode,
    UnaryOp,
};
use crate::lang::image_param::buffer_field;

/// How far lowering has gone: which properties a statement must have.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Phase {
    /// Loops synthesized: the regions they cover and the sizes of storage
    /// (`f.s0.x.min`, `f.x.extent_realized`) are names bounds inference and allocation
    /// bounds define later, so those may be read unbound.
    Scheduled,
    /// Every name bound.
    Bounded,
    /// Storage flattened: only flat allocations, loads and stores.
    Flattened,
}

/// What a storage name stands for at a point of the statement.
#[derive(Clone, Debug)]
enum Storage {
    /// A Func's multi-dimensional storage (before flattening): one type per value.
    Func { types: Vec<Type>, dims: usize },
    /// An input image, read by calls before flattening, by loads after.
    Image { ty: Type, dims: usize },
    /// A flat allocation or output buffer of elements of this type.
    Flat(Type),
}

impl Storage {
    /// The storage of Func `f` of `env` before flattening.
    fn of_func(env: &Environment, f: Symbol) -> Storage {
        let c = env.func(f).read();
        Storage::Func {
            types: c.output_types.clone(),
            dims: c.args.len(),
        }
    }
}

/// The names and storage a lowered statement may use without binding them: its pipeline's
/// arguments.
#[derive(Clone, Debug)]
pub struct Verifier {
    names: FxHashMap<Symbol, Type>,
    /// The buffers passed in (flat, or images read by calls before flattening).
    storage: FxHashMap<Symbol, Storage>,
    /// The output Funcs and their storage before flattening (a single-valued output's
    /// buffer has its name).
    outputs: Vec<(Symbol, Storage)>,
    /// The Funcs computed at loops `compute_with` fuses, with their storage: one used by
    /// several fused stages is realized in the loop of the first, and the others read it
    /// outside its realization until the loops are fused (`fused`).
    awaiting_fusion: FxHashMap<Symbol, Storage>,
}

impl Verifier {
    /// The verifier of the statements lowering `output` makes, whose entry point takes
    /// `signature`: before flattening, `output` is written and read as a Func with the
    /// outputs' types; after, through the output buffers.
    pub fn new(output: Symbol, signature: &Signature) -> Verifier {
        let mut verifier = Verifier::of_buffers(signature);
        verifier
            .outputs
            .extend(signature.outputs.first().map(|first| {
                let types = signature.outputs.iter().map(|o| o.ty).collect();
                let dims = first.dims;
                (output, Storage::Func { types, dims })
            }));
        verifier
    }

    /// `new`, for the statements lowering the pipeline of `env`, whose output Funcs may be
    /// several.
    pub fn of_pipeline(env: &Environment, signature: &Signature) -> Verifier {
        let mut verifier = Verifier::of_buffers(signature);
        verifier.outputs = env
            .outputs
            .iter()
            .map(|&o| (o, Storage::of_func(env, o)))
            .collect();
        verifier.awaiting_fusion = super::compute_with::computed_at_fused_loops(env)
            .into_iter()
            .map(|f| (f, Storage::of_func(env, f)))
            .collect();
        verifier
    }

    /// From now on (the `compute_with` pass has run), every read of a Func computed at a
    /// fused loop is inside its realization.
    pub fn fused(&mut self) {
        self.awaiting_fusion.clear();
    }

    /// The verifier of a statement whose entry point takes `signature`, with no output Func
    /// yet.
    fn of_buffers(signature: &Signature) -> Verifier {
        let mut names = FxHashMap::default();
        let mut storage = FxHashMap::default();
        for b in signature.buffers() {
            for d in 0..b.dims {
                for field in ["min", "extent", "stride"] {
                    names.insert(buffer_field(b.name, field, d), Type::i32());
                }
            }
        }
        for p in &signature.params {
            names.insert(p.name, p.ty);
        }
        for o in &signature.outputs {
            storage.insert(o.name, Storage::Flat(o.ty));
        }
        for i in &signature.images {
            storage.insert(
                i.name,
                Storage::Image {
                    ty: i.ty,
                    dims: i.dims,
                },
            );
        }
        Verifier {
            names,
            storage,
            outputs: Vec::new(),
            awaiting_fusion: FxHashMap::default(),
        }
    }

    /// Checks `s`, made by lowering pass `pass`, for the properties of `phase`. The error
    /// names the pass and the first problem found, with the node and the loops around it.
    pub fn check(&self, pass: &str, s: &Stmt, phase: Phase) -> Result<()> {
        let mut checker = Checker {
            verifier: self,
            phase,
            names: FxHashMap::default(),
            storage: FxHashMap::default(),
            scope: 0,
            scopes_made: 0,
            checked: FxHashSet::default(),
            around: Vec::new(),
            semaphores: Vec::new(),
        };
        checker.stmt(s).map_err(|p| {
            let mut message = format!(
                "lowering pass {pass} made an ill-formed statement: {}\n  at: {}",
                p.what, p.node
            );
            if let Some(stmt) = p.stmt {
                message.push_str(&format!("\n  in: {stmt}"));
            }
            if !p.around.is_empty() {
                message.push_str(&format!("\n  inside: {}", p.around));
            }
            Error::Internal(message)
        })
    }
}

/// The first problem found: what is wrong, the node (printed), the statement holding it and
/// the loops and productions around it.
struct Problem {
    what: String,
    node: String,
    stmt: Option<String>,
    around: String,
}

type Checked = std::result::Result<(), Problem>;

/// Printed nodes are cut to this many characters: enough to find the node.
const SHOWN_CHARS: usize = 240;

fn shown(text: &str) -> String {
    let first_line = text.lines().next().unwrap_or("");
    let mut out: String = first_line.chars().take(SHOWN_CHARS).collect();
    if out.len() < text.trim_end().len() {
        out.push_str(" ...");
    }
    out
}

/// Where the checker is in the statement.
enum Around {
    Loop(Symbol),
    Producer(Symbol),
    Consumer(Symbol),
}

struct Checker<'a> {
    verifier: &'a Verifier,
    phase: Phase,
    /// Names bound inside the statement, innermost binding last.
    names: FxHashMap<Symbol, Vec<Type>>,
    /// Storage realized or allocated inside the statement, innermost last.
    storage: FxHashMap<Symbol, Vec<Storage>>,
    /// The identity of the current bindings: a fresh one for each binding made, the
    /// enclosing one restored after it, so an expression checked under one identity is
    /// correct under it again (shared subexpressions are checked once per scope).
    scope: u64,
    scopes_made: u64,
    checked: FxHashSet<(usize, u64)>,
    around: Vec<Around>,
    /// The semaphores declared around the statement, innermost last.
    semaphores: Vec<Symbol>,
}

impl Checker<'_> {
    fn problem(&self, what: String, node: &dyn std::fmt::Display) -> Problem {
        let around = self
            .around
            .iter()
            .map(|a| match a {
                Around::Loop(n) => format!("for {n}"),
                Around::Producer(n) => format!("produce {n}"),
                Around::Consumer(n) => format!("consume {n}"),
            })
            .collect::<Vec<_>>()
            .join(" > ");
        Problem {
            what,
            node: shown(&node.to_string()),
            stmt: None,
            around,
        }
    }

    fn fail(&self, what: String, node: &dyn std::fmt::Display) -> Checked {
        Err(self.problem(what, node))
    }

    /// Runs `f` with `name` bound to a value of type `ty`.
    fn with_name(
        &mut self,
        name: Symbol,
        ty: Type,
        f: impl FnOnce(&mut Self) -> Checked,
    ) -> Checked {
        self.names.entry(name).or_default().push(ty);
        let result = self.in_new_scope(f);
        let bound = self.names.get_mut(&name).expect("bound above");
        bound.pop();
        result
    }

    /// Runs `f` with storage `name` in scope.
    fn with_storage(
        &mut self,
        name: Symbol,
        storage: Storage,
        f: impl FnOnce(&mut Self) -> Checked,
    ) -> Checked {
        self.storage.entry(name).or_default().push(storage);
        let result = self.in_new_scope(f);
        self.storage.get_mut(&name).expect("bound above").pop();
        result
    }

    fn in_new_scope(&mut self, f: impl FnOnce(&mut Self) -> Checked) -> Checked {
        let enclosing = self.scope;
        self.scopes_made += 1;
        self.scope = self.scopes_made;
        let result = f(self);
        self.scope = enclosing;
        result
    }

    fn name_type(&self, name: Symbol) -> Option<Type> {
        match self.names.get(&name).and_then(|b| b.last()) {
            Some(ty) => Some(*ty),
            None => self.verifier.names.get(&name).copied(),
        }
    }

    fn storage_of(&self, name: Symbol) -> Option<&Storage> {
        if let Some(s) = self.storage.get(&name).and_then(|b| b.last()) {
            return Some(s);
        }
        let output = self.verifier.outputs.iter().find(|(o, _)| *o == name);
        match output {
            Some((_, s)) if self.phase < Phase::Flattened => Some(s),
            _ => (self.verifier.storage.get(&name))
                .or_else(|| self.verifier.awaiting_fusion.get(&name)),
        }
    }

    // ---- expressions ------------------------------------------------------------------

    fn expr(&mut self, e: &Expr) -> Checked {
        // Leaves are checked directly: cheaper than remembering them.
        let is_leaf = matches!(
            e.kind(),
            ExprKind::IntImm(_)
                | ExprKind::UIntImm(_)
                | ExprKind::FloatImm(_)
                | ExprKind::Var(_)
                | ExprKind::Param(..)
        );
        if is_leaf {
            return self.node(e);
        }
        if self.checked.contains(&(e.node_id(), self.scope)) {
            return Ok(());
        }
        self.node(e)?;
        if let ExprKind::Let(name, value, body) = e.kind() {
            self.expr(value)?;
            self.with_name(*name, value.ty(), |c| c.expr(body))?;
        } else {
            let mut result = Ok(());
            e.for_each_child(|c| {
                if result.is_ok() {
                    result = self.expr(c);
                }
            });
            result?;
        }
        self.checked.insert((e.node_id(), self.scope));
        Ok(())
    }

    /// The checks of `e` itself (its children are checked by `expr`).
    fn node(&self, e: &Expr) -> Checked {
        let ty = e.ty();
        match e.kind() {
            ExprKind::IntImm(_) => self.constant(e, TypeCode::Int),
            ExprKind::UIntImm(_) if ty.is_bool() => self.constant(e, TypeCode::Bool),
            ExprKind::UIntImm(_) => self.constant(e, TypeCode::UInt),
            ExprKind::FloatImm(_) => self.constant(e, TypeCode::Float),
            ExprKind::Var(name) | ExprKind::Param(name, _) => self.read(*name, e),
            ExprKind::RVar(name, _) => self.fail(
                format!("reduction variable {name} was not made a loop variable"),
                e,
            ),
            ExprKind::Cast(a) if a.ty().lanes != ty.lanes => self.fail(
                format!("a cast from {} lanes to {}", a.ty().lanes, ty.lanes),
                e,
            ),
            ExprKind::Cast(_) => Ok(()),
            ExprKind::Unary(op, a) => {
                if a.ty() != ty {
                    self.fail(format!("{op:?} of {} gives {ty}", a.ty()), e)
                } else if *op == UnaryOp::Not && !ty.is_bool() {
                    self.fail(format!("logical not of {ty}"), e)
                } else {
                    Ok(())
                }
            }
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, e),
            ExprKind::Select(c, t, f) => {
                if t.ty() != f.ty() || t.ty() != ty {
                    self.fail(
                        format!("select arms of {} and {} give {ty}", t.ty(), f.ty()),
                        e,
                    )
                } else {
                    self.condition(c, ty.lanes, e)
                }
            }
            ExprKind::Let(_, _, body) if body.ty() != ty => {
                self.fail(format!("a let whose body is {} gives {ty}", body.ty()), e)
            }
            ExprKind::Let(..) => Ok(()),
            ExprKind::Ramp(base, stride) => {
                if base.ty() != stride.ty() {
                    self.fail(
                        format!("a ramp of base {} and stride {}", base.ty(), stride.ty()),
                        e,
                    )
                } else {
                    self.widened(base, e)
                }
            }
            ExprKind::Broadcast(v) => self.widened(v, e),
            ExprKind::Load {
                buffer,
                index,
                predicate,
            } => self.flat_access(*buffer, ty, index, predicate.as_ref(), e),
            ExprKind::Call {
                name,
                kind,
                args,
                value_index,
            } => self.call(*name, kind, args, *value_index, e),
            ExprKind::Invalid(message) => {
                self.fail(format!("an invalid expression ({message})"), e)
            }
        }
    }

    fn constant(&self, e: &Expr, code: TypeCode) -> Checked {
        if e.ty().code != code || e.ty().lanes != 1 {
            return self.fail(format!("a {code:?} constant of type {}", e.ty()), e);
        }
        Ok(())
    }

    /// A read of the variable or parameter `name` by `e`.
    fn read(&self, name: Symbol, e: &Expr) -> Checked {
        match self.name_type(name) {
            Some(ty) if ty == e.ty() => Ok(()),
            Some(ty) => self.fail(format!("{name} is read as {} but bound to {ty}", e.ty()), e),
            // Names of regions and storage sizes are bound by later passes.
            None if self.phase == Phase::Scheduled && is_region_or_storage_name(name) => Ok(()),
            None => self.fail(
                format!(
                    "{name} is not bound here (no let, loop or argument of that name encloses it)"
                ),
                e,
            ),
        }
    }

    fn binary(&self, op: BinaryOp, a: &Expr, b: &Expr, e: &Expr) -> Checked {
        if a.ty() != b.ty() {
            return self.fail(
                format!(
                    "operands of {} differ in type: {} and {}",
                    op.symbol(),
                    a.ty(),
                    b.ty()
                ),
                e,
            );
        }
        let result = if op.is_comparison() {
            Type::bool_().with_lanes(a.ty().lanes)
        } else {
            a.ty()
        };
        if e.ty() != result {
            return self.fail(
                format!("{} of {} operands gives {}", op.symbol(), a.ty(), e.ty()),
                e,
            );
        }
        if op.is_logical() && !a.ty().is_bool() {
            return self.fail(format!("{} of {} operands", op.symbol(), a.ty()), e);
        }
        Ok(())
    }

    /// A condition of something with `lanes` lanes: a bool, scalar or of as many lanes.
    fn condition(&self, c: &Expr, lanes: u16, at: &dyn std::fmt::Display) -> Checked {
        if !c.ty().is_bool() || (c.ty().lanes != 1 && c.ty().lanes != lanes) {
            return self.fail(
                format!(
                    "the condition {} is {}, not bool of 1 or {lanes} lanes",
                    shown(&c.to_string()),
                    c.ty()
                ),
                at,
            );
        }
        Ok(())
    }

    /// A ramp or broadcast `e` of the vector or scalar `inner`: its lanes repeated.
    fn widened(&self, inner: &Expr, e: &Expr) -> Checked {
        let (inner_ty, ty) = (inner.ty(), e.ty());
        if inner_ty.element() != ty.element() || ty.lanes % inner_ty.lanes != 0 {
            return self.fail(format!("{ty} made from {inner_ty}"), e);
        }
        Ok(())
    }

    fn call(
        &self,
        name: Symbol,
        kind: &CallKind,
        args: &[Expr],
        value_index: usize,
        e: &Expr,
    ) -> Checked {
        let ty = e.ty();
        match kind {
            CallKind::Intrinsic(op) if !op.has_value() => self.fail(
                format!("{} has no value and cannot be computed", op.name()),
                e,
            ),
            CallKind::Intrinsic(_) => Ok(()),
            CallKind::Func(_) | CallKind::Image(_) if self.phase == Phase::Flattened => self.fail(
                format!("the call to {name} is still multi-dimensional after storage flattening"),
                e,
            ),
            CallKind::Func(_) | CallKind::Image(_) => {
                let (element, dims) = match (kind, self.storage_of(name)) {
                    (CallKind::Func(_), Some(Storage::Func { types, dims })) => {
                        match types.get(value_index) {
                            Some(t) => (*t, *dims),
                            None => {
                                return self.fail(
                                    format!("value {value_index} of {name}, which has {}", types.len()),
                                    e,
                                )
                            }
                        }
                    }
                    (CallKind::Image(_), Some(Storage::Image { ty, dims })) => (*ty, *dims),
                    _ => {
                        return self.fail(
                            format!("{name} is read, but it is not realized here nor an input or output of the pipeline"),
                            e,
                        )
                    }
                };
                self.coordinates(name, args, dims, e)?;
                if ty != element {
                    return self.fail(format!("{name} holds {element} but is read as {ty}"), e);
                }
                Ok(())
            }
        }
    }

    /// The coordinates `args` of an access to `name`, which has `dims` dimensions.
    fn coordinates(
        &self,
        name: Symbol,
        args: &[Expr],
        dims: usize,
        at: &dyn std::fmt::Display,
    ) -> Checked {
        if args.len() != dims {
            return self.fail(
                format!(
                    "{name} has {dims} dimensions but is accessed at {} coordinates",
                    args.len()
                ),
                at,
            );
        }
        match args.iter().find(|a| !is_scalar_int(a.ty())) {
            Some(a) => self.fail(format!("a coordinate of {name} is {}", a.ty()), at),
            None => Ok(()),
        }
    }

    /// A flat load (or store) of `ty` values to `buffer` at `index`.
    fn flat_access(
        &self,
        buffer: Symbol,
        ty: Type,
        index: &Expr,
        predicate: Option<&Expr>,
        at: &dyn std::fmt::Display,
    ) -> Checked {
        let element = match self.storage_of(buffer) {
            Some(Storage::Flat(t) | Storage::Image { ty: t, .. }) => *t,
            Some(Storage::Func { .. }) => {
                return self.fail(
                    format!("{buffer} is accessed flat, but it is a Func's multi-dimensional storage"),
                    at,
                )
            }
            None => {
                return self.fail(
                    format!("{buffer} is accessed, but it is not allocated here nor a buffer of the pipeline"),
                    at,
                )
            }
        };
        if !index.ty().is_int_or_uint() || index.ty().lanes != ty.lanes {
            return self.fail(
                format!(
                    "{} values of {buffer} accessed at an index of type {}",
                    ty,
                    index.ty()
                ),
                at,
            );
        }
        if ty.element() != element {
            return self.fail(
                format!("{buffer} holds {element} but is accessed as {ty}"),
                at,
            );
        }
        match predicate {
            Some(p) if !p.ty().is_bool() || p.ty().lanes != ty.lanes => self.fail(
                format!(
                    "{ty} values of {buffer} accessed under a predicate of type {}",
                    p.ty()
                ),
                at,
            ),
            _ => Ok(()),
        }
    }

    // ---- statements -------------------------------------------------------------------

    fn stmt(&mut self, s: &Stmt) -> Checked {
        self.stmt_node(s).map_err(|mut p| {
            if p.stmt.is_none() && !matches!(s.kind(), StmtKind::Block(_)) {
                p.stmt = Some(shown(&s.to_string()));
            }
            p
        })
    }

    fn stmt_node(&mut self, s: &Stmt) -> Checked {
        match s.kind() {
            StmtKind::LetStmt { name, value, body } => {
                self.expr(value)?;
                self.with_name(*name, value.ty(), |c| c.stmt(body))
            }
            StmtKind::Assert { condition, message } => {
                self.scalar_condition(condition, s)?;
                for part in message {
                    if let MessagePart::Value(v) = part {
                        self.expr(v)?;
                    }
                }
                Ok(())
            }
            StmtKind::ProducerConsumer {
                name,
                is_producer,
                body,
            } => {
                self.around.push(if *is_producer {
                    Around::Producer(*name)
                } else {
                    Around::Consumer(*name)
                });
                self.stmt(body)?;
                self.around.pop();
                Ok(())
            }
            StmtKind::For {
                name,
                min,
                extent,
                body,
                ..
            } => {
                self.expr(min)?;
                self.expr(extent)?;
                if !is_scalar_int(min.ty()) || extent.ty() != min.ty() {
                    return self.fail(
                        format!(
                            "loop {name} runs from {} over an extent of {}",
                            min.ty(),
                            extent.ty()
                        ),
                        s,
                    );
                }
                self.around.push(Around::Loop(*name));
                self.with_name(*name, min.ty(), |c| c.stmt(body))?;
                self.around.pop();
                Ok(())
            }
            StmtKind::Store {
                buffer,
                index,
                value,
                predicate,
            } => {
                self.expr(index)?;
                self.expr(value)?;
                if let Some(p) = predicate {
                    self.expr(p)?;
                }
                self.flat_access(*buffer, value.ty(), index, predicate.as_ref(), s)
            }
            StmtKind::Provide { func, args, values } => {
                if self.phase == Phase::Flattened {
                    return self.fail(
                        format!("the store to {func} is still multi-dimensional after storage flattening"),
                        s,
                    );
                }
                args.iter().chain(values).try_for_each(|e| self.expr(e))?;
                let Some(Storage::Func { types, dims }) = self.storage_of(*func) else {
                    return self.fail(
                        format!("{func} is stored to, but it is not realized here nor the pipeline's output"),
                        s,
                    );
                };
                let given: Vec<Type> = values.iter().map(|v| v.ty()).collect();
                if given != *types {
                    return self.fail(
                        format!("{func} holds values of {types:?} but is given {given:?}"),
                        s,
                    );
                }
                self.coordinates(*func, args, *dims, s)
            }
            StmtKind::Allocate {
                buffer,
                ty,
                extents,
                body,
                ..
            } => {
                self.sizes(extents, s)?;
                self.with_storage(*buffer, Storage::Flat(*ty), |c| c.stmt(body))
            }
            StmtKind::Realize {
                func,
                types,
                bounds,
                body,
            } => {
                if self.phase == Phase::Flattened {
                    return self.fail(
                        format!("the realization of {func} is still multi-dimensional after storage flattening"),
                        s,
                    );
                }
                let ranges: Vec<Expr> = bounds
                    .iter()
                    .flat_map(|r| [r.min.clone(), r.extent.clone()])
                    .collect();
                self.sizes(&ranges, s)?;
                let storage = Storage::Func {
                    types: types.clone(),
                    dims: bounds.len(),
                };
                self.with_storage(*func, storage, |c| c.stmt(body))
            }
            StmtKind::Block(stmts) => stmts.iter().try_for_each(|c| self.stmt(c)),
            StmtKind::Free { buffer } => {
                // Only an allocation of the statement can be freed, not a buffer passed in.
                let allocated = self.storage.get(buffer).and_then(|b| b.last());
                if matches!(allocated, Some(Storage::Flat(_))) {
                    Ok(())
                } else {
                    self.fail(
                        format!("{buffer} is freed, but it is not allocated here"),
                        s,
                    )
                }
            }
            StmtKind::Atomic { body } => self.stmt(body),
            StmtKind::Fork { first, rest } => {
                self.stmt(first)?;
                self.stmt(rest)
            }
            StmtKind::Semaphore {
                name,
                initial,
                body,
            } => {
                self.semaphore_count(initial, s)?;
                self.semaphores.push(*name);
                let result = self.stmt(body);
                self.semaphores.pop();
                result
            }
            StmtKind::Acquire { semaphore, count } | StmtKind::Release { semaphore, count } => {
                if !self.semaphores.contains(semaphore) {
                    return self.fail(format!("the semaphore {semaphore} is not declared here"), s);
                }
                self.semaphore_count(count, s)
            }
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                self.scalar_condition(condition, s)?;
                self.stmt(then_case)?;
                else_case.as_ref().map_or(Ok(()), |e| self.stmt(e))
            }
            StmtKind::Evaluate(e) => self.expr(e),
            StmtKind::Prefetch {
                buffer,
                ty,
                args,
                flat,
                ..
            } => {
                args.iter().try_for_each(|e| self.expr(e))?;
                if *flat != (self.phase == Phase::Flattened) {
                    return self.fail(
                        format!("the prefetch of {buffer} is at the wrong storage level"),
                        s,
                    );
                }
                if *flat {
                    let [index] = args.as_slice() else {
                        return self.fail(
                            format!("the prefetch of {buffer} is still multi-dimensional after storage flattening"),
                            s,
                        );
                    };
                    return self.flat_access(*buffer, *ty, index, None, s);
                }
                match self.storage_of(*buffer) {
                    Some(Storage::Func { types, dims }) if types[0] == *ty && *dims == args.len() => {
                        Ok(())
                    }
                    Some(Storage::Image { ty: t, dims }) if t == ty && *dims == args.len() => Ok(()),
                    _ => self.fail(
                        format!("{buffer} is prefetched as {} coordinates of {ty}, but it is not a Func or image of that shape here", args.len()),
                        s,
                    ),
                }
            }
        }
    }

    /// The condition of an `if` or an assertion: one bool.
    /// A count of semaphore units: a scalar int32.
    fn semaphore_count(&mut self, count: &Expr, s: &Stmt) -> Checked {
        self.expr(count)?;
        if count.ty() != Type::i32() {
            return self.fail(
                format!(
                    "the semaphore count {} is {}, not int32",
                    shown(&count.to_string()),
                    count.ty()
                ),
                s,
            );
        }
        Ok(())
    }

    fn scalar_condition(&mut self, c: &Expr, s: &Stmt) -> Checked {
        self.expr(c)?;
        if c.ty() != Type::bool_() {
            return self.fail(
                format!(
                    "the condition {} is {}, not bool",
                    shown(&c.to_string()),
                    c.ty()
                ),
                s,
            );
        }
        Ok(())
    }

    /// The extents (or mins) of storage: scalar integers.
    fn sizes(&mut self, sizes: &[Expr], s: &Stmt) -> Checked {
        for e in sizes {
            self.expr(e)?;
            if !is_scalar_int(e.ty()) {
                return self.fail(format!("a size {} is {}", shown(&e.to_string()), e.ty()), s);
            }
        }
        Ok(())
    }
}

fn is_scalar_int(ty: Type) -> bool {
    ty.is_int_or_uint() && ty.is_scalar()
}
