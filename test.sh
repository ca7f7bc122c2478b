#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run calls this script):
#  1. the Rust workspace: cargo test --release --workspace
#  2. the Python package: a virtual environment in target/pyenv with
#     numpy, pandas, pytest, dask[distributed] (and ray when it installs),
#     mbsolve installed with the README's command (pip install ./crates/python,
#     a release build by maturin), then pytest crates/python/tests.
set -euo pipefail
cd "$(dirname "$0")"
cargo test --release --workspace

venv="${MBSOLVE_VENV:-target/pyenv}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" || {
        echo "cannot create a Python virtual environment (on Debian/Ubuntu: apt-get install python3-venv)" >&2
        exit 1
    }
fi
"$venv/bin/python" -m pip install -q numpy pandas pytest "dask[distributed]"
"$venv/bin/python" -m pip install -q ray || echo "ray did not install: its test is skipped"
"$venv/bin/python" -m pip install -q --force-reinstall --no-deps ./crates/python
MBSOLVE_BIN="$PWD/target/release/mbsolve" "$venv/bin/python" -m pytest -q -rs crates/python/tests
