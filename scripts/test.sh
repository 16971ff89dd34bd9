#!/usr/bin/env bash
# Sets up .venv and runs the whole test suite: lint, pytest (2 workers).
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS=${EXTRAS:-dev,train,eval,bench} ./scripts/setup.sh
. .venv/bin/activate
ruff check .
ruff format --check .
python -m pytest -q -n 2 "$@"
