//! `tessera run APP`: evaluates an app with the definition-level evaluator on an input file or
//! the app's built-in test image, optionally writes the output, and prints its checksum and
//! the evaluation time.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use tessera::prelude::*;
use tessera_apps::params::parse_assignment;
use tessera_apps::{checksum, App};

use crate::io::{self, Format};

#[derive(Args)]
pub struct RunArgs {
    /// The app to run (`tessera apps` lists them).
    app: String,
    /// Input image (.npy or .png). Default: the app's built-in test image.
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,
    /// Where to write the output (.npy or .png).
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// A runtime parameter of the app (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    params: Vec<String>,
    /// Output width for the built-in test image (default: the app's benchmark size).
    #[arg(long, requires = "height", conflicts_with = "input",
          value_parser = clap::value_parser!(i64).range(1..=1 << 20))]
    width: Option<i64>,
    /// Output height for the built-in test image.
    #[arg(long, requires = "width", conflicts_with = "input",
          value_parser = clap::value_parser!(i64).range(1..=1 << 20))]
    height: Option<i64>,
}

/// Output sizes above this many pixels take the definition-level evaluator minutes.
const SLOW_PIXELS: i64 = 1 << 20;

pub fn run(args: &RunArgs) -> Result<(), String> {
    let app = tessera_apps::find(&args.app).map_err(|e| e.to_string())?;
    let params = args
        .params
        .iter()
        .map(|a| parse_assignment(app.name(), &app.params(), a))
        .collect::<Result<Vec<_>>>()
        .map_err(|e| e.to_string())?;
    if let Some(path) = &args.output {
        check_output_path(app, path).map_err(|e| e.to_string())?;
    }

    let (input, source) = match &args.input {
        Some(path) => (
            io::read_image(path).map_err(|e| e.to_string())?,
            path.display().to_string(),
        ),
        None => {
            let (w, h) = match (args.width, args.height) {
                (Some(w), Some(h)) => (w, h),
                _ => app.default_size(),
            };
            (
                app.default_input(w, h),
                "the built-in test image".to_string(),
            )
        }
    };
    let (_, extents) = app
        .check_input(&input)
        .map_err(|e| format!("{source}: {e}"))?;
    let pixels: i64 = extents.iter().product();
    if pixels > SLOW_PIXELS {
        eprintln!(
            "note: the definition-level evaluator is slow (no compiled backend yet); {} pixels may take minutes. Pass --width/--height for a quick run.",
            pixels
        );
    }

    let start = Instant::now();
    let output = app.evaluate(&input, &params).map_err(|e| e.to_string())?;
    let seconds = start.elapsed().as_secs_f64();
    if let Some(path) = &args.output {
        io::write_image(path, &output).map_err(|e| e.to_string())?;
    }

    let size: Vec<String> = extents.iter().map(i64::to_string).collect();
    println!(
        "{}: {} {} output from {source}, evaluated in {seconds:.3} s (definition-level evaluator)",
        app.name(),
        size.join(" x "),
        output.ty()
    );
    println!(
        "checksum: fnv1a64={:016x} sum={}",
        checksum::fnv1a64(&output),
        checksum::sum(&output)
    );
    Ok(())
}

/// Fails early (before a long evaluation) when the output could not be written there.
fn check_output_path(app: &dyn App, path: &std::path::Path) -> Result<()> {
    let format = Format::of(path)?;
    let ty = app
        .build()?
        .output
        .output_type()
        .expect("internal error: an app's output Func is defined");
    format.check_type(path, ty)
}
