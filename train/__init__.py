"""Training: ``python train/ppo.py`` (masked self-play PPO with a league) and
``python train/sb3_ppo.py`` (sb3-contrib MaskablePPO). See docs/training.md."""
