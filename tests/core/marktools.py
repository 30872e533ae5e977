"""Reading an observation's marks as a test does: their texts, and the id of the one showing a text."""


def texts(obs) -> list[str]:
    return [m.text for m in obs.marks]


def mark_id(obs, text):
    """The id of the mark whose text, aria-label or placeholder is `text`."""
    for m in obs.marks:
        if text in (m.text, m.aria_label, m.placeholder):
            return m.id
    raise AssertionError(f"no mark {text!r} in {texts(obs)}")
