"""The marks a recorded step saw, read back from its marks.json (for replay, reports, exports)."""
from __future__ import annotations

import json
import logging

from cockpit.core.errors import CockpitError
from cockpit.core.page.marks import Mark, marks_from_json
from cockpit.core.store.db import Store

log = logging.getLogger(__name__)


def step_marks(store: Store, step: dict) -> list[Mark] | None:
    """Step row `step`'s marks; None when it has no marks file or the file cannot be read."""
    rel = step.get("marks_file")
    if not rel:
        return None
    try:
        return marks_from_json(json.loads(store.read_file(rel, "marks file")))
    except (CockpitError, ValueError, TypeError, KeyError) as e:
        log.info("marks of step %s unreadable (%s): %s", step.get("step"), rel, e)
        return None
