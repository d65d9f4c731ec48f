//! Checked mode (`Target::with_bounds_checks`): native code that checks every load and store
//! against its allocation or buffer. An access made out of bounds on purpose (an allocation
//! shrunk by one element, a loop run one iteration too far) is reported naming the buffer,
//! the indices and the bounds, where plain code would read or write memory it does not own;
//! correct pipelines compute the same values with and without the checks.

mod lower_common;

use lower_common::{check, TestInputs};
use tessera::codegen::jit::compile_jit;
use tessera::codegen::target::Target;
use tessera::ir::{BinaryOp, Expr, Stmt, StmtKind, Symbol};
use tessera::lower::LowerOptions;
use tessera::pipeline::{signature, Inputs, Pipeline};
use tessera::prelude::*;

/// `out(x) = f(x) + f(x + 1)` with `f` computed at root, and its input-free inputs.
fn two_stage() -> Func {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, x * 2).unwrap();
    f.compute_root();
    let out = Func::new("out");
    out.define(x, f.at(x) + f.at(x + 1)).unwrap();
    out
}

/// `s` with `change` applied to every statement, innermost first.
fn rewrite(s: &Stmt, change: &dyn Fn(&Stmt) -> Option<Stmt>) -> Stmt {
    let s = s.map_children(|e| e.clone(), |c| rewrite(c, change));
    change(&s).unwrap_or(s)
}

/// Runs `stmt` (lowered for `out`) compiled in checked mode over `[0, extent)`.
fn run_checked(out: &Func, stmt: &Stmt, extent: i64) -> Result<Vec<AnyBuffer>> {
    let lowered = Pipeline::new(out).lower(&LowerOptions::default())?;
    let target = Target::host().with_bounds_checks(true);
    // SAFETY: checked mode checks every load and store, which is what this test is about.
    let compiled = unsafe { compile_jit(stmt, &signature(&lowered), &target)? };
    let mut output = AnyBuffer::with_mins(Type::i32(), &[0], &[extent])?;
    compiled.run(&mut [&mut output], &[], &[])?;
    Ok(vec![output])
}

#[test]
fn an_allocation_shrunk_by_one_element_is_reported() {
    let out = two_stage();
    let lowered = Pipeline::new(&out).lower(&LowerOptions::default()).unwrap();
    let f = Symbol::new("f");
    let shrunk = rewrite(&lowered.stmt, &|s| match s.kind() {
        StmtKind::Allocate {
            buffer,
            ty,
            extents,
            memory,
            body,
        } if *buffer == f => Some(Stmt::new(StmtKind::Allocate {
            buffer: *buffer,
            ty: *ty,
            memory: *memory,
            extents: vec![Expr::binary(
                BinaryOp::Sub,
                extents[0].clone(),
                Expr::i32(1),
            )],
            body: body.clone(),
        })),
        _ => None,
    });
    assert_ne!(shrunk, lowered.stmt, "the allocation of f was found");
    let message = run_checked(&out, &shrunk, 16).unwrap_err().to_string();
    assert!(
        message.contains("checked mode")
            && message.contains(" f at indices [")
            && message.contains("outside its storage, indices [0, 16)"),
        "{message}"
    );
    // The statement as lowered runs, and gives the evaluator's values.
    let values = run_checked(&out, &lowered.stmt, 16).unwrap();
    let expected = Evaluator::new().realize(&out, &[0], &[16]).unwrap();
    assert_eq!(values, expected);
}

#[test]
fn a_loop_run_past_the_output_is_reported() {
    let out = two_stage();
    let lowered = Pipeline::new(&out).lower(&LowerOptions::default()).unwrap();
    // Every loop over `out` one iteration longer: its last store lands past the buffer.
    let longer = rewrite(&lowered.stmt, &|s| match s.kind() {
        StmtKind::For {
            name,
            min,
            extent,
            kind,
            body,
        } if name.as_str().starts_with("out.") => Some(Stmt::for_loop(
            *name,
            min.clone(),
            Expr::binary(BinaryOp::Add, extent.clone(), Expr::i32(1)),
            *kind,
            body.clone(),
        )),
        _ => None,
    });
    let message = run_checked(&out, &longer, 16).unwrap_err().to_string();
    assert!(
        message.contains("checked mode: a store to out at indices [16, 16]"),
        "{message}"
    );
}

