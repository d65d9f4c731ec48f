//! Halide's `test/correctness/print.cpp`: `print` and `print_when` return their first
//! argument and print a line per evaluation, here captured by a print handler (Halide's
//! `set_custom_print`) in each runner — the evaluator, the interpreter and native code —
//! and checked line by line. Floats are checked against C's own `%f` (f32) and `%e` (f64),
//! as Halide's test does. Differences from Halide: a line has no trailing newline (the
//! handler gets one line per call); a NaN prints `nan` whatever its sign (Halide's test
//! folds `-nan` into `nan` too); a message is never cut (Halide's is at 8191 characters).

use std::ffi::{c_char, c_int, CStr, CString};

use crate::print_common::print_in_each_runner;
use tessera::prelude::*;

extern "C" {
    fn snprintf(buf: *mut c_char, size: usize, format: *const c_char, ...) -> c_int;
}

/// `v` formatted by the C library with `format` (`%f` or `%e`), `-nan` folded into `nan` as
/// Halide's test does.
fn c_format(format: &str, v: f64) -> String {
    let mut buf = [0 as c_char; 512];
    let format = CString::new(format).unwrap();
    // SAFETY: the buffer's size is passed, and the format takes one double.
    unsafe { snprintf(buf.as_mut_ptr(), buf.len(), format.as_ptr(), v) };
    // SAFETY: snprintf NUL-terminates within the buffer.
    let text = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy();
    if text == "-nan" {
        "nan".to_string()
    } else {
        text.into_owned()
    }
}

#[test]
fn print_returns_its_value_and_prints_every_argument() {
    let x = Var::new("x");
    let f = Func::new("f");
    let message = [
        "the answer is".into(),
        Expr::from(42.0f32).into(),
        "unsigned".into(),
        cast(Type::u32(), 145).into(),
    ];
    f.define(x, print(x * x, &message)).unwrap();
    for run in print_in_each_runner(&f, &[], &[10]) {
        let out = run.output.clone().into_typed::<i32>().unwrap();
        let want: Vec<String> = (0..10)
            .map(|i| format!("{} the answer is 42.000000 unsigned 145", i * i))
            .collect();
        assert_eq!(run.lines, want, "{}", run.runner);
        for i in 0..10 {
            assert_eq!(out.get(&[i]), (i * i) as i32, "{} at {i}", run.runner);
        }
    }
}

#[test]
fn print_when_prints_only_where_its_condition_holds() {
    let x = Var::new("x");
    let p = Param::<i32>::new("param");
    let f = Func::new("f");
    // A printf format specifier in the text is printed as it is.
    let message = [
        "g".into(),
        Expr::from(42.0f32).into(),
        "%s".into(),
        p.expr().into(),
    ];
    f.define(x, print_when(x.eq_(3), x * x, &message)).unwrap();
    for run in print_in_each_runner(&f, &[p.bind(127)], &[10]) {
        let out = run.output.clone().into_typed::<i32>().unwrap();
        assert_eq!(run.lines, ["9 g 42.000000 %s 127"], "{}", run.runner);
        for i in 0..10 {
            assert_eq!(out.get(&[i]), (i * i) as i32, "{} at {i}", run.runner);
        }
    }
}

#[test]
fn a_message_of_a_thousand_values_is_printed_whole() {
    let x = Var::new("x");
    let u64_const = |v: u64| Expr::u64_const(Type::u64(), v);
    let mut values = Vec::new();
    let mut want = Vec::new();
    for i in 0..500u64 {
        let n = i.wrapping_pow(16).wrapping_add(100);
        // Built from its halves, as Halide's test builds it.
        values.push((u64_const(n >> 32) << 32) | u64_const(n & 0xffff_ffff));
        want.push(n.to_string());
        let rounded = f64::from(n as f32);
        values.push(Expr::from(rounded));
        want.push(c_format("%e", rounded));
    }
    let message: Vec<MessagePart> = values[1..].iter().map(MessagePart::from).collect();
    let f = Func::new("f");
    f.define(x, print(values[0].clone(), &message)).unwrap();
    for run in print_in_each_runner(&f, &[], &[1]) {
        let out = run.output.clone().into_typed::<u64>().unwrap();
        assert_eq!(out.get(&[0]), 100, "{}", run.runner);
        assert_eq!(run.lines.len(), 1, "{}", run.runner);
        assert!(run.lines[0].len() > 8191, "{}", run.runner);
        assert_eq!(run.lines[0], want.join(" "), "{}", run.runner);
    }
}

