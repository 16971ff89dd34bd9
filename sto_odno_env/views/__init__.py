"""What a seat sees and what a person reads: observations (:mod:`.observation`), text
(:mod:`.render`), pictures (:mod:`.picture`), the terminal game's screen (:mod:`.screen`),
and engine states rebuilt from what a seat has seen (:mod:`.determinise`).

Imports only :mod:`sto_odno_env.game` (docs/architecture.md).
"""
