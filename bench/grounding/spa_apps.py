"""Scripts for the two component-framework SPAs of the grounding bench (issue #32): NiceGUI (Vue and
Quasar) and Dash (React). Each only calls the framework's own widgets; their markup and scripts are the
frameworks'. They hold what single-page apps built on such component libraries are made of and where
small controls hide: a chip's remove icon, a date field's calendar icon, a password field's show/hide
toggle, the clear "x" inside a drop-down, a table header's "select all" checkbox, a clickable chip, and
a dialog that opens over the page on load.
"""

NICEGUI_APP = '''\
"""A NiceGUI page laid out from NiceGUI's (Quasar's) own widgets."""
import sys

from nicegui import ui

STARS = [{"name": n, "kind": k, "mag": m} for n, k, m in [
    ("Sirius", "star", -1.46), ("Vega", "star", 0.03), ("Orion Nebula", "nebula", 4.0),
    ("Halley", "comet", 28.2), ("Crab Pulsar", "pulsar", 16.5)]]
COLUMNS = [{"name": "name", "label": "Name", "field": "name", "sortable": True, "align": "left"},
           {"name": "kind", "label": "Kind", "field": "kind", "align": "left"},
           {"name": "mag", "label": "Magnitude", "field": "mag", "sortable": True}]


def fields():
    with ui.row():
        ui.input("Observer", value="Ada Lovelace").props("clearable")
        ui.input("Password", password=True, password_toggle_button=True, value="secret")
    with ui.row():
        with ui.input("Night", value="2024-05-01") as night:
            with ui.menu().props("no-parent-event") as menu:
                with ui.date().bind_value(night):
                    with ui.row().classes("justify-end"):
                        ui.button("Close", on_click=menu.close).props("flat")
            with night.add_slot("append"):
                ui.icon("edit_calendar").on("click", menu.open).classes("cursor-pointer")
        ui.select(["Comet", "Nebula", "Pulsar"], label="Target", value="Comet", clearable=True).classes("w-40")
        ui.select(["Aurora", "Cairo", "Denver", "Geneva"], label="Sites", multiple=True,
                  value=["Aurora", "Cairo"]).props("use-chips").classes("w-64")
    with ui.row().classes("items-center"):
        ui.chip("Meteor", removable=True, on_click=lambda: ui.notify("Meteor"))
        ui.chip("v2.1", icon="bookmark", on_click=lambda: ui.notify("version 2.1")).props("clickable")


@ui.page("/")
def index():
    ui.label("Observatory").classes("text-h5")
    fields()
    ui.table(columns=COLUMNS, rows=STARS, row_key="name", selection="multiple").classes("w-full")
    with ui.dialog() as dialog, ui.card():
        ui.label("Delete the selected observations?")
        with ui.row():
            ui.button("Cancel", on_click=dialog.close).props("flat")
            ui.button("Delete", on_click=dialog.close).props("color=negative")
    ui.button("Delete selected", on_click=dialog.open)


@ui.page("/promo")
def promo():
    """A page whose own "what's new" dialog opens on load, over a list of controls."""
    ui.label("Observation log").classes("text-h5")
    for n in range(1, 9):
        with ui.row().classes("items-center"):
            ui.label(f"Night {n}")
            ui.button("Open", on_click=lambda n=n: ui.notify(f"night {n}")).props("flat dense")
            ui.button(icon="delete").props("flat dense round")
    with ui.dialog(value=True) as whatsnew, ui.card():
        ui.label("What's new in 2.1").classes("text-h6")
        ui.label("Night notes now sync between devices.")
        ui.button("Got it", on_click=whatsnew.close)


ui.run(host="127.0.0.1", port=int(sys.argv[1]), reload=False, show=False, title="Observatory")
'''

DASH_APP = '''\
"""A Dash page laid out from Dash's own components (React: dcc, dash_table)."""
import sys

from dash import Dash, Input, Output, dash_table, dcc, html

ROWS = [{"name": n, "kind": k, "mag": m} for n, k, m in [
    ("Sirius", "star", -1.46), ("Vega", "star", 0.03), ("Orion Nebula", "nebula", 4.0),
    ("Halley", "comet", 28.2), ("Crab Pulsar", "pulsar", 16.5), ("Andromeda", "galaxy", 3.4)]]

app = Dash(__name__, title="Sky log")
app.layout = html.Div(style={"fontFamily": "sans-serif", "margin": "16px"}, children=[
    html.H3("Sky log"),
    html.Div(style={"display": "flex", "gap": "12px"}, children=[
        html.Div(style={"width": "200px"}, children=[dcc.Dropdown(["Comet", "Nebula", "Pulsar"], "Comet",
                                                                  id="target", clearable=True)]),
        html.Div(style={"width": "320px"}, children=[dcc.Dropdown(["Aurora", "Cairo", "Denver", "Geneva"],
                                                                  ["Aurora", "Cairo"], id="sites", multi=True)]),
        dcc.DatePickerSingle(id="night", date="2024-05-01", clearable=True),
    ]),
    dcc.Tabs(id="tabs", value="table", children=[
        dcc.Tab(label="Table", value="table", children=[
            dash_table.DataTable(ROWS, [{"name": c.title(), "id": c} for c in ("name", "kind", "mag")],
                                 id="stars", row_selectable="multi", sort_action="native",
                                 filter_action="native", page_size=5)]),
        dcc.Tab(label="Notes", value="notes", children=[dcc.Textarea(id="notes", value="Clear sky.")]),
    ]),
    html.P(id="picked"),
])


@app.callback(Output("picked", "children"), Input("target", "value"), Input("sites", "value"))
def picked(target, sites):
    return f"Target: {target}; sites: {', '.join(sites or [])}"


app.run(host="127.0.0.1", port=int(sys.argv[1]), debug=False)
'''
