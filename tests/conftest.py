"""Shared test configuration: hypothesis profiles and the path to the shared strategies.

Profiles (select with the environment variable ``HYPOTHESIS_PROFILE``):

* ``ci`` (default): 25 derandomised examples per property, so that CI runs are reproducible;
* ``thorough``: 500 random examples per property, for a longer local search.

Tests must not raise ``max_examples`` in ``@settings``; they may only lower it for slow
properties (see :func:`coschedule_testing.fewer`).
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:  # make ``coschedule_testing`` importable in every import mode
    sys.path.insert(0, _HERE)

settings.register_profile(
    "ci",
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "thorough",
    max_examples=500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# A suite started in the background of a script (`cmd &` in a non-interactive shell) inherits an
# ignored SIGINT, and so would every command the tests start: the commands keep an ignored
# signal ignored (nohup's), and the Ctrl-C tests would see nothing. The children of a handled
# signal get the default one, as from a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
