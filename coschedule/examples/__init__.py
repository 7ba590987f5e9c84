"""Example policies of one's own (docs/own-policy.md): plain modules that import nothing of the
toolkit, to copy (``coschedule examples --path easy_sjf``) or to name as they are
(``--policy coschedule.examples.easy_sjf:EasySJF``).

* :mod:`.easy_sjf` -- ``EasySJF``: EASY backfilling whose candidates behind the queue's head are
  tried shortest wall time first, a batch policy written against
  :class:`coschedule.sim.policy.Policy` in 44 lines; the tutorial's.
"""
