//! Statement nodes: the imperative loop nests lowering produces. Multi-dimensional
//! `Realize`/`Provide` (Func coordinates) exist until storage flattening turns them into flat
//! `Allocate`/`Store`, mirroring Halide's two storage levels.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use super::expr::{Expr, MessagePart};
use super::symbol::Symbol;
use super::types::Type;

/// Where an allocation lives (Halide's `MemoryType`). Lowering's last pass
/// (`place_allocations`) turns `Auto` into `Stack` or `Heap`, so code generation and the
/// printed Stmt agree on every allocation's place.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum MemoryType {
    /// The compiler chooses: the stack for small constant sizes, else the heap.
    #[default]
    Auto,
    /// `tessera_malloc`'d scratch memory, released when the allocation ends.
    Heap,
    /// The function's stack frame; the size must be a constant.
    Stack,
    /// The stack, for values meant to live in registers: LLVM promotes the allocation to
    /// registers when every access has a constant index (after unrolling). Constant size.
    Register,
}

impl MemoryType {
    /// The largest allocation `Auto` puts on the stack.
    pub const AUTO_STACK_BYTES: u64 = 16 * 1024;
    /// The largest allocation `Stack` or `Register` may ask for: worker threads have 2 MiB
    /// stacks, and several allocations may be live at once.
    pub const MAX_STACK_BYTES: u64 = 512 * 1024;

    /// Where an allocation of `bytes` (`None`: not a constant) lives: `Auto` becomes `Stack`
    /// for a constant size of at most `AUTO_STACK_BYTES`, else `Heap`. An error says why
    /// `Stack` or `Register` cannot hold it.
    pub fn place(self, bytes: Option<u64>) -> Result<MemoryType, String> {
        match (self, bytes) {
            (MemoryType::Auto, Some(b)) if b <= Self::AUTO_STACK_BYTES => Ok(MemoryType::Stack),
            (MemoryType::Auto, _) => Ok(MemoryType::Heap),
            (MemoryType::Heap, _) => Ok(MemoryType::Heap),
            (_, None) => Err(format!(
                "is stored in {self} memory, which needs a constant size, but its size is only known at run time"
            )),
            (_, Some(b)) if b > Self::MAX_STACK_BYTES => Err(format!(
                "is stored in {self} memory, but needs {b} bytes, more than the {} a stack allocation may take",
                Self::MAX_STACK_BYTES
            )),
            (stack, Some(_)) => Ok(stack),
        }
    }
}

/// The number of elements of an allocation with these extents, when they are all
/// non-negative constants (and their product fits in 64 bits).
pub fn constant_elements(extents: &[Expr]) -> Option<u64> {
    extents.iter().try_fold(1u64, |n, e| {
        let extent = u64::try_from(e.as_int_const()?).ok()?;
        n.checked_mul(extent)
    })
}

impl fmt::Display for MemoryType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MemoryType::Auto => "Auto",
            MemoryType::Heap => "Heap",
            MemoryType::Stack => "Stack",
            MemoryType::Register => "Register",
        })
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ForKind {
    Serial,
    Parallel,
    Vectorized,
    Unrolled,
}

impl ForKind {
    pub fn keyword(self) -> &'static str {
        match self {
            ForKind::Serial => "for",
            ForKind::Parallel => "parallel for",
            ForKind::Vectorized => "vectorized for",
            ForKind::Unrolled => "unrolled for",
        }
    }
}

