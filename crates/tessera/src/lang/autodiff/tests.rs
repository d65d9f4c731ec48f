//! The differentiation rules and the accumulation of adjoints against central finite
//! differences computed in plain Rust, on the evaluator; and the constructs that are
//! refused.

use super::{propagate_adjoints, propagate_adjoints_with};
use crate::eval::realize::Evaluator;
use crate::ir::{Expr, Type};
use crate::lang::buffer::Buffer;
use crate::lang::func::{Func, Tuple};
use crate::lang::image_param::ImageParam;
use crate::lang::math::*;
use crate::lang::operators::ExprOps;
use crate::lang::rdom::RDom;
use crate::lang::var::Var;

const H: f64 = 1e-6;

fn constant(name: &str, v: f64) -> Func {
    let f = Func::new(name);
    f.define((), Expr::f64(v)).unwrap();
    f
}

fn scalar(f: &Func) -> f64 {
    Evaluator::new().realize(f, &[], &[]).unwrap()[0]
        .get_value(&[])
        .as_f64()
}

fn assert_close(what: &str, actual: f64, expected: f64) {
    let tolerance = 1e-5 * expected.abs().max(1.0);
    assert!(
        (actual - expected).abs() <= tolerance,
        "{what}: derivative {actual}, finite difference {expected}"
    );
}

/// `op` of scalar Funcs holding `at`: each Func's adjoint against the central difference
/// of `reference` in that argument.
fn check_rule(
    what: &str,
    at: &[f64],
    op: impl Fn(&[Expr]) -> Expr,
    reference: impl Fn(&[f64]) -> f64,
) {
    let args: Vec<Func> = at
        .iter()
        .enumerate()
        .map(|(i, v)| constant(&format!("a{i}"), *v))
        .collect();
    let calls: Vec<Expr> = args.iter().map(|a| a.at(())).collect();
    let y = Func::new("y");
    y.define((), op(&calls)).unwrap();
    let d = propagate_adjoints(&y).unwrap();
    for (i, arg) in args.iter().enumerate() {
        let shifted = |delta: f64| {
            let mut p = at.to_vec();
            p[i] += delta;
            reference(&p)
        };
        let expected = (shifted(H) - shifted(-H)) / (2.0 * H);
        let actual = scalar(&d.func(arg).unwrap());
        assert_close(&format!("{what}, argument {i}"), actual, expected);
    }
}

