"""Bridges from the kit to other ecosystems' game APIs.

:mod:`.openspiel` registers 101 with OpenSpiel as ``python_sto_odno`` (the ``openspiel``
extra); importing this package imports nothing beyond the standard library.
"""