/// A half-open interval `[min, min + extent)` of one dimension.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Range {
    pub min: Expr,
    pub extent: Expr,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum StmtKind {
    LetStmt {
        name: Symbol,
        value: Expr,
        body: Stmt,
    },
    /// Fails the pipeline with the message when the condition is false.
    Assert {
        condition: Expr,
        message: Vec<MessagePart>,
    },
    /// Marks the region that computes (`is_producer`) or consumes a Func.
    ProducerConsumer {
        name: Symbol,
        is_producer: bool,
        body: Stmt,
    },
    For {
        name: Symbol,
        min: Expr,
        extent: Expr,
        kind: ForKind,
        body: Stmt,
    },
    /// A flat store into an allocation or buffer.
    Store {
        buffer: Symbol,
        index: Expr,
        value: Expr,
        predicate: Option<Expr>,
    },
    /// A multi-dimensional store of one point of a Func (one value per Tuple element).
    Provide {
        func: Symbol,
        args: Vec<Expr>,
        values: Vec<Expr>,
    },
    /// A flat allocation of `product(extents)` elements of `ty` in `memory`, live during
    /// `body`.
    Allocate {
        buffer: Symbol,
        ty: Type,
        extents: Vec<Expr>,
        memory: MemoryType,
        body: Stmt,
    },
    /// Multi-dimensional storage for a Func over `bounds`, live during `body`.
    Realize {
        func: Symbol,
        types: Vec<Type>,
        bounds: Vec<Range>,
        body: Stmt,
    },
    Block(Vec<Stmt>),
    /// Releases the allocation of `buffer` before its `Allocate` ends: the buffer is not
    /// accessed after this point (`lower::early_free`). Once, on the `Allocate`'s straight-line
    /// path (never inside a loop or a branch below it).
    Free {
        buffer: Symbol,
    },
    /// The stores in `body` are atomic read-modify-writes of the points they store to
    /// (`Stage::atomic`): a store's value may read the point it overwrites, and no other
    /// store to that point, in another thread or vector lane, comes in between.
    Atomic {
        body: Stmt,
    },
    IfThenElse {
        condition: Expr,
        then_case: Stmt,
        else_case: Option<Stmt>,
    },
    Evaluate(Expr),
    /// Runs `first` and `rest` concurrently and ends when both have (`Func::async_`: `first`
    /// produces a Func, `rest` consumes it; `lower::async_producers`). Each side may wait for
    /// the other only at an `Acquire`, so the two must be able to make progress together: a
    /// fork never runs one side to its end before starting the other.
    Fork {
        first: Stmt,
        rest: Stmt,
    },
    /// A counting semaphore named `name`, holding `initial` units, live during `body`.
    Semaphore {
        name: Symbol,
        initial: Expr,
        body: Stmt,
    },
    /// Waits until `semaphore` holds at least `count` units and takes them.
    Acquire {
        semaphore: Symbol,
        count: Expr,
    },
    /// Gives `count` units to `semaphore`, waking a side waiting for them.
    Release {
        semaphore: Symbol,
        count: Expr,
    },
    /// `Func::prefetch`: brings the cache line holding one element of `buffer` into the
    /// caches; computes nothing. Before storage flattening (`flat` false) `buffer` is a Func
    /// or an input image and `args` its coordinates; after, `buffer` is flat storage and
    /// `args` one index. `in_bounds`: the element lies inside the buffer (the interpreter
    /// checks it); false for `PrefetchBoundStrategy::NonFaulting`, whose addresses may lie
    /// outside.
    Prefetch {
        buffer: Symbol,
        ty: Type,
        args: Vec<Expr>,
        flat: bool,
        in_bounds: bool,
    },
}

/// A shared, immutable statement tree.
#[derive(Clone)]
pub struct Stmt(Arc<StmtKind>);

