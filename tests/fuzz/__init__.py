"""Property-based fuzzing of bad input: case generators shared by the pytest files (hypothesis) and
``scripts/fuzz_run.py`` (a seeded random generator), a child process that runs the cases, and the
one classifier of their outcomes (``classify.py``)."""
