"""The rules engine, numpy and PyYAML only: card and action ids (:mod:`.cards`), rule sets
and their lookup tables (:mod:`.rules`, :mod:`.rule_values`, :mod:`.tables`), random events
(:mod:`.chance`, :mod:`.rng`), record events (:mod:`.trace`), the batched engine
(:mod:`.engine`) over one module per stage of a turn (:mod:`.core`).

It imports nothing of the package above it; below it sits only the tools' room
(:mod:`sto_odno_env.tools`, docs/architecture.md).
"""
