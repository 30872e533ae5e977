"""Key names as actions write them (``Enter``, ``Ctrl+A``, ``Shift+Tab``, ``F5``) turned into a Selenium key
chain; refused with a message fit for the model when a name is not a key."""
from __future__ import annotations

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from cockpit.core.errors import ActionError

_KEYS = {"enter": Keys.ENTER, "return": Keys.ENTER, "tab": Keys.TAB, "escape": Keys.ESCAPE,
         "esc": Keys.ESCAPE, "backspace": Keys.BACKSPACE, "delete": Keys.DELETE, "space": Keys.SPACE,
         "up": Keys.ARROW_UP, "down": Keys.ARROW_DOWN, "left": Keys.ARROW_LEFT, "right": Keys.ARROW_RIGHT,
         "arrowup": Keys.ARROW_UP, "arrowdown": Keys.ARROW_DOWN, "arrowleft": Keys.ARROW_LEFT,
         "arrowright": Keys.ARROW_RIGHT, "pageup": Keys.PAGE_UP, "pagedown": Keys.PAGE_DOWN,
         "home": Keys.HOME, "end": Keys.END, "insert": Keys.INSERT,
         **{f"f{k}": getattr(Keys, f"F{k}") for k in range(1, 13)}}
_MODS = {"ctrl": Keys.CONTROL, "control": Keys.CONTROL, "shift": Keys.SHIFT, "alt": Keys.ALT,
         "meta": Keys.META, "cmd": Keys.META, "command": Keys.META}


def chain(driver, text: str) -> ActionChains:
    """The key presses of ``Press [text]``: modifiers held down around the last key."""
    parts = [p.strip() for p in text.replace(" ", "").split("+") if p.strip()]
    if not parts:
        raise ActionError("Press needs a key, e.g. Press [Enter]")
    mods = [_MODS[p.lower()] for p in parts[:-1] if p.lower() in _MODS]
    if len(mods) != len(parts) - 1:
        raise ActionError(f"'{text}' is not a key combination I know (use e.g. Ctrl+A, Shift+Tab)")
    last = parts[-1]
    key = _KEYS.get(last.lower()) or (last if len(last) == 1 else None)
    if key is None:
        raise ActionError(f"'{last}' is not a key I know; try Enter, Tab, Escape, PageDown, or one character")
    out = ActionChains(driver, duration=0)
    for k in mods:
        out.key_down(k)
    out.send_keys(key)
    for k in reversed(mods):
        out.key_up(k)
    return out
