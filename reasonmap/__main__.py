"""``python -m reasonmap``: the same command line as the ``reasonmap`` console script."""

from reasonmap.cli import run

if __name__ == "__main__":  # importing the module (a test walking the package) runs nothing
    run()
