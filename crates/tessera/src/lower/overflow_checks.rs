//! Pass 12, overflow checks: sizes cannot wrap. Regions and storage are computed in 32-bit
//! integers, which lowering may assume do not overflow; a parameter, an output size or a
//! coordinate expression can still make them (`g(x * 4194304)` over 1025 columns, a grid
//! sized by `1 / r_sigma` with `r_sigma = 0`), and a wrapped extent would size storage
//! smaller than what the loops write. So after each let that bounds inference and allocation
//! bounds define (the regions, the storage's mins and extents, the names hoisted for them),
//! the generated code recomputes its value in 64 bits from the same operands and asserts
//! that the let holds it (after each chain of lets, one assertion per Func); and before each
//! allocation it asserts that the product of its extents is at most
//! `MAX_ALLOCATION_ELEMENTS`, so every flat index into it is a 32-bit value. Each failure
//! names the Func. Checks the simplifier proves are dropped, and so are checks of a value an
//! enclosing assertion already checks; lets inside loops that will be vectorized are not
//! checked (their values become vectors).

// `Expr` keys are sound: hashing and equality are structural and ignore the Func and RDom
// links (the interior mutability clippy sees).
#![allow(clippy::mutable_key_type)]

use std::collections::HashSet;

use crate::error::{Error, Result};
use crate::ir::substitute::free_vars;
use crate::ir::{BinaryOp, Expr, ExprKind, ForKind, MessagePart, Stmt, StmtKind, Symbol, Type};
use crate::simplify::simplify;

/// The most elements one allocation may hold: flat indices are 32-bit (as in Halide, whose
/// default limit is the same).
pub const MAX_ALLOCATION_ELEMENTS: i64 = i32::MAX as i64;

/// The names of the lets `s` defines (anywhere in it).
pub fn let_names(s: &Stmt) -> HashSet<Symbol> {
    let mut names = HashSet::new();
    collect_let_names(s, &mut names);
    names
}

fn collect_let_names(s: &Stmt, names: &mut HashSet<Symbol>) {
    if let StmtKind::LetStmt { name, .. } = s.kind() {
        names.insert(*name);
    }
    s.for_each_child(|_| {}, |c| collect_let_names(c, names));
}

/// `s` with the lets named in `size_lets` and every allocation checked.
pub fn add_overflow_checks(s: &Stmt, size_lets: &HashSet<Symbol>) -> Result<Stmt> {
    Checker {
        size_lets,
        checked: HashSet::new(),
        read: HashSet::new(),
    }
    .check(s, false)
}

/// The walk adding the checks, and what the enclosing ones already assert.
struct Checker<'a> {
    size_lets: &'a HashSet<Symbol>,
    /// The 32-bit values an enclosing assertion shows to be computed exactly: a let of the
    /// same value further in (the storage's copy of a region's max) needs no check of its own.
    checked: HashSet<Expr>,
    /// The variables those values read.
    read: HashSet<Symbol>,
}

impl Checker<'_> {
    /// What is known from here, where `name` is bound anew: a value checked outside that reads
    /// it may differ here, so nothing checked outside counts any more.
    fn forget_values_reading(&mut self, name: Symbol) {
        if self.read.contains(&name) {
            self.checked.clear();
            self.read.clear();
        }
    }

    /// `visit()`, with what it learns forgotten afterwards (it holds inside a scope only).
    fn scoped<T>(&mut self, visit: impl FnOnce(&mut Self) -> T) -> T {
        let (checked, read) = (self.checked.clone(), self.read.clone());
        let result = visit(self);
        self.checked = checked;
        self.read = read;
        result
    }

    /// The lets of a chain checked (those not checked outside or earlier in the chain), then
    /// `body` inside them, knowing them checked (call it `scoped`).
    fn check_let_chain(
        &mut self,
        lets: &[(Symbol, Expr)],
        body: &Stmt,
        in_vector_loop: bool,
    ) -> Result<Stmt> {
        if in_vector_loop {
            return self.check(body, in_vector_loop);
        }
        let mut unchecked = Vec::new();
        for (name, value) in lets {
            if self.size_lets.contains(name) && value.ty() == Type::i32() {
                // Values compared as the simplifier leaves them, which is how they are computed.
                let computed = simplify(value);
                self.read.extend(free_vars(&computed));
                if self.checked.insert(computed) {
                    unchecked.push((*name, value.clone()));
                }
            }
            self.forget_values_reading(*name);
        }
        let checks = fits_checks(unchecked.iter());
        let body = self.check(body, in_vector_loop)?;
        Ok(Stmt::block(checks.into_iter().chain([body])))
    }

    fn check(&mut self, s: &Stmt, in_vector_loop: bool) -> Result<Stmt> {
        match s.kind() {
            StmtKind::LetStmt { .. } => {
                // A chain of lets gets one assertion per Func, after its last let.
                let (lets, body) = s.let_chain();
                let body = self.scoped(|c| c.check_let_chain(&lets, body, in_vector_loop))?;
                Ok(lets
                    .into_iter()
                    .rev()
                    .fold(body, |b, (n, v)| Stmt::let_stmt(n, v, b)))
            }
            StmtKind::For {
                name,
                min,
                extent,
                kind,
                body,
            } => Ok(Stmt::new(StmtKind::For {
                name: *name,
                min: min.clone(),
                extent: extent.clone(),
                kind: *kind,
                body: self.scoped(|c| {
                    c.forget_values_reading(*name);
                    c.check(body, in_vector_loop || *kind == ForKind::Vectorized)
                })?,
            })),
            StmtKind::Allocate {
                buffer,
                ty,
                extents,
                memory,
                body,
            } => {
                let allocate = Stmt::new(StmtKind::Allocate {
                    buffer: *buffer,
                    ty: *ty,
                    extents: extents.clone(),
                    memory: *memory,
                    body: self.check(body, in_vector_loop)?,
                });
                Ok(match size_check(*buffer, extents)? {
                    Some(assert) => Stmt::block([assert, allocate]),
                    None => allocate,
                })
            }
            _ => {
                let mut error = None;
                let s = s.map_children(
                    |e| e.clone(),
                    |c| {
                        self.check(c, in_vector_loop).unwrap_or_else(|e| {
                            error.get_or_insert(e);
                            c.clone()
                        })
                    },
                );
                match error {
                    Some(e) => Err(e),
                    None => Ok(s),
                }
            }
        }
    }
}

