//! Memoization (Halide's `Memoization.cpp`): the production of a memoized Func
//! (`Func::memoize`) is wrapped in a lookup of the compiled pipeline's cache,
//!
//! ```text
//! produce f { if (!memoize_lookup<f>(bytes, key..)) { .. assert(memoize_store<f>(..)) } }
//! ```
//!
//! keyed, as Halide's, by the region computed (the last stage's `f.s<k>.x.min/max`) and the
//! value of every Param the Func's definitions depend on, through the Funcs they call too
//! (buffer fields such as `input.extent.0` included); the allocation's size in bytes is
//! part of the key, so a hit always copies a whole allocation of the same layout. A copy
//! made by `clone_in` stores under the name of the Func it copies, so the two share
//! entries (as in Halide). A Func with several values looks up each value's buffer: it is computed unless all hit. Runs
//! after storage flattening, where each value's storage is one flat allocation.
//!
//! A `memoize_tag` (`lang::memoize_tag`) in the definitions puts its keys (its value, or
//! the keys given with it) in the key in place of anything it reads; the tags themselves
//! leave the statement once scheduling has put the definitions in it (`without_tags`).
//!
//! As Halide does, memoizing the pipeline's output, or a Func stored at another level than
//! it is computed, is refused; so is a Func whose values read an input image outside a tag
//! (its contents are no part of the key; Halide refuses it too), a tag key reading a Var,
//! Func or image (it is computed before the production), and an inlined Func (nothing is
//! stored).

use std::collections::BTreeMap;

use super::names::{i32_var, region_max, region_min};
use super::realization_order::Environment;
use crate::error::{Error, Result};
use crate::ir::function::{Function, Wrapped};
use crate::ir::schedule::LoopLevel;
use crate::ir::substitute::free_vars;
use crate::ir::visit::{
    mutate_expr_children, mutate_stmt_children, visit_exprs, visit_stmt_exprs, Mutator,
};
use crate::ir::{
    BinaryOp, CallKind, Expr, ExprKind, Intrinsic, MessagePart, Stmt, StmtKind, Symbol, Type,
    UnaryOp,
};
use crate::lang::image_param::value_buffer;

pub fn memoize(s: &Stmt, env: &Environment) -> Result<Stmt> {
    let mut memoized = BTreeMap::new();
    for &name in &env.order {
        let func = env.func(name);
        let Some(memo) = func.read().schedule.memoize.clone() else {
            continue;
        };
        check_memoizable(func, env)?;
        let key = key_values(func)?;
        let values = func.read().output_types.len();
        let cache_name = cloned_from(func, env).unwrap_or(name);
        memoized.insert(name, (key, memo.eviction_key, values, cache_name));
    }
    if memoized.is_empty() {
        return Ok(s.clone());
    }
    let mut wrap = WrapProductions {
        memoized,
        allocations: Vec::new(),
        error: None,
    };
    let out = wrap.mutate_stmt(s);
    wrap.error.map_or(Ok(out), Err)
}

/// `s` with each `memoize_tag` replaced by its value: the keys were taken from the
/// definitions, and no pass after scheduling needs to see through tags.
pub fn without_tags(s: &Stmt) -> Stmt {
    struct Untag;
    impl Mutator for Untag {
        fn mutate_expr(&mut self, e: &Expr) -> Expr {
            match e.kind() {
                ExprKind::Call {
                    kind: CallKind::Intrinsic(Intrinsic::MemoizeTag),
                    args,
                    ..
                } => self.mutate_expr(&args[0]),
                _ => mutate_expr_children(self, e),
            }
        }
    }
    Untag.mutate_stmt(s)
}

/// The first memoized Func whose production `s` looks up in a cache, if any (ahead-of-time
/// objects have no cache: `codegen::aot` refuses them).
pub fn first_memoized(s: &Stmt) -> Option<Symbol> {
    let mut found = None;
    visit_stmt_exprs(s, &mut |e| {
        if let ExprKind::Call {
            kind: CallKind::Intrinsic(Intrinsic::MemoizeLookup { cache_name, .. }),
            ..
        } = e.kind()
        {
            found.get_or_insert(*cache_name);
        }
        found.is_none()
    });
    found
}

fn refusal(func: Symbol, why: &str) -> Error {
    Error::schedule(format!("Func {func} cannot be memoized: {why}"))
}

