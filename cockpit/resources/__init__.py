"""Package data: the marking scripts, prompts, demo site and icons.

Read everything through :func:`cockpit.core.resources.read_text` /
:func:`cockpit.core.resources.path` so the same code works from a source tree
and from a PyInstaller bundle.
"""
