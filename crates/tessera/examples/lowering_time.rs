//! Lowering time of deep chains of Funcs (for BENCHMARKS.md): Halide's
//! `sliding_window_cascade`, `f[i](x) = f[i-1](x - 1) + f[i-1](min(x + 1, 20))`, each Func
//! stored at root and computed per x of the output, whose x is bounded to [0, 10) — every
//! level slides. Prints, per depth given on the command line (default 10 100 1000), the
//! median lowering time of `--runs` runs (default 3) and the passes that took the most.
//!
//! `cargo run --release --example lowering_time -- 10 100 1000`

use std::time::Duration;

use tessera::lower::LowerOptions;
use tessera::prelude::*;

/// The cascade of `depth` Funcs and its output.
fn cascade(depth: usize) -> Result<Func> {
    let x = Var::new("x");
    let mut levels = vec![Func::new("c0")];
    levels[0].define(x, x)?;
    for i in 1..depth {
        let f = Func::new(&format!("c{i}"));
        let below = &levels[i - 1];
        f.define(x, below.at(x - 1) + below.at(min(x + 1, 20)))?;
        levels.push(f);
    }
    let out = Func::new("out");
    out.define(x, levels[depth - 1].at(x))?;
    for f in &levels {
        f.store_root().compute_at(&out, x);
    }
    out.bound(x, 0, 10);
    Ok(out)
}

fn main() -> std::result::Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut runs = 3;
    if let Some(i) = args.iter().position(|a| a == "--runs") {
        runs = args
            .get(i + 1)
            .and_then(|r| r.parse().ok())
            .filter(|&r| r > 0)
            .ok_or("--runs takes a positive count")?;
        args.drain(i..(i + 2).min(args.len()));
    }
    let depths: Vec<usize> = if args.is_empty() {
        vec![10, 100, 1000]
    } else {
        args.iter()
            .map(|a| a.parse().ok().filter(|&d| d > 0))
            .collect::<Option<_>>()
            .ok_or("depths are positive counts")?
    };
    println!("depth  lowering (median of {runs})  slowest passes");
    for depth in depths {
        let out = cascade(depth)?;
        let mut times = Vec::new();
        let mut passes = Vec::new();
        for _ in 0..runs {
            let lowered = Pipeline::new(&out).lower(&LowerOptions::default())?;
            times.push(lowered.passes.iter().map(|p| p.elapsed).sum::<Duration>());
            passes = lowered.passes;
        }
        times.sort();
        passes.sort_by_key(|p| std::cmp::Reverse(p.elapsed));
        let slowest: Vec<String> = passes
            .iter()
            .take(3)
            .map(|p| format!("{} {:.1} ms", p.name, p.elapsed.as_secs_f64() * 1e3))
            .collect();
        println!(
            "{depth:>5}  {:>10.1} ms  {}",
            times[runs / 2].as_secs_f64() * 1e3,
            slowest.join(", ")
        );
    }
    Ok(())
}
