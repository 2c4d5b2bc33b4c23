"""Speed of the model client's key redaction with a long key, as a JWT-size one is.

Run ``python -m benchmarks.speed.redaction [--key-length 1200] [--texts 2000]``.
It makes a key of ``--key-length`` characters (letters, digits and the ``/``
and ``+`` a JSON encoder may escape), then times
:func:`baselines.chat.redact` on ``--texts`` server texts of a few kilobytes:
a third hold the key whole, a third a cut of it, JSON-escaped, and a third no
key at all. The first call (which prepares the key's spellings) is timed
apart as ``first_call_seconds``. The last line printed is one JSON object
with ``key_length``, ``first_call_seconds``, ``texts``, ``seconds`` and
``texts_per_second``; ``redacted`` counts the texts in which the key was
found, and must be two thirds of them.
"""

from __future__ import annotations

import argparse
import json
import random
import string
import sys
import time

from baselines.chat import redact


def make_texts(key: str, count: int, seed: int = 0) -> list[str]:
    """``count`` texts of about 4 kB: the key whole, a JSON-escaped cut of it, or none of it, in turn."""
    generator = random.Random(seed)
    escaped = json.dumps(key)[1:-1].replace("/", "\\/")
    texts = []
    for number in range(count):
        filler = "".join(generator.choices(string.ascii_letters + " ", k=4_000))
        at = generator.randrange(len(filler))
        inner = (f"Bearer {key}", escaped[: generator.randrange(8, len(escaped))], "")[number % 3]
        texts.append(filler[:at] + inner + filler[at:])
    return texts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.speed.redaction", description=__doc__)
    parser.add_argument("--key-length", type=int, default=1_200, help="characters of the key (default 1,200)")
    parser.add_argument("--texts", type=int, default=2_000, help="texts redacted (default 2,000)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.key_length < 8 or args.texts < 1:
        parser.error("--key-length must be at least 8 and --texts at least 1")
    generator = random.Random(args.seed)
    key = "".join(generator.choices(string.ascii_letters + string.digits + "/+", k=args.key_length))
    texts = make_texts(key, args.texts, args.seed)
    started = time.perf_counter()
    redact("warm: " + key, key)
    first = time.perf_counter() - started
    started = time.perf_counter()
    redacted = sum("[redacted]" in redact(text, key) for text in texts)
    seconds = time.perf_counter() - started
    print(f"{args.texts} texts redacted of a {args.key_length}-character key in {seconds:.3f} s", file=sys.stderr)
    figures = {
        "key_length": args.key_length,
        "first_call_seconds": round(first, 6),
        "texts": args.texts,
        "redacted": redacted,
        "seconds": round(seconds, 6),
        "texts_per_second": round(args.texts / seconds, 1) if seconds else None,
    }
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
