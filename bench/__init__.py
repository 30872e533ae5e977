"""Cockpit's benches: run each from the repository root as `python -m bench.<name>`; see bench/README.md."""
