"""The in-page JavaScript as modules (cockpit/resources/js): each module loads alone in Chromium and gives
the interface its header states, reads nothing but its parameters and browser globals, and the loader
(cockpit.core.resources.script) hides everything but the host's function."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from cockpit.core import resources

ROOT = Path(__file__).resolve().parents[3]
JS = ROOT / "cockpit" / "resources" / "js"
HOSTS = ("som.js", "act.js")
ALONE = ("after_frame.js", "clock.js", "instrument.js", "settle.js")  # scripts sent as they are, without modules
MODULES = tuple(dict.fromkeys(m for host in HOSTS for m in resources.modules(host)))

_SOM = "SomNames({}, SomClassify)"
_RUN = ("{opts: {}, stats: {}, t0: 0, viewport: [800, 600], prune: false, geo: SomGeometry(), "
        f"classify: SomClassify, names: {_SOM}, items: SomItems(), hits: SomHits([800, 600], {{}}, Paint), "
        "range: SomRange({}, {}, false, 600)}")
# Each module: an expression giving its interface (calling a factory with what it takes), and its names.
INTERFACES = {
    "paint.js": ("Paint", {"alpha", "paintsNothing"}),
    "identity.js": ("Identity", {"domPath", "formActionOf"}),
    "som_geometry.js": ("SomGeometry()",
                        {"inter", "area", "rectOf", "layoutParent", "containingBlock", "contentClip"}),
    "som_classify.js": ("SomClassify", {"ATOMIC_ROLES", "SKIP_TAGS", "TEXT_INPUTS", "implicitRole",
                                        "strongReason", "weakReason"}),
    "som_names.js": (_SOM, {"clean", "readText", "LIGATURE", "textOf", "labelControl", "checkedState",
                            "selectOptions", "isSecret"}),
    "som_items.js": ("SomItems()", {"repeated", "delegatedItem", "looksLikeControl", "cursorIsPointer"}),
    "som_forms.js": (f"SomForms(document, {_SOM}.clean, Identity)",
                     {"formMethod", "isSubmit", "formAction", "formFields", "pageConfirm", "iconHint"}),
    "som_hits.js": ("SomHits([800, 600], {}, Paint)",
                    {"within", "clickPoint", "underDialog", "seeThroughCover", "intercepted", "interceptPass"}),
    "som_range.js": ("SomRange({}, {}, false, 600)", {"pushChildren", "pushKids", "bisected", "walkedKids"}),
    "som_walk.js": (f"SomWalk({_RUN})", {"walkRoot", "rescue", "found"}),
}

_LOAD = """
const [text, name] = arguments;
const before = new Set(Object.getOwnPropertyNames(window));
const errors = [];
const onError = (e) => errors.push(String(e.message));
window.addEventListener("error", onError);
const s = document.createElement("script");
s.textContent = text;
document.head.appendChild(s);
window.removeEventListener("error", onError);
return { errors: errors, type: (0, eval)("typeof " + name),
  globals: Object.getOwnPropertyNames(window).filter(n => !before.has(n)) };