/// The Func a lowering name belongs to (`f` of `f.s0.x.min`).
fn owner(name: Symbol) -> &'static str {
    let name = name.as_str();
    name.split('.').next().unwrap_or(name)
}

/// The assertions, one per Func, that each let holds its value computed in 64 bits (none for
/// a Func where the simplifier proves that value fits 32 bits for all its lets). Comparing
/// with the let itself, `i64(name) == wide`, names the 64-bit value once, and also fails
/// where a step of the 32-bit computation wrapped though its result would fit.
fn fits_checks<'a>(lets: impl Iterator<Item = &'a (Symbol, Expr)>) -> Vec<Stmt> {
    let mut by_func: Vec<(&str, Vec<Expr>, Vec<&str>)> = Vec::new();
    for (name, value) in lets {
        let wide = simplify(&widened(value));
        // A 32-bit value read as it is (a variable, a load) is what its let holds.
        if matches!(wide.kind(), ExprKind::Cast(_)) {
            continue;
        }
        if fits_i32(&wide) {
            continue;
        }
        let held = Expr::cast(Type::i64(), Expr::var(*name, Type::i32()));
        let fits = Expr::binary(BinaryOp::Eq, held, wide);
        let func = owner(*name);
        match by_func.iter_mut().find(|(f, ..)| *f == func) {
            Some((_, conditions, names)) => {
                conditions.push(fits);
                names.push(name.as_str());
            }
            None => by_func.push((func, vec![fits], vec![name.as_str()])),
        }
    }
    by_func
        .into_iter()
        .map(|(func, conditions, names)| {
            let condition = conditions
                .into_iter()
                .reduce(|a, b| Expr::binary(BinaryOp::And, a, b))
                .expect("a Func with checks has a condition");
            Stmt::new(StmtKind::Assert {
                condition,
                message: vec![MessagePart::Text(
                    format!(
                        "the bounds of {func} overflow 32-bit integers ({}); check the output size, input bounds and parameters",
                        names.join(", ")
                    )
                    .into(),
                )],
            })
        })
        .collect()
}

/// Whether the simplifier proves that the 64-bit `wide` always fits 32 bits.
fn fits_i32(wide: &Expr) -> bool {
    let narrowed = Expr::cast(Type::i64(), Expr::cast(Type::i32(), wide.clone()));
    simplify(&Expr::binary(BinaryOp::Eq, narrowed, wide.clone())).as_int_const() == Some(1)
}

