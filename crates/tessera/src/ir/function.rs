//! What a Func is to the IR (Halide's `Internal::Function`): the shared contents behind the
//! user's `lang::func::Func` handle, its pure definition, its update definitions and its
//! schedule. Calls in expressions link to these contents through `FuncLink`, which
//! holds a strong reference, except for a Func's calls to itself inside its own updates, which
//! hold a weak one so that recursive definitions do not leak.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard, Weak};

use super::parameter::{BufferConstraints, InputId, SharedConstraints};
use super::reduction::ReductionDomain;
use super::schedule::{Estimate, FuncSchedule, StageSchedule};
use super::visit::{mutate_exprs, visit_exprs};
use super::{CallKind, Expr, ExprKind, Symbol, Type};

/// One definition (stage) of a Func: `name(args) = values`, over an optional reduction domain.
#[derive(Clone, Debug, PartialEq)]
pub struct Definition {
    /// Left-hand-side coordinates. For the pure definition these are the pure Vars.
    pub args: Vec<Expr>,
    /// One value per Tuple element.
    pub values: Vec<Expr>,
    /// The reduction domain the update iterates over (with its `where` predicates).
    pub rdom: Option<ReductionDomain>,
    /// The definition stores only where this holds: a select with an `undef` arm
    /// (`lang::undef`); `false` when it stores nothing.
    pub guard: Option<Expr>,
    /// The loop structure this stage is computed with.
    pub schedule: StageSchedule,
}

/// A Func's identity, in creation order: Funcs made earlier have smaller ids, which is the
/// order in which same-named Funcs keep their names (`lang::naming`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct FuncId(u64);

