"""``python -m reasonmap``: the command line, as the ``reasonmap`` console script runs it."""

import sys

from reasonmap.cli import main

if __name__ == "__main__":
    sys.exit(main())
