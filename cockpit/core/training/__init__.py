"""Supervision becomes training data: SFT, preference, process-label and grounding sets from recorded runs
and the corrections people made to them (issue #43). :func:`cockpit.core.training.export.export` is the way in."""
