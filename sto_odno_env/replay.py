"""``python -m sto_odno_env.replay``: runs :func:`sto_odno_env.records.replay.main`."""

import sys

from sto_odno_env.records.replay import main

if __name__ == "__main__":
    sys.exit(main())
