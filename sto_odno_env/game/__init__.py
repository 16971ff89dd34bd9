"""The rules engine, numpy and PyYAML only: card and action ids (:mod:`.cards`), rule sets
and their lookup tables (:mod:`.rules`, :mod:`.rule_values`, :mod:`.tables`), random events
(:mod:`.chance`, :mod:`.rng`), record events (:mod:`.trace`), the batched engine
(:mod:`.engine`) over one module per stage of a turn (:mod:`.core`), and the command-line
helpers every tool shares (:mod:`.cli`, standard library only).

The lowest layer: it imports nothing else of the package (docs/architecture.md).
"""
