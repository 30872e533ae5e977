"""The web recording bench (issue #41): its cost, its size, its fidelity on a changed real app, and the requests
a recorded replay sends; see ``python -m bench.webrecord --help`` and the bench folder's README."""
