"""The child side: reads one JSON case per line from stdin, runs it (``execute.run``) and writes
one JSON verdict per line to the stdout it was started with (anything the code under test prints
goes to stderr instead, so it cannot break the protocol)."""

from __future__ import annotations

import json
import os
import sys
import warnings


def main() -> None:
    proto = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # stray output of the code under test goes to stderr
    sys.stdout = sys.stderr
    warnings.simplefilter("ignore")  # NumPy's and numba_ext's warnings are not outcomes

    from . import execute  # imports numba_ext (about a second)

    proto.write(json.dumps({"ready": True}) + "\n")
    proto.flush()
    for line in sys.stdin:
        msg = json.loads(line)
        outcome, detail = execute.run(msg["family"], msg["case"])
        proto.write(json.dumps({"outcome": outcome, "detail": detail}) + "\n")
        proto.flush()


if __name__ == "__main__":
    main()
