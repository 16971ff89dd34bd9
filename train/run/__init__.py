"""The run harness every trainer runs on (docs/training.md, "A run"), one module per part:

* :mod:`.session`: one command's phases, ``main(spec, argv)`` (the trainers' entry);
* :mod:`.protocol`: the seam between the harness and a trainer (``Spec``, ``Trainer``,
  ``Counters``, ``Settings``, ``Saved``, ``Flag``, ``Update``);
* :mod:`.command_line`: the checked command line and config (the only part that parses);
* :mod:`.budget`: when the run stops (updates, decisions, minutes);
* :mod:`.evaluations`: when the run evaluates, and the rows it keeps;
  :mod:`.evaluate`: one evaluation, duplicate deals against an opponent;
* :mod:`.outputs`: the files a run writes into ``--out``, atomically;
* :mod:`.console`, :mod:`.signals`, :mod:`.summary`: the progress lines, the stops
  (SIGINT, SIGTERM), the run's last words and ``summary.json``.

Each name is imported from the module that defines it; this package re-exports nothing.
"""
