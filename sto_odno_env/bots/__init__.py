"""Who plays a seat: the policy interface (:mod:`.policy`), the heuristic bots
(:mod:`.heuristic`, over :mod:`.features`), the search bot (:mod:`.rollout`), trained
policies (:mod:`.checkpoint`) and the registry that loads any of them by name
(:mod:`.registry`; ``agents.load`` is the same function).

Imports only the layers below it (docs/architecture.md); torch is imported only when a
trained policy is loaded.
"""
