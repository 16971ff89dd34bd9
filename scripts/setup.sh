#!/usr/bin/env bash
# Creates .venv (if missing) and installs the project into it (editable) with the extras in
# $EXTRAS, torch first and pinned where the train extra is asked for, so that no other torch
# release is pulled in. ./scripts/train.sh asks for what training needs (train: torch,
# SB3, tqdm, TensorBoard, matplotlib); ./scripts/test.sh adds the rest on top
# (dev,train,eval,bench,dist: the test tools, Ray RLlib, OpenSpiel), once.
# It installs only when something is missing: a stamp in .venv records the hash of what it
# installs from (pyproject.toml, this script) and the extras installed; extras installed
# before are kept (installed again with the new ones when the hash changed). FORCE=1
# reinstalls.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
EXTRAS=${EXTRAS:-dev,train,eval,bench,dist}
stamp=.venv/.sto-odno-installed
hash="$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1)"
stamped_hash="" stamped_extras=""
if [ -f "$stamp" ]; then read -r stamped_hash stamped_extras < "$stamp" || true; fi
# The extras asked for and those installed before, each once, in a fixed order.
union=$(printf '%s\n' ${EXTRAS//,/ } ${stamped_extras//,/ } | sort -u | paste -sd, -)
if [ -x .venv/bin/python ] && [ "${stamped_hash:-}" = "$hash" ] \
  && [ "$union" = "$(printf '%s\n' ${stamped_extras//,/ } | sort -u | paste -sd, -)" ] \
  && [ "${FORCE:-0}" != 1 ]; then
  exit 0  # everything asked for is installed, from the same files
fi
echo "setting up .venv with the extras $union (first install, new extras, or pyproject.toml or scripts/setup.sh changed)"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
. .venv/bin/activate
python -m pip install -q --upgrade pip
case ",$union," in
  *,train,*) python -m pip install -q "torch==2.13.0" ;;
esac
python -m pip install -q -e ".[$union]"
echo "$hash $union" > "$stamp"
