//! Which file gives which input image of an app, from `--input` arguments (as `tessera run`
//! and `bench` take them): `NAME=FILE` for any app, or a bare `FILE` for an app with one
//! input. Every input must be given exactly once, or none (the built-in test images).

use tessera::{Error, Result};

use crate::description::AppDescription;

/// The file of each input of the app `description` describes, in its declared order, from
/// `arguments` (each `NAME=FILE`, or `FILE` for a one-input app); `None` when there are no
/// arguments. An argument is `NAME=FILE` when the text before its first `=` is a name
/// (letters, digits and `_`, not starting with a digit); a path such as `./a=b.npy` is a
/// bare `FILE`.
pub fn input_files<'a>(
    description: &AppDescription,
    arguments: &'a [String],
) -> Result<Option<Vec<&'a str>>> {
    if arguments.is_empty() {
        return Ok(None);
    }
    let app = description.name;
    let names: Vec<&str> = description.inputs.iter().map(|i| i.name).collect();
    let mut files: Vec<Option<&'a str>> = vec![None; names.len()];
    for argument in arguments {
        let (index, file) = match named(argument) {
            Some((name, file)) => {
                let index = names.iter().position(|&n| n == name).ok_or_else(|| {
                    Error::Definition(format!(
                        "app {app} has no input `{name}` (--input {argument}); its inputs are {}",
                        names.join(", ")
                    ))
                })?;
                (index, file)
            }
            None if names.len() == 1 => (0, argument.as_str()),
            None => {
                return Err(Error::Definition(format!(
                    "app {app} takes {} inputs ({}): give each as --input NAME=FILE, not --input {argument}",
                    names.len(),
                    names.join(", ")
                )))
            }
        };
        if file.is_empty() {
            return Err(Error::Definition(format!(
                "--input {argument} names no file for input `{}` of app {app}",
                names[index]
            )));
        }
        if let Some(earlier) = files[index].replace(file) {
            return Err(Error::Definition(format!(
                "input `{}` of app {app} is given twice (files {earlier} and {file})",
                names[index]
            )));
        }
    }
    let missing: Vec<&str> = names
        .iter()
        .zip(&files)
        .filter(|(_, file)| file.is_none())
        .map(|(&name, _)| name)
        .collect();
    if !missing.is_empty() {
        let (inputs, are) = if missing.len() == 1 {
            ("input", "is")
        } else {
            ("inputs", "are")
        };
        return Err(Error::Definition(format!(
            "{inputs} `{}` of app {app} {are} not given: give every input as --input NAME=FILE ({}), or none for the built-in test images",
            missing.join("`, `"),
            names.join(", ")
        )));
    }
    Ok(Some(files.into_iter().flatten().collect()))
}

/// `argument` split into `(NAME, FILE)` when it is of the form `NAME=FILE`.
fn named(argument: &str) -> Option<(&str, &str)> {
    let (name, file) = argument.split_once('=')?;
    let mut chars = name.chars();
    let starts_a_name = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    (starts_a_name && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')).then_some((name, file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_identifiers_and_paths_are_not() {
        assert_eq!(named("img1=a.npy"), Some(("img1", "a.npy")));
        assert_eq!(named("_x=a=b.npy"), Some(("_x", "a=b.npy")));
        assert_eq!(named("./a=b.npy"), None);
        assert_eq!(named("1a=b.npy"), None);
        assert_eq!(named("a.npy"), None);
    }
}
