"""The kit's one error family: every error the kit raises for input it refuses (a rule
set, an agent name, a checkpoint, a record, a command line's settings) is a
:class:`StoOdnoError`, as Gymnasium's are a ``gymnasium.error.Error``.

It is a ``ValueError``, so code that catches ``ValueError`` still catches the kit's
errors; a program catches ``StoOdnoError`` instead, so that a ``ValueError`` from a bug
(numpy's shape errors, say) ends with its traceback rather than as a one-line user error.
"""

from __future__ import annotations


class StoOdnoError(ValueError):
    """Input the kit refuses, with a message that names what is wrong and what is allowed.

    Subclasses name where the input was refused (``RulesError``, ``AgentError``,
    ``CheckpointError``, ``ConfigError``, ...); a command line reports any of them as one
    line on stderr and exits 2.
    """
