//! The `tessera` command (the project's command-line contract): `tessera apps` lists the
//! built-in pipelines and their schedules, `tessera run` computes one with a schedule (or the
//! definition-level evaluator), `tessera lower` prints its lowered loop nest, `tessera bench`
//! times its compiled code, `tessera autoschedule` schedules one automatically, and `tessera
//! model-check` and `tessera calibrate` check and fit the scheduler's cost model. Every failure
//! ends the process with a one-line `error: ...` on stderr and a non-zero exit code (2 for a
//! malformed command line, 1 for anything else). Output cut short by its reader (`tessera
//! lower APP | head`) ends the process quietly with code 0.

/// `println!` for command output: returns an error instead of panicking when standard
/// output cannot be written (see `write_stdout`).
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

mod autoschedule;
mod bench;
mod calibrate;
mod inputs;
mod lower;
mod model_check;
mod run;
mod sampling;

use std::io::Write;
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "tessera",
    version,
    about = "Tessera: image-processing pipelines in the Halide lineage"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the built-in apps: name, stage count, inputs, parameters, schedules.
    Apps,
    /// Compute an app on an image file or its built-in test image; print the output's
    /// checksum and the time taken.
    Run(run::RunArgs),
    /// Print an app's lowered loop nest under a schedule.
    Lower(lower::LowerArgs),
    /// Compile an app once and time repeated runs (median and minimum).
    Bench(bench::BenchArgs),
    /// Schedule an app automatically and print the schedule, its groups with their
    /// predicted times, and the search time.
    Autoschedule(autoschedule::AutoscheduleArgs),
    /// Check the cost model: measure random schedules of an app and print the rank
    /// correlation (Kendall's tau) of predicted and measured times.
    ModelCheck(model_check::ModelCheckArgs),
    /// Fit the cost model's coefficients to measured random schedules of apps and write
    /// them as JSON (read through TESSERA_COST_MODEL).
    Calibrate(calibrate::CalibrateArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            e.exit()
        }
        Err(e) => {
            eprintln!("{}", one_line(&e.to_string()));
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Apps => list_apps(),
        Command::Run(args) => run::run(&args),
        Command::Lower(args) => lower::lower(&args),
        Command::Bench(args) => bench::bench(&args),
        Command::Autoschedule(args) => autoschedule::autoschedule(&args),
        Command::ModelCheck(args) => model_check::model_check(&args),
        Command::Calibrate(args) => calibrate::calibrate(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {}", one_line(&message));
            ExitCode::FAILURE
        }
    }
}

/// Writes `text` to standard output. A reader that stopped reading (`| head`) ends the
/// process with success, as it ends other Unix filters: everything it wanted was written.
/// Any other failure (a full disk) is an error.
pub fn write_stdout(text: std::fmt::Arguments) -> Result<(), String> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_fmt(text).and_then(|()| stdout.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => Err(format!("cannot write to standard output: {e}")),
    }
}

/// A multi-line message (clap's usage errors) as one line: the lines before the usage
/// summary, joined.
fn one_line(message: &str) -> String {
    let lines: Vec<&str> = message
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:"))
        .filter(|l| !l.is_empty())
        .collect();
    lines.join(" ")
}

fn list_apps() -> Result<(), String> {
    for app in tessera_apps::apps() {
        outln!("{}", app.listing().map_err(|e| e.to_string())?)?;
    }
    Ok(())
}
