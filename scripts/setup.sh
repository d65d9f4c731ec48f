#!/usr/bin/env bash
# Installs what building Tessera needs, and nothing else. Idempotent: when everything is
# present it only checks. Runs unattended (CI=true, no stdin) as root, or through sudo.
#   - the Rust toolchain (cargo); installed with rustup only if there is none at all;
#   - LLVM 19 development files (llvm-config-19), for the native backend: apt's llvm-19-dev.
set -euo pipefail

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        echo "setup: '$*' needs root; run this script as root or install sudo" >&2
        exit 1
    fi
}

export PATH="${CARGO_HOME:-${HOME:-/root}/.cargo}/bin:$PATH"
if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: no Rust toolchain found; installing one with rustup" >&2
    if ! command -v curl >/dev/null 2>&1; then
        as_root env DEBIAN_FRONTEND=noninteractive apt-get update
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y curl ca-certificates
    fi
    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
fi

if ! command -v llvm-config-19 >/dev/null 2>&1; then
    echo "setup: llvm-config-19 not found; installing llvm-19-dev" >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y llvm-19-dev
fi

echo "setup: $(cargo --version), LLVM $(llvm-config-19 --version)"
