#!/usr/bin/env bash
# The main job: installs what the build needs, builds the release `tessera` binary, lists the
# apps and runs blur and histeq on their built-in test images at a small size (the
# definition-level evaluator is the only backend so far), printing checksums and times.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="${CARGO_HOME:-${HOME:-/root}/.cargo}/bin:$PATH"
cargo build --release
tessera=target/release/tessera
"$tessera" apps
"$tessera" run blur --width 640 --height 480
"$tessera" run histeq --width 512 --height 512
cargo run --release --quiet -p tessera --example readme_blur