impl FuncId {
    fn next() -> FuncId {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        FuncId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

impl Definition {
    /// Every expression of the definition: those evaluated at each of its points
    /// (`pointwise_exprs`), then its reduction domain's bounds. This is the one walk over a
    /// definition's expressions; whatever looks for calls, names or inputs in a definition
    /// goes through it (or `map_exprs`), so none of them misses a place a call can stand.
    pub fn exprs(&self) -> impl Iterator<Item = &Expr> {
        let bounds = self.rdom.iter().flat_map(|r| &r.vars);
        self.pointwise_exprs()
            .chain(bounds.flat_map(|v| [&v.min, &v.extent]))
    }

    /// The expressions evaluated at each point of the definition's domain: its coordinates,
    /// its values, its store condition and its reduction domain's predicates (not the
    /// domain's bounds, which are evaluated once, before the first point).
    pub fn pointwise_exprs(&self) -> impl Iterator<Item = &Expr> {
        let predicates = self.rdom.iter().flat_map(|r| &r.predicates);
        self.args
            .iter()
            .chain(&self.values)
            .chain(&self.guard)
            .chain(predicates)
    }

    /// The definition with `f` applied to each of the expressions `exprs` lists.
    pub fn map_exprs(&mut self, f: impl Fn(&Expr) -> Expr) {
        self.args = self.args.iter().map(&f).collect();
        self.values = self.values.iter().map(&f).collect();
        self.guard = self.guard.as_ref().map(&f);
        if let Some(rdom) = &mut self.rdom {
            rdom.predicates = rdom.predicates.iter().map(&f).collect();
            for v in &mut rdom.vars {
                v.min = f(&v.min);
                v.extent = f(&v.extent);
            }
        }
    }
}

/// What a Func is: its definitions and its schedule.
#[derive(Debug)]
pub struct FunctionContents {
    /// Its identity, kept when names are made unique.
    pub id: FuncId,
    /// Its name.
    pub name: Symbol,
    /// The pure variables, in dimension order (empty until defined).
    pub args: Vec<Symbol>,
    /// The types of its values (one per Tuple element).
    pub output_types: Vec<Type>,
    /// The pure definition, once defined.
    pub pure: Option<Definition>,
    /// The update definitions, in order.
    pub updates: Vec<Definition>,
    /// Where it is computed and stored.
    pub schedule: FuncSchedule,
    /// `Func::in_`, `Func::clone_in` and `ImageParam::in_` wrappers: calls to what each
    /// wraps read the wrapper instead, in every definition, later updates included.
    pub wrappers: Vec<Wrapper>,
    /// `Func::in_all`: the wrapper every other consumer reads instead of this Func. It calls
    /// this Func, so the two keep each other alive.
    pub global_wrapper: Option<Function>,
    /// What the caller promises about the output buffer when this Func is a pipeline's
    /// output (`Func::output_buffer`).
    pub output_constraints: SharedConstraints,
    /// The extent of each dimension the automatic scheduler may assume (`Func::set_estimate`),
    /// indexed by dimension; `None` where none was given.
    pub estimates: Vec<Option<Estimate>>,
}

impl FunctionContents {
    /// Definition `stage` (0 is the pure definition, k the k-th update).
    pub fn stage(&self, stage: usize) -> Option<&Definition> {
        if stage == 0 {
            self.pure.as_ref()
        } else {
            self.updates.get(stage - 1)
        }
    }
    /// Definition `stage`, writable (0 is the pure definition, k the k-th update).
    pub fn stage_mut(&mut self, stage: usize) -> Option<&mut Definition> {
        if stage == 0 {
            self.pure.as_mut()
        } else {
            self.updates.get_mut(stage - 1)
        }
    }
    /// The constraints on the output buffer now.
    pub fn output_constraints(&self) -> BufferConstraints {
        self.output_constraints
            .read()
            .expect("constraints poisoned")
            .clone()
    }
    /// Whether the pure definition leaves some points (a guard) or Tuple elements (undef)
    /// unstored, so that storage may be read where nothing wrote it.
    pub fn pure_leaves_points_unstored(&self) -> bool {
        self.pure.as_ref().is_some_and(|d| {
            d.guard.is_some()
                || (d.values.iter().enumerate())
                    .any(|(i, v)| keeps_element(self.name, &d.args, i, v))
        })
    }
    /// Number of stages: the pure definition plus the updates.
    pub fn stage_count(&self) -> usize {
        self.pure.is_some() as usize + self.updates.len()
    }
}

/// A Func a consumer reads instead of a Func or an input image (`Func::in_`,
/// `Func::clone_in`, `ImageParam::in_`).
#[derive(Clone, Debug)]
pub struct Wrapper {
    /// What the consumer's calls were to.
    pub of: Wrapped,
    /// What they are to now.
    pub by: Function,
    /// Whether `by` is a copy of the wrapped Func's definitions (`clone_in`) rather than a
    /// Func reading it (`in_`).
    pub is_clone: bool,
}

/// What a wrapper stands in for, by identity.
#[derive(Clone, Debug)]
pub enum Wrapped {
    /// A Func.
    Func(Function),
    /// An input image (`ImageParam`).
    Image(InputId),
}

impl Wrapped {
    /// Whether this is `other` (the same Func, or the same image).
    pub fn same_as(&self, other: &Wrapped) -> bool {
        match (self, other) {
            (Wrapped::Func(a), Wrapped::Func(b)) => a.same_as(b),
            (Wrapped::Image(a), Wrapped::Image(b)) => a == b,
            _ => false,
        }
    }
}

/// A shared handle on a Func's contents (cheap to clone; equality is identity).
#[derive(Clone)]
pub struct Function(Arc<RwLock<FunctionContents>>);

impl Function {
    /// A Function without definitions, with a fresh identity.
    pub fn new(name: Symbol) -> Function {
        Function(Arc::new(RwLock::new(FunctionContents {
            id: FuncId::next(),
            name,
            args: Vec::new(),
            output_types: Vec::new(),
            pure: None,
            updates: Vec::new(),
            schedule: FuncSchedule::default(),
            wrappers: Vec::new(),
            global_wrapper: None,
            output_constraints: Arc::new(RwLock::new(BufferConstraints::default())),
            estimates: Vec::new(),
        })))
    }
    /// Its contents, read-locked.
    pub fn read(&self) -> RwLockReadGuard<'_, FunctionContents> {
        self.0.read().expect("Func contents poisoned")
    }
    /// Its contents, write-locked.
    pub fn write(&self) -> RwLockWriteGuard<'_, FunctionContents> {
        self.0.write().expect("Func contents poisoned")
    }
    /// Its name.
    pub fn name(&self) -> Symbol {
        self.read().name
    }
    /// Its identity.
    pub fn id(&self) -> FuncId {
        self.read().id
    }
    /// Whether it has a pure definition.
    pub fn is_defined(&self) -> bool {
        self.read().pure.is_some()
    }
    /// Its number of dimensions.
    pub fn dimensions(&self) -> usize {
        self.read().args.len()
    }
    /// The types of its values.
    pub fn output_types(&self) -> Vec<Type> {
        self.read().output_types.clone()
    }
    /// Whether `other` is the same Function (not merely one of the same name).
    pub fn same_as(&self, other: &Function) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
    /// A strong link, for calls from other Funcs.
    pub fn link(&self) -> FuncLink {
        FuncLink {
            name: self.name(),
            ptr: LinkPtr::Strong(self.0.clone()),
        }
    }
    /// A weak link, for a Func's calls to itself.
    pub fn weak_link(&self) -> FuncLink {
        FuncLink {
            name: self.name(),
            ptr: LinkPtr::Weak(Arc::downgrade(&self.0)),
        }
    }
    /// The Func back to having no definition (a compound update that gave it its pure
    /// definition and was then refused undoes it).
    pub(crate) fn clear_definitions(&self) {
        let mut c = self.write();
        c.args.clear();
        c.output_types.clear();
        c.pure = None;
        c.updates.clear();
    }
    /// Every definition in order: the pure one, then the updates.
    pub fn definitions(&self) -> Vec<Definition> {
        let c = self.read();
        c.pure.iter().chain(c.updates.iter()).cloned().collect()
    }
    /// The Funcs this Func's definitions call (itself too, if its updates read it), each
    /// once, in the order of their first calls.
    pub fn callees(&self) -> Vec<Function> {
        let mut out: Vec<Function> = Vec::new();
        for d in self.definitions() {
            for e in d.exprs() {
                visit_exprs(e, &mut |n| {
                    if let ExprKind::Call {
                        kind: CallKind::Func(link),
                        ..
                    } = n.kind()
                    {
                        let callee = link.function();
                        if !out.iter().any(|g| g.same_as(&callee)) {
                            out.push(callee);
                        }
                    }
                    true
                });
            }
        }
        out
    }
}

