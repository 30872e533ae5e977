"""Test and bench support, not shipped with Cockpit: synthetic pages (pagegen), fake runs (fakeruns), a scripted
pixel model (pixelmodel) and a local Selenium Grid (grid). Import it from the repository root (pytest and
`python -m bench.…` do)."""
