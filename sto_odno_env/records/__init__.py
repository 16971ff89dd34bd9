"""Game records (docs/rules.md §10): writing them (:mod:`.record`), replaying and checking
them (:mod:`.replay`), stepping through them (:mod:`.playback`), a live match stepped one
decision at a time (:mod:`.stepping`: the terminal game's, the web table's and TextArena's),
hand-made deals and scripted play (:mod:`.scenario`), and the engine's contract test for a
rule set (:mod:`.testing`).

Imports only the layers below it (docs/architecture.md).
"""