impl fmt::Debug for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Function({})", self.name())
    }
}

#[derive(Clone)]
enum LinkPtr {
    Strong(Arc<RwLock<FunctionContents>>),
    Weak(Weak<RwLock<FunctionContents>>),
}

/// The Func a `Call` node calls. Compared and hashed by name: within one pipeline, Func names
/// are unique (pipeline construction checks this).
#[derive(Clone)]
pub struct FuncLink {
    name: Symbol,
    ptr: LinkPtr,
}

impl FuncLink {
    /// The called Func's name.
    pub fn name(&self) -> Symbol {
        self.name
    }
    /// The called Function. Panics only if a self-link outlived its Func, which cannot happen
    /// while the Func's definitions (which hold the link) are alive.
    pub fn function(&self) -> Function {
        match &self.ptr {
            LinkPtr::Strong(a) => Function(a.clone()),
            LinkPtr::Weak(w) => Function(
                w.upgrade()
                    .expect("internal error: self-call outlived its Func"),
            ),
        }
    }
    /// The same link (strong or weak) under the called Func's current name.
    pub fn renamed(&self) -> FuncLink {
        let function = self.function();
        match &self.ptr {
            LinkPtr::Strong(_) => function.link(),
            LinkPtr::Weak(_) => function.weak_link(),
        }
    }
    /// Whether the link does not keep the Func alive (a call in the Func's own definitions).
    pub fn is_weak(&self) -> bool {
        matches!(self.ptr, LinkPtr::Weak(_))
    }
    /// Whether this link calls `f` itself (not merely a Func of the same name: names are
    /// made unique only when a pipeline is built).
    pub fn calls(&self, f: &Function) -> bool {
        match &self.ptr {
            LinkPtr::Strong(a) => Arc::ptr_eq(a, &f.0),
            LinkPtr::Weak(w) => std::ptr::eq(w.as_ptr(), Arc::as_ptr(&f.0)),
        }
    }
    /// How many values (Tuple elements) the called Func has, or 1 if it cannot be read now.
    pub fn output_count(&self) -> usize {
        match &self.ptr {
            LinkPtr::Strong(a) => a.try_read().map(|c| c.output_types.len()).unwrap_or(1),
            LinkPtr::Weak(w) => w
                .upgrade()
                .and_then(|a| a.try_read().ok().map(|c| c.output_types.len()))
                .unwrap_or(1),
        }
    }
}

impl PartialEq for FuncLink {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
impl Eq for FuncLink {}
impl Hash for FuncLink {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state)
    }
}
impl fmt::Debug for FuncLink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FuncLink({})", self.name)
    }
}

/// `e` with each call to a Func whose link `redirect` maps to another link calling that
/// link's Func instead (under its name), coordinates included.
pub fn redirect_func_calls(e: &Expr, redirect: &dyn Fn(&FuncLink) -> Option<FuncLink>) -> Expr {
    mutate_exprs(e, &mut |n| {
        let ExprKind::Call {
            kind: CallKind::Func(link),
            args,
            value_index,
            ..
        } = n.kind()
        else {
            return None;
        };
        let to = redirect(link)?;
        Some(Expr::new(
            n.ty(),
            ExprKind::Call {
                name: to.name(),
                kind: CallKind::Func(to),
                args: args
                    .iter()
                    .map(|a| redirect_func_calls(a, redirect))
                    .collect(),
                value_index: *value_index,
            },
        ))
    })
}

/// Whether `value`, stored as Tuple element `index` of Func `func` at `args`, is the element
/// as it was there — how a definition's undef element is represented: a store of it changes
/// nothing, so the evaluator and storage flattening leave it out.
pub(crate) fn keeps_element(func: Symbol, args: &[Expr], index: usize, value: &Expr) -> bool {
    matches!(value.kind(), ExprKind::Call { name, kind: CallKind::Func(_), args: at, value_index }
        if *name == func && *value_index == index && at == args)
}
