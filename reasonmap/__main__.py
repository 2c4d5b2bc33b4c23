"""``python -m reasonmap``: the same command line as the ``reasonmap`` console script."""

import sys

from reasonmap.cli import main

sys.exit(main())
