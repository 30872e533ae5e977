"""Key names as computer-use models write them, in Cockpit's ``Press`` form.

Cockpit presses one key or one combination: modifiers ``Ctrl``, ``Shift``, ``Alt``,
``Meta`` and then the key, joined with ``+`` (``Ctrl+A``, ``Shift+Tab``, ``Enter``,
``PageDown``, ``Down``). The models name keys in their own vocabularies:

    xdotool keysyms     Anthropic's computer tool (``key`` action): "Return", "ctrl+a",
                        "Page_Down", "BackSpace", "KP_Enter", "super+l", "alt+Left"
    pyautogui names     UI-TARS ``hotkey(key='ctrl c')`` (space separated, lowercase) and
                        Qwen's ``keys`` list (["ctrl", "a"]); "enter", "pagedown", "win"
    DOM-like capitals   OpenAI's computer-use ``keypress`` (["CTRL", "A"], ["ENTER"],
                        ["ARROWDOWN"], ["ESC"], ["CMD"], ["SPACE"])

A single character keeps its case (``ctrl c`` gives ``Ctrl+c``, ``["CTRL", "A"]`` gives
``Ctrl+A``). A multi-character name not in the table is passed on as written, so the
executor can name it in its own error.
"""
from __future__ import annotations

import re

_MODIFIERS = {
    "ctrl": "Ctrl", "control": "Ctrl", "ctl": "Ctrl", "lctrl": "Ctrl", "rctrl": "Ctrl",
    "controll": "Ctrl", "controlr": "Ctrl", "ctrll": "Ctrl", "ctrlr": "Ctrl",
    "shift": "Shift", "shiftl": "Shift", "shiftr": "Shift", "lshift": "Shift", "rshift": "Shift",
    "alt": "Alt", "altl": "Alt", "altr": "Alt", "option": "Alt", "opt": "Alt", "lalt": "Alt", "ralt": "Alt",
    "meta": "Meta", "metal": "Meta", "metar": "Meta", "cmd": "Meta", "command": "Meta", "super": "Meta",
    "superl": "Meta", "superr": "Meta", "win": "Meta", "windows": "Meta", "os": "Meta",
}

_NAMED = {
    "return": "Enter", "enter": "Enter", "kpenter": "Enter", "linefeed": "Enter",
    "tab": "Tab", "iso_left_tab": "Tab",
    "escape": "Escape", "esc": "Escape",
    "backspace": "Backspace", "bksp": "Backspace",
    "delete": "Delete", "del": "Delete", "kpdelete": "Delete",
    "space": "Space", "spacebar": "Space", "kpspace": "Space",
    "up": "Up", "arrowup": "Up", "kpup": "Up", "uparrow": "Up",
    "down": "Down", "arrowdown": "Down", "kpdown": "Down", "downarrow": "Down",
    "left": "Left", "arrowleft": "Left", "kpleft": "Left", "leftarrow": "Left",
    "right": "Right", "arrowright": "Right", "kpright": "Right", "rightarrow": "Right",
    "pageup": "PageUp", "pgup": "PageUp", "prior": "PageUp", "kpprior": "PageUp", "kppageup": "PageUp",
    "pagedown": "PageDown", "pgdn": "PageDown", "next": "PageDown", "kpnext": "PageDown",
    "kppagedown": "PageDown",
    "home": "Home", "kphome": "Home", "end": "End", "kpend": "End",
    "insert": "Insert", "ins": "Insert", "kpinsert": "Insert",
    # xdotool keysyms for punctuation
    "minus": "-", "kpsubtract": "-", "plus": "+", "kpadd": "+", "equal": "=", "kpequal": "=",
    "period": ".", "kpdecimal": ".", "comma": ",", "slash": "/", "kpdivide": "/", "backslash": "\\",
    "semicolon": ";", "colon": ":", "apostrophe": "'", "quoteright": "'", "grave": "`",
    "quoteleft": "`", "bracketleft": "[", "bracketright": "]", "asterisk": "*", "kpmultiply": "*",
    "exclam": "!", "at": "@", "numbersign": "#", "dollar": "$", "percent": "%", "ampersand": "&",
    "parenleft": "(", "parenright": ")", "underscore": "_", "question": "?", "less": "<", "greater": ">",
    "quotedbl": '"', "bar": "|", "braceleft": "{", "braceright": "}", "asciitilde": "~",
    "asciicircum": "^",
}


class KeyNameError(ValueError):
    """A key name that holds no key (empty, or several combinations in one)."""


def key_name(name: str) -> str:
    """One key in Cockpit's spelling: "Page_Down" -> "PageDown", "KP_0" -> "0", "c" -> "c"."""
    raw = name.strip()
    if len(raw) == 1:
        return raw
    folded = re.sub(r"[\s_\-]", "", raw.lower())
    if folded in _MODIFIERS:
        return _MODIFIERS[folded]
    if folded in _NAMED:
        return _NAMED[folded]
    if re.fullmatch(r"kp\d", folded):
        return folded[-1]
    if re.fullmatch(r"f\d{1,2}", folded):
        return folded.upper()
    return raw


def combination(keys: list[str]) -> str:
    """Keys pressed together, modifiers first: ["ctrl", "shift", "t"] -> "Ctrl+Shift+t".
    An item that is itself a combination ("ctrl+a") is split."""
    given = [str(k) for k in keys if k is not None and (str(k) == " " or str(k).strip())]
    given = [part for k in given for part in (_split_plus(k.strip()) if len(k.strip()) > 1 else [k])]
    names = ["Space" if k == " " else key_name(k) for k in given]
    if not names:
        raise KeyNameError("no key given")
    mods = set(_MODIFIERS.values())
    head = [n for n in names if n in mods]
    tail = [n for n in names if n not in mods]
    ordered = [m for m in ("Ctrl", "Shift", "Alt", "Meta") if m in head] + tail
    return "+".join(ordered)


def from_xdotool(text: str) -> str:
    """An xdotool ``key`` argument ("ctrl+a", "Return", "alt+Left") as one Cockpit combination.

    xdotool separates key presses in sequence with spaces ("ctrl+a Delete"); Cockpit presses one
    combination per action, so a sequence is refused."""
    text = (text or "").strip()
    if not text:
        raise KeyNameError("no key given")
    if len(text.split()) > 1:
        raise KeyNameError(f"'{text}' is several key presses; give one key or combination per action")
    return combination(_split_plus(text))


def from_words(text: str) -> str:
    """A UI-TARS ``hotkey`` key ("ctrl c", "enter", "ctrl+shift+t") as one Cockpit combination."""
    text = (text or "").strip()
    if not text:
        raise KeyNameError("no key given")
    parts = text.split() if " " in text else _split_plus(text)
    return combination(parts)


def from_cockpit(text: str) -> str:
    """A combination written with '+' ("Ctrl+A", "enter", "ctrl + a") in Cockpit's spelling."""
    text = (text or "").strip()
    if not text:
        raise KeyNameError("no key given")
    return combination(_split_plus(text.replace(" ", "") if "+" in text.strip("+") else text))


def _split_plus(text: str) -> list[str]:
    """'ctrl+a' -> ['ctrl', 'a']; a '+' key itself survives: 'ctrl++' -> ['ctrl', '+']; '+' -> ['+']."""
    if text == "+":
        return ["+"]
    parts = text.split("+")
    if text.endswith("++"):
        parts = parts[:-2] + ["+"]
    return [p for p in parts if p != ""]
