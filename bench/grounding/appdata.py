"""What the grounding bench's apps serve, generated here: a small SQLite database (Datasette, Flask-Admin),
reStructuredText pages for Sphinx, Markdown pages for MkDocs Material, and the Flask-Admin and Streamlit
scripts (which only call those apps' own views and widgets). No HTML or JavaScript is written here."""
from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

from bench.apps import APPS_DIR, BIN

DATA = APPS_DIR / "grounding" / "data"

# ---------------------------------------------------------------- generated content
WORDS = ("aurora borealis comet nebula pulsar quasar meteor galaxy orbit eclipse zenith solstice "
         "equinox corona photon plasma crater horizon lunar solar stellar cosmic").split()
CITIES = ["Aurora", "Boulder", "Cairo", "Denver", "Edinburgh", "Florence", "Geneva", "Helsinki",
          "Istanbul", "Jakarta", "Kyoto", "Lisbon", "Madrid", "Nairobi", "Oslo", "Paris"]


def make_db(path: Path) -> Path:
    """A small SQLite database: observatories, astronomers (with a foreign key), observations."""
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    db = sqlite3.connect(tmp)
    db.executescript("""
        CREATE TABLE observatory (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT, elevation INTEGER);
        CREATE TABLE astronomer (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT,
            born INTEGER, active BOOLEAN, observatory_id INTEGER REFERENCES observatory(id));
        CREATE TABLE observation (id INTEGER PRIMARY KEY, target TEXT NOT NULL, kind TEXT,
            magnitude REAL, night TEXT, astronomer_id INTEGER REFERENCES astronomer(id), notes TEXT);
    """)
    for i, city in enumerate(CITIES, 1):
        db.execute("INSERT INTO observatory VALUES (?,?,?,?)",
                   (i, f"{city} Observatory", city, 200 + (i * 137) % 2900))
    first = ["Ada", "Bo", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lea"]
    last = ["Nova", "Orion", "Vega", "Lyra", "Draco", "Cetus"]
    n = 0
    for f in first:
        for l in last[: 3 + len(f) % 3]:
            n += 1
            db.execute("INSERT INTO astronomer VALUES (?,?,?,?,?,?)",
                       (n, f"{f} {l}", f"{f.lower()}.{l.lower()}@example.org", 1950 + (n * 7) % 50,
                        n % 3 != 0, 1 + n % len(CITIES)))
    kinds = ["photometry", "spectroscopy", "astrometry", "imaging"]
    for i in range(1, 241):
        db.execute("INSERT INTO observation VALUES (?,?,?,?,?,?,?)",
                   (i, f"{WORDS[i % len(WORDS)].title()} {i % 37}", kinds[i % 4], round(2 + (i * 0.37) % 14, 2),
                    f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}", 1 + i % n,
                    " ".join(WORDS[(i + k) % len(WORDS)] for k in range(6))))
    db.commit()
    db.close()
    tmp.rename(path)
    return path


SPHINX_PAGES = {
    "index": ("Star Catalogue", "Welcome to the Star Catalogue documentation.\n\n"
              ".. toctree::\n   :maxdepth: 2\n   :caption: Contents\n\n   install\n   usage\n   observing\n"
              "   reference\n"),
    "install": ("Installing", "Install the catalogue with your package manager.\n\n"
                ".. code-block:: console\n\n   $ pip install star-catalogue\n\n"
                "Telescope drivers\n-----------------\n\nA telescope driver talks to the mount. "
                "See :doc:`usage` and :ref:`filters`.\n"),
    "usage": ("Using the catalogue", "Open a catalogue and query it.\n\n"
              ".. _filters:\n\nFilters\n-------\n\nFilter stars by magnitude, nebula type or comet orbit.\n\n"
              ".. list-table::\n   :header-rows: 1\n\n   * - Filter\n     - Meaning\n"
              "   * - magnitude\n     - apparent brightness\n   * - orbit\n     - orbital period\n\n"
              "Exporting\n---------\n\nExport to CSV or to the `FITS format <https://fits.gsfc.nasa.gov/>`_.\n"),
    "observing": ("Observing nights", "Plan an observing night.\n\n.. note::\n\n   Check the weather first.\n\n"
                  "Eclipses\n--------\n\nA solar eclipse needs a filter. A lunar eclipse does not.\n\n"
                  "Meteor showers\n--------------\n\nThe Perseid meteor shower peaks in August.\n"),
    "reference": ("API reference", "The catalogue's Python interface.\n\n"
                  ".. py:function:: open_catalogue(path, mode='r')\n\n   Open a catalogue file.\n\n"
                  ".. py:class:: Star(name, magnitude)\n\n   One star.\n\n   .. py:method:: brighter(than)\n\n"
                  "      Whether this star is brighter.\n"),
}