#[test]
fn unary_rules_match_finite_differences() {
    type Rule = (&'static str, fn(Expr) -> Expr, fn(f64) -> f64, f64);
    let rules: [Rule; 16] = [
        ("sqrt", |e| sqrt(e), f64::sqrt, 0.7),
        ("exp", |e| exp(e), f64::exp, 0.3),
        ("log", |e| log(e), f64::ln, 1.7),
        ("sin", |e| sin(e), f64::sin, 0.4),
        ("cos", |e| cos(e), f64::cos, 0.4),
        ("tan", |e| tan(e), f64::tan, 0.4),
        ("asin", |e| asin(e), f64::asin, 0.3),
        ("acos", |e| acos(e), f64::acos, 0.3),
        ("atan", |e| atan(e), f64::atan, 0.3),
        ("sinh", |e| sinh(e), f64::sinh, 0.3),
        ("cosh", |e| cosh(e), f64::cosh, 0.3),
        ("tanh", |e| tanh(e), f64::tanh, 0.3),
        ("abs of a negative", |e| abs(e), f64::abs, -0.3),
        ("negation", |e| -e, |v| -v, 0.3),
        ("floor", |e| floor(e.clone()) + e, |v| v.floor() + v, 1.3),
        (
            "f32 round trip",
            |e| cast(Type::f64(), cast(Type::f32(), e)),
            |v| v,
            0.3,
        ),
    ];
    for (what, op, reference, at) in rules {
        check_rule(what, &[at], |a| op(a[0].clone()), |p| reference(p[0]));
    }
}

#[test]
fn binary_rules_match_finite_differences() {
    type Rule = (&'static str, fn(Expr, Expr) -> Expr, fn(f64, f64) -> f64);
    let rules: [Rule; 9] = [
        ("a * b", |a, b| a * b, |a, b| a * b),
        ("a / b", |a, b| a / b, |a, b| a / b),
        ("a - b", |a, b| a - b, |a, b| a - b),
        ("min", |a, b| min(a, b), f64::min),
        ("max", |a, b| max(a, b), f64::max),
        ("pow", |a, b| pow(a, b), f64::powf),
        ("atan2", |a, b| atan2(a, b), f64::atan2),
        ("hypot", |a, b| hypot(a, b), f64::hypot),
        ("absd", |a, b| absd(a, b), |a, b| (a - b).abs()),
    ];
    for (what, op, reference) in rules {
        for at in [[0.7, 1.9], [2.3, 0.4]] {
            check_rule(
                what,
                &at,
                |a| op(a[0].clone(), a[1].clone()),
                |p| reference(p[0], p[1]),
            );
        }
    }
    check_rule(
        "lerp",
        &[0.7, 1.9, 0.3],
        |a| lerp(a[0].clone(), a[1].clone(), a[2].clone()),
        |p| p[0] * (1.0 - p[2]) + p[1] * p[2],
    );
    check_rule(
        "select",
        &[0.7, 1.9],
        |a| {
            select(
                a[0].clone().lt(a[1].clone()),
                a[0].clone() * a[1].clone(),
                a[1].clone(),
            )
        },
        |p| if p[0] < p[1] { p[0] * p[1] } else { p[1] },
    );
}

/// `loss = Σ_{r < 4} f(r)²` with `f(x) = in(x) in(x + 1) + sin(in(2x)) + in(clamp(x - 1, 0, 5))`
/// over a 9-element input: coordinates that gather (`x + 1`), scatter (`2x`, a clamp) and
/// both at once, against finite differences of the same sum in plain Rust.
#[test]
fn pipeline_gradient_matches_finite_differences() {
    let x = Var::new("x");
    let input = ImageParam::new(Type::f64(), 1, "input");
    let f = Func::new("f");
    f.define(
        x,
        input.at(x) * input.at(x + 1) + sin(input.at(2 * x)) + input.at(clamp(x - 1, 0, 5)),
    )
    .unwrap();
    let r = RDom::new([(0, 4)]);
    let loss = Func::new("loss");
    loss.update_add((), f.at(r.x()) * f.at(r.x())).unwrap();
    let d = propagate_adjoints(&loss).unwrap();
    let values: Vec<f64> = (0..9).map(|i| 0.3 + 0.17 * f64::from(i)).collect();
    let reference = |v: &[f64]| -> f64 {
        (0..4)
            .map(|x: usize| {
                let fx = v[x] * v[x + 1] + v[2 * x].sin() + v[x.saturating_sub(1).min(5)];
                fx * fx
            })
            .sum()
    };
    let buffer = Buffer::from_fn(&[0], &[9], |p| values[p[0] as usize]);
    let gradient = Evaluator::new()
        .with_input(&input, buffer)
        .realize(&d.image(&input).unwrap(), &[0], &[9])
        .unwrap();
    for i in 0..9 {
        let shifted = |delta: f64| {
            let mut v = values.clone();
            v[i] += delta;
            reference(&v)
        };
        let expected = (shifted(H) - shifted(-H)) / (2.0 * H);
        let actual = gradient[0].get_value(&[i as i64]).as_f64();
        assert_close(&format!("d loss / d input({i})"), actual, expected);
    }
}

/// The output's adjoint given as a Func over a box: `f(x) = in(x)²` with adjoint `x + 1` over
/// `[0, 3)` gives `2 in(x) (x + 1)` there and nothing beyond; the adjoints of each stage.
#[test]
fn given_output_adjoint_and_bounds() {
    let x = Var::new("x");
    let input = ImageParam::new(Type::f64(), 1, "input");
    let f = Func::new("f");
    f.define(x, input.at(x) * input.at(x)).unwrap();
    f.update_mul(x, Expr::f64(3.0)).unwrap();
    let adjoint = Func::new("adjoint");
    adjoint.define(x, cast(Type::f64(), x + 1)).unwrap();
    let d = propagate_adjoints_with(&f, &adjoint, &[(Expr::i32(0), Expr::i32(3))]).unwrap();
    let values = [0.5, -1.5, 2.0, 4.0, 7.0];
    let buffer = Buffer::from_fn(&[0], &[5], |p| values[p[0] as usize]);
    let realize = |g: &Func| {
        Evaluator::new()
            .with_input(&input, buffer.clone())
            .realize(g, &[0], &[5])
            .unwrap()
            .remove(0)
    };
    let d_input = realize(&d.image(&input).unwrap());
    let d_f_pure = realize(&d.func(&f).unwrap());
    let d_f_final = realize(&d.stage(&f, 1).unwrap());
    for (i, v) in values.iter().enumerate() {
        let weight = if i < 3 { (i + 1) as f64 } else { 0.0 };
        let at = [i as i64];
        assert_close("d input", d_input.get_value(&at).as_f64(), 6.0 * v * weight);
        assert_close("d f (pure)", d_f_pure.get_value(&at).as_f64(), 3.0 * weight);
        // The final stage's adjoint is the one given, everywhere.
        assert_close(
            "d f (final)",
            d_f_final.get_value(&at).as_f64(),
            (i + 1) as f64,
        );
    }
    assert_eq!(d.funcs(&f).len(), 2);
    let wrong = propagate_adjoints_with(&f, &adjoint, &[])
        .unwrap_err()
        .to_string();
    assert!(wrong.contains("output f has 1 dimensions"), "{wrong}");
}

#[test]
fn refused_constructs_name_the_func() {
    let x = Var::new("x");
    let pair = Func::new("pair");
    pair.define(x, Tuple(vec![Expr::f32(1.0), Expr::f32(2.0)]))
        .unwrap();
    let uses_pair = Func::new("uses_pair");
    uses_pair.define((), pair.value_at(0, 1)).unwrap();
    let message = propagate_adjoints(&uses_pair).unwrap_err().to_string();
    assert!(message.contains("Tuple Func pair"), "{message}");

    // f(x) = f(x) * f(x): the derivative needs the value before the update, overwritten.
    let g = Func::new("g");
    g.define(x, Expr::f32(2.0)).unwrap();
    g.update(x, g.at(x) * g.at(x)).unwrap();
    let loss = Func::new("square_loss");
    loss.define((), g.at(0)).unwrap();
    let message = propagate_adjoints(&loss).unwrap_err().to_string();
    assert!(
        message.contains("update 0 of g") && message.contains("overwrites"),
        "{message}"
    );

    let int_output = Func::new("int_output");
    int_output.define((), 1).unwrap();
    let message = propagate_adjoints(&int_output).unwrap_err().to_string();
    assert!(message.contains("int_output"), "{message}");
}
