"""``python -m coschedule.cli``: the same as ``coschedule``."""

import sys

from . import main

sys.exit(main())
