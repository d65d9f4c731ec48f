#!/usr/bin/env bash
# Runs the whole test suite (unit, integration and CLI tests of every crate, and builds the
# examples), after installing what the build needs. .ci/run runs exactly the same command.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="${CARGO_HOME:-${HOME:-/root}/.cargo}/bin:$PATH"
cargo test --workspace
