"""Programs: the terminal game (:mod:`.play`, ``python -m sto_odno_env.play``), the
benchmark (:mod:`.bench`, ``python -m sto_odno_env.bench``) and the web table (:mod:`.web`,
``python -m sto_odno_env.web``).
"""
