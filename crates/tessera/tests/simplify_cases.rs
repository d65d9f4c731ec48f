//! The simplifier's text test cases: every `tests/simplify_cases/*.txt` file is a list of
//! `input => expected` lines in the rule language (`simplify/rules.rs`), read by the same
//! parser as the rules. A line `type T` sets the type of the variables `x`, `y`, `z`, `w`,
//! `u`, `v` and of the literals on the lines after it (`i32` until the first such line);
//! `input => unchanged` says the input must come back as it is; `#` starts a comment.
//! Expected outputs are written in the simplifier's canonical form: a constant offset of a
//! signed integer is added (`x + -1`, which the printer shows as `x - 1`).

use std::path::Path;

use tessera::ir::{Expr, Type};
use tessera::simplify::{parse_expr, simplify};

fn parse_type(name: &str) -> Option<Type> {
    Some(match name {
        "bool" => Type::bool_(),
        "f32" => Type::f32(),
        "f64" => Type::f64(),
        _ => {
            let (unsigned, bits) = if let Some(b) = name.strip_prefix('u') {
                (true, b)
            } else {
                (false, name.strip_prefix('i')?)
            };
            let bits: u8 = bits.parse().ok()?;
            if ![8, 16, 32, 64].contains(&bits) {
                return None;
            }
            if unsigned {
                Type::uint(bits)
            } else {
                Type::int(bits)
            }
        }
    })
}

/// One case of a file: where it is, its input and what it must simplify to.
struct Case {
    line: usize,
    input: Expr,
    expected: Expr,
}

fn parse_file(text: &str) -> Result<Vec<Case>, String> {
    let mut ty = Type::i32();
    let mut cases = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        let at = |err: String| format!("line {}: {err}", i + 1);
        if line.is_empty() {
            continue;
        }
        if let Some(name) = line.strip_prefix("type ") {
            ty = parse_type(name.trim()).ok_or_else(|| at(format!("unknown type `{name}`")))?;
            continue;
        }
        let (input, expected) = line
            .split_once("=>")
            .ok_or_else(|| at("expected `input => expected`".to_string()))?;
        let input = parse_expr(input, ty).map_err(at)?;
        let expected = match expected.trim() {
            "unchanged" => input.clone(),
            text => parse_expr(text, ty).map_err(at)?,
        };
        cases.push(Case {
            line: i + 1,
            input,
            expected,
        });
    }
    Ok(cases)
}

#[test]
fn simplify_cases() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/simplify_cases");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/simplify_cases exists")
        .map(|entry| entry.expect("readable directory").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no case files in {}", dir.display());
    let mut failures = Vec::new();
    let mut total = 0;
    for path in &files {
        let name = path.file_name().expect("a file").to_string_lossy();
        let text = std::fs::read_to_string(path).expect("readable case file");
        let cases = parse_file(&text).unwrap_or_else(|err| panic!("{name}: {err}"));
        total += cases.len();
        for case in cases {
            let got = simplify(&case.input);
            if got != case.expected {
                failures.push(format!(
                    "{name}:{}: {}\n    gave     {got}\n    expected {}",
                    case.line, case.input, case.expected
                ));
            }
        }
    }
    assert!(total > 0, "the case files hold no cases");
    assert!(
        failures.is_empty(),
        "{} of {total} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn malformed_case_lines_are_reported_with_their_line() {
    let err = |text: &str| parse_file(text).err().unwrap_or_default();
    assert!(err("x + 1 => x\nx +").starts_with("line 2:"));
    assert!(err("type i7\nx => x").contains("unknown type"));
    assert!(err("x + c0 => x").contains("only meaningful in a rule"));
    assert_eq!(
        parse_file("# nothing\n\ntype u8\nx => unchanged")
            .unwrap()
            .len(),
        1
    );
}
