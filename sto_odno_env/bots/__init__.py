"""Who plays a seat: the policy interface (:mod:`.policy`), the heuristic bots
(:mod:`.heuristic`, over :mod:`.features`), the search bots (:mod:`.rollout`: ``rollout``,
:mod:`.search`: ``search``), a text player that asks any prompt -> answer callable
(:mod:`.text_agent`), trained policies (:mod:`.checkpoint` for networks, :mod:`.tabular`
for exactly solved tables) and their index (:mod:`.catalog`, ``policies/index.yaml``), the
resolver of agent names and player counts (:mod:`.names`, :mod:`.counts`), and the registry
that loads any of them by name (:mod:`.registry`; ``agents.load`` is the same function).

Imports only the layers below it (docs/architecture.md); torch is imported only when a
trained policy is loaded.
"""