impl PartialEq for Stmt {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || *self.0 == *other.0
    }
}
impl Eq for Stmt {}
impl Hash for Stmt {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state)
    }
}
impl fmt::Debug for Stmt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Stmt {
    pub fn new(kind: StmtKind) -> Stmt {
        Stmt(Arc::new(kind))
    }
    pub fn kind(&self) -> &StmtKind {
        &self.0
    }
    pub fn same_as(&self, other: &Stmt) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
    /// The identity of the node this handle points at (valid while the node is alive).
    pub fn node_id(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }
    /// A no-op statement.
    pub fn empty() -> Stmt {
        Stmt::new(StmtKind::Block(Vec::new()))
    }
    pub fn is_empty(&self) -> bool {
        matches!(self.kind(), StmtKind::Block(v) if v.is_empty())
    }
    /// The lets at the top of this statement, outermost first, and the statement inside them.
    pub fn let_chain(&self) -> (Vec<(Symbol, Expr)>, &Stmt) {
        let mut lets = Vec::new();
        let mut body = self;
        while let StmtKind::LetStmt {
            name,
            value,
            body: b,
        } = body.kind()
        {
            lets.push((*name, value.clone()));
            body = b;
        }
        (lets, body)
    }
    /// A block of `stmts`, flattening nested blocks and dropping empty ones.
    pub fn block(stmts: impl IntoIterator<Item = Stmt>) -> Stmt {
        let mut flat = Vec::new();
        for s in stmts {
            match s.kind() {
                StmtKind::Block(inner) => flat.extend(inner.iter().cloned()),
                _ => flat.push(s),
            }
        }
        if flat.len() == 1 {
            return flat.pop().unwrap();
        }
        Stmt::new(StmtKind::Block(flat))
    }
    pub fn let_stmt(name: Symbol, value: Expr, body: Stmt) -> Stmt {
        Stmt::new(StmtKind::LetStmt { name, value, body })
    }
    /// An allocation whose memory the compiler chooses (`MemoryType::Auto`).
    pub fn allocate(buffer: Symbol, ty: Type, extents: Vec<Expr>, body: Stmt) -> Stmt {
        Stmt::new(StmtKind::Allocate {
            buffer,
            ty,
            extents,
            memory: MemoryType::Auto,
            body,
        })
    }
    pub fn for_loop(name: Symbol, min: Expr, extent: Expr, kind: ForKind, body: Stmt) -> Stmt {
        Stmt::new(StmtKind::For {
            name,
            min,
            extent,
            kind,
            body,
        })
    }
    pub fn if_then(condition: Expr, then_case: Stmt) -> Stmt {
        Stmt::new(StmtKind::IfThenElse {
            condition,
            then_case,
            else_case: None,
        })
    }

    /// Calls `fe` on each direct child expression and `fs` on each direct child statement.
    pub fn for_each_child(&self, mut fe: impl FnMut(&Expr), mut fs: impl FnMut(&Stmt)) {
        match self.kind() {
            StmtKind::LetStmt { value, body, .. } => {
                fe(value);
                fs(body)
            }
            StmtKind::Assert { condition, message } => {
                fe(condition);
                for part in message {
                    if let MessagePart::Value(e) = part {
                        fe(e)
                    }
                }
            }
            StmtKind::ProducerConsumer { body, .. } => fs(body),
            StmtKind::For {
                min, extent, body, ..
            } => {
                fe(min);
                fe(extent);
                fs(body)
            }
            StmtKind::Store {
                index,
                value,
                predicate,
                ..
            } => {
                fe(index);
                fe(value);
                if let Some(p) = predicate {
                    fe(p)
                }
            }
            StmtKind::Provide { args, values, .. } => {
                args.iter().for_each(&mut fe);
                values.iter().for_each(&mut fe)
            }
            StmtKind::Allocate { extents, body, .. } => {
                extents.iter().for_each(&mut fe);
                fs(body)
            }
            StmtKind::Realize { bounds, body, .. } => {
                for r in bounds {
                    fe(&r.min);
                    fe(&r.extent)
                }
                fs(body)
            }
            StmtKind::Block(stmts) => stmts.iter().for_each(fs),
            StmtKind::Atomic { body } => fs(body),
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => {
                fe(condition);
                fs(then_case);
                if let Some(e) = else_case {
                    fs(e)
                }
            }
            StmtKind::Evaluate(e) => fe(e),
            StmtKind::Prefetch { args, .. } => args.iter().for_each(fe),
            StmtKind::Free { .. } => {}
            StmtKind::Fork { first, rest } => {
                fs(first);
                fs(rest)
            }
            StmtKind::Semaphore { initial, body, .. } => {
                fe(initial);
                fs(body)
            }
            StmtKind::Acquire { count, .. } | StmtKind::Release { count, .. } => fe(count),
        }
    }

    /// Rebuilds this statement with its child statements mapped by a fallible `fs` (its
    /// expressions unchanged); the first error is returned.
    pub fn try_map_stmts<E>(
        &self,
        mut fs: impl FnMut(&Stmt) -> Result<Stmt, E>,
    ) -> Result<Stmt, E> {
        let mut failed = None;
        let out = self.map_children(
            |e| e.clone(),
            |c| {
                fs(c).unwrap_or_else(|e| {
                    failed.get_or_insert(e);
                    c.clone()
                })
            },
        );
        failed.map_or(Ok(out), Err)
    }