def make_sphinx(root: Path) -> Path:
    """Sources generated here, built by the installed Sphinx (alabaster theme) into root/html."""
    html = root / "html"
    if (html / "searchindex.js").exists():
        return html
    src = root / "src"
    shutil.rmtree(root, ignore_errors=True)
    src.mkdir(parents=True)
    (src / "conf.py").write_text("project = 'Star Catalogue'\nhtml_theme = 'alabaster'\n"
                                 "extensions = []\nhtml_sidebars = {'**': ['about.html', 'navigation.html', "
                                 "'relations.html', 'searchbox.html']}\n")
    for name, (title, body) in SPHINX_PAGES.items():
        (src / f"{name}.rst").write_text(f"{title}\n{'=' * len(title)}\n\n{body}")
    subprocess.run([str(BIN / "sphinx-build"), "-q", "-b", "html", str(src), str(html)], check=True)
    return html


MKDOCS_YML = """\
site_name: Comet Notes
theme:
  name: material
  font: false
  features:
    - navigation.tabs
    - navigation.sections
    - search.suggest
    - search.highlight
    - content.tabs.link
  palette:
    - scheme: default
      toggle:
        icon: material/brightness-7
        name: Switch to dark mode
    - scheme: slate
      toggle:
        icon: material/brightness-4
        name: Switch to light mode
markdown_extensions:
  - admonition
  - pymdownx.details
  - pymdownx.superfences
  - pymdownx.tabbed:
      alternate_style: true
plugins:
  - search
nav:
  - Home: index.md
  - Guide:
      - Getting started: guide/start.md
      - Telescopes: guide/telescopes.md
  - Reference: reference.md
"""

MKDOCS_PAGES = {
    "index.md": "# Comet Notes\n\nNotes on comets, telescopes and observing.\n\n"
                "- [Getting started](guide/start.md)\n- [Telescopes](guide/telescopes.md)\n"
                "- [Reference](reference.md)\n\n## Why comets\n\nA comet's tail points away from the sun.\n",
    "guide/start.md": "# Getting started\n\nInstall the tools and plan a night.\n\n"
                      "??? note \"What to bring\"\n\n    A red torch, a chair, warm clothes.\n\n"
                      "??? tip \"Dark adaptation\"\n\n    Wait twenty minutes before observing faint comets.\n\n"
                      "??? warning \"Never look at the sun\"\n\n    Use a certified solar filter.\n\n"
                      "## Installing\n\n=== \"Linux\"\n\n    ```\n    apt install stellarium\n    ```\n\n"
                      "=== \"macOS\"\n\n    ```\n    brew install stellarium\n    ```\n\n"
                      "=== \"Windows\"\n\n    Download the installer.\n",
    "guide/telescopes.md": "# Telescopes\n\n## Refractors\n\nA refractor uses lenses.\n\n"
                           "## Reflectors\n\nA reflector uses mirrors. Comet hunters like wide fields.\n\n"
                           "## Mounts\n\nAn equatorial mount follows the sky.\n",
    "reference.md": "# Reference\n\n| Comet | Period (years) |\n|---|---|\n| Halley | 76 |\n"
                    "| Encke | 3.3 |\n| Hale-Bopp | 2533 |\n\n## Glossary\n\n"
                    "Coma\n: the cloud around a comet's nucleus.\n\nPerihelion\n: the closest point to the sun.\n",
}


#: Generated observing-log pages (searchable, not in the nav): enough text that the search worker takes a
#: moment to build its index, as on a real docs site, where the issue saw "Initializing search".
MKDOCS_LOG_PAGES = 300


def _log_page(i: int) -> str:
    words = [WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(400)]
    paras = [" ".join(words[j:j + 50]).capitalize() + "." for j in range(0, 400, 50)]
    return f"# Observing log {i}\n\n" + "\n\n".join(
        f"## Night {i}.{n}\n\n{p}" for n, p in enumerate(paras, 1)) + "\n"


