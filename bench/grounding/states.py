"""The corpus: page states of the bench's real apps, each an app, a start URL and a recipe.

A recipe is done the way the agent does it: Cockpit observes the page, the
step's target is found among Cockpit's own marks (by a CSS selector: the mark
that is the element, holds it, or lies inside it; or by the mark's text), and
the action is parsed by ``cockpit.core.actions.grammar.parse_action`` and run by
``cockpit.core.agent.execute.Executor``, which lets Cockpit's settle run after
it. The start URL is opened with a ``Goto`` action the same way.

Steps:
    {"click": TARGET}                         Click [N]
    {"type": TARGET, "text": S}               Type [N]; S  (then Enter)
    {"type": TARGET, "text": S, "enter": False}  Type [N]; S  without Enter (autocomplete)
    {"select": TARGET, "text": S}             Select [N]; S
    {"hover": TARGET}                         Hover [N]
    {"press": KEY}                            Press [KEY]
TARGET is {"css": selector} or {"text": label} (exact, else prefix, else substring, case-insensitive).

``kind`` says what the state stands for in issue #16's list: static, spa (renders after
fetching), search (results rendered by script or a worker), autocomplete (typed into, with a
debounce), accordion (opened details/expander), select / combobox (opened), modal, menu,
tabs, navigation (after a form submit or link).
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class State:
    id: str
    app: str
    path: str
    kind: str
    steps: list = field(default_factory=list)
    note: str = ""


def _s(id, app, path, kind, *steps, note=""):
    return State(id, app, path, kind, list(steps), note)


CSS = lambda sel: {"css": sel}  # noqa: E731
TEXT = lambda t: {"text": t}  # noqa: E731

STATES: list[State] = [
    # ---- Datasette: server-rendered tables with JS column menus
    _s("ds-index", "datasette", "/", "static"),
    _s("ds-database", "datasette", "/sky", "static", note="tables list and a CodeMirror SQL editor"),
    _s("ds-table", "datasette", "/sky/astronomer", "static", note="sortable headers with cog menus"),
    _s("ds-facets", "datasette", "/sky/observation?_facet=kind&_facet=astronomer_id", "static"),
    _s("ds-row", "datasette", "/sky/astronomer/3", "static"),
    _s("ds-column-menu", "datasette", "/sky/astronomer", "menu",
       {"click": CSS("th.col-name svg.dropdown-menu-icon")}, note="the column's cog opens a menu"),
    _s("ds-filter", "datasette", "/sky/observation", "navigation",
       {"select": CSS("select[name=_filter_column]"), "text": "kind"},
       {"type": CSS("input[name=_filter_value]"), "text": "imaging"},
       note="a filter form submitted"),
    _s("ds-facet-click", "datasette", "/sky/observation?_facet=kind", "navigation",
       {"click": TEXT("imaging")}),
    _s("ds-sql", "datasette", "/sky?sql=select+target%2C+kind%2C+magnitude+from+observation+where+magnitude+%3E+10",
       "static", note="query results under the SQL editor"),
    # ---- Sphinx: a static docs site; its search page renders results from searchindex.js
    _s("sx-index", "sphinx", "/index.html", "static"),
    _s("sx-usage", "sphinx", "/usage.html", "static"),
    _s("sx-reference", "sphinx", "/reference.html", "static"),
    _s("sx-genindex", "sphinx", "/genindex.html", "static"),
    _s("sx-search-url", "sphinx", "/search.html?q=eclipse", "search",
       note="results are rendered by searchtools.js after searchindex.js loads"),
    _s("sx-search-typed", "sphinx", "/install.html", "search",
       {"type": CSS("input[name=q]"), "text": "meteor"}, note="the sidebar search box, submitted"),
    # ---- MkDocs Material: a worker builds the search index; CSS-only toggles
    _s("mk-home", "mkdocs", "/", "static"),
    _s("mk-guide", "mkdocs", "/guide/start/", "static", note="collapsible notes and content tabs"),
    _s("mk-reference", "mkdocs", "/reference/", "static"),
    _s("mk-details", "mkdocs", "/guide/start/", "accordion", {"click": TEXT("What to bring")}),
    _s("mk-tab", "mkdocs", "/guide/start/", "tabs", {"click": TEXT("macOS")}),
    _s("mk-search", "mkdocs", "/", "search",
       {"type": CSS("input.md-search__input"), "text": "telescope", "enter": False},
       note="results are shown once the worker has built the index"),
    _s("mk-search-comet", "mkdocs", "/guide/telescopes/", "autocomplete",
       {"type": CSS("input.md-search__input"), "text": "com", "enter": False},
       note="typed at once after load: the worker may still be 'Initializing search'"),
    _s("mk-drawer", "mkdocs", "/reference/", "modal", {"click": CSS("label.md-header__button[for=__drawer]")},
       note="the navigation drawer slides in over the page"),
    # ---- Flask-Admin: Bootstrap 4, jQuery, select2 (ajax), modals
    _s("fa-index", "flaskadmin", "/admin/", "static"),
    _s("fa-list", "flaskadmin", "/admin/astronomer/", "static", note="a list with row checkboxes and icons"),
    _s("fa-add-filter", "flaskadmin", "/admin/astronomer/", "menu", {"click": TEXT("Add Filter")}),
    _s("fa-filter-row", "flaskadmin", "/admin/astronomer/", "combobox",
       {"click": TEXT("Add Filter")}, {"click": TEXT("Observatory")},
       note="a filter row with its operation select2 and value"),
    _s("fa-search", "flaskadmin", "/admin/astronomer/", "navigation",
       {"type": CSS("input[name=search]"), "text": "Ada"}),
    _s("fa-details-modal", "flaskadmin", "/admin/astronomer/", "modal",
       {"click": CSS("a[title='View Record']")}, note="the details view loads into a modal"),
    _s("fa-edit-modal", "flaskadmin", "/admin/astronomer/", "modal",
       {"click": CSS("a[title='Edit Record']")}),
    _s("fa-create", "flaskadmin", "/admin/astronomer/new/", "static", note="a form with an ajax select2"),
    _s("fa-select2-open", "flaskadmin", "/admin/astronomer/new/", "combobox",
       {"click": CSS("#s2id_observatory, .select2-container")}, note="select2 opened; its options come by ajax"),
    _s("fa-select2-typed", "flaskadmin", "/admin/astronomer/new/", "autocomplete",
       {"click": CSS("#s2id_observatory, .select2-container")},
       {"type": CSS(".select2-search__field, .select2-input"), "text": "Ky", "enter": False},
       note="typed into the ajax autocomplete (select2's 250 ms delay, then a request)"),
    _s("fa-choices-open", "flaskadmin", "/admin/observation/new/", "combobox",
       {"click": CSS("#s2id_kind, #kind + .select2-container, .select2-container")}),
    _s("fa-with-selected", "flaskadmin", "/admin/astronomer/", "menu",
       {"click": CSS("input.action-checkbox")}, {"click": TEXT("With selected")}),
    # ---- Streamlit: a React SPA that renders after its websocket session starts
    _s("st-load", "streamlit", "/", "spa", note="rendered after the websocket's first script run"),
    _s("st-selectbox", "streamlit", "/", "combobox", {"click": TEXT("Comet")}),
    _s("st-multiselect-typed", "streamlit", "/", "autocomplete",
       {"type": TEXT("Equipment"), "text": "re", "enter": False}),
    _s("st-expander", "streamlit", "/", "accordion", {"click": TEXT("Advanced settings")}),
    _s("st-tab", "streamlit", "/", "tabs", {"click": TEXT("Weather")}),
    _s("st-text-rerun", "streamlit", "/", "spa", {"type": TEXT("Observer name"), "text": "Ada"},
       note="Enter reruns the script; a message appears"),
    _s("st-dialog", "streamlit", "/", "modal", {"click": TEXT("Save plan")}),
    _s("st-menu", "streamlit", "/", "menu", {"click": TEXT("Main menu")}),
    # ---- NiceGUI (Vue/Quasar, issue #32): small controls inside fields, table selection, dialogs
    _s("ng-load", "nicegui", "/", "spa",
       note="clear icons, a password toggle, a calendar icon, chips with remove icons, select-all checkbox"),
    _s("ng-select-open", "nicegui", "/", "select", {"click": TEXT("Comet")}),
    _s("ng-date-menu", "nicegui", "/", "menu", {"click": TEXT("edit_calendar")},
       note="the field's calendar icon opens a date picker"),
    _s("ng-dialog", "nicegui", "/", "modal", {"click": TEXT("Delete selected")}),
    _s("ng-dialog-on-load", "nicegui", "/promo", "modal",
       note="a what's-new dialog opens over a list of controls: nothing under it is a target"),
    # ---- Dash (React, issue #32): drop-downs with a clear "x" and removable values, a date picker, a table
    _s("dash-load", "dash", "/", "spa", note="drop-downs, a date picker, a data table with row selection"),
    _s("dash-dropdown-open", "dash", "/", "select", {"click": TEXT("Comet")}),
    _s("dash-date-open", "dash", "/", "menu", {"click": CSS("#night")}),
    _s("dash-tab", "dash", "/", "tabs", {"click": TEXT("Notes")}),
]
