"""The approval gate's bench (issue #17): run it as `python -m bench.gate.run`; see README.md here."""