/// The assertion that an allocation of `extents` holds at most `MAX_ALLOCATION_ELEMENTS`
/// (none where that is proven); an error when it is known at compile time to hold more.
pub(crate) fn size_check(buffer: Symbol, extents: &[Expr]) -> Result<Option<Stmt>> {
    // Extents computed from others (padded by `align_storage`) are recomputed in 64 bits.
    let extents: Vec<Expr> = extents.iter().map(|e| simplify(&widened(e))).collect();
    let func = owner(buffer);
    let constants: Option<Vec<i128>> = extents.iter().map(Expr::as_int_const).collect();
    if let Some(constants) = constants {
        let elements = constants.iter().try_fold(1i128, |n, &e| n.checked_mul(e));
        return match elements {
            Some(n) if n <= MAX_ALLOCATION_ELEMENTS as i128 => Ok(None),
            _ => Err(Error::schedule(format!(
                "the storage of {func} needs {} elements, more than the limit of {MAX_ALLOCATION_ELEMENTS} (2^31 - 1)",
                elements.map_or_else(|| "more than 2^127".to_string(), |n| n.to_string())
            ))),
        };
    }
    // The product in f64, which cannot wrap as a 64-bit one can (four extents of 2^16 make
    // 2^64): exact below 2^53, and a product past that stays past the limit, since rounding
    // is monotonic.
    let elements = extents
        .iter()
        .map(|e| Expr::cast(Type::f64(), e.clone()))
        .reduce(|a, b| Expr::binary(BinaryOp::Mul, a, b))
        .unwrap_or_else(|| Expr::f64(1.0));
    let mut message = vec![MessagePart::Text(
        format!("the storage of {func} needs ").into(),
    )];
    for (d, e) in extents.into_iter().enumerate() {
        if d > 0 {
            message.push(MessagePart::Text(" x ".into()));
        }
        message.push(MessagePart::Value(e));
    }
    message.push(MessagePart::Text(
        format!(" elements, more than the limit of {MAX_ALLOCATION_ELEMENTS} (2^31 - 1); the output size or a parameter makes it too large").into(),
    ));
    Ok(Some(Stmt::new(StmtKind::Assert {
        condition: Expr::binary(
            BinaryOp::Le,
            elements,
            Expr::f64(MAX_ALLOCATION_ELEMENTS as f64),
        ),
        message,
    })))
}

fn i64_const(v: i64) -> Expr {
    Expr::make_const(Type::i64(), v)
}

/// A 32-bit integer expression computed in 64 bits: its arithmetic on 64-bit operands, so
/// it cannot wrap; anything else (a variable, a load, a conversion, a call) is one operand,
/// widened as it is.
pub(crate) fn widened(e: &Expr) -> Expr {
    if e.ty() != Type::i32() {
        return e.clone();
    }
    match e.kind() {
        ExprKind::IntImm(v) => i64_const(*v),
        ExprKind::Binary(op, a, b)
            if matches!(
                op,
                BinaryOp::Add
                    | BinaryOp::Sub
                    | BinaryOp::Mul
                    | BinaryOp::Div
                    | BinaryOp::Mod
                    | BinaryOp::Min
                    | BinaryOp::Max
            ) =>
        {
            Expr::binary(*op, widened(a), widened(b))
        }
        ExprKind::Select(c, t, f) => Expr::select(c.clone(), widened(t), widened(f)),
        _ => Expr::cast(Type::i64(), e.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::visit::visit_stmts;

    fn i32_var(name: &str) -> Expr {
        Expr::var(Symbol::new(name), Type::i32())
    }

    /// `n + m - 1`, which only a run can tell fits 32 bits.
    fn last_coordinate() -> Expr {
        let sum = Expr::binary(BinaryOp::Add, i32_var("n"), i32_var("m"));
        Expr::binary(BinaryOp::Sub, sum, Expr::make_const(Type::i32(), 1))
    }

    fn asserts(s: &Stmt) -> usize {
        let mut n = 0;
        visit_stmts(s, &mut |st| {
            n += usize::from(matches!(st.kind(), StmtKind::Assert { .. }));
            true
        });
        n
    }

    /// `let a.max = n + m - 1` around `inner`, with `a.max` and `b.max` the lets to check.
    fn checked_around(inner: Stmt) -> Stmt {
        let s = Stmt::let_stmt(Symbol::new("a.max"), last_coordinate(), inner);
        let size_lets = [Symbol::new("a.max"), Symbol::new("b.max")].into();
        add_overflow_checks(&s, &size_lets).unwrap()
    }

    #[test]
    fn a_value_checked_outside_is_not_checked_again() {
        let inner = Stmt::let_stmt(Symbol::new("b.max"), last_coordinate(), Stmt::empty());
        assert_eq!(asserts(&checked_around(inner)), 1);
    }

    #[test]
    fn a_value_whose_variable_is_bound_again_is_checked_again() {
        let inner = Stmt::let_stmt(Symbol::new("b.max"), last_coordinate(), Stmt::empty());
        let n_loop = Stmt::for_loop(
            Symbol::new("n"),
            Expr::make_const(Type::i32(), 0),
            i32_var("m"),
            ForKind::Serial,
            inner,
        );
        assert_eq!(asserts(&checked_around(n_loop)), 2);
    }

    #[test]
    fn a_value_the_simplifier_bounds_is_not_checked() {
        let small = Expr::binary(
            BinaryOp::Min,
            Expr::binary(
                BinaryOp::Max,
                i32_var("n"),
                Expr::make_const(Type::i32(), 0),
            ),
            Expr::make_const(Type::i32(), 1000),
        );
        let s = Stmt::let_stmt(
            Symbol::new("a.max"),
            Expr::binary(BinaryOp::Add, small, Expr::make_const(Type::i32(), 1)),
            Stmt::empty(),
        );
        let checked = add_overflow_checks(&s, &[Symbol::new("a.max")].into()).unwrap();
        assert_eq!(asserts(&checked), 0);
    }
}
