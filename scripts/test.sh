#!/usr/bin/env bash
# Lint (ruff, then the type checker: mypy over sto_odno_env, agents and train, configured
# in pyproject.toml's [tool.mypy]) and tests.
#   ./scripts/test.sh           lint + the whole suite, slow tests included (what CI runs:
#                               .ci/run), then pytest's 15 slowest tests
#   ./scripts/test.sh --quick   lint + pytest -m "not slow" tests: the fast tier for the edit
#                               loop (the lab's tests, lab/tests, run in the whole suite only)
# Extra arguments go to pytest. .venv is set up first, only when needed (scripts/setup.sh
# with $EXTRAS, by default every extra the tests use: dev,train,eval,bench,dist; on top of
# ./scripts/train.sh's train extra, once).
set -euo pipefail
cd "$(dirname "$0")/.."
tier=full
if [ "${1:-}" = "--quick" ]; then
  tier=quick
  shift
fi
EXTRAS=${EXTRAS:-dev,train,eval,bench,dist} ./scripts/setup.sh
. .venv/bin/activate
ruff check .
ruff format --check .
python -m mypy
if [ "$tier" = quick ]; then
  python -m pytest -q -n 2 -m "not slow" tests "$@"
else
  python -m pytest -q -n 2 --durations=15 "$@"
fi
