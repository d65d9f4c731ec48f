//! `tessera lower APP [--schedule S] [--passes]`: the loop nest an app's pipeline lowers to
//! under a schedule, as pseudo-code, optionally followed by the time each lowering pass took.

use clap::Args;

use crate::run::DEFAULT_SCHEDULE;

#[derive(Args)]
pub struct LowerArgs {
    /// The app to lower (`tessera apps` lists them).
    app: String,
    /// The schedule (`tessera apps` lists each app's).
    #[arg(long, default_value = DEFAULT_SCHEDULE)]
    schedule: String,
    /// Also print the time each lowering pass took.
    #[arg(long)]
    passes: bool,
}

pub fn lower(args: &LowerArgs) -> Result<(), String> {
    let app = tessera_apps::find(&args.app).map_err(|e| e.to_string())?;
    let lowered = app.lower(&args.schedule).map_err(|e| e.to_string())?;
    print!("{}", lowered.lowered.stmt);
    if args.passes {
        println!(
            "\nlowering passes of {} (schedule {}):",
            app.name(),
            args.schedule
        );
        print!("{}", lowered.lowered.pass_timings());
    }
    Ok(())
}
