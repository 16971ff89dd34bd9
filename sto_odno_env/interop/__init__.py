"""Bridges from the kit to other ecosystems' game APIs.

:mod:`.openspiel` registers 101 with OpenSpiel as ``python_sto_odno`` (the ``openspiel``
extra, docs/openspiel.md); :mod:`.textarena` is the TextArena env (the ``text`` extra,
docs/text.md). Importing this package imports neither.
"""
