"""The test suite, a package so that its helpers have one import path each:
``tests.helpers``, ``tests.support.training``, ``tests.scenario_helpers``,
``tests.rules_oracle`` and ``tests.preset_combos`` (the lab's tests use them too)."""
