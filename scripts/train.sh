#!/usr/bin/env bash
# The main job: masked self-play PPO on the defaults of configs/train/ppo.yaml (classic,
# 2 players, 30 minutes on 2 cores: a policy that beats expert). Sets up .venv first, only
# when needed, with what training needs (scripts/setup.sh with the train extra: torch, SB3,
# tqdm, TensorBoard, matplotlib; ./scripts/test.sh adds the rest). Arguments go to
# train/ppo.py, e.g. --minutes 60 or --resume runs/ppo/checkpoint.pt.
# .venv's python is run by its path, not activated: the commands the run prints (continue
# with ... --resume) then name it as the user's shell, which has no .venv active, runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS=train ./scripts/setup.sh
exec .venv/bin/python train/ppo.py "$@"
