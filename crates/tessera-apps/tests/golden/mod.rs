//! Golden files: text a test produces, compared exactly with a file checked in beside the
//! tests, and rewritten instead when `TESSERA_BLESS=1` (as Cranelift's filetests are), so a
//! change to it shows up in review as a diff of that file. A mismatch is reported as a short
//! unified-style diff of the first lines that differ.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The environment variable that rewrites golden files instead of comparing with them.
pub const BLESS_VARIABLE: &str = "TESSERA_BLESS";

/// Lines of unchanged context shown around the first difference.
const CONTEXT_LINES: usize = 3;
/// Lines shown at most on each side of the first difference.
const SHOWN_CHANGED_LINES: usize = 12;

/// Whether this run rewrites golden files (`TESSERA_BLESS=1`).
pub fn blessing() -> bool {
    std::env::var(BLESS_VARIABLE).is_ok_and(|v| v == "1")
}

/// A directory of golden files with one extension, all checked by one test.
pub struct GoldenDir {
    dir: PathBuf,
    extension: &'static str,
    /// The files checked so far, to find the ones nothing checks any more.
    checked: BTreeSet<String>,
    /// One message per file that differs or is missing.
    mismatches: Vec<String>,
}

impl GoldenDir {
    /// The golden files `dir/*.extension`.
    pub fn new(dir: impl Into<PathBuf>, extension: &'static str) -> GoldenDir {
        GoldenDir {
            dir: dir.into(),
            extension,
            checked: BTreeSet::new(),
            mismatches: Vec::new(),
        }
    }

    /// Compares `actual` with golden file `stem.extension`, or rewrites the file when
    /// blessing. A difference is recorded, to be reported by `finish`.
    pub fn check(&mut self, stem: &str, actual: &str) {
        let file = format!("{stem}.{}", self.extension);
        let path = self.dir.join(&file);
        self.checked.insert(file);
        let expected = std::fs::read_to_string(&path).ok();
        if expected.as_deref() == Some(actual) {
            return;
        }
        if blessing() {
            std::fs::create_dir_all(&self.dir)
                .and_then(|()| std::fs::write(&path, actual))
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
            return;
        }
        self.mismatches.push(match expected {
            Some(expected) => format!(
                "{} differs:\n{}",
                path.display(),
                first_difference(&expected, actual)
            ),
            None => format!("{} is missing", path.display()),
        });
    }

    /// Fails with every difference found and every golden file no check read (removing
    /// those instead when blessing).
    pub fn finish(self) {
        let stale_files = self.unchecked_files();
        let mut problems = self.mismatches;
        for stale in stale_files {
            if blessing() {
                std::fs::remove_file(&stale)
                    .unwrap_or_else(|e| panic!("cannot remove {}: {e}", stale.display()));
            } else {
                problems.push(format!("{} is checked by no test", stale.display()));
            }
        }
        assert!(
            problems.is_empty(),
            "{} golden file(s) out of date (re-run with {BLESS_VARIABLE}=1 to rewrite them, \
             then review the diff):\n\n{}",
            problems.len(),
            problems.join("\n\n")
        );
    }

    /// The files of the directory with the extension that no `check` named.
    fn unchecked_files(&self) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut stale: Vec<PathBuf> = entries
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| has_extension(path, self.extension))
            .filter(|path| {
                let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
                !self.checked.contains(name)
            })
            .collect();
        stale.sort();
        stale
    }
}

fn has_extension(path: &Path, extension: &str) -> bool {
    path.extension().is_some_and(|e| e == extension)
}

/// A unified-style diff of the first run of lines that differ between `expected` and
/// `actual`: a hunk header, a few unchanged lines before it, then at most
/// `SHOWN_CHANGED_LINES` removed and added lines (the rest of the run elided).
pub fn first_difference(expected: &str, actual: &str) -> String {
    let old: Vec<&str> = expected.lines().collect();
    let new: Vec<&str> = actual.lines().collect();
    let common_start = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    // The run ends where the two texts agree again to their ends.
    let common_end = old[common_start..]
        .iter()
        .rev()
        .zip(new[common_start..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let removed = &old[common_start..old.len() - common_end];
    let added = &new[common_start..new.len() - common_end];
    let context_start = common_start.saturating_sub(CONTEXT_LINES);
    let mut diff = format!(
        "@@ -{},{} +{},{} @@\n",
        context_start + 1,
        common_start - context_start + removed.len(),
        context_start + 1,
        common_start - context_start + added.len()
    );
    for line in &old[context_start..common_start] {
        diff.push_str(&format!(" {line}\n"));
    }
    for (sign, lines) in [('-', removed), ('+', added)] {
        for line in lines.iter().take(SHOWN_CHANGED_LINES) {
            diff.push_str(&format!("{sign}{line}\n"));
        }
        if lines.len() > SHOWN_CHANGED_LINES {
            diff.push_str(&format!(
                "{sign}... ({} more lines)\n",
                lines.len() - SHOWN_CHANGED_LINES
            ));
        }
    }
    if removed.is_empty() && added.is_empty() {
        diff.push_str("(the texts differ only in their final newline)\n");
    }
    diff
}