/// Halide's rules for where a memoized Func may be computed.
fn check_memoizable(func: &Function, env: &Environment) -> Result<()> {
    let c = func.read();
    if env.is_output(c.name) {
        return Err(refusal(c.name, "it is an output of the pipeline"));
    }
    if c.schedule.compute_level == LoopLevel::Inlined {
        return Err(refusal(
            c.name,
            "it is inlined (memoize needs compute_root or compute_at)",
        ));
    }
    if c.schedule
        .store_level
        .as_ref()
        .is_some_and(|store| *store != c.schedule.compute_level)
    {
        return Err(refusal(
            c.name,
            "it is stored at another level than it is computed",
        ));
    }
    if let Some(key) = c
        .schedule
        .memoize
        .as_ref()
        .and_then(|m| m.eviction_key.as_ref())
    {
        let vars: Vec<String> = free_vars(key)
            .into_iter()
            .filter(|v| !is_param(key, *v))
            .map(|v| v.to_string())
            .collect();
        if !vars.is_empty() {
            return Err(refusal(
                c.name,
                &format!(
                    "its eviction key uses {}, which are not Params",
                    vars.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

fn is_param(e: &Expr, name: Symbol) -> bool {
    let mut found = false;
    visit_exprs(e, &mut |n| {
        found |= matches!(n.kind(), ExprKind::Param(p, _) if *p == name);
        !found
    });
    found
}

/// What `func`'s values depend on, found in its definitions and those of the Funcs they
/// call: the Params by name (so the key's order is fixed), and the keys of the
/// `memoize_tag`s met, in place of anything inside those (each key once, in the order met);
/// an error where they read an image outside a tag, or a tag's key is no Param expression.
fn key_dependencies(func: &Function) -> Result<(BTreeMap<Symbol, Expr>, Vec<Expr>)> {
    let name = func.read().name;
    let mut params = BTreeMap::new();
    let mut tags: Vec<Expr> = Vec::new();
    let mut seen = vec![func.clone()];
    let mut pending = vec![func.clone()];
    let mut image = None;
    while let Some(f) = pending.pop() {
        for d in f.definitions() {
            for e in d.exprs() {
                visit_exprs(e, &mut |n| {
                    match n.kind() {
                        ExprKind::Param(name, _) => {
                            params.insert(*name, n.clone());
                        }
                        ExprKind::Call {
                            kind: CallKind::Intrinsic(Intrinsic::MemoizeTag),
                            args,
                            ..
                        } => {
                            let keys = if args.len() == 1 { args } else { &args[1..] };
                            for k in keys {
                                if !tags.contains(k) {
                                    tags.push(k.clone());
                                }
                            }
                            return false;
                        }
                        ExprKind::Call {
                            name,
                            kind: CallKind::Image(_),
                            ..
                        } => {
                            image.get_or_insert(*name);
                        }
                        ExprKind::Call {
                            kind: CallKind::Func(link),
                            ..
                        } => {
                            let callee = link.function();
                            if !seen.iter().any(|s| s.same_as(&callee)) {
                                seen.push(callee.clone());
                                pending.push(callee);
                            }
                        }
                        _ => {}
                    }
                    true
                });
            }
        }
    }
    if let Some(image) = image {
        return Err(refusal(
            name,
            &format!(
                "its values read input image {image}, whose contents are no part of the cache key (tag them with memoize_tag_with, keyed by what identifies them)"
            ),
        ));
    }
    for tag in &tags {
        check_tag_key(name, tag)?;
    }
    Ok((params, tags))
}

/// Refuses a tag key that cannot be computed where the production is looked up: one reading
/// a Var, a Func or an image (Params, buffer fields and constants can).
fn check_tag_key(func: Symbol, key: &Expr) -> Result<()> {
    let mut read = None;
    visit_exprs(key, &mut |n| {
        match n.kind() {
            ExprKind::Var(v) | ExprKind::RVar(v, _) => {
                read.get_or_insert(format!("the variable {v}"));
            }
            ExprKind::Call {
                name,
                kind: CallKind::Func(_),
                ..
            } => {
                read.get_or_insert(format!("the Func {name}"));
            }
            ExprKind::Call {
                name,
                kind: CallKind::Image(_),
                ..
            } => {
                read.get_or_insert(format!("the input image {name}"));
            }
            _ => {}
        }
        read.is_none()
    });
    match read {
        Some(what) => Err(refusal(
            func,
            &format!(
                "its memoize_tag key {key} reads {what}; a key is made of Params and constants (key an image by a Param with memoize_tag_with)"
            ),
        )),
        None => Ok(()),
    }
}

/// The Func `func` is a copy of (`clone_in`), whose cache entries it shares, as Halide's
/// clones do: one computed for a consumer serves the other's.
fn cloned_from(func: &Function, env: &Environment) -> Option<Symbol> {
    env.funcs.values().find_map(|consumer| {
        let c = consumer.read();
        c.wrappers.iter().find_map(|w| match &w.of {
            Wrapped::Func(of) if w.is_clone && w.by.same_as(func) => Some(of.read().name),
            _ => None,
        })
    })
}

/// The key of one production: the region of the last stage, the Params, then the tags.
fn key_values(func: &Function) -> Result<Vec<Expr>> {
    let (params, tags) = key_dependencies(func)?;
    let c = func.read();
    let last = c.updates.len();
    let mut key: Vec<Expr> = c
        .args
        .iter()
        .flat_map(|&v| {
            [
                i32_var(region_min(c.name, last, v)),
                i32_var(region_max(c.name, last, v)),
            ]
        })
        .collect();
    key.extend(params.into_values());
    key.extend(tags);
    Ok(key)
}

struct WrapProductions {
    /// Each memoized Func's key, eviction key, number of values and the name its entries
    /// go under.
    memoized: BTreeMap<Symbol, (Vec<Expr>, Option<Expr>, usize, Symbol)>,
    /// The allocations around the current statement: buffer, element type, extents.
    allocations: Vec<(Symbol, Type, Vec<Expr>)>,
    error: Option<Error>,
}

impl WrapProductions {
    /// The size in bytes of the innermost allocation of `buffer`, as an i64.
    fn bytes(&self, buffer: Symbol) -> Option<Expr> {
        let (_, ty, extents) = self.allocations.iter().rev().find(|(b, ..)| *b == buffer)?;
        let elem = Expr::make_const(Type::i64(), ty.bytes() as i64);
        Some(extents.iter().fold(elem, |acc, e| {
            Expr::binary(BinaryOp::Mul, acc, Expr::cast(Type::i64(), e.clone()))
        }))
    }

    /// The production `produce` with its work looked up in the cache. Conditions the whole
    /// work is under (skip_stages' `if (f.needed)`) stay outside: a production they skip
    /// stores nothing.
    fn wrap(&self, func: Symbol, produce: &Stmt) -> Result<Stmt> {
        if let StmtKind::IfThenElse {
            condition,
            then_case,
            else_case: None,
        } = produce.kind()
        {
            let inner = self.wrap(func, then_case)?;
            return Ok(Stmt::if_then(condition.clone(), inner));
        }
        self.cached(func, produce.clone())
    }

    /// `if (!lookup) { produce; store }` for each value of `func`.
    fn cached(&self, func: Symbol, produce: Stmt) -> Result<Stmt> {
        let (key, eviction, values, cache_func) = &self.memoized[&func];
        let mut hit: Option<Expr> = None;
        let mut stores = vec![produce];
        for i in 0..*values {
            let buffer = value_buffer(func, i, *values);
            let cache_name = value_buffer(*cache_func, i, *values);
            let bytes = self.bytes(buffer).ok_or_else(|| {
                Error::Internal(format!(
                    "memoize: no allocation of {buffer} around the production of {func}"
                ))
            })?;
            let mut args = vec![bytes.clone()];
            args.extend(key.iter().cloned());
            let lookup = Expr::intrinsic(
                Type::bool_(),
                Intrinsic::MemoizeLookup { buffer, cache_name },
                args,
            );
            hit = Some(match hit {
                None => lookup,
                Some(h) => Expr::binary(BinaryOp::And, h, lookup),
            });
            let mut args = vec![
                bytes,
                Expr::bool_(eviction.is_some()),
                eviction
                    .clone()
                    .unwrap_or_else(|| Expr::make_const(Type::u64(), 0)),
            ];
            args.extend(key.iter().cloned());
            let store = Expr::intrinsic(
                Type::bool_(),
                Intrinsic::MemoizeStore { buffer, cache_name },
                args,
            );
            stores.push(Stmt::new(StmtKind::Assert {
                condition: store,
                message: vec![MessagePart::Text(
                    format!("the cache could not store {func}").into(),
                )],
            }));
        }
        let hit = hit.expect("a Func has at least one value");
        Ok(Stmt::if_then(
            Expr::unary(UnaryOp::Not, hit),
            Stmt::block(stores),
        ))
    }
}

impl Mutator for WrapProductions {
    fn mutate_stmt(&mut self, s: &Stmt) -> Stmt {
        match s.kind() {
            StmtKind::Allocate {
                buffer,
                ty,
                extents,
                ..
            } => {
                self.allocations.push((*buffer, *ty, extents.clone()));
                let out = mutate_stmt_children(self, s);
                self.allocations.pop();
                out
            }
            StmtKind::ProducerConsumer {
                name,
                is_producer: true,
                ..
            } if self.memoized.contains_key(name) => {
                let produce = mutate_stmt_children(self, s);
                let StmtKind::ProducerConsumer { body, .. } = produce.kind() else {
                    unreachable!("a production stays one")
                };
                match self.wrap(*name, body) {
                    Ok(body) => Stmt::new(StmtKind::ProducerConsumer {
                        name: *name,
                        is_producer: true,
                        body,
                    }),
                    Err(e) => {
                        self.error.get_or_insert(e);
                        s.clone()
                    }
                }
            }
            _ => mutate_stmt_children(self, s),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::codegen::aot::emit_object;
    use crate::pipeline::signature;
    use crate::prelude::*;
    use crate::LowerOptions;

    fn lowering_error(output: &Func) -> String {
        Pipeline::new(output)
            .lower(&LowerOptions::default())
            .unwrap_err()
            .to_string()
    }

    /// `g(x) = f(x) + 1` over a memoized `f(x) = value`, with `schedule` applied to f.
    fn consumer_of(f: &Func, value: Expr, schedule: impl FnOnce(&Func, &Func)) -> Func {
        let x = Var::new("x");
        let g = Func::new("g");
        f.define(x, value).unwrap();
        g.define(x, f.at(x) + 1).unwrap();
        schedule(f, &g);
        g
    }

    #[test]
    fn the_pipelines_output_cannot_be_memoized() {
        let f = Func::new("f");
        f.define(Var::new("x"), 1).unwrap();
        f.memoize();
        assert!(lowering_error(&f).contains("Func f cannot be memoized: it is an output"));
    }

    #[test]
    fn an_inlined_func_cannot_be_memoized() {
        let f = Func::new("f");
        let g = consumer_of(&f, Expr::from(1), |f, _| {
            f.memoize();
        });
        assert!(lowering_error(&g).contains("Func f cannot be memoized: it is inlined"));
    }

    #[test]
    fn a_func_stored_outside_the_loop_it_is_computed_in_cannot_be_memoized() {
        let f = Func::new("f");
        let g = consumer_of(&f, Expr::from(1), |f, g| {
            f.store_root().compute_at(g, "x").memoize();
        });
        assert!(lowering_error(&g).contains("stored at another level than it is computed"));
    }

    #[test]
    fn a_func_reading_an_input_image_cannot_be_memoized() {
        let input = ImageParam::new(Type::i32(), 1, "input");
        let f = Func::new("f");
        let g = consumer_of(&f, input.at(Var::new("x")), |f, _| {
            f.compute_root().memoize();
        });
        let error = lowering_error(&g);
        assert!(error.contains("Func f cannot be memoized: its values read input image input"));
    }

    #[test]
    fn an_eviction_key_of_vars_is_refused() {
        let f = Func::new("f");
        let g = consumer_of(&f, Expr::from(1), |f, _| {
            f.compute_root()
                .memoize_with_eviction_key(Var::new("x") + 1);
        });
        let error = lowering_error(&g);
        assert!(
            error.contains("its eviction key uses x, which are not Params"),
            "{error}"
        );
    }

    #[test]
    fn the_key_is_the_region_then_every_param_of_the_func_and_its_producers() {
        let (p, q, unused) = (
            Param::<i32>::new("p"),
            Param::<f32>::new("q"),
            Param::<i32>::new("unused"),
        );
        let (x, y) = (Var::new("x"), Var::new("y"));
        let (h, f, g) = (Func::new("h"), Func::new("f"), Func::new("g"));
        h.define((x, y), x + p.expr()).unwrap();
        f.define((x, y), cast(Type::f32(), h.at((x, y))) * q.expr())
            .unwrap();
        g.define((x, y), f.at((x, y)) + cast(Type::f32(), unused.expr()))
            .unwrap();
        f.compute_root().memoize();
        let after = ir_after(&g, "memoize");
        let key = "f.s0.x.min, f.s0.x.max, f.s0.y.min, f.s0.y.max, p, q)";
        assert!(
            after.contains(&format!(
                "memoize_lookup((i64)4*i64(f.x.extent_realized)*i64(f.y.extent_realized), {key}"
            )),
            "{after}"
        );
        assert!(after.contains("memoize_store("), "{after}");
        let lookup = after
            .lines()
            .find(|l| l.contains("memoize_lookup"))
            .unwrap();
        assert!(!lookup.contains("unused"), "{lookup}");
    }

    /// The statement after the pass `pass` when lowering `output`.
    fn ir_after(output: &Func, pass: &str) -> String {
        let options = LowerOptions {
            record_ir: true,
            ..LowerOptions::default()
        };
        let lowered = Pipeline::new(output).lower(&options).unwrap();
        let ir = lowered.passes.iter().find(|p| p.name == pass);
        ir.and_then(|p| p.ir.as_ref())
            .expect("the IR after the pass")
            .to_string()
    }

    #[test]
    fn a_tag_is_keyed_in_place_of_what_it_reads_and_leaves_the_statement() {
        let (p, q, k) = (
            Param::<i32>::new("p"),
            Param::<f32>::new("q"),
            Param::<i32>::new("k"),
        );
        let f = Func::new("f");
        let value = cast(Type::i32(), memoize_tag(cast(Type::u8(), q.expr())))
            + memoize_tag_with(p.expr(), &[k.expr() * 2])
            + p.expr();
        let g = consumer_of(&f, value, |f, _| {
            f.compute_root().memoize();
        });
        let after = ir_after(&g, "memoize");
        let lookup = after
            .lines()
            .find(|l| l.contains("memoize_lookup"))
            .unwrap();
        // p is read outside a tag too; q and k only through theirs.
        assert!(
            lookup.contains("f.s0.x.min, f.s0.x.max, p, u8(q), k*2)"),
            "{lookup}"
        );
        assert!(!after.contains("memoize_tag"), "{after}");
        assert!(!ir_after(&g, "schedule_functions").contains("memoize_tag"));
    }

    #[test]
    fn a_func_reading_an_image_only_inside_tags_can_be_memoized() {
        let input = ImageParam::new(Type::i32(), 1, "input");
        let version = Param::<i32>::new("version");
        let f = Func::new("f");
        let tagged = memoize_tag_with(input.at(Var::new("x")), &[version.expr()]);
        let g = consumer_of(&f, tagged, |f, _| {
            f.compute_root().memoize();
        });
        let after = ir_after(&g, "memoize");
        assert!(after.contains("f.s0.x.max, version)"), "{after}");
    }

    #[test]
    fn a_tag_key_reading_a_var_a_func_or_an_image_is_refused() {
        let input = ImageParam::new(Type::i32(), 1, "input");
        let x = Var::new("x");
        let h = Func::new("h");
        h.define(x, x * 2).unwrap();
        for (key, what) in [
            (Expr::from(x) + 1, "key x + 1 reads the variable x"),
            (h.at(0), "reads the Func h"),
            (input.at(0), "reads the input image input"),
        ] {
            let f = Func::new("f");
            let g = consumer_of(&f, memoize_tag(key), |f, _| {
                f.compute_root().memoize();
            });
            let error = lowering_error(&g);
            assert!(
                error.contains("Func f cannot be memoized: its memoize_tag key")
                    && error.contains(what),
                "{error}"
            );
        }
    }

    #[test]
    fn an_object_file_refuses_a_memoized_func() {
        let f = Func::new("f");
        let g = consumer_of(&f, Expr::from(1), |f, _| {
            f.compute_root().memoize();
        });
        let lowered = Pipeline::new(&g).lower(&LowerOptions::default()).unwrap();
        let error = emit_object(
            &lowered.stmt,
            &signature(&lowered),
            &Target::host(),
            "memoized",
            Path::new("never_written.o"),
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("Func f is memoized, which an object file cannot do"),
            "{error}"
        );
    }
}