/// Vector accesses are checked lane by lane: a vectorized pipeline whose storage is shrunk
/// fails; as lowered it computes the evaluator's values (checked code with tails, strided
/// and gathered accesses is what every lowering test runs, through `lower_common`).
#[test]
fn vector_accesses_are_checked_in_every_lane() {
    let x = Var::new("x");
    let input = ImageParam::new(Type::i32(), 1, "input");
    let f = Func::new("f");
    f.define(x, input.at(x) * 3).unwrap();
    f.compute_root().vectorize(x, 8);
    let out = Func::new("out");
    out.define(x, f.at(x) + f.at(x + 3)).unwrap();
    out.vectorize(x, 8);
    let data = Buffer::<i32>::from_fn(&[0], &[40], |c| c[0] as i32 - 7);
    check(
        &out,
        &TestInputs::new().image(&input, data.clone()),
        &[0],
        &[37],
    );

    let lowered = Pipeline::new(&out).lower(&LowerOptions::default()).unwrap();
    let input_buffer = Symbol::new("input");
    // The input read from one element further on: the last vector's last lane is past it.
    let shifted = rewrite(&lowered.stmt, &|s| {
        Some(s.map_children(|e| shift_loads(e, input_buffer), |c| c.clone()))
    });
    let target = Target::host().with_bounds_checks(true);
    // SAFETY: checked mode checks every load and store.
    let compiled = unsafe { compile_jit(&shifted, &signature(&lowered), &target) }.unwrap();
    let inputs = Inputs::new().image(&input, data);
    let mut output = AnyBuffer::with_mins(Type::i32(), &[0], &[37]).unwrap();
    let images: Vec<(Symbol, &AnyBuffer)> = inputs.images().iter().map(|(n, b)| (*n, b)).collect();
    let message = compiled
        .run(&mut [&mut output], &images, &[])
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("a load from input at indices") && message.contains("[0, 40)"),
        "{message}"
    );
}

/// `e` with its loads from `buffer` one element further on.
fn shift_loads(e: &Expr, buffer: Symbol) -> Expr {
    tessera::ir::visit::mutate_exprs(e, &mut |n| match n.kind() {
        tessera::ir::ExprKind::Load {
            buffer: b, index, ..
        } if *b == buffer => {
            let lanes = index.ty().lanes;
            let one = Expr::i32(1).broadcast_to(lanes);
            Some(Expr::load(
                n.ty(),
                buffer,
                Expr::binary(BinaryOp::Add, index.clone(), one),
            ))
        }
        _ => None,
    })
}

/// A broken `unsafe_promise_clamped`: a lookup table sized by the promise [0, 9], indexed by
/// data that reaches 12. Checked native code, the interpreter and the evaluator report the
/// value and the promise instead of reading past the table.
#[test]
fn a_broken_unsafe_promise_is_reported_not_read_out_of_bounds() {
    let input = ImageParam::new(Type::u8(), 1, "in");
    let lut = ImageParam::new(Type::i32(), 1, "lut");
    let x = Var::new("x");
    let f = Func::new("f");
    // SAFETY: the promise is broken on purpose; it runs only on backends that check it: native
    // code compiled with `with_bounds_checks(true)`, the interpreter and the evaluator.
    let index = unsafe { unsafe_promise_clamped(input.at(x), None, Some(Expr::from(9))) };
    f.define(x, lut.at(cast_to::<i32>(index))).unwrap();
    let data = Buffer::<u8>::from_fn(&[0], &[8], |p| (p[0] * 2) as u8);
    let table = Buffer::<i32>::from_fn(&[0], &[10], |p| p[0] as i32 * 100);
    let inputs = TestInputs::new().image(&input, data).image(&lut, table);
    let checked = Target::host().with_bounds_checks(true);
    let pipeline = Pipeline::new(&f);
    let native = pipeline
        .compile_jit(&checked)
        .and_then(|c| c.realize(&inputs.pipeline_inputs(), &[0], &[8]));
    let interp = pipeline.realize_interp(&inputs.pipeline_inputs(), &[0], &[8]);
    let eval = inputs.evaluator().realize(&f, &[0], &[8]);
    for (backend, error) in [
        ("native", native.err()),
        ("interpreter", interp.err()),
        ("evaluator", eval.err()),
    ] {
        let error = error
            .unwrap_or_else(|| panic!("the {backend} ran"))
            .to_string();
        assert!(
            error.contains("outside the bounds [0, 9] promised of it"),
            "{backend}: {error}"
        );
    }
    // Kept, the promise is trusted, and the values are the table's.
    let kept = Buffer::<u8>::from_fn(&[0], &[8], |p| p[0] as u8);
    let inputs = TestInputs::new().image(&input, kept).image(
        &lut,
        Buffer::<i32>::from_fn(&[0], &[10], |p| p[0] as i32 * 100),
    );
    let run = check(&f, &inputs, &[0], &[8]);
    let AnyBuffer::I32(out) = &run.realization.buffers[0] else {
        panic!("f is i32");
    };
    (0..8).for_each(|i| assert_eq!(out.get(&[i]), i as i32 * 100, "f({i})"));
}
