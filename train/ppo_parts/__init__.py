"""The pieces of the PPO trainer (``python train/ppo.py``), also used by the RLlib trainer
and ``train/distill.py``: the masked policy networks (:mod:`.masked`), the league of
opponents (:mod:`.league`), the self-play games (:mod:`.selfplay`), the tables a run
trains at (:mod:`.tables`), the warm start by imitation (:mod:`.imitation`), the collector
that overlaps collection with updates (:mod:`.overlap`) and the trainer's saved state
(:mod:`.state`).

Its name is not ``ppo``, so that it does not shadow the entry file ``train/ppo.py``.
"""
