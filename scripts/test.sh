#!/usr/bin/env bash
# Lint and tests.
#   ./scripts/test.sh           lint + the whole suite, slow tests included (what CI runs:
#                               .ci/run), then pytest's 15 slowest tests
#   ./scripts/test.sh --quick   lint + pytest -m "not slow": the fast tier for the edit loop
# Extra arguments go to pytest. .venv is (re)installed only when pyproject.toml, setup.sh
# or $EXTRAS changed since the last install (a stamp file in .venv records them).
set -euo pipefail
cd "$(dirname "$0")/.."
tier=full
if [ "${1:-}" = "--quick" ]; then
  tier=quick
  shift
fi
export EXTRAS=${EXTRAS:-dev,train,eval,bench,dist}
stamp=.venv/.sto-odno-installed
wanted="$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1) $EXTRAS"
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  ./scripts/setup.sh
  echo "$wanted" > "$stamp"
fi
. .venv/bin/activate
ruff check .
ruff format --check .
if [ "$tier" = quick ]; then
  python -m pytest -q -n 2 -m "not slow" "$@"
else
  python -m pytest -q -n 2 --durations=15 "$@"
fi
