"""``python -m sto_odno_env.bench``: runs :func:`sto_odno_env.apps.bench.main`."""

import sys

from sto_odno_env.apps.bench import main

if __name__ == "__main__":
    sys.exit(main())
