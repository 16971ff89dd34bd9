"""The kit's tools, not its game: the command-line helpers every program shares
(:mod:`.cli`: argument types, help, atomic output files, signals, stopping child
processes) and the generated blocks of the Markdown docs (:mod:`.docblocks`).

The ground floor, standard library only: the rules engine and every floor above may use
it, and it imports nothing else of the package (docs/architecture.md).
"""
