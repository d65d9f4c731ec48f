//! `tessera lower APP [--schedule S] [--passes] [--emit stmt|llvm|asm] [--summary]`: the loop
//! nest an app's pipeline lowers to under a schedule, as pseudo-code (or the LLVM IR or host
//! assembly the native backend makes of it, or with `--summary` the loop structure alone).
//! With `--passes`, the statement after every lowering pass comes first, each under a header
//! naming the pass and its time, and a table of the pass times last. With `--rule-report`
//! (where APP and S may be `all`) it lowers instead and reports which simplifier rules never
//! fired.

use clap::{Args, ValueEnum};
use tessera::codegen::{emit_assembly, emit_llvm_ir};
use tessera::pipeline::signature;
use tessera::{LowerOptions, Lowered, Target};

use crate::run::DEFAULT_SCHEDULE;
use crate::write_stdout;

#[derive(Args)]
pub struct LowerArgs {
    /// The app to lower (`tessera apps` lists them).
    app: String,
    /// The schedule: one of the app's (`tessera apps` lists them) or a schedule file
    /// (`FILE.json`).
    #[arg(long, default_value = DEFAULT_SCHEDULE)]
    schedule: String,
    /// Print the statement after every lowering pass, and the time each pass took.
    #[arg(long)]
    passes: bool,
    /// What to print: the lowered loop nest, the optimized LLVM IR, or the host assembly.
    #[arg(long, value_enum, default_value_t = Emit::Stmt)]
    emit: Emit,
    /// Print only the loop structure: loops, produce/consume, allocations and compute points.
    #[arg(long, conflicts_with = "emit")]
    summary: bool,
    /// Lower only, then list the simplifier rules that never fired; APP and the schedule may
    /// be `all`.
    #[arg(long, conflicts_with_all = ["emit", "summary", "passes"])]
    rule_report: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum Emit {
    Stmt,
    Llvm,
    Asm,
}

pub fn lower(args: &LowerArgs) -> Result<(), String> {
    if args.rule_report {
        return rule_report(args);
    }
    let app = tessera_apps::find(&args.app).map_err(|e| e.to_string())?;
    let options = LowerOptions {
        record_ir: args.passes,
        ..LowerOptions::default()
    };
    let lowered = app
        .lower_with(&args.schedule, &options)
        .map_err(|e| e.to_string())?;
    let lowered = &lowered.lowered;
    let (target, name) = (Target::host(), app.name());
    let text = match args.emit {
        Emit::Stmt if args.summary => Ok(lowered.loop_nest()),
        // The statement after the last pass is the final one: printed once, as that pass's.
        Emit::Stmt if args.passes => Ok(String::new()),
        Emit::Stmt => Ok(lowered.stmt.to_string()),
        Emit::Llvm => emit_llvm_ir(&lowered.stmt, &signature(lowered), &target, name),
        Emit::Asm => emit_assembly(&lowered.stmt, &signature(lowered), &target, name),
    };
    let text = text.map_err(|e| e.to_string())?;
    if args.passes {
        print_statement_after_every_pass(lowered)?;
    }
    write_stdout(format_args!("{text}"))?;
    if args.passes {
        outln!(
            "\nlowering passes of {} (schedule {}):",
            app.name(),
            args.schedule
        )?;
        write_stdout(format_args!("{}", lowered.pass_timings()))?;
    }
    Ok(())
}

/// Each pass's statement (`LowerOptions::record_ir`) under a header line
/// `=== after PASS (T ms) ===`; passes that build no statement (realization order) are left out.
fn print_statement_after_every_pass(lowered: &Lowered) -> Result<(), String> {
    for pass in &lowered.passes {
        if let Some(stmt) = &pass.ir {
            outln!(
                "=== after {} ({:.3} ms) ===",
                pass.name,
                pass.elapsed.as_secs_f64() * 1e3
            )?;
            write_stdout(format_args!("{stmt}"))?;
        }
    }
    Ok(())
}

/// Lowers the chosen apps under the chosen schedules, then prints how many simplifier rules
/// fired and lists those that never did.
fn rule_report(args: &LowerArgs) -> Result<(), String> {
    let apps = match args.app.as_str() {
        "all" => tessera_apps::apps().to_vec(),
        name => vec![tessera_apps::find(name).map_err(|e| e.to_string())?],
    };
    let mut lowered = 0;
    for app in apps {
        let schedules: Vec<&str> = match args.schedule.as_str() {
            "all" => app.schedules().iter().map(|s| s.name).collect(),
            name => vec![name],
        };
        for schedule in schedules {
            app.lower(schedule).map_err(|e| e.to_string())?;
            lowered += 1;
        }
    }
    let firings = tessera::simplify::rule_firings();
    let never: Vec<_> = firings.iter().filter(|r| r.count == 0).collect();
    outln!(
        "{} of {} simplifier rules fired over {lowered} lowerings; never fired:",
        firings.len() - never.len(),
        firings.len()
    )?;
    for r in never {
        outln!("  {}: {}", r.family, r.rule)?;
    }
    Ok(())
}
