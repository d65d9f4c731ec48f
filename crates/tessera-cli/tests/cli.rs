//! The `tessera` binary as a user runs it: `apps` lists every app, `run` evaluates an app on
//! its built-in image or an `.npy` file and writes `.npy` output equal to the plain-Rust
//! reference, and every kind of bad input fails with a one-line error and a non-zero exit.

use std::path::Path;
use std::process::{Command, Output};

use npyz::WriterBuilder;
use tempfile::TempDir;
use tessera::prelude::*;
use tessera_apps::layout::{file_order_values, from_file_order};
use tessera_apps::{blur, checksum, histeq, App};

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
    assert!(lines[0].contains("u16 grayscale, (W+2) x (H+2)"), "{text}");
    assert!(
        lines[1].starts_with("histeq") && lines[1].contains(" 5 stages"),
        "{text}"
    );
}

#[test]
fn run_built_in_image_prints_the_reference_checksum() {
    let dir = TempDir::new().expect("temp dir");
    let out_path = dir.path().join("blur.npy");
    let out = tessera(&[
        "run",
        "blur",
        "--width",
        "12",
        "--height",
        "7",
        "--output",
        out_path.to_str().expect("utf-8"),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let input = tessera_apps::blur::Blur.default_input(12, 7);
    let want = tessera_apps::blur::Blur
        .reference(&input, &[])
        .expect("reference");
    let text = stdout(&out);
    assert!(
        text.starts_with("blur: 12 x 7 u16 output from the built-in test image"),
        "{text}"
    );
    assert!(
        text.contains(&format!("fnv1a64={:016x}", checksum::fnv1a64(&want))),
        "{text}"
    );
    let got: AnyBuffer = read_npy::<u16>(&out_path).into();
    assert_eq!(checksum::fnv1a64(&got), checksum::fnv1a64(&want));
}

#[test]
fn run_reads_and_writes_npy_files() {
    let dir = TempDir::new().expect("temp dir");
    let (in_path, out_path) = (dir.path().join("in.npy"), dir.path().join("out.npy"));
    let input = Buffer::<u8>::from_fn(&[0, 0], &[9, 5], |c| (c[0] * 29 + c[1] * 7) as u8 % 50);
    write_npy(&in_path, &input, &[5, 9]);
    let out = tessera(&[
        "run",
        "histeq",
        "--input",
        in_path.to_str().expect("utf-8"),
        "--output",
        out_path.to_str().expect("utf-8"),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(read_npy::<u8>(&out_path), histeq::reference(&input));

    let blur_in = Buffer::<u16>::from_fn(&[0, 0], &[6, 4], |c| (c[0] * 1000 + c[1] * 77) as u16);
    write_npy(&in_path, &blur_in, &[4, 6]);
    let out = tessera(&[
        "run",
        "blur",
        "--input",
        in_path.to_str().expect("utf-8"),
        "--output",
        out_path.to_str().expect("utf-8"),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(read_npy::<u16>(&out_path), blur::reference(&blur_in));
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
        &Buffer::<u16>::new(&[2, 6]),
        &[6, 2],
    );

    let e = failure(&["run", "blur", "--input", &path("missing.npy")]);
    assert!(e.contains("missing.npy: cannot open"), "{e}");
    let e = failure(&["run", "blur", "--input", &path("junk.npy")]);
    assert!(e.contains("junk.npy: not a valid .npy file"), "{e}");
    let e = failure(&["run", "blur", "--input", &path("float.npy")]);
    assert!(
        e.contains("float.npy") && e.contains("takes u16 input but the input holds f32"),
        "{e}"
    );
    let e = failure(&["run", "blur", "--input", &path("small.npy")]);
    assert!(
        e.contains("small.npy") && e.contains("too small for app blur"),
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
    let e = failure(&["run", "blur", "--width", "4"]);
    assert!(e.contains("--height"), "{e}");
    let e = failure(&["run", "blur", "--width", "0", "--height", "4"]);
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
