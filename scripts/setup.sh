#!/usr/bin/env bash
# Creates .venv (if missing) and installs the project with the extras named in $EXTRAS.
# torch is installed first, pinned, so that no other torch release is pulled in.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
EXTRAS=${EXTRAS:-dev,train,eval,bench,dist}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
. .venv/bin/activate
python -m pip install -q --upgrade pip
case ",$EXTRAS," in
  *,train,*) python -m pip install -q "torch==2.13.0" ;;
esac
python -m pip install -q -e ".[$EXTRAS]"
