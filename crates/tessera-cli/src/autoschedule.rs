//! `tessera autoschedule APP`: schedules an app automatically (PolyMage-DP's dynamic
//! programming, or PolyMage's greedy grouping with `--algorithm greedy`) for an output size
//! and thread count, and prints the schedule as Rust code, the groups with their predicted
//! times, and the search time — or, with `--json`, exactly one JSON object on stdout that
//! `tessera run|bench APP --schedule FILE.json` loads (the DESIGN.md contract). `--caches`
//! makes the schedule for another machine's cache sizes than the host's. Nothing is
//! compiled or measured.

use clap::Args;
use tessera::autoschedule::{Algorithm, AutoScheduleOptions, Caches, Ingredients};

#[derive(Args)]
pub struct AutoscheduleArgs {
    /// The app to schedule (`tessera apps` lists them).
    app: String,
    /// The search: dp (PolyMage-DP's dynamic programming) or greedy (PolyMage's grouping).
    #[arg(long, default_value = "dp")]
    algorithm: String,
    /// The threads the schedule is made for (default: one per core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    threads: usize,
    /// Output width the schedule is made for (default: the app's benchmark size).
    #[arg(long, requires = "height", value_parser = clap::value_parser!(i64).range(1..=1 << 20))]
    width: Option<i64>,
    /// Output height the schedule is made for.
    #[arg(long, requires = "width", value_parser = clap::value_parser!(i64).range(1..=1 << 20))]
    height: Option<i64>,
    /// Parts of the space to leave out, comma-separated (inlining, fusion, overlapped_tiles,
    /// sliding_windows, size_refinement, wrappers, parity_unrolling, rfactor, wide_vectors):
    /// what each is worth, as in PolyMage-DP's Table 8.
    #[arg(long, value_name = "NAMES", default_value = "")]
    without: String,
    /// The data cache sizes to schedule for, L1d,L2 per core and the usable L3 (e.g.
    /// 32K,512K,32M), instead of the host's.
    #[arg(long, value_name = "L1,L2,L3")]
    caches: Option<String>,
    /// Print one JSON object (schedule, groups, search_ms) instead of text.
    #[arg(long)]
    json: bool,
}

pub fn autoschedule(args: &AutoscheduleArgs) -> Result<(), String> {
    let app = tessera_apps::find(&args.app).map_err(|e| e.to_string())?;
    let algorithm: Algorithm = args
        .algorithm
        .parse()
        .map_err(|e: tessera::Error| e.to_string())?;
    let threads = match args.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let size = args
        .width
        .zip(args.height)
        .unwrap_or(app.description().default_size);
    let ingredients = Ingredients::without(&args.without).map_err(|e| e.to_string())?;
    let caches = (args.caches.as_deref())
        .map(str::parse::<Caches>)
        .transpose()
        .map_err(|e| e.to_string())?;
    let options = AutoScheduleOptions {
        algorithm,
        threads,
        ingredients,
        caches,
        ..AutoScheduleOptions::default()
    };
    let (_, schedule) = app.build_auto(options, size).map_err(|e| e.to_string())?;
    if args.json {
        return outln!("{}", schedule.to_json());
    }
    let without = ingredients.missing();
    let without = match without.is_empty() {
        true => String::new(),
        false => format!(" without {}", without.join(", ")),
    };
    outln!(
        "// {} scheduled by {}{without} for {} x {} on {threads} threads in {:.1} ms; predicted {:.3} ms",
        app.name(),
        args.algorithm,
        size.0,
        size.1,
        schedule.search_ms,
        schedule.predicted_ms
    )?;
    if !schedule.inlined.is_empty() {
        outln!("// inlined: {}", schedule.inlined.join(", "))?;
    }
    for g in &schedule.groups {
        let members = match g.members.is_empty() {
            true => String::new(),
            false => format!(" with {}", g.members.join(", ")),
        };
        outln!(
            "// group {}{members}: {}, predicted {:.3} ms",
            g.output,
            g.strategy,
            g.predicted_ms
        )?;
    }
    outln!("{}", schedule.to_rust().trim_end())
}
