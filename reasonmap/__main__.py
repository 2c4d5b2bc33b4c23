"""``python -m reasonmap``: the same command line as the ``reasonmap`` console script."""

import sys

from reasonmap.cli import main

if __name__ == "__main__":  # importing the module (a test walking the package) runs nothing
    sys.exit(main())
