"""What windows the app has, found from its code, and a watcher that checks each one as it is shown (issue #38).

- `widget_classes()`: every QWidget subclass defined under cockpit/ui (the package walked and imported), so a
  panel or dialog written tomorrow is on the list the day it is written.
- `opening_sites()`: every place in cockpit/ui's source that opens one of Qt's own windows (a message box, an
  input or file dialog, a menu), as "module:function", read with `ast`.
- `Watcher`: an application-wide event filter. Every widget made and window shown while it is installed is
  remembered with the cockpit/ui functions on the Python stack then (its site); `check(state)` lays each visible
  window out against a small screen with `tests.ui.fits.fit_violations` and records which Cockpit classes were
  on screen, and which of their parts (a widget a Cockpit widget keeps as an attribute: a panel's error line, a
  button shown in one state only). `missing()` says which classes, parts and sites no checked state showed.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import sys
from pathlib import Path

import shiboken6
from PySide6.QtCore import QEvent, QObject, QSize
from PySide6.QtWidgets import QApplication, QComboBox, QWidget

import cockpit.ui
from tests.ui.fits import SCREEN, fit_violations

UI_ROOT = Path(cockpit.ui.__file__).resolve().parent
#: Qt's own windows that Cockpit's code opens: a call of one of these names, or of a static method on one.
QT_WINDOWS = ("QMessageBox", "QInputDialog", "QFileDialog", "QMenu", "QProgressDialog", "QColorDialog",
              "QFontDialog", "QErrorMessage", "QWizard")


def ui_modules() -> list:
    """Every module of cockpit.ui, imported."""
    names = [m.name for m in pkgutil.walk_packages(cockpit.ui.__path__, "cockpit.ui.")]
    return [importlib.import_module(n) for n in sorted(names)]


def widget_classes() -> dict[str, type]:
    """'module.Class' -> class, for every QWidget subclass defined in a cockpit.ui module."""
    found = {}
    for mod in ui_modules():
        for _name, cls in inspect.getmembers(mod, inspect.isclass):
            if cls.__module__ == mod.__name__ and issubclass(cls, QWidget):
                found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return found


def opening_sites() -> dict[str, set[str]]:
    """'module:function' -> the Qt windows it opens (QT_WINDOWS), for each function of cockpit/ui that does."""
    sites: dict[str, set[str]] = {}
    for path in sorted(UI_ROOT.rglob("*.py")):
        module = "cockpit." + ".".join(path.relative_to(UI_ROOT.parent).with_suffix("").parts)
        tree = ast.parse(path.read_text())
        for fn, qual in _functions(tree):
            for node in ast.walk(fn):
                name = isinstance(node, ast.Call) and _qt_window(node.func)
                if name:
                    sites.setdefault(f"{module}:{qual}", set()).add(name)
    return sites


def _functions(tree: ast.Module, prefix: str = ""):
    for node in tree.body if isinstance(tree, ast.Module) else tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node, prefix + node.name
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, prefix + node.name + ".")


def _qt_window(func: ast.expr) -> str:
    """The Qt window class a call opens ('' for none)."""
    if isinstance(func, ast.Name) and func.id in QT_WINDOWS:  # QMenu(self.view), QMessageBox(...)
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in QT_WINDOWS \
            and func.attr[:1].islower():  # QInputDialog.getItem(...), not QMessageBox.Icon.Critical
        return func.value.id
    return ""


def sites_on_stack() -> list[str]:
    """The cockpit/ui functions on the Python stack, innermost first, as 'module:qualname'."""
    found, frame = [], sys._getframe(1)
    while frame is not None:
        path = Path(frame.f_code.co_filename)
        if path.is_relative_to(UI_ROOT):
            module = "cockpit." + ".".join(path.relative_to(UI_ROOT.parent).with_suffix("").parts)
            found.append(f"{module}:{frame.f_code.co_qualname}")
        frame = frame.f_back
    return found


def _is_popup_of_a_combo(w: QWidget) -> bool:
    return isinstance(w.parentWidget(), QComboBox) or type(w).__name__ == "QComboBoxPrivateContainer"


class Watcher(QObject):
    """Remembers where each widget was made and each window shown (the cockpit/ui functions on the stack then);
    checks the visible windows on `check`."""

    def __init__(self, sites: dict[str, set[str]], screen: QSize = SCREEN):
        super().__init__()
        self.screen, self.known_sites = screen, sites
        self.made: dict[int, list[str]] = {}  # a widget's C++ address -> the functions that made it
        self.shown: dict[int, list[str]] = {}  # a window's C++ address -> the functions that showed it
        self.seen_sites: set[str] = set()  # sites whose window was checked
        self.seen_classes: set[str] = set()  # Cockpit classes that were on screen in a checked window
        self.parts: dict[str, bool] = {}  # "module.Class.attribute" -> whether it was ever on screen
        self.violations: dict[str, list[str]] = {}
        self.checked: list[tuple[str, str]] = []  # (state, the window's class) as checked
        QApplication.instance().installEventFilter(self)

    def close(self) -> None:
        QApplication.instance().removeEventFilter(self)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt's name)
        kind = event.type()
        if kind == QEvent.ChildAdded and event.child().isWidgetType():  # a widget made with a parent (a new
            self.made[_address(event.child())] = sites_on_stack()  # object: what an old one there said goes)
        elif kind == QEvent.Show and isinstance(obj, QWidget) and obj.isWindow():
            self.shown[_address(obj)] = sites_on_stack()
        return False

    def windows(self) -> list[QWidget]:
        return [w for w in QApplication.topLevelWidgets()
                if w.isVisible() and w.isWindow() and type(w).__name__ != "QTipLabel" and not _is_popup_of_a_combo(w)]

    def site_of(self, win: QWidget) -> str:
        """Where the window was opened: of the cockpit/ui functions on the stack when it was made or shown, the
        one that opens that kind of window ('' for none: Qt's own, or made by the test)."""
        kinds = {c.__name__ for c in type(win).__mro__}
        made = self.made.get(_address(win), []) if win.parent() is not None else []  # (no parent: no ChildAdded)
        here = made + self.shown.get(_address(win), [])
        return next((s for s in here if self.known_sites.get(s, set()) & kinds), "")

    def check(self, state: str, *, only: QWidget | None = None, site: str = "") -> None:
        """Lay out every visible window (or `only`) against the screen; record what was seen. `site`: the
        function that made `only`, when it returned the window for its caller to show (app.start_error_box)."""
        for win in [only] if only is not None else self.windows():
            self.violations.setdefault(state, []).extend(fit_violations(win, self.screen))
            self.checked.append((state, type(win).__name__))
            where = site or self.site_of(win)
            if where:
                self.seen_sites.add(where)
            for w in [win, *win.findChildren(QWidget)]:
                if w.isVisible() and type(w).__module__.startswith("cockpit.ui"):
                    name = f"{type(w).__module__}.{type(w).__qualname__}"
                    self.seen_classes.update(f"{c.__module__}.{c.__qualname__}" for c in type(w).__mro__
                                             if c.__module__.startswith("cockpit.ui"))  # a base: by its kinds
                    for attr, part in vars(w).items():
                        if isinstance(part, QWidget) and not attr.startswith("_"):
                            self.parts[f"{name}.{attr}"] = self.parts.get(f"{name}.{attr}", False) or part.isVisible()

    def missing(self, classes: dict[str, type], shown_elsewhere: dict[str, str]) -> list[str]:
        """What no checked state showed; `shown_elsewhere`: parts whose state is laid out in another test (the
        reason)."""
        out = [f"class {c} was never on screen in a checked state" for c in sorted(set(classes) - self.seen_classes)]
        out += [f"{p} (a part of a panel) was never on screen in a checked state"
                for p, seen in sorted(self.parts.items()) if not seen and p not in shown_elsewhere]
        out += [f"{s} opens a {'/'.join(sorted(k))} that no checked state showed"
                for s, k in sorted(self.known_sites.items()) if s not in self.seen_sites]
        return out

    def report(self) -> str:
        return "\n".join(f"[{s}] {v}" for s, vs in self.violations.items() for v in dict.fromkeys(vs))


def _address(obj) -> int:
    return shiboken6.getCppPointer(obj)[0]
