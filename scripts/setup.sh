#!/usr/bin/env bash
# Creates .venv (if missing) and installs the project into it with the extras in $EXTRAS
# (default dev,train,eval,bench,dist: what ./scripts/test.sh and ./scripts/train.sh both
# run on), torch first and pinned, so that no other torch release is pulled in.
# It installs only when what it installs from changed since the last install
# (pyproject.toml, this script, $EXTRAS): a stamp in .venv records them. FORCE=1 reinstalls.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
EXTRAS=${EXTRAS:-dev,train,eval,bench,dist}
stamp=.venv/.sto-odno-installed
wanted="$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1) $EXTRAS"
if [ -x .venv/bin/python ] && [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ] \
  && [ "${FORCE:-0}" != 1 ]; then
  exit 0
fi
echo "setting up .venv with the extras $EXTRAS (pyproject.toml, scripts/setup.sh or the extras changed)"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
. .venv/bin/activate
python -m pip install -q --upgrade pip
case ",$EXTRAS," in
  *,train,*) python -m pip install -q "torch==2.13.0" ;;
esac
python -m pip install -q -e ".[$EXTRAS]"
echo "$wanted" > "$stamp"
