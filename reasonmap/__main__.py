"""``python -m reasonmap``: the same command line as the ``reasonmap`` console script."""

from __future__ import annotations

from reasonmap.cli import main

raise SystemExit(main())
