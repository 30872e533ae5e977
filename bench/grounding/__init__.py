"""The grounding bench (issue #16): run it as `python -m bench.grounding.run`; see README.md here."""
