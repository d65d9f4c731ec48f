//! `print` and `print_when` in each runner (the evaluator, the interpreter, native code):
//! values of every type formatted as Halide formats them, prints that lowering must keep
//! where they are (loop-invariant ones, in producers, in vectors), the error of a
//! misused `print_when`, and an object file calling a C program's `tessera_print`.

#[path = "print_common/mod.rs"]
mod print_common;

use print_common::print_in_each_runner;
use tessera::prelude::*;

#[test]
fn values_of_every_type_print_as_halide_prints_them() {
    let x = Var::new("x");
    let f = Func::new("f");
    let message = [
        x.eq_(1).into(),
        cast(Type::i8(), x - 4).into(),
        cast(Type::u16(), x - 1).into(),
        (cast(Type::i64(), x) * Expr::make_const(Type::i64(), -9_000_000_000)).into(),
        (cast(Type::f64(), x) + 1.5).into(),
        (cast(Type::f32(), x) / 3.0f32).into(),
    ];
    f.define(x, print(x, &message)).unwrap();
    for run in print_in_each_runner(&f, &[], &[2]) {
        assert_eq!(
            run.lines,
            [
                "0 false -4 65535 0 1.500000e+00 0.000000",
                "1 true -3 0 -9000000000 2.500000e+00 0.333333",
            ],
            "{}",
            run.runner
        );
    }
}

#[test]
fn a_loop_invariant_print_prints_at_every_point() {
    let x = Var::new("x");
    for vector in [1, 4] {
        let f = Func::new("f");
        f.define(x, print(Expr::from(5), &["five".into()])).unwrap();
        if vector > 1 {
            f.vectorize(x, vector);
        }
        for run in print_in_each_runner(&f, &[], &[8]) {
            assert_eq!(run.lines, vec!["5 five"; 8], "{} by {vector}", run.runner);
            let out = run.output.clone().into_typed::<i32>().unwrap();
            assert_eq!(out.get(&[7]), 5, "{}", run.runner);
        }
    }
}

#[test]
fn a_producer_prints_once_per_point_it_computes() {
    let x = Var::new("x");
    let (g, f) = (Func::new("g"), Func::new("f"));
    g.define(x, print(x * 2, &["g".into()])).unwrap();
    f.define(x, g.at(x) + g.at(x + 1)).unwrap();
    g.compute_root();
    for run in print_in_each_runner(&f, &[], &[10]) {
        let mut lines = run.lines.clone();
        lines.sort_by_key(|l| l.split(' ').next().unwrap().parse::<i32>().unwrap());
        let want: Vec<String> = (0..=10).map(|i| format!("{} g", i * 2)).collect();
        assert_eq!(lines, want, "{}", run.runner);
        let out = run.output.clone().into_typed::<i32>().unwrap();
        for i in 0..10 {
            assert_eq!(out.get(&[i]), (4 * i + 2) as i32, "{} at {i}", run.runner);
        }
    }
}

#[test]
fn print_when_with_a_condition_that_is_not_a_bool_is_an_error_naming_it() {
    let x = Var::new("x");
    let f = Func::new("f");
    let err = f.define(x, print_when(x + 1, x, &[])).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("print_when's condition") && text.contains("not a scalar bool"),
        "{text}"
    );
}

#[test]
fn the_c_header_declares_the_print_function_programs_provide() {
    let x = Var::new("x");
    let f = Func::new("f");
    f.define(x, print(x, &[])).unwrap();
    let lowered = Pipeline::new(&f)
        .lower(&tessera::LowerOptions::default())
        .unwrap();
    let header =
        tessera::codegen::c_header(&tessera::pipeline::signature(&lowered), "printing").unwrap();
    assert!(
        header.contains("int32_t tessera_print(void *user_context, const char *message_template, const uint64_t *values);"),
        "{header}"
    );
}

/// The runtime functions a C program linking a pipeline provides.
const RUNTIME_STUBS: &str = include_str!("c/runtime_stubs.c");

/// After the runtime stubs, the C program's `tessera_print`, decoding its template as the
/// header describes (the values here are all i32, scalars or vectors), and its `main`.
const PRINTING_DRIVER: &str = r#"
#include <string.h>

/* The lanes of the type written at `t` (after its \x01), e.g. 4 for "i32x4". */
static int lanes_of(const char *t) {
    const char *x = strchr(t, 'x');
    const char *end = strchr(t, '\x02');
    return x && x < end ? atoi(x + 1) : 1;
}
int32_t tessera_print(void *ctx, const char *template, const uint64_t *values) {
    (void)ctx;
    int lanes = lanes_of(strchr(template, '\x01') + 1);
    for (int lane = 0; lane < lanes; lane++) {
        if (!(values[lane] & 1)) continue;
        const uint64_t *value = values + lanes;
        for (const char *c = template; *c; c++) {
            if (*c != '\x01') { putchar(*c); continue; }
            int n = lanes_of(c + 1);
            printf("%d", (int32_t)value[n == 1 ? 0 : lane]);
            value += n;
            c = strchr(c, '\x02');
        }
        putchar('\n');
    }
    return 0;
}

int main(void) {
    int32_t out_data[8];
    tessera_dim_t out_dim = {0, 8, 1};
    tessera_buffer_t out = {(uint8_t *)out_data, 0, 32, 1, &out_dim};
    const void *args[] = {&out, NULL};
    if (printing(args)) return 1;
    for (int i = 0; i < 8; i++) if (out_data[i] != i) return 2;
    return 0;
}
"#;

#[test]
fn an_object_file_prints_through_the_programs_tessera_print() {
    if std::process::Command::new("cc")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("no C compiler: skipped");
        return;
    }
    let x = Var::new("x");
    let f = Func::new("f");
    let message = ["is even, and".into(), (x * 10).into()];
    f.define(x, print_when((x % 2).eq_(0), x, &message))
        .unwrap();
    f.vectorize(x, 4);
    let lowered = Pipeline::new(&f)
        .lower(&tessera::LowerOptions::default())
        .unwrap();
    let signature = tessera::pipeline::signature(&lowered);
    let dir = std::env::temp_dir().join(format!("tessera-print-aot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    tessera::codegen::emit_object(
        &lowered.stmt,
        &signature,
        &Target::host(),
        "printing",
        &dir.join("printing.o"),
    )
    .unwrap();
    let header = tessera::codegen::c_header(&signature, "printing").unwrap();
    std::fs::write(dir.join("pipeline.h"), header).unwrap();
    std::fs::write(
        dir.join("driver.c"),
        format!("{RUNTIME_STUBS}{PRINTING_DRIVER}"),
    )
    .unwrap();
    let built = std::process::Command::new("cc")
        .current_dir(&dir)
        .args(["-O1", "-o", "driver", "driver.c", "printing.o", "-lm"])
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let run = std::process::Command::new(dir.join("driver"))
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let want: String = (0..8)
        .step_by(2)
        .map(|i| format!("{i} is even, and {}\n", i * 10))
        .collect();
    assert_eq!(String::from_utf8_lossy(&run.stdout), want);
}
