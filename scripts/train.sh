#!/usr/bin/env bash
# Sets up .venv and runs the main job. Until the PPO trainer lands this runs the benchmark.
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS=${EXTRAS:-dev,train,eval,bench} ./scripts/setup.sh
. .venv/bin/activate
python -m sto_odno_env.bench "$@"
