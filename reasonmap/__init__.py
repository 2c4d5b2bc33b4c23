"""The ``reasonmap`` command line: thin commands over graphkit, benchmarks, baselines and vision."""
