"""The RL interfaces: the table's settings (:mod:`.table_config`), the batched learner
games (:mod:`.learner`, across processes :mod:`.sharded`), the PettingZoo AEC env
(:mod:`.aec`, :mod:`.sto_odno_v0`), the Gymnasium envs (:mod:`.gym_env`), the
stable-baselines3 VecEnv (:mod:`.sb3`).

Imports only the layers below it (docs/architecture.md).
"""
