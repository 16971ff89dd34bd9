#!/usr/bin/env bash
# Sets up .venv and runs the main job: masked self-play PPO on the default preset
# (configs/train/ppo.yaml). Arguments go to train/ppo.py, e.g. --minutes 30.
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS=${EXTRAS:-dev,train,eval,bench} ./scripts/setup.sh
. .venv/bin/activate
python train/ppo.py "$@"
