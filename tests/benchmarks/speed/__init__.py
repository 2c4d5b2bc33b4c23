"""Tests of the toolkit's own speed benchmarks (``benchmarks/speed/``), one file per benchmark."""