    /// Rebuilds this statement with children mapped; returns `self` when nothing changed.
    pub fn map_children(
        &self,
        mut fe: impl FnMut(&Expr) -> Expr,
        mut fs: impl FnMut(&Stmt) -> Stmt,
    ) -> Stmt {
        let mut changed = false;
        let mut me = |e: &Expr| {
            let n = fe(e);
            changed |= !n.same_as(e);
            n
        };
        let mut ss = |s: &Stmt| {
            let n = fs(s);
            (n.same_as(s), n)
        };
        let mut stmt_changed = false;
        let mut ms = |s: &Stmt| {
            let (same, n) = ss(s);
            stmt_changed |= !same;
            n
        };
        let kind = match self.kind() {
            StmtKind::LetStmt { name, value, body } => StmtKind::LetStmt {
                name: *name,
                value: me(value),
                body: ms(body),
            },
            StmtKind::Assert { condition, message } => StmtKind::Assert {
                condition: me(condition),
                message: message
                    .iter()
                    .map(|p| match p {
                        MessagePart::Value(e) => MessagePart::Value(me(e)),
                        text => text.clone(),
                    })
                    .collect(),
            },
            StmtKind::ProducerConsumer {
                name,
                is_producer,
                body,
            } => StmtKind::ProducerConsumer {
                name: *name,
                is_producer: *is_producer,
                body: ms(body),
            },
            StmtKind::For {
                name,
                min,
                extent,
                kind,
                body,
            } => StmtKind::For {
                name: *name,
                min: me(min),
                extent: me(extent),
                kind: *kind,
                body: ms(body),
            },
            StmtKind::Store {
                buffer,
                index,
                value,
                predicate,
            } => StmtKind::Store {
                buffer: *buffer,
                index: me(index),
                value: me(value),
                predicate: predicate.as_ref().map(&mut me),
            },
            StmtKind::Provide { func, args, values } => StmtKind::Provide {
                func: *func,
                args: args.iter().map(&mut me).collect(),
                values: values.iter().map(&mut me).collect(),
            },
            StmtKind::Allocate {
                buffer,
                ty,
                extents,
                memory,
                body,
            } => StmtKind::Allocate {
                buffer: *buffer,
                ty: *ty,
                extents: extents.iter().map(&mut me).collect(),
                memory: *memory,
                body: ms(body),
            },
            StmtKind::Realize {
                func,
                types,
                bounds,
                body,
            } => StmtKind::Realize {
                func: *func,
                types: types.clone(),
                bounds: bounds
                    .iter()
                    .map(|r| Range {
                        min: me(&r.min),
                        extent: me(&r.extent),
                    })
                    .collect(),
                body: ms(body),
            },
            StmtKind::Block(stmts) => StmtKind::Block(stmts.iter().map(&mut ms).collect()),
            StmtKind::Atomic { body } => StmtKind::Atomic { body: ms(body) },
            StmtKind::IfThenElse {
                condition,
                then_case,
                else_case,
            } => StmtKind::IfThenElse {
                condition: me(condition),
                then_case: ms(then_case),
                else_case: else_case.as_ref().map(&mut ms),
            },
            StmtKind::Evaluate(e) => StmtKind::Evaluate(me(e)),
            StmtKind::Prefetch {
                buffer,
                ty,
                args,
                flat,
                in_bounds,
            } => StmtKind::Prefetch {
                buffer: *buffer,
                ty: *ty,
                args: args.iter().map(&mut me).collect(),
                flat: *flat,
                in_bounds: *in_bounds,
            },
            StmtKind::Free { buffer } => StmtKind::Free { buffer: *buffer },
            StmtKind::Fork { first, rest } => StmtKind::Fork {
                first: ms(first),
                rest: ms(rest),
            },
            StmtKind::Semaphore {
                name,
                initial,
                body,
            } => StmtKind::Semaphore {
                name: *name,
                initial: me(initial),
                body: ms(body),
            },
            StmtKind::Acquire { semaphore, count } => StmtKind::Acquire {
                semaphore: *semaphore,
                count: me(count),
            },
            StmtKind::Release { semaphore, count } => StmtKind::Release {
                semaphore: *semaphore,
                count: me(count),
            },
        };
        if !changed && !stmt_changed {
            return self.clone();
        }
        Stmt::new(kind)
    }
}
