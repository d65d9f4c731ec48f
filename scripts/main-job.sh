#!/usr/bin/env bash
# The main job: installs what the build needs, builds the release `tessera` binary, lists the
# apps and their schedules, runs blur and histeq on their built-in test images at a small size
# with their `manual` schedules on the Stmt interpreter and then with the definition-level
# evaluator (the checksums agree), and prints the loop nest of blur's sliding-window schedule.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="${CARGO_HOME:-${HOME:-/root}/.cargo}/bin:$PATH"
cargo build --release
tessera=target/release/tessera
"$tessera" apps
"$tessera" run blur --schedule manual --width 640 --height 480
"$tessera" run blur --backend eval --width 640 --height 480
"$tessera" run histeq --schedule manual --width 512 --height 512
"$tessera" run histeq --backend eval --width 512 --height 512
"$tessera" lower blur --schedule sliding_window
cargo run --release --quiet -p tessera --example readme_blur
