//! README.md stays true to the repository: its example is exactly the code of
//! `crates/tessera/examples/readme_blur.rs` (which `cargo test` compiles), and `.ci/run` runs
//! exactly the test command README.md gives (itself or through a script it runs).

use std::path::Path;

fn repo_file(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// The lines `.ci/run` runs: its own, and those of the scripts it runs with `bash SCRIPT`.
fn ci_lines() -> Vec<String> {
    let mut lines = Vec::new();
    for line in repo_file(".ci/run").lines().map(str::trim) {
        match line.strip_prefix("bash ") {
            Some(script) => lines.extend(repo_file(script).lines().map(|l| l.trim().to_string())),
            None => lines.push(line.to_string()),
        }
    }
    lines
}

#[test]
fn readme_example_is_the_compiled_example() {
    let readme = repo_file("README.md");
    let example = repo_file("crates/tessera/examples/readme_blur.rs");
    let code = example
        .find("use tessera::")
        .map(|start| &example[start..])
        .expect("the example imports tessera");
    assert!(
        readme.contains(&format!("```rust\n{code}```")),
        "README.md's example differs from crates/tessera/examples/readme_blur.rs"
    );
}

#[test]
fn ci_runs_the_readme_test_command() {
    let readme = repo_file("README.md");
    let start = readme
        .find("cargo test")
        .expect("README.md gives a cargo test command");
    let command = readme[start..].split('`').next().expect("command text");
    assert!(
        ci_lines().iter().any(|l| l == command),
        "README.md's test command `{command}` is not a line of .ci/run or of a script it runs"
    );
}
