//! The `tessera` binary as a user runs it: `apps` lists every app and its schedules, `run`
//! computes an app (with a schedule on the interpreter, or with the evaluator) on its built-in
//! image or an `.npy` file and writes `.npy` output equal to the plain-Rust reference, `lower`
//! prints the loop nest a schedule gives, `--param` sets an app's runtime parameters (`run`
//! and `bench`), and every kind of bad input fails with a one-line error and a non-zero exit.

use std::path::Path;
use std::process::{Command, Output};

use npyz::WriterBuilder;
use tempfile::TempDir;
use tessera::io::layout::{file_order_values, from_file_order};
use tessera::prelude::*;
use tessera_apps::local_laplacian::{self, LocalLaplacian, Parameters};
use tessera_apps::{bilateral_grid, blur, checksum, histeq, App};

fn tessera(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .output()
        .expect("the tessera binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs a command that must fail; returns its (single) stderr line.
fn failure(args: &[&str]) -> String {
    let out = tessera(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        !out.status.success(),
        "`tessera {}` succeeded",
        args.join(" ")
    );
    assert_eq!(stderr.lines().count(), 1, "not one line: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    stderr
}

fn write_npy<T: Scalar + npyz::AutoSerialize>(path: &Path, b: &Buffer<T>, shape: &[u64]) {
    let mut bytes = Vec::new();
    let mut w = npyz::WriteOptions::new()
        .default_dtype()
        .shape(shape)
        .writer(&mut bytes)
        .begin_nd()
        .expect("npy header");
    w.extend(file_order_values(b)).expect("npy data");
    w.finish().expect("npy end");
    std::fs::write(path, bytes).expect("write npy");
}

fn read_npy<T: Scalar + npyz::Deserialize>(path: &Path) -> Buffer<T> {
    let bytes = std::fs::read(path).expect("output written");
    let file = npyz::NpyFile::new(&bytes[..]).expect("valid npy");
    let shape: Vec<usize> = file.shape().iter().map(|&e| e as usize).collect();
    from_file_order(file.into_vec().expect("typed data"), &shape, false).expect("shape fits")
}

#[test]
fn apps_lists_every_app_with_its_stages_and_input() {
    let out = tessera(&["apps"]);
    assert!(out.status.success());
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), tessera_apps::apps().len(), "{text}");
    assert!(
        lines[0].starts_with("blur") && lines[0].contains(" 2 stages"),
        "{text}"
    );
    assert!(
        lines[0].contains("1 input: input u16 (W+2)×(H+2)"),
        "{text}"
    );
    assert!(
        lines[0].ends_with(
            "schedules: manual, root, inline, breadth_first, full_fusion, sliding_window, tiled, sliding_tiles, auto, auto-greedy"
        ),
        "{text}"
    );
    assert!(
        lines[1].starts_with("histeq") && lines[1].contains(" 5 stages"),
        "{text}"
    );
    assert!(
        lines[1].ends_with("schedules: manual, root, inline, auto, auto-greedy"),
        "{text}"
    );
    let names: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        names,
        [
            "blur",
            "histeq",
            "unsharp",
            "harris",
            "interpolate",
            "bilateral_grid",
            "local_laplacian",
            "camera_pipe",
            "pyramid_blend",
            "multigrid",
            "stencil_chain"
        ]
    );
    let blend = lines[8];
    assert!(
        blend.contains("3 inputs: img1 f32 W×H×3, img2 f32 W×H×3, mask f32 W×H"),
        "{text}"
    );
}