"""


def _blank(browser) -> None:
    browser.goto("about:blank")
    browser.js("document.body.innerHTML = '<form action=/buy method=post><label>Name <input name=n></label>"
               "<button>Buy</button></form><p>Are you sure? This cannot be undone.</p>'")


def _load(browser, module: str) -> dict:
    return browser.js(_LOAD, (JS / module).read_text(encoding="utf-8"), resources.namespace(module))


def test_every_script_is_a_host_a_module_or_stands_alone():
    assert set(MODULES) == set(INTERFACES)
    assert {p.name for p in JS.glob("*.js")} == set(HOSTS) | set(MODULES) | set(ALONE)
    for name in ALONE + MODULES:
        assert resources.modules(name) == [], f"{name} declares modules: only hosts do"
        assert resources.script(name) == resources.read_text(f"js/{name}")


@pytest.mark.parametrize("host", HOSTS)
def test_a_host_declares_for_eslint_the_modules_it_has_loaded(host):
    text = (JS / host).read_text(encoding="utf-8")
    declared = re.search(r"^/\* global ([\w, ]+) \*/$", text, re.M)
    assert declared, f"{host} has no /* global ... */ line naming its modules"
    names = [n.strip() for n in declared.group(1).split(",")]
    assert names == [resources.namespace(m) for m in resources.modules(host)]


@pytest.mark.parametrize("module", MODULES)
def test_a_module_reads_no_other_module_and_exports_only_its_name(module):
    text = (JS / module).read_text(encoding="utf-8")
    assert "/* global" not in text, "a module gets other modules as parameters, not as globals"
    assert re.findall(r"^/\* exported (\w+) \*/$", text, re.M) == [resources.namespace(module)]


@pytest.mark.parametrize("module", MODULES)
def test_a_module_loads_alone_and_defines_only_its_name(browser, module):
    _blank(browser)
    got = _load(browser, module)
    assert got["errors"] == []
    assert got["type"] in ("function", "object")
    assert set(got["globals"]) <= {resources.namespace(module)}, "a module leaks top-level names"


@pytest.mark.parametrize("module", MODULES)
def test_a_module_gives_the_interface_its_header_states(browser, module):
    _blank(browser)
    for m in MODULES:  # the modules it takes as parameters, from the ones som.js loads
        assert _load(browser, m)["errors"] == []
    expr, names = INTERFACES[module]
    assert set(browser.js(f"return Object.keys({expr})")) == names
    assert browser.js(f"return Object.keys({expr}).filter(k => {expr}[k] === undefined)") == []


def test_modules_answer_as_the_host_relies_on(browser):
    _blank(browser)
    for m in MODULES:
        _load(browser, m)
    got = browser.js(f"""
      const names = {_SOM}, forms = SomForms(document, names.clean, Identity);
      const button = document.querySelector("button"), input = document.querySelector("input");
      return [Paint.alpha("rgba(1, 2, 3, 0.5)"), Identity.domPath(button),
        SomGeometry().inter([0, 0, 10, 10], [5, 5, 20, 20]), SomClassify.implicitRole(button, "button", ""),
        names.clean("  two   words "), names.textOf(input, "input", "text", false),
        forms.formMethod(button, "button"), forms.isSubmit(button, "button"), forms.pageConfirm()];
    """)
    assert got == [0.5, "html:1>body:1>form:1>button:1", [5, 5, 10, 10], "button", "two words", "Name", "post", True,
                   "Are you sure"]


@pytest.mark.parametrize("host", HOSTS)
def test_the_loader_gives_the_hosts_function_and_no_global(browser, host):
    _blank(browser)
    got = browser.js("const before = new Set(Object.getOwnPropertyNames(window));\n"
                     f"const f = ({resources.script(host)});\n"
                     "return [typeof f, Object.getOwnPropertyNames(window).filter(n => !before.has(n)),"
                     " typeof Paint, typeof Identity];")
    assert got == ["function", [], "undefined", "undefined"]


def test_som_runs_from_execute_script_as_the_observation_sends_it(browser):
    _blank(browser)
    res = json.loads(browser.js("return JSON.stringify((" + resources.script("som.js") + ")(arguments[0]))", {}))
    assert [(m["tag"], m["text"]) for m in res["marks"]] == [("input", "Name"), ("button", "Buy")]
    assert res["marks"][1]["form_method"] == "post" and res["marks"][1]["confirm_text"] == "Are you sure"


def test_eslint_finds_no_undeclared_name_in_any_file_alone():
    """ESLint lints each file alone: no-undef there means no file reads a name it does not declare
    (a host's local variable, as the pasted fragments once did) beyond the browser's globals."""
    eslint = ROOT / "node_modules" / ".bin" / "eslint"
    if not eslint.exists() or not shutil.which("node"):
        pytest.skip("ESLint is not installed: run `npm ci` at the repository root")
    out = subprocess.run([str(eslint), "--format", "json", "cockpit/resources"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    files = json.loads(out.stdout)
    assert {Path(f["filePath"]).name for f in files} >= set(HOSTS) | set(MODULES) | set(ALONE)
    undefined = [(Path(f["filePath"]).name, m["line"], m["message"])
                 for f in files for m in f["messages"] if m.get("ruleId") == "no-undef"]
    assert undefined == []
