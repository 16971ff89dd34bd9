"""``python -m sto_odno_env.record``: runs :func:`sto_odno_env.records.record.main`."""

import sys

from sto_odno_env.records.record import main

if __name__ == "__main__":
    sys.exit(main())
