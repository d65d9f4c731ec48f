//! Common-subexpression elimination (`lower::common_subexpressions`) on whole pipelines: the
//! statement after the pass computes what the statement before it computes (both run on the
//! interpreter, an exact executor that fails any access outside storage), values agree with
//! plain Rust, the evaluator and checked native code (`check`), repeats become lets and the
//! printed statement does not grow.

mod lower_common;

use lower_common::{check, compare_buffers, walk_stmts, Checked, TestInputs};
use tessera::ir::{MessagePart, Stmt, StmtKind};
use tessera::lang::boundary::repeat_edge;
use tessera::lower::LowerOptions;
use tessera::pipeline::{run_interp, Inputs, Pipeline};
use tessera::prelude::*;

const W: i64 = 24;
const H: i64 = 10;

/// The pass's input: the IR of the pass before it.
const BEFORE_CSE: &str = "remove_dead_allocations";

/// Whether `s` binds a let the pass made (`t0`, `t1`, ...).
fn has_generated_let(s: &Stmt) -> bool {
    let mut found = false;
    walk_stmts(s, &mut |st| {
        if let StmtKind::LetStmt { name, .. } = st.kind() {
            let n = name.as_str();
            found |=
                n.len() > 1 && n.starts_with('t') && n[1..].chars().all(|c| c.is_ascii_digit());
        }
    });
    found
}

/// The statements before and after the pass give the same outputs on the interpreter, the
/// pass lifted something, and the printout did not grow.
fn check_against_uneliminated(run: &Checked, inputs: &Inputs, mins: &[i64], extents: &[i64]) {
    let lowered = &run.lowered;
    let before = lowered
        .ir_after(BEFORE_CSE)
        .expect("the IR of every pass is recorded");
    let after = lowered
        .ir_after("common_subexpressions")
        .expect("the IR of every pass is recorded");
    assert!(has_generated_let(after), "nothing lifted:\n{after}");
    assert!(
        after.to_string().len() <= before.to_string().len(),
        "the statement grew:\n{before}\nbecame\n{after}"
    );
    for stmt in [before, after] {
        let r = run_interp(lowered, stmt, inputs, mins, extents, 0)
            .unwrap_or_else(|e| panic!("the interpreter failed: {e}\n{stmt}"));
        compare_buffers(&run.realization.buffers, &r.buffers)
            .unwrap_or_else(|e| panic!("{e}\n{stmt}"));
    }
}

fn input_value(x: i64, y: i64) -> u16 {
    ((x * 37 + y * 101) % 1000) as u16
}

/// A 3x3 box blur of a clamped input, vectorized and parallel: its loads' indices repeat.
#[test]
fn a_vectorized_stencil_computes_the_same() {
    let input = ImageParam::new(Type::u16(), 2, "input");
    let clamped = repeat_edge(&input);
    let (x, y) = (Var::new("x"), Var::new("y"));
    let blur_x = Func::new("blur_x");
    blur_x
        .define(
            (x, y),
            clamped.at((x - 1, y)) + clamped.at((x, y)) + clamped.at((x + 1, y)),
        )
        .unwrap();
    let blur = Func::new("blur");
    blur.define(
        (x, y),
        (blur_x.at((x, y - 1)) + blur_x.at((x, y)) + blur_x.at((x, y + 1))) / 9,
    )
    .unwrap();
    blur.vectorize(x, 8).parallel(y);
    blur_x.compute_at(&blur, y).vectorize(x, 8);
    let image = Buffer::<u16>::from_fn(&[0, 0], &[W, H], |c| input_value(c[0], c[1]));
    let inputs = TestInputs::new().image(&input, image);
    let run = check(&blur, &inputs, &[0, 0], &[W, H]);
    let at = |x: i64, y: i64| input_value(x.clamp(0, W - 1), y.clamp(0, H - 1)) as u32;
    let AnyBuffer::U16(values) = &run.realization.buffers[0] else {
        panic!("the output is u16")
    };
    for yy in 0..H {
        for xx in 0..W {
            let sum: u32 = (-1..=1)
                .flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)))
                .map(|(dx, dy)| at(xx + dx, yy + dy))
                .sum();
            assert_eq!(
                values.get(&[xx, yy]) as u32,
                (sum as u16 / 9) as u32,
                "({xx}, {yy})"
            );
        }
    }
    check_against_uneliminated(&run, &inputs.pipeline_inputs(), &[0, 0], &[W, H]);
}

/// A Func read three times in one arm of a select, whose condition narrows the region
/// computed (and stored) of it: its loads must stay in the arm, where they are in bounds.
#[test]
fn loads_in_an_arm_stay_there() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let g = Func::new("g");
    g.define((x, y), x * 3 + y).unwrap();
    let f = Func::new("f");
    let gv = g.at((x, y));
    f.define(
        (x, y),
        select(
            x.lt(10),
            gv.clone() * gv.clone() + gv + x * y * 5,
            x * y * 5,
        ),
    )
    .unwrap();
    g.compute_root();
    f.vectorize(x, 4);
    let run = check(&f, &TestInputs::new(), &[0, 0], &[W, H]);
    let values = run.i32_values(0);
    for yy in 0..H {
        for xx in 0..W {
            let g = xx * 3 + yy;
            let want = if xx < 10 {
                g * g + g + xx * yy * 5
            } else {
                xx * yy * 5
            };
            assert_eq!(i64::from(values.get(&[xx, yy])), want, "({xx}, {yy})");
        }
    }
    // g is computed only where the arm is taken.
    assert_eq!(run.provides("g"), (10 * H) as u64);
    check_against_uneliminated(&run, &TestInputs::new().pipeline_inputs(), &[0, 0], &[W, H]);
}

/// A requirement used twice in one arm of a select holds only where the arm is taken:
/// lifted out of the arm, it would fail the run. (On the interpreter alone: native code
/// evaluates both arms of a select, and fails on the requirement with or without the pass.)
#[test]
fn failing_intrinsics_in_an_arm_stay_there() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    let message = [MessagePart::Text("x is at least 10".into())];
    let required = require(x.lt(10), x * y + 7, &message);
    f.define(
        (x, y),
        select(x.lt(10), required.clone() * required, x * y * 5),
    )
    .unwrap();
    let lowered = Pipeline::new(&f)
        .lower(&LowerOptions {
            record_ir: true,
            ..LowerOptions::default()
        })
        .expect("lowering succeeds");
    let inputs = TestInputs::new().pipeline_inputs();
    let after = lowered.ir_after("common_subexpressions").expect("recorded");
    assert!(has_generated_let(after), "nothing lifted:\n{after}");
    for stmt in [lowered.ir_after(BEFORE_CSE).expect("recorded"), after] {
        let run = run_interp(&lowered, stmt, &inputs, &[0, 0], &[W, H], 0)
            .unwrap_or_else(|e| panic!("the interpreter failed: {e}\n{stmt}"));
        let AnyBuffer::I32(values) = &run.buffers[0] else {
            panic!("the output is i32")
        };
        for yy in 0..H {
            for xx in 0..W {
                let want = if xx < 10 {
                    (xx * yy + 7).pow(2)
                } else {
                    xx * yy * 5
                };
                assert_eq!(i64::from(values.get(&[xx, yy])), want, "({xx}, {yy})");
            }
        }
    }
}
