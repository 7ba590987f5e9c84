"""``python -m coschedule``: the same command line as the ``coschedule`` script."""

import sys

from .cli import main

sys.exit(main())
