"""``python -m sto_odno_env.play``: runs :func:`sto_odno_env.apps.play.main`."""

import sys

from sto_odno_env.apps.play import main

if __name__ == "__main__":
    sys.exit(main())