#[test]
fn floats_print_as_c_formats_them() {
    let x = Var::new("x");
    let n = 100_000;
    let e = reinterpret(Type::f32(), random_int(&[]));
    let special = [
        (0, 0.0f32),
        (1, -0.0),
        (2, f32::INFINITY),
        (3, f32::NEG_INFINITY),
        (4, f32::NAN),
        (5, f32::from_bits(1)), // the smallest denormal
        (6, -f32::from_bits(1)),
        (7, f32::MIN_POSITIVE),
        (8, -f32::MIN_POSITIVE),
        (9, f32::MAX),
        (10, -f32::MAX),
        (11, 1.0 - 1.0 / (1 << 22) as f32),
    ];
    let e = special
        .iter()
        .rev()
        .fold(e, |e, &(at, v)| select(x.eq_(at), Expr::from(v), e));
    let f = Func::new("f");
    f.define(x, print(e, &[])).unwrap();
    let hi = cast(Type::u64(), reinterpret(Type::u32(), random_int(&[]))) << 32;
    let lo = cast(Type::u64(), reinterpret(Type::u32(), random_int(&[])));
    let g = Func::new("g");
    g.define(x, print(reinterpret(Type::f64(), hi | lo), &[]))
        .unwrap();
    for run in print_in_each_runner(&f, &[], &[n]) {
        let out = run.output.clone().into_typed::<f32>().unwrap();
        assert_eq!(run.lines.len(), n as usize, "{}", run.runner);
        for (i, line) in run.lines.iter().enumerate() {
            let v = f64::from(out.get(&[i as i64]));
            assert_eq!(*line, c_format("%f", v), "{}: float {i}", run.runner);
        }
    }
    for run in print_in_each_runner(&g, &[], &[n]) {
        let out = run.output.clone().into_typed::<f64>().unwrap();
        assert_eq!(run.lines.len(), n as usize, "{}", run.runner);
        for (i, line) in run.lines.iter().enumerate() {
            let v = out.get(&[i as i64]);
            assert_eq!(*line, c_format("%e", v), "{}: double {i}", run.runner);
        }
    }
}

#[test]
fn a_vectorized_print_prints_each_lane() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, print(x * 3, &[])).unwrap();
    f.vectorize(x, 32);
    for run in print_in_each_runner(&f, &[], &[128]) {
        let want: Vec<String> = (0..128).map(|i| (i * 3).to_string()).collect();
        assert_eq!(run.lines, want, "{}", run.runner);
    }
}

#[test]
fn a_vectorized_print_when_prints_the_lanes_where_it_holds() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, print_when((x % 2).eq_(0), x * 3, &[])).unwrap();
    f.vectorize(x, 32);
    for run in print_in_each_runner(&f, &[], &[128]) {
        let want: Vec<String> = (0..64).map(|i| (i * 2 * 3).to_string()).collect();
        assert_eq!(run.lines, want, "{}", run.runner);
        let out = run.output.clone().into_typed::<i32>().unwrap();
        for i in 0..128 {
            assert_eq!(out.get(&[i]), (i * 3) as i32, "{} at {i}", run.runner);
        }
    }
}

/// Not in Halide's test: lines printed by parallel iterations arrive whole, each once.
#[test]
fn parallel_prints_each_line_once() {
    let (x, y) = (Var::new("x"), Var::new("y"));
    let f = Func::new("f");
    f.define((x, y), print(x + y * 1000, &["at".into(), y.expr().into()]))
        .unwrap();
    f.parallel(y).vectorize(x, 8);
    for run in print_in_each_runner(&f, &[], &[64, 32]) {
        let mut lines = run.lines.clone();
        lines.sort();
        let mut want: Vec<String> = (0..32)
            .flat_map(|y| (0..64).map(move |x| format!("{} at {y}", x + y * 1000)))
            .collect();
        want.sort();
        assert_eq!(lines, want, "{}", run.runner);
    }
}
