"""The parts of the RLlib trainer (``python train/rllib_ppo.py``): the RLModule
(:mod:`.module`), the multi-agent env on a runner (:mod:`.env`), the algorithm's config
(:mod:`.algorithm`), the cluster it connects to (:mod:`.cluster`) and the run's checkpoint
(:mod:`.checkpoint`). Ray is imported inside them on first use.
"""
