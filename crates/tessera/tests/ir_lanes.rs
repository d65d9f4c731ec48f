//! `ir::lanes::extract_lanes` against the interpreter: every lane of an extracted expression
//! equals the corresponding lane of the original, for each start and stride, through ramps,
//! broadcasts, casts, selects, lets binding vectors and scalars, predicated loads and
//! intrinsics; what it cannot take apart (a vector variable bound outside) gives `None`.

mod llvm_common;

use llvm_common::*;
use tessera::eval::value::Value;
use tessera::ir::lanes::extract_lanes;
use tessera::ir::{BinaryOp, Expr, Intrinsic, Type};
use tessera::lang::buffer::{AnyBuffer, Buffer};

const LANES: u16 = 12;

/// Vector expressions of `LANES` lanes over the loop variable `x` and the image `in`.
fn expressions() -> Vec<Expr> {
    let c = |v: i32| int(v).broadcast_to(LANES);
    let xs = Expr::ramp(add(mul(var("x"), int(3)), int(-5)), int(2), LANES);
    let t = Type::f32().with_lanes(LANES);
    let read = |index: Expr| load(t, "in", index);
    let index = add(bin(BinaryOp::Div, xs.clone(), c(3)), c(20));
    let v = Expr::var("v", index.ty());
    vec![
        xs.clone(),
        bin(BinaryOp::Mod, xs.clone(), c(4)),
        Expr::cast(t, xs.clone()),
        read(index.clone()),
        load_if(t, "in", index.clone(), lt(xs.clone(), c(7))),
        Expr::select(
            lt(xs.clone(), c(0)),
            read(add(index.clone(), c(1))),
            Expr::intrinsic(t, Intrinsic::Floor, vec![read(index.clone())]),
        ),
        // A vector let (its variable stands for the same lanes) around a scalar one.
        Expr::let_in(
            sym("v"),
            index.clone(),
            Expr::let_in(
                sym("s"),
                add(var("x"), int(1)),
                add(
                    read(add(v.clone(), v)),
                    Expr::cast(t, var("s").broadcast_to(LANES)),
                ),
            ),
        ),
    ]
}

/// Each lane of `e` for x = 0..4, by the interpreter.
fn lanes_of(e: &Expr) -> Vec<Value> {
    let n = e.ty().lanes;
    let out = AnyBuffer::with_mins(e.ty().element(), &[0], &[4 * i64::from(n)]).unwrap();
    let at = Expr::ramp(mul(var("x"), int(i32::from(n))), int(1), n);
    let s = serial("x", int(0), int(4), store("out", at, e.clone()));
    let case = Case::new(s)
        .image(
            "in",
            Buffer::<f32>::from_fn(&[0], &[64], |c| (c[0] * 7 % 13) as f32 * 0.75),
        )
        .output("out", out);
    let result = &case.interpret().expect("the interpreter runs it")[0];
    (0..result.dims()[0].extent)
        .map(|i| result.get_flat(i).unwrap())
        .collect()
}

#[test]
fn extracted_lanes_equal_the_original_lanes() {
    for e in expressions() {
        let all = lanes_of(&e);
        for (start, stride) in [(0, 2), (1, 2), (0, 3), (2, 3), (1, 4), (5, 1), (11, 1)] {
            let count = (LANES - start).div_ceil(stride);
            let part = extract_lanes(&e, start, stride, count).expect("extractable");
            assert_eq!(part.ty(), e.ty().with_lanes(count));
            let got = lanes_of(&part);
            for x in 0..4usize {
                for i in 0..count as usize {
                    let want = all[x * LANES as usize + start as usize + i * stride as usize];
                    let have = got[x * count as usize + i];
                    assert!(
                        same_bits(want, have),
                        "{e}, lanes {start}+{stride}i: {part}"
                    );
                }
            }
        }
    }
}

#[test]
fn vector_variables_bound_outside_are_not_extracted() {
    let v = Expr::var("v", Type::i32().with_lanes(8));
    assert!(extract_lanes(&add(v.clone(), int(1).broadcast_to(8)), 0, 2, 4).is_none());
    // A vector of vectors (a broadcast of `v`) is not taken apart either.
    assert!(extract_lanes(&v.broadcast_to(2), 0, 2, 8).is_none());
}
