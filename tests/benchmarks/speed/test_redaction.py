"""The redaction speed benchmark runs on a few texts and reports its figures (no timing is asserted)."""

from __future__ import annotations

import json

from benchmarks.speed.redaction import main


def test_benchmark_redacts_the_texts_that_hold_the_key_and_prints_one_json_object_last(capsys):
    assert main(["--key-length", "300", "--texts", "9"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert figures["key_length"] == 300 and figures["texts"] == 9
    assert figures["redacted"] == 6  # two of every three texts hold the key, whole or cut
