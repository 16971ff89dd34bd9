"""``python -m sto_odno_env.web``: runs :func:`sto_odno_env.apps.web.__main__.main`."""

import sys

from sto_odno_env.apps.web.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
