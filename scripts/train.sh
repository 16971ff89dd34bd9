#!/usr/bin/env bash
# The main job: masked self-play PPO on the defaults of configs/train/ppo.yaml (classic,
# 2 players, 30 minutes on 2 cores: a policy that beats expert). Sets up .venv first, only
# when needed, with what training needs (scripts/setup.sh with the train extra: torch, SB3,
# tqdm, TensorBoard, matplotlib; ./scripts/test.sh adds the rest). Arguments go to
# train/ppo.py, e.g. --minutes 60 or --resume runs/ppo/checkpoint.pt.
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS=train ./scripts/setup.sh
. .venv/bin/activate
python train/ppo.py "$@"