def make_mkdocs(root: Path) -> Path:
    site = root / "site"
    stamp = root / "stamp"
    want = hashlib.sha1(repr((MKDOCS_YML, sorted(MKDOCS_PAGES.items()), MKDOCS_LOG_PAGES,
                              _log_page(1))).encode()).hexdigest()
    if (site / "search" / "search_index.json").exists() and stamp.exists() and stamp.read_text() == want:
        return site
    shutil.rmtree(root, ignore_errors=True)
    docs = root / "docs"
    for name, text in MKDOCS_PAGES.items():
        p = docs / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    (docs / "log").mkdir(parents=True, exist_ok=True)
    for i in range(1, MKDOCS_LOG_PAGES + 1):
        (docs / "log" / f"night{i:03d}.md").write_text(_log_page(i))
    (root / "mkdocs.yml").write_text(MKDOCS_YML)
    subprocess.run([str(BIN / "mkdocs"), "build", "-q", "-f", str(root / "mkdocs.yml"), "-d", str(site)],
                   check=True, cwd=root, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    stamp.write_text(want)
    return site


FLASK_ADMIN_APP = '''\
"""Flask-Admin over the bench's generated SQLite database (the admin's views are Flask-Admin's own)."""
import sys
from flask import Flask, redirect
from flask_sqlalchemy import SQLAlchemy
from flask_admin import Admin
from flask_admin.contrib.sqla import ModelView

app = Flask(__name__)
app.config["SQLALCHEMY_DATABASE_URI"] = "sqlite:///" + sys.argv[1]
app.config["SECRET_KEY"] = "bench"
db = SQLAlchemy(app)


class Observatory(db.Model):
    id = db.Column(db.Integer, primary_key=True)
    name = db.Column(db.Text, nullable=False)
    city = db.Column(db.Text)
    elevation = db.Column(db.Integer)
    def __str__(self):
        return self.name


class Astronomer(db.Model):
    id = db.Column(db.Integer, primary_key=True)
    name = db.Column(db.Text, nullable=False)
    email = db.Column(db.Text)
    born = db.Column(db.Integer)
    active = db.Column(db.Boolean)
    observatory_id = db.Column(db.Integer, db.ForeignKey("observatory.id"))
    observatory = db.relationship(Observatory)
    def __str__(self):
        return self.name


class Observation(db.Model):
    id = db.Column(db.Integer, primary_key=True)
    target = db.Column(db.Text, nullable=False)
    kind = db.Column(db.Text)
    magnitude = db.Column(db.Float)
    night = db.Column(db.Text)
    astronomer_id = db.Column(db.Integer, db.ForeignKey("astronomer.id"))
    astronomer = db.relationship(Astronomer)
    notes = db.Column(db.Text)


class AstronomerView(ModelView):
    can_view_details = True
    details_modal = True
    edit_modal = True
    column_searchable_list = ["name", "email"]
    column_filters = ["name", "born", "active", "observatory"]
    form_ajax_refs = {"observatory": {"fields": ["name", "city"], "page_size": 10}}
    page_size = 20


class ObservationView(ModelView):
    column_searchable_list = ["target", "notes"]
    column_filters = ["kind", "magnitude", "night"]
    form_choices = {"kind": [("photometry", "Photometry"), ("spectroscopy", "Spectroscopy"),
                             ("astrometry", "Astrometry"), ("imaging", "Imaging")]}
    page_size = 20


admin = Admin(app, name="Observatory admin")
admin.add_view(ModelView(Observatory, db.session))
admin.add_view(AstronomerView(Astronomer, db.session))
admin.add_view(ObservationView(Observation, db.session))


@app.route("/")
def home():
    return redirect("/admin/")


if __name__ == "__main__":
    app.run(host="127.0.0.1", port=int(sys.argv[2]), debug=False, use_reloader=False)
'''

STREAMLIT_APP = '''\
"""A Streamlit page laid out from Streamlit's own widgets (their markup and scripts are Streamlit's)."""
import streamlit as st

st.set_page_config(page_title="Comet planner", layout="centered")
st.title("Comet planner")
st.write("Plan an observing night.")

comet = st.selectbox("Comet", ["Halley", "Encke", "Hale-Bopp", "Swift-Tuttle", "Tempel 1", "Wild 2"],
                     index=None, placeholder="Choose a comet")
gear = st.multiselect("Equipment", ["Binoculars", "Refractor", "Reflector", "Camera", "Star chart",
                                    "Red torch", "Solar filter"])
name = st.text_input("Observer name", placeholder="Your name")
if name:
    st.success(f"Hello, {name}! Clear skies.")
col1, col2 = st.columns(2)
with col1:
    hours = st.slider("Hours outside", 1, 10, 3)
with col2:
    mode = st.radio("Mode", ["Visual", "Photographic"], horizontal=True)
dark = st.checkbox("Dark site")
with st.expander("Advanced settings"):
    st.number_input("Magnitude limit", value=6.0)
    st.toggle("Track the comet")
tab1, tab2, tab3 = st.tabs(["Overview", "Weather", "Notes"])
with tab1:
    st.write(f"{comet or 'No comet'} for {hours} hours, {mode.lower()}, {'dark' if dark else 'suburban'} site.")
with tab2:
    st.button("Refresh forecast")
    st.write("Cloud cover 20%")
with tab3:
    st.text_area("Notes", placeholder="What you saw")


@st.dialog("Confirm the plan")
def confirm():
    st.write("Save this plan?")
    st.text_input("Plan name", key="plan_name")
    if st.button("Save"):
        st.rerun()


if st.button("Save plan"):
    confirm()
'''