#[test]
fn run_takes_each_input_of_a_multi_input_app_by_name() {
    let dir = TempDir::new().expect("temp dir");
    let path = |name: &str| dir.path().join(name).to_str().expect("utf-8").to_string();
    let (w, h) = (37_i64, 21_i64);
    let image = |seed: i64| {
        Buffer::<f32>::from_fn(&[0, 0, 0], &[w, h, 3], |c| {
            ((c[0] * 7 + c[1] * 13 + c[2] * 5 + seed) % 17) as f32 / 16.0
        })
    };
    let (img1, img2) = (image(1), image(4));
    let mask = Buffer::<f32>::from_fn(&[0, 0], &[w, h], |c| ((c[0] + c[1]) % 5) as f32 / 4.0);
    write_npy(
        Path::new(&path("img1.npy")),
        &img1,
        &[h as u64, w as u64, 3],
    );
    write_npy(
        Path::new(&path("img2.npy")),
        &img2,
        &[h as u64, w as u64, 3],
    );
    write_npy(Path::new(&path("mask.npy")), &mask, &[h as u64, w as u64]);
    let arg = |name: &str| format!("{name}={}", path(&format!("{name}.npy")));
    let out_path = path("out.npy");
    let out = tessera(&[
        "run",
        "pyramid_blend",
        "--schedule",
        "root",
        "--input",
        &arg("mask"),
        "--input",
        &arg("img1"),
        "--input",
        &arg("img2"),
        "--output",
        &out_path,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = read_npy::<f32>(Path::new(&out_path));
    let want = tessera_apps::pyramid_blend::reference(&img1, &img2, &mask);
    let largest = want.data().iter().fold(0.0f32, |m, v| m.max(v.abs()));
    want.for_each_coord(|c| {
        assert!(
            (got.get(c) - want.get(c)).abs() <= 1e-4 * largest,
            "at {c:?}"
        );
    });
    // Inputs that do not fit together are refused before anything runs, naming the input.
    let e = failure(&[
        "run",
        "pyramid_blend",
        "--input",
        &arg("img1"),
        "--input",
        &format!("img2={}", path("mask.npy")),
        "--input",
        &arg("mask"),
    ]);
    assert!(e.contains("img2"), "{e}");
    let e = failure(&["run", "pyramid_blend", "--input", &arg("img1")]);
    assert!(e.contains("img2") || e.contains("mask"), "{e}");
    let e = failure(&["run", "pyramid_blend", "--input", &path("img1.npy")]);
    assert!(e.contains("pyramid_blend"), "{e}");
}

/// The checksum line `run` prints for an output.
fn checksum_line(output: &AnyBuffer) -> String {
    format!(
        "checksum: fnv1a64={:016x} sum={}",
        checksum::fnv1a64(output),
        checksum::sum(output)
    )
}

#[test]
fn run_built_in_image_prints_the_reference_checksum() {
    let dir = TempDir::new().expect("temp dir");
    let out_path = dir.path().join("blur.npy");
    let out = tessera(&[
        "run",
        "blur",
        "--width",
        "37",
        "--height",
        "33",
        "--output",
        out_path.to_str().expect("utf-8"),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let input = blur::Blur
        .default_inputs(37, 33)
        .expect("the default input");
    let want = blur::Blur.reference(&input, &[]).expect("reference");
    let text = stdout(&out);
    assert!(
        text.starts_with(
            "blur: 37 x 33 u16 output from the built-in test image, schedule manual, compiled in "
        ),
        "{text}"
    );
    assert!(text.contains("(LLVM JIT)"), "{text}");
    assert!(text.contains(&checksum_line(&want)), "{text}");
    let got: AnyBuffer = read_npy::<u16>(&out_path).into();
    assert_eq!(checksum::fnv1a64(&got), checksum::fnv1a64(&want));
}

#[test]
fn run_with_the_evaluator_or_any_schedule_gives_the_same_checksum() {
    let input = histeq::Histeq
        .default_inputs(67, 9)
        .expect("the default input");
    let want = checksum_line(&histeq::Histeq.reference(&input, &[]).expect("reference"));
    let size = ["--width", "67", "--height", "9"];
    let out = tessera(&[&["run", "histeq", "--backend", "eval"], &size[..]].concat());
    let text = stdout(&out);
    assert!(
        text.contains("evaluated in") && text.contains(&want),
        "{text}"
    );
    for schedule in ["manual", "root", "inline"] {
        // Checked mode (every access bounds-checked) computes the same output.
        for (backend, verb, checked) in [
            ("jit", "compiled in", false),
            ("jit", "compiled in", true),
            ("interp", "lowered in", false),
        ] {
            let args = [
                "run",
                "histeq",
                "--schedule",
                schedule,
                "--backend",
                backend,
            ];
            let checked: &[&str] = if checked { &["--checked"] } else { &[] };
            let out = tessera(&[&args[..], &size[..], checked].concat());
            let text = stdout(&out);
            assert!(
                text.contains(&format!("schedule {schedule}, {verb}")) && text.contains(&want),
                "{schedule} on {backend}: {text}"
            );
        }
    }
    let out = tessera(
        &[
            &["bench", "histeq", "--runs", "3", "--threads", "1", "--json"],
            &size[..],
        ]
        .concat(),
    );
    let json = stdout(&out);
    for key in [
        "\"app\":\"histeq\"",
        "\"schedule\":\"manual\"",
        "\"width\":67",
        "\"height\":9",
        "\"threads\":1",
        "\"compile_ms\":",
        "\"median_ms\":",
        "\"min_ms\":",
        "\"runs\":3",
    ] {
        assert!(
            json.trim().starts_with('{') && json.contains(key),
            "{key} missing: {json}"
        );
    }
}

#[test]
fn run_reads_and_writes_npy_files() {
    let dir = TempDir::new().expect("temp dir");
    let (in_path, out_path) = (dir.path().join("in.npy"), dir.path().join("out.npy"));
    let (in_arg, out_arg) = (
        in_path.to_str().expect("utf-8"),
        out_path.to_str().expect("utf-8"),
    );
    let input = Buffer::<u8>::from_fn(&[0, 0], &[70, 5], |c| (c[0] * 29 + c[1] * 7) as u8 % 50);
    write_npy(&in_path, &input, &[5, 70]);
    let out = tessera(&["run", "histeq", "--input", in_arg, "--output", out_arg]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(read_npy::<u8>(&out_path), histeq::reference(&input));
    // The input may be named, as every input of a multi-input app is.
    let named = format!("input={in_arg}");
    let out = tessera(&["run", "histeq", "--input", &named, "--output", out_arg]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(read_npy::<u8>(&out_path), histeq::reference(&input));

    // bench times the same file: its size is the file's.
    let out = tessera(&[
        "bench",
        "histeq",
        "--input",
        in_arg,
        "--runs",
        "2",
        "--threads",
        "1",
        "--json",
    ]);
    let json = stdout(&out);
    assert!(
        json.contains("\"width\":70") && json.contains("\"height\":5"),
        "{json}"
    );

    // Every schedule of blur, and the evaluator, on one 38 x 36 input (a 36 x 34 output).
    let blur_in = Buffer::<u16>::from_fn(&[0, 0], &[38, 36], |c| (c[0] * 1000 + c[1] * 77) as u16);
    write_npy(&in_path, &blur_in, &[36, 38]);
    let want = blur::reference(&blur_in);
    let mut runs: Vec<Vec<&str>> = blur::Blur
        .schedules()
        .iter()
        .map(|s| vec!["--schedule", s.name])
        .collect();
    runs.push(vec!["--backend", "eval"]);
    for how in runs {
        std::fs::remove_file(&out_path).ok();
        let args = [
            &["run", "blur", "--input", in_arg, "--output", out_arg],
            &how[..],
        ]
        .concat();
        let out = tessera(&args);
        assert!(
            out.status.success(),
            "{how:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(read_npy::<u16>(&out_path), want, "{how:?}");
    }
}

#[test]
fn lower_prints_the_loop_nest_of_each_schedule() {
    let lower = |args: &[&str]| {
        let out = tessera(&[&["lower"], args].concat());
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout(&out)
    };
    // manual: parallel strips of rows; x vectorized into 32-lane ramps.
    let manual = lower(&["blur"]);
    assert!(manual.contains("parallel for (blur_y.s0.y.y, "), "{manual}");
    assert!(
        manual.contains("ramp(") && manual.contains("x32("),
        "{manual}"
    );
    // The same nest as LLVM IR and as host assembly: 32 x u16 vectors, and when the host
    // has AVX-512, 512-bit registers.
    let llvm = lower(&["blur", "--emit", "llvm"]);
    assert!(llvm.contains("<32 x i16>"), "{llvm}");
    let asm = lower(&["blur", "--emit", "asm"]);
    assert!(asm.contains("vpmulhuw"), "{asm}");
    if std::arch::is_x86_feature_detected!("avx512bw") {
        assert!(asm.contains("%zmm"), "{asm}");
    }

    // sliding_window: blur_x folded to 4 rows of storage, the y loop serial.
    let sliding = lower(&["blur", "--schedule", "sliding_window"]);
    assert!(
        sliding
            .lines()
            .any(|l| l.trim_start().starts_with("alloc blur_x[u16 * ")
                && l.ends_with(" * 4] in Heap")),
        "{sliding}"
    );
    assert!(
        sliding.contains("for (blur_y.s0.y, ") && !sliding.contains("parallel"),
        "{sliding}"
    );

    // tiled: a 32 x 34 blur_x (the tile and its two-row halo) allocated inside the tile loop.
    let tiled = lower(&["blur", "--schedule", "tiled"]);
    let line_of = |text: &str, pattern: &str| {
        text.lines()
            .position(|l| l.contains(pattern))
            .unwrap_or_else(|| panic!("no `{pattern}` in {text}"))
    };
    let tile_loop = line_of(&tiled, "for (blur_y.s0.x.xo, ");
    let alloc = line_of(&tiled, "alloc blur_x[u16 * 32 * 34] in Stack");
    assert!(tile_loop < alloc, "{tiled}");
    assert!(tiled.contains("parallel for (blur_y.s0.y.yo, "), "{tiled}");

    // inline: blur_x has no storage at all; nothing parallel or vectorized.
    let inline = lower(&["blur", "--schedule", "inline"]);
    assert!(
        !inline.contains("alloc blur_x")
            && !inline.contains("parallel")
            && !inline.contains("ramp("),
        "{inline}"
    );

    // histeq manual: partial histograms (rfactor) scattered in parallel strips, then summed
    // over the strips; the output parallel over rows, 64 lanes.
    let histeq = lower(&["histeq", "--schedule", "manual"]);
    assert!(
        histeq.contains("parallel for (hist_intm.s1.strip, "),
        "{histeq}"
    );
    assert!(
        histeq
            .lines()
            .any(|l| l.trim_start().starts_with("for (hist.s1.ryo, ")),
        "{histeq}"
    );
    assert!(histeq.contains("parallel for (output.s0.y, "), "{histeq}");
    assert!(histeq.contains("x64("), "{histeq}");

    // --passes: the statement after every pass under a header naming it, then one line per
    // pass with its time.
    let root = lower(&["histeq", "--schedule", "root"]);
    let passes = lower(&["histeq", "--schedule", "root", "--passes"]);
    let (statements, table) = passes
        .split_once("\nlowering passes of histeq (schedule root):\n")
        .unwrap_or_else(|| panic!("no pass table in {passes}"));
    for pass in ["schedule_functions", "bounds_inference", "vectorize_loops"] {
        assert!(
            table
                .lines()
                .any(|l| l.trim_start().starts_with(pass) && l.ends_with(" ms")),
            "{pass}: {table}"
        );
    }
    let sections = statements_after_passes(statements);
    let names: Vec<&str> = sections.iter().map(|(name, _)| *name).collect();
    let position = |pass: &str| {
        names
            .iter()
            .position(|n| *n == pass)
            .unwrap_or_else(|| panic!("no statement after {pass}: {names:?}"))
    };
    assert!(
        position("schedule_functions") < position("bounds_inference")
            && position("bounds_inference") < position("storage_flattening")
            && position("storage_flattening") < position("vectorize_loops"),
        "{names:?}"
    );
    // Every pass that builds a statement, in the order of the table.
    let timed: Vec<&str> = table
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "realization_order")
        .collect();
    assert_eq!(names, timed);
    // Before storage flattening Funcs are realized; after it, allocated.
    let first = &sections[0].1;
    assert!(
        first.contains("realize ") && !first.contains("alloc "),
        "{first}"
    );
    let (last_pass, last) = sections.last().expect("a pass");
    assert_eq!(*last_pass, "place_allocations");
    assert_eq!(
        *last, root,
        "the statement after the last pass is `lower`'s"
    );
}

/// The `(pass, statement)` sections of `tessera lower --passes`, in order: each is the lines
/// after a header `=== after PASS (T ms) ===` up to the next header.
fn statements_after_passes(printout: &str) -> Vec<(&str, String)> {
    let mut sections: Vec<(&str, String)> = Vec::new();
    for line in printout.split_inclusive('\n') {
        let header = line
            .strip_prefix("=== after ")
            .and_then(|rest| rest.trim_end().strip_suffix(" ms) ==="))
            .and_then(|rest| rest.split_once(" ("));
        match (header, sections.last_mut()) {
            (Some((pass, time)), _) => {
                assert!(time.parse::<f64>().is_ok(), "a header's time: {line:?}");
                sections.push((pass, String::new()));
            }
            (None, Some((_, text))) => text.push_str(line),
            (None, None) => panic!("text before the first pass header: {line:?}"),
        }
    }
    sections
}

#[test]
fn bad_inputs_fail_with_one_line_errors() {
    let dir = TempDir::new().expect("temp dir");
    let path = |name: &str| dir.path().join(name).to_str().expect("utf-8").to_string();
    std::fs::write(path("junk.npy"), b"definitely not numpy").expect("write");
    write_npy(
        Path::new(&path("float.npy")),
        &Buffer::<f32>::new(&[5, 5]),
        &[5, 5],
    );
    write_npy(
        Path::new(&path("small.npy")),
        &Buffer::<u16>::new(&[1, 6]),
        &[6, 1],
    );

    let e = failure(&["run", "blur", "--input", &path("missing.npy")]);
    assert!(e.contains("missing.npy: cannot open"), "{e}");
    let e = failure(&["run", "blur", "--input", &path("junk.npy")]);
    assert!(e.contains("junk.npy: not a valid .npy file"), "{e}");
    let e = failure(&["run", "blur", "--input", &path("float.npy")]);
    assert!(
        e.contains("float.npy")
            && e.contains("input `input` of app blur is u16")
            && e.contains("but the image holds f32 values"),
        "{e}"
    );
    let e = failure(&["run", "blur", "--input", &path("small.npy")]);
    assert!(
        e.contains("small.npy") && e.contains("too small for app blur"),
        "{e}"
    );
    // `--input NAME=FILE` names the input; unknown names and inputs given twice are refused.
    let named = format!("input={}", path("small.npy"));
    let e = failure(&["run", "blur", "--input", &named]);
    assert!(
        e.contains("small.npy") && e.contains("too small for app blur"),
        "{e}"
    );
    let e = failure(&[
        "run",
        "blur",
        "--input",
        &format!("image={}", path("small.npy")),
    ]);
    assert!(
        e.contains("app blur has no input `image`") && e.contains("its inputs are input"),
        "{e}"
    );
    let e = failure(&["bench", "blur", "--input", &named, "--input", &named]);
    assert!(
        e.contains("input `input` of app blur is given twice"),
        "{e}"
    );
    let e = failure(&["run", "sharpen"]);
    assert!(
        e.contains("no app named `sharpen`; the apps are: blur, histeq"),
        "{e}"
    );
    let e = failure(&[
        "run", "blur", "--width", "4", "--height", "4", "--param", "sigma=2",
    ]);
    assert!(e.contains("app blur has no parameter `sigma`"), "{e}");
    let e = failure(&[
        "run",
        "blur",
        "--width",
        "4",
        "--height",
        "4",
        "--output",
        &path("out.bmp"),
    ]);
    assert!(e.contains("unknown image format"), "{e}");
    let e = failure(&["run", "blur", "--schedule", "fastest"]);
    assert!(
        e.contains("app blur has no schedule `fastest`; its schedules are: manual, root, inline, breadth_first"),
        "{e}"
    );
    let e = failure(&["lower", "histeq", "--schedule", "tiled"]);
    assert!(
        e.contains("app histeq has no schedule `tiled`; its schedules are: manual, root, inline"),
        "{e}"
    );
    let e = failure(&["lower", "sharpen"]);
    assert!(e.contains("no app named `sharpen`"), "{e}");
    let e = failure(&["run", "blur", "--width", "12", "--height", "7"]);
    assert!(
        e.contains("schedule `manual` of app blur computes outputs of at least 32 x 32")
            && e.contains("this output is 12 x 7")
            && e.contains("a schedule that fits: inline"),
        "{e}"
    );
    let e = failure(&["run", "blur", "--backend", "eval", "--schedule", "root"]);
    assert!(
        e.contains("--schedule does not apply to --backend eval"),
        "{e}"
    );
    let e = failure(&["run", "blur", "--backend", "gpu"]);
    assert!(e.contains("invalid value 'gpu'"), "{e}");
    let e = failure(&["run", "blur", "--width", "4"]);
    assert!(e.contains("--height"), "{e}");
    let e = failure(&["run", "blur", "--width", "1048577", "--height", "4"]);
    assert!(e.contains("--width"), "{e}");
    let e = failure(&[
        "run",
        "blur",
        "--input",
        &path("float.npy"),
        "--width",
        "4",
        "--height",
        "4",
    ]);
    assert!(e.contains("cannot be used with"), "{e}");
}

/// Runs `tessera` with `args`, which must succeed.
fn success(args: &[&str]) -> String {
    let out = tessera(args);
    assert!(
        out.status.success(),
        "`tessera {}`: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    stdout(&out)
}

/// Panics unless every value of the f32 image in `path` is within 1e-4 of the largest
/// magnitude in `want` of `want`'s.
fn assert_npy_close(path: &Path, want: &Buffer<f32>, context: &str) {
    let got = read_npy::<f32>(path);
    assert_eq!(got.extents(), want.extents(), "{context}");
    let largest = want.data().iter().fold(0.0f32, |m, v| m.max(v.abs()));
    want.for_each_coord(|c| {
        let (g, w) = (got.get(c), want.get(c));
        assert!(
            (g - w).abs() <= 1e-4 * largest,
            "{context}: at {c:?} {g} vs {w}"
        );
    });
}

/// bilateral_grid's 40 x 24 built-in image through the reference, with r_sigma = 0.2.
fn bilateral_grid_reference() -> Buffer<f32> {
    let input = bilateral_grid::BilateralGrid
        .default_inputs(40, 24)
        .expect("the default input");
    bilateral_grid::reference(&input[0].clone().try_into().expect("f32 input"), 0.2)
        .expect("the reference runs")
}

const BILATERAL_GRID_RUN: [&str; 9] = [
    "run",
    "bilateral_grid",
    "--width",
    "40",
    "--height",
    "24",
    "--param",
    "r_sigma=0.2",
    "--output",
];

#[test]
fn parameters_reach_the_pipeline() {
    let apps = success(&["apps"]);
    assert!(
        apps.contains("default output 2560 x 1536   params: r_sigma=0.1   schedules: manual"),
        "{apps}"
    );
    assert!(apps.contains("params: levels=8, alpha=1, beta=1"), "{apps}");

    let dir = TempDir::new().expect("temp dir");
    let out_path = dir.path().join("out.npy");
    let out_arg = out_path.to_str().expect("utf-8");
    success(&[&BILATERAL_GRID_RUN[..], &[out_arg, "--backend", "eval"]].concat());
    assert_npy_close(&out_path, &bilateral_grid_reference(), "evaluator");

    // local_laplacian as specified (8 pyramid levels) with levels = 4 and alpha = 2, on the
    // evaluator (lowering its 88 stages takes minutes): at most 0.1% of the pixels may differ
    // from the reference by more than 1.
    let p = Parameters {
        levels: 4,
        alpha: 2.0,
        beta: 1.0,
    };
    let app = LocalLaplacian::STANDARD;
    let input: Buffer<u16> = app
        .default_inputs(12, 8)
        .expect("the default input")
        .swap_remove(0)
        .try_into()
        .expect("u16 input");
    let want = local_laplacian::reference(&input, p, local_laplacian::J).expect("reference");
    success(&[
        "run",
        "local_laplacian",
        "--backend",
        "eval",
        "--width",
        "12",
        "--height",
        "8",
        "--param",
        "levels=4",
        "--param",
        "alpha=2",
        "--output",
        out_arg,
    ]);
    let got = read_npy::<u16>(&out_path);
    assert_eq!(got.extents(), want.extents());
    let mut far = 0;
    want.for_each_coord(|c| far += usize::from(got.get(c).abs_diff(want.get(c)) > 1));
    assert!(
        far <= want.len() / 1000,
        "{far} pixels differ by more than 1"
    );

    let e = failure(&["bench", "bilateral_grid", "--param", "r_sigma=wide"]);
    assert!(
        e.contains(
            "parameter r_sigma of app bilateral_grid is f32, and `wide` is not a valid f32 value"
        ),
        "{e}"
    );
    let e = failure(&["run", "local_laplacian", "--param", "levels=1.5"]);
    assert!(e.contains("`1.5` is not a valid i32 value"), "{e}");
}

#[test]
fn bilateral_grid_runs_benches_and_lowers_with_its_parameter() {
    let dir = TempDir::new().expect("temp dir");
    let out_path = dir.path().join("out.npy");
    let out_arg = out_path.to_str().expect("utf-8");
    let want = bilateral_grid_reference();
    for backend in ["jit", "interp"] {
        std::fs::remove_file(&out_path).ok();
        success(&[&BILATERAL_GRID_RUN[..], &[out_arg, "--backend", backend]].concat());
        assert_npy_close(&out_path, &want, backend);
    }
    let json = success(&[
        "bench",
        "bilateral_grid",
        "--width",
        "40",
        "--height",
        "24",
        "--param",
        "r_sigma=0.2",
        "--runs",
        "1",
        "--json",
    ]);
    assert!(json.contains("\"app\":\"bilateral_grid\""), "{json}");
    let lowered = success(&["lower", "bilateral_grid", "--schedule", "root"]);
    assert!(lowered.contains("produce histogram"), "{lowered}");
}

#[test]
fn lower_summary_prints_the_loop_structure_alone() {
    // The summary's lines are the full printout's loop, produce/consume and allocation
    // headers, in the same order and nesting, the produces marked with where they are computed.
    let full = success(&["lower", "blur", "--schedule", "tiled"]);
    let summary = success(&["lower", "blur", "--schedule", "tiled", "--summary"]);
    let keywords = ["for ", "parallel for ", "vectorized for ", "unrolled for "];
    let is_header = |l: &&str| {
        let l = l.trim_start();
        keywords
            .iter()
            .chain(&["produce ", "consume ", "alloc ", "realize "])
            .any(|k| l.starts_with(k))
    };
    let headers: Vec<String> = full
        .lines()
        .filter(is_header)
        .map(|l| l.trim_end_matches(" {").to_string())
        .collect();
    let summarized: Vec<&str> = summary
        .lines()
        .map(|l| l.split("  // at ").next().unwrap_or(l))
        .collect();
    assert_eq!(summarized, headers, "{summary}");
    assert!(
        summary.contains("\n      produce blur_x  // at blur_y.s0.x.xo\n"),
        "{summary}"
    );
    assert!(
        summary.starts_with("produce blur_y  // at root\n"),
        "{summary}"
    );

    let e = failure(&["lower", "blur", "--summary", "--emit", "llvm"]);
    assert!(e.contains("'--summary' cannot be used with '--emit"), "{e}");
}

#[test]
fn flags_of_the_jit_backend_are_refused_with_the_others() {
    let size = ["--width", "8", "--height", "8"];
    let e = failure(
        &[
            &["run", "blur", "--backend", "interp", "--threads", "2"],
            &size[..],
        ]
        .concat(),
    );
    assert!(
        e.contains("--threads applies to") && e.contains("not to --backend interp"),
        "{e}"
    );
    let e = failure(
        &[
            &["run", "blur", "--backend", "eval", "--fp-contract"],
            &size[..],
        ]
        .concat(),
    );
    assert!(
        e.contains("--fp-contract applies to") && e.contains("not to --backend eval"),
        "{e}"
    );
    let e = failure(
        &[
            &["run", "blur", "--backend", "interp", "--checked"],
            &size[..],
        ]
        .concat(),
    );
    assert!(
        e.contains("--checked applies to") && e.contains("not to --backend interp"),
        "{e}"
    );
}

#[test]
fn impossible_sizes_and_thread_counts_are_clean_errors() {
    for command in ["run", "bench"] {
        let e = failure(&[
            command,
            "blur",
            "--width",
            "64",
            "--height",
            "64",
            "--threads",
            "100000",
        ]);
        assert!(
            e.contains("--threads 100000") && e.contains("at most 1024"),
            "{e}"
        );
    }
    // 2^40 pixels: refused before anything is allocated (it aborted).
    let e = failure(&["run", "blur", "--width", "1048576", "--height", "1048576"]);
    assert!(
        e.contains("the built-in test image") && e.contains("one buffer may hold"),
        "{e}"
    );
    // The evaluator's memory is estimated before it starts.
    let e = failure(&[
        "run",
        "interpolate",
        "--backend",
        "eval",
        "--width",
        "400",
        "--height",
        "400",
    ]);
    assert!(
        e.contains("about 73728 bytes per output pixel of interpolate")
            && e.contains("pass a smaller --width/--height or use the default JIT backend"),
        "{e}"
    );
}

#[test]
fn the_output_path_is_checked_before_computing() {
    let dir = TempDir::new().expect("temp dir");
    // Evaluating 2000 x 2000 pixels would take minutes: the error comes first.
    let missing = dir.path().join("missing").join("out.npy");
    let e = failure(&[
        "run",
        "blur",
        "--backend",
        "eval",
        "--width",
        "2000",
        "--height",
        "2000",
        "--output",
        missing.to_str().expect("a UTF-8 path"),
    ]);
    assert!(e.contains("missing/out.npy: cannot create"), "{e}");
    // A run that fails after the file was opened leaves no file behind...
    let fresh = dir.path().join("fresh.npy");
    let fresh_arg = fresh.to_str().expect("a UTF-8 path");
    let e = failure(&[
        "run",
        "blur",
        "--schedule",
        "tiled",
        "--width",
        "4",
        "--height",
        "4",
        "--output",
        fresh_arg,
    ]);
    assert!(e.contains("computes outputs of at least"), "{e}");
    assert!(!fresh.exists());
    // ...and an existing file as it was.
    std::fs::write(&fresh, b"kept").expect("write");
    failure(&[
        "run",
        "blur",
        "--schedule",
        "tiled",
        "--width",
        "4",
        "--height",
        "4",
        "--output",
        fresh_arg,
    ]);
    assert_eq!(std::fs::read(&fresh).expect("still there"), b"kept");
}

#[test]
fn output_cut_short_by_its_reader_or_a_full_disk_ends_cleanly() {
    use std::process::Stdio;
    // The reader is gone before `lower` writes (`tessera lower blur | head -0`).
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["lower", "blur"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the tessera binary runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("it ends");
    assert!(
        out.status.success(),
        "{:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let full = std::fs::File::create("/dev/full").expect("Linux has /dev/full");
    let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["lower", "blur"])
        .stdout(full)
        .output()
        .expect("the tessera binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr.trim(),
        "error: cannot write to standard output: No space left on device (os error 28)"
    );
}

#[test]
fn empty_sizes_give_empty_outputs() {
    let dir = TempDir::new().expect("temp dir");
    for backend in ["jit", "interp", "eval"] {
        for app in ["blur", "unsharp"] {
            let path = dir.path().join(format!("{app}-{backend}.npy"));
            let text = success(&[
                "run",
                app,
                "--backend",
                backend,
                "--width",
                "0",
                "--height",
                "3",
                "--output",
                path.to_str().expect("a UTF-8 path"),
            ]);
            assert!(text.contains(": 0 x 3 "), "{text}");
            assert!(
                text.contains("checksum: fnv1a64=cbf29ce484222325 sum=0"),
                "{text}"
            );
            let bytes = std::fs::read(&path).expect("output written");
            let file = npyz::NpyFile::new(&bytes[..]).expect("valid npy");
            assert_eq!(file.len(), 0, "{app} {backend}: {:?}", file.shape());
        }
    }
}

/// Runs a command that must succeed; returns its stderr.
fn success_stderr(args: &[&str]) -> String {
    let out = tessera(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "`tessera {}`: {stderr}",
        args.join(" ")
    );
    stderr
}

#[test]
fn eight_bit_photos_are_converted() {
    let dir = TempDir::new().expect("temp dir");
    let at = |name: &str| dir.path().join(name);
    let arg = |path: &Path| path.to_str().expect("a UTF-8 path").to_string();
    let photo = Buffer::<u8>::from_fn(&[0, 0], &[130, 98], |c| {
        ((c[0] * 37 + c[1] * 11) % 256) as u8
    });
    tessera::io::write_image(&at("photo.png"), &photo.clone().into()).expect("write the photo");

    // blur takes u16: 0..=255 becomes 0..=65535.
    let stderr = success_stderr(&[
        "run",
        "blur",
        "--input",
        &arg(&at("photo.png")),
        "--output",
        &arg(&at("blurred.npy")),
    ]);
    assert!(
        stderr.contains("photo.png is an 8-bit PNG and input `input` of app blur is u16")
            && stderr.contains("257"),
        "{stderr}"
    );
    let widened = Buffer::<u16>::from_fn(&[0, 0], &[130, 98], |c| photo.get(c) as u16 * 257);
    assert_eq!(
        read_npy::<u16>(&at("blurred.npy")),
        blur::reference(&widened)
    );

    // bilateral_grid takes f32: values in [0, 1]; its f32 output goes to a PNG in 8 bits.
    let stderr = success_stderr(&[
        "run",
        "bilateral_grid",
        "--input",
        &arg(&at("photo.png")),
        "--output",
        &arg(&at("smoothed.png")),
    ]);
    assert!(
        stderr.contains(
            "input `input` of app bilateral_grid is f32: its values are scaled to [0, 1]"
        ) && stderr.contains("f32 output is written to")
            && stderr.contains("smoothed.png in 8 bits"),
        "{stderr}"
    );
    let unit = Buffer::<f32>::from_fn(&[0, 0], &[130, 98], |c| photo.get(c) as f32 / 255.0);
    let want = bilateral_grid::reference(&unit, 0.1).expect("the reference runs");
    let got: Buffer<u8> = tessera::io::read_image(&at("smoothed.png"))
        .expect("an 8-bit PNG")
        .try_into()
        .expect("u8");
    assert_eq!(got.extents(), want.extents());
    let mut spread = (u8::MAX, u8::MIN);
    want.for_each_coord(|c| {
        let expected = (want.get(c).clamp(0.0, 1.0) * 255.0).round();
        // Float rounding may put the compiled value on the other side of a half.
        assert!(
            (got.get(c) as f32 - expected).abs() <= 1.0,
            "at {c:?}: {} vs {expected}",
            got.get(c)
        );
        spread = (spread.0.min(got.get(c)), spread.1.max(got.get(c)));
    });
    assert!(spread.1 - spread.0 > 100, "the output spans {spread:?}");

    // An 8-bit .npy is not a photo: a u16 app refuses it, as any wrong type.
    let npy = at("photo.npy");
    write_npy(&npy, &photo, &[98, 130]);
    let e = failure(&["run", "blur", "--input", &arg(&npy)]);
    assert!(e.contains("is u16") && e.contains("holds u8"), "{e}");
}

/// A schedule file (`--schedule FILE.json`) holding the directives of one of blur's named
/// schedules lowers to exactly that schedule's code and computes the same output; a file
/// naming a Func blur lacks, or not a schedule at all, fails with a one-line error naming it.
#[test]
fn a_schedule_file_works_wherever_a_schedule_name_does() {
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("sliding_window.json");
    std::fs::write(
        &file,
        r#"{"directives": [
            {"directive": "vectorize", "func": "blur_y", "var": "x", "width": 32},
            {"directive": "store_root", "func": "blur_x"},
            {"directive": "compute_at", "func": "blur_x", "consumer": "blur_y", "var": "y"},
            {"directive": "vectorize", "func": "blur_x", "var": "x", "width": 32}
        ]}"#,
    )
    .unwrap();
    let file = file.to_str().unwrap();
    assert_eq!(
        success(&["lower", "blur", "--schedule", file]),
        success(&["lower", "blur", "--schedule", "sliding_window"])
    );
    let checksum = |schedule: &str| {
        let out = success(&[
            "run",
            "blur",
            "--schedule",
            schedule,
            "--width",
            "200",
            "--height",
            "90",
        ]);
        out.lines()
            .find(|l| l.starts_with("checksum"))
            .unwrap()
            .to_string()
    };
    assert_eq!(checksum(file), checksum("sliding_window"));
    assert!(success(&[
        "bench",
        "blur",
        "--schedule",
        file,
        "--runs",
        "1",
        "--width",
        "64",
        "--height",
        "64"
    ])
    .contains(file));

    let unknown = dir.path().join("unknown.json");
    std::fs::write(
        &unknown,
        r#"{"directives": [{"directive": "compute_root", "func": "blur_z"}]}"#,
    )
    .unwrap();
    let e = failure(&["run", "blur", "--schedule", unknown.to_str().unwrap()]);
    assert!(
        e.contains("`blur_z`") && e.contains("blur_x, blur_y"),
        "{e}"
    );
    let garbage = dir.path().join("garbage.json");
    std::fs::write(&garbage, "[1, 2]").unwrap();
    let e = failure(&["lower", "blur", "--schedule", garbage.to_str().unwrap()]);
    assert!(
        e.contains("garbage.json") && e.contains("not a valid schedule"),
        "{e}"
    );
    let e = failure(&["bench", "blur", "--schedule", "missing.json"]);
    assert!(e.contains("cannot read schedule file missing.json"), "{e}");
}

#[test]
fn model_check_prints_one_json_object_and_calibrate_writes_a_model() {
    let out = success(&[
        "model-check",
        "blur",
        "--samples",
        "4",
        "--runs",
        "1",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(v["app"], "blur");
    assert_eq!(v["samples"], 4);
    assert_eq!(v["schedules"].as_array().map(Vec::len), Some(4));
    let tau = v["kendall_tau"].as_f64().expect("a tau");
    assert!((-1.0..=1.0).contains(&tau), "{tau}");
    assert!(v["best_ratio"].as_f64().expect("a ratio") >= 1.0);
    assert!(v["auto"]["measured_ms"].as_f64().expect("auto measured") > 0.0);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.json");
    let out = success(&[
        "calibrate",
        "--apps",
        "blur",
        "--samples",
        "3",
        "--runs",
        "1",
        "--out",
        path.to_str().unwrap(),
    ]);
    assert!(out.contains("blur"), "{out}");
    let model = std::fs::read_to_string(&path).unwrap();
    tessera::autoschedule::CostModel::from_json(&model).expect("calibrate writes a cost model");

    assert!(failure(&["model-check", "nope"]).contains("nope"));
    let e = failure(&["calibrate", "--apps", "blur", "--holdout", "blur"]);
    assert!(e.contains("both fitted on"), "{e}");
}

#[test]
fn autoschedule_plans_for_the_caches_given() {
    // The schedule `--caches` makes is the library's for the same cache sizes (both on the
    // host's vectors), whatever this host's caches are.
    let caches = "32K,512K,32M";
    let printed = success(&[
        "autoschedule",
        "interpolate",
        "--threads",
        "2",
        "--caches",
        caches,
        "--json",
    ]);
    let script = tessera::schedule_script::ScheduleScript::from_json(&printed)
        .expect("autoschedule --json prints a schedule");
    let app = tessera_apps::find("interpolate").expect("interpolate is an app");
    let options = tessera::autoschedule::AutoScheduleOptions {
        threads: 2,
        caches: Some(caches.parse().expect("valid cache sizes")),
        ..Default::default()
    };
    let (_, want) = (app.build_auto(options, app.description().default_size))
        .expect("interpolate schedules automatically");
    assert_eq!(script, want.schedule);
    for bad in ["32K,512K", "32K,512K,32Q", "0K,512K,32M"] {
        let e = failure(&["autoschedule", "interpolate", "--caches", bad]);
        assert!(e.contains("cache size"), "{bad}: {e}");
    }
}
