"""What a seat sees and what a person reads: observations (:mod:`.observation`), the text
interface (:mod:`.text`: a seat's view as text, action strings, the answer parser, the
event lines), the envs' text table (:mod:`.render`), pictures (:mod:`.picture`), the
terminal game's screen (:mod:`.screen`), and engine states rebuilt from what a seat has
seen (:mod:`.determinise`).

Imports only :mod:`sto_odno_env.game` and :mod:`sto_odno_env.tools`
(docs/architecture.md).
"""
