//! Random well-typed expressions (`testing::random_expr`: every operator, casts, selects, lets,
//! ramps, broadcasts and intrinsics, scalar and vector with 2 to 16 lanes) compiled by the JIT
//! and compared lane by lane, bit for bit, with the evaluator (`eval::expr`) under random
//! assignments of their free variables. Each statement evaluates a batch of expressions for
//! every assignment, reading the variables' values from input buffers, so nothing folds away.
//! Re-run a failure with `TESSERA_SEED`.

mod llvm_common;

use std::collections::HashMap;

use llvm_common::*;
use tessera::eval::expr::ExprEval;
use tessera::eval::value::Value;
use tessera::ir::{Expr, Stmt, Symbol, Type};
use tessera::testing::{random_assignment, random_expr_with, random_type, GenOptions};

const BATCHES: usize = 80;
const EXPRS_PER_BATCH: usize = 12;
const ASSIGNMENTS: usize = 16;
const VARS: usize = 4;
const DEPTH: u32 = 4;

#[test]
fn random_expressions_match_the_evaluator_lane_by_lane() {
    let (mut rng, seed) = seeded_rng(0x11_7e55);
    let options = GenOptions {
        vectors: true,
        lane_counts: vec![2, 3, 4, 8, 16],
        ..GenOptions::default()
    };
    let scalar_options = GenOptions {
        vectors: false,
        ..options.clone()
    };
    let mut compared = 0usize;
    for batch in 0..BATCHES {
        let vars: Vec<(Symbol, Type)> = (0..VARS)
            .map(|k| {
                (
                    sym(&format!("v{k}")),
                    random_type(&mut rng, &scalar_options),
                )
            })
            .collect();
        let assignments: Vec<HashMap<Symbol, Value>> = (0..ASSIGNMENTS)
            .map(|_| random_assignment(&mut rng, &vars))
            .collect();
        let exprs: Vec<Expr> = (0..EXPRS_PER_BATCH)
            .map(|_| {
                let ty = random_type(&mut rng, &options);
                random_expr_with(&mut rng, ty, DEPTH, &vars, &options)
            })
            .collect();

        let i = var("i");
        let stores = exprs.iter().enumerate().map(|(j, e)| {
            let lanes = e.ty().lanes;
            let index = if lanes == 1 {
                i.clone()
            } else {
                Expr::ramp(mul(i.clone(), int(lanes as i32)), int(1), lanes)
            };
            store(&format!("out{j}"), index, e.clone())
        });
        let mut body = Stmt::block(stores);
        for (name, ty) in vars.iter().rev() {
            body = Stmt::let_stmt(*name, load(*ty, &format!("{name}_values"), i.clone()), body);
        }
        let mut case = Case::new(serial("i", int(0), int(ASSIGNMENTS as i32), body));
        for (name, ty) in &vars {
            let values: Vec<Value> = assignments.iter().map(|a| a[name]).collect();
            case = case.image(&format!("{name}_values"), buffer_of(*ty, &values));
        }
        for (j, e) in exprs.iter().enumerate() {
            let ty = e.ty();
            let zeros = vec![Value::zero(ty.element()); ASSIGNMENTS * ty.lanes as usize];
            case = case.output(&format!("out{j}"), buffer_of(ty.element(), &zeros));
        }

        let outputs = case
            .jit()
            .unwrap_or_else(|err| panic!("seed {seed}, batch {batch}: {err}\n{}", case.stmt));
        for (j, e) in exprs.iter().enumerate() {
            let lanes = e.ty().lanes as usize;
            for (a, assignment) in assignments.iter().enumerate() {
                let mut context = assignment.clone();
                let mut eval = ExprEval::new(&mut context);
                for lane in 0..lanes {
                    let expected = eval.eval(e, lane).expect("random expressions evaluate");
                    let got = outputs[j]
                        .get_flat((a * lanes + lane) as i64)
                        .expect("in range");
                    assert!(
                        same_bits(expected, got),
                        "seed {seed}, batch {batch}: {e}\nlane {lane} under {assignment:?}: \
                         evaluator {expected:?}, JIT {got:?}"
                    );
                    compared += 1;
                }
            }
        }
    }
    println!("{compared} lanes compared");
}
