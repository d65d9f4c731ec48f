//! `rust-blur [--width W --height H] [--threads N] [--runs R] [--json]`: times the hand-written
//! blur like `tessera bench` times a pipeline (one untimed run, then R timed runs into the same
//! output; median and minimum), on a deterministic 12-bit input.

use std::time::Instant;

fn usage() -> ! {
    eprintln!("usage: rust-blur [--width W --height H] [--threads N] [--runs R] [--json]");
    std::process::exit(2)
}

fn main() {
    let (mut width, mut height, mut threads, mut runs, mut json) = (6400, 4800, 0, 10, false);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut number = || -> usize {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| usage())
        };
        match flag.as_str() {
            "--width" => width = number(),
            "--height" => height = number(),
            "--threads" => threads = number(),
            "--runs" => runs = number().max(1),
            "--json" => json = true,
            _ => usage(),
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap_or_else(|e| {
            eprintln!("cannot start {threads} threads: {e}");
            std::process::exit(1)
        });
    let threads = pool.current_num_threads();
    // A fixed xorshift sequence of 12-bit values (the spec's test inputs cannot overflow u16).
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let input: Vec<u16> = (0..(width + 2) * (height + 2))
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 52) as u16
        })
        .collect();
    let mut output = vec![0u16; width * height];
    let mut run = || pool.install(|| rust_blur::blur(&input, &mut output, width, height));
    run();
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let median = if runs % 2 == 1 {
        times[runs / 2]
    } else {
        (times[runs / 2 - 1] + times[runs / 2]) / 2.0
    };
    let min = times[0];
    if json {
        println!("{{\"impl\":\"rust\",\"app\":\"blur\",\"width\":{width},\"height\":{height},\"threads\":{threads},\"median_ms\":{median:.3},\"min_ms\":{min:.3},\"runs\":{runs}}}");
    } else {
        println!("rust blur ({width} x {height}, {threads} threads): median {median:.3} ms, min {min:.3} ms over {runs} runs");
    }
}
