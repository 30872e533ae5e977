"""Exports of the run store for people and data sets: an HTML page of a run, an animated GIF of a
run, and the JSON writer the other exports share. (The Reports tab's agreement figures are
:mod:`cockpit.core.review.agreement`; this module is what ``cockpit export`` writes.)

What each export is for:

* :func:`html_report`: one self-contained page per run, to read or to attach
  to a bug report. Screenshots are embedded as JPEG ``data:`` URIs.
* :func:`run_gif`: the marked screenshots as an animation with a caption.
* :func:`write_json`: a JSON data set (COCO marks, clicks) to a file.

The sibling export modules: the labels tables (:func:`~cockpit.core.review.label_tables.labels_rows`,
:func:`~cockpit.core.review.label_tables.write_labels_jsonl`, ``write_labels_csv``; judge verdicts in
:func:`~cockpit.core.review.label_tables.verdict_rows`) are :mod:`cockpit.core.review.label_tables`; the
Set-of-Mark boxes with their human corrections as a COCO object-detection data set are
:func:`cockpit.core.review.coco_marks.coco_marks`.

What this module must never do: write text that came from a page, a model or
a user (titles, URLs, thoughts, actions, answers, element text, comments,
annotator names) into HTML without :func:`html.escape`, in element content or
in attribute values. The HTML page has no script, no links, no external
resources, and a Content-Security-Policy that forbids everything but inline
styles and ``data:`` images, so even a missed escape renders inert.
It never changes the store.
"""
from __future__ import annotations

import base64
import html
import io
import json
import logging
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from cockpit.core.errors import CockpitError
from cockpit.core.page.overlay import draw_marks
from cockpit.core.review import interventions
from cockpit.core.review.label_tables import iso_time, verdict_text
from cockpit.core.store import corrections
from cockpit.core.store import labels as labels_mod
from cockpit.core.store.assignments import blind_for
from cockpit.core.store.db import Store
from cockpit.core.store.records import status_text
from cockpit.core.store.stepmarks import step_marks

log = logging.getLogger(__name__)

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"



# ---------------------------------------------------------------- helpers
def _open_image(store: Store, rel: str | None) -> Image.Image | None:
    """An image file of the store, loaded; None when absent or unreadable."""
    if not rel:
        return None
    try:
        with Image.open(store.file(rel)) as im:
            im.load()
            return im.copy()
    except (OSError, ValueError, Image.DecompressionBombError) as e:
        log.info("cannot read image %s: %s", rel, e)
        return None


def _step_image(store: Store, step: dict) -> tuple[Image.Image | None, str]:
    """The screenshot with boxes as the model saw it (or redrawn from the clean one and the
    marks when the marked file is gone); with a note saying what was missing."""
    img = _open_image(store, step.get("screenshot"))
    if img is not None:
        return img, ""
    clean = _open_image(store, step.get("screenshot_clean"))
    if clean is not None:
        marks = step_marks(store, step)
        if marks is None:
            return clean, "marked screenshot missing; showing the clean screenshot"
        return draw_marks(clean, marks), "marked screenshot missing; boxes redrawn from the recorded marks"
    if step.get("screenshot") or step.get("screenshot_clean"):
        return None, f"screenshot file missing or unreadable: {step.get('screenshot') or step.get('screenshot_clean')}"
    return None, "this step has no screenshot"


# ---------------------------------------------------------------- HTML report
_CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1d1d1f;
  background: #f5f5f7; }
header, main > section { max-width: 1100px; margin: 16px auto; background: #fff; border-radius: 8px; padding: 16px 20px;
  box-shadow: 0 1px 3px rgba(0,0,0,.12); }
h1 { font-size: 20px; margin: 0 0 12px; white-space: pre-wrap; overflow-wrap: anywhere; }
h2 { font-size: 16px; margin: 0 0 8px; }
h3 { font-size: 14px; margin: 12px 0 4px; }
table { border-collapse: collapse; margin: 4px 0 8px; }
th, td { text-align: left; vertical-align: top; padding: 3px 10px 3px 0; overflow-wrap: anywhere; }
th { color: #6e6e73; font-weight: 600; white-space: nowrap; }
table.grid th, table.grid td { border-bottom: 1px solid #e5e5ea; padding: 4px 10px 4px 4px; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f2f2f7; padding: 8px; border-radius: 4px;
  margin: 4px 0; font: 13px/1.4 ui-monospace, Menlo, Consolas, monospace; }
code { font: 13px ui-monospace, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
img { max-width: 100%; height: auto; border: 1px solid #d1d1d6; display: block; }
.answer { font-size: 15px; background: #e8f5e9; }
.note { color: #8a6d00; background: #fff8e1; padding: 6px 8px; border-radius: 4px; }
.bad { color: #b00020; }
.ok { color: #1b5e20; }
.muted { color: #6e6e73; }
"""

#: Tags html_report may emit; tests hold it to this list.
HTML_TAGS = frozenset({"html", "head", "meta", "title", "style", "body", "header", "main", "section",
                       "h1", "h2", "h3", "p", "pre", "code", "span", "table", "tr", "th", "td", "img"})


def _e(value) -> str:
    """Any value as escaped HTML text (quotes too, so it is safe in attributes)."""
    if value is None:
        return ""
    return html.escape(str(value), quote=True)


def _kv(pairs) -> str:
    """A two-column table of (label, already-escaped HTML) pairs, skipping empty values."""
    rows = "".join(f"<tr><th>{_e(k)}</th><td>{v}</td></tr>" for k, v in pairs if v not in (None, ""))
    return f"<table>{rows}</table>" if rows else ""


def _grid(header, rows) -> str:
    """A table with a header row; every cell escaped here."""
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f'<table class="grid"><tr>{head}</tr>{body}</table>'


def _data_uri(img: Image.Image, max_width: int, quality: int) -> str:
    img = img.convert("RGB")
    if img.width > max_width:
        img = img.resize((max_width, max(1, round(img.height * max_width / img.width))), Image.Resampling.LANCZOS)
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=quality, optimize=True)
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def html_report(store: Store, run_id: str, *, max_width: int = 1024, quality: int = 80,
                annotator: str | None = None) -> str:
    """A self-contained HTML page of one run: the run, its labels and verdicts, then every step
    with its marked screenshot embedded. All page, model and user text is escaped.

    For an `annotator` who must label the run blind (:func:`~cockpit.core.store.assignments.blind_for`:
    a blind batch gives it to them and they have not labelled it yet) the page leaves out the judges'
    verdicts and the agent's own claim: its final answer, its status, and the thought and action of
    its ANSWER step."""
    run, steps = store.run(run_id), store.steps(run_id)
    labs, verds = labels_mod.labels(store, run_id), labels_mod.verdicts(store, run_id)
    blind = blind_for(store, run_id, annotator)
    if blind:
        run = dict(run, status=None, answer=BLIND_NOTE)
        steps = [blind_step(s) for s in steps]
    step_labs: dict[int, list[dict]] = {}
    for sl in labels_mod.step_labels(store, run_id):
        step_labs.setdefault(sl["step"], []).append(sl)
    corrs: dict[int, list[dict]] = {}
    for c in corrections.of(store, run_id):
        corrs.setdefault(c["step"], []).append(c)

    status_cls = "ok" if run["status"] == "answered" else ("bad" if run["status"] in ("failed", "interrupted") else "")
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f'<meta http-equiv="Content-Security-Policy" content="{_e(CSP)}">',
           '<meta name="referrer" content="no-referrer">',
           f"<title>{_e('Cockpit run ' + run_id + ': ' + (run['task'] or ''))}</title>",
           f"<style>{_CSS}</style></head><body>", "<header>",
           f"<h1>{_e(run['task'])}</h1>",
           _kv([("Run", f"<code>{_e(run_id)}</code>"),
                ("Task id", _e(run["task_id"])),
                ("Start URL", f"<code>{_e(run['url'])}</code>"),
                ("Site", _e(run["site"])),
                ("Model", _e(run["model"])),
                ("Status", f'<span class="{status_cls}">{_e(status_text(run["status"]))}</span>'
                 if run["status"] else ""),
                ("Steps", _e(run["steps"])),
                ("Started", _e(iso_time(run["started"]))),
                ("Finished", _e(iso_time(run["finished"]))),
                ("Source", _e(run["source"])),
                ("Interventions", _e(_interventions_text(store, run_id))),
                ("Error", f'<span class="bad">{_e(run["error"])}</span>' if run["error"] else "")]),
           "<h2>Answer</h2>",
           (f'<p class="note">{_e(BLIND_NOTE)}</p>' if blind else
            f'<pre class="answer">{_e(run["answer"])}</pre>' if run["answer"] is not None
            else '<p class="muted">no answer</p>')]
    out += _labels_html(labs, verds, blind)
    if run["config"]:
        out.append("<h2>Configuration</h2>")
        out.append(f"<pre>{_e(json.dumps(run['config'], indent=2, ensure_ascii=False, sort_keys=True))}</pre>")
    out.append("</header><main>")
    if not steps:
        out.append('<section><p class="note">this run has no steps</p></section>')
    for s in steps:
        out.append(_step_html(store, s, step_labs.get(s["step"], []), corrs.get(s["step"], []), max_width, quality))
    out.append("</main></body></html>")
    return "\n".join(out)


BLIND_NOTE = "hidden: blind until you have labelled this run"


def _interventions_text(store: Store, run_id: str) -> str:
    iv = interventions.of_run(store, run_id)
    return f"assisted: {iv.describe()}" if iv.assisted else "none (autonomous)"


def _labels_html(labs: list[dict], verds: list[dict], blind: bool) -> list[str]:
    """The run's human labels and judge verdicts (the verdicts hidden when `blind`)."""
    return ["<h2>Human labels</h2>",
            _grid(("Annotator", "Verdict", "Category or reason", "Side effects", "Repetition", "Comment", "Seconds", "Blind",
                   "Labelled at"),
                  [(x["annotator"], x["verdict"].replace("_", " "), x["category"], x.get("side_effects") or "-",
                    x.get("repetition") or "-", x["comment"], x["seconds"], "yes" if x["blind"] else "no",
                    iso_time(x["created"])) for x in labs])
            if labs else '<p class="muted">not labelled</p>',
            "<h2>Judge verdicts</h2>",
            f'<p class="note">{_e(BLIND_NOTE)}</p>' if blind else
            _grid(("Judge", "k", "Prompt", "Verdict", "Judged at"),
                  [(v["judge"], v["k"] or "all", v["prompt_version"], verdict_text(v["verdict"]) or "undecided",
                    iso_time(v["created"])) for v in verds])
            if verds else '<p class="muted">no judge verdicts</p>']


def blind_step(s: dict) -> dict:
    """An ANSWER step with the agent's claim (its thought, answer, reply, status and outcome) taken out."""
    if (s.get("action") or s.get("action_text") or "").lstrip().upper().startswith("ANSWER"):
        return dict(s, thought=BLIND_NOTE, action="ANSWER; " + BLIND_NOTE, action_text=None, reply=None, outcome=None,
                    status=None)
    return s


def _step_html(store: Store, s: dict, step_labs: list[dict], corrs: list[dict], max_width: int, quality: int) -> str:
    n = s["step"]
    who = " (human)" if s.get("actor") == "human" else ""
    parts = [f"<section><h2>Step {_e(n)}{_e(who)}</h2>"]
    img, note = _step_image(store, s)
    if img is not None:
        try:
            parts.append(f'<img alt="{_e(f"screenshot of step {n}")}" src="{_data_uri(img, max_width, quality)}">')
        except OSError as e:
            img, note = None, f"screenshot could not be encoded: {e}"
    if note:
        parts.append(f'<p class="note">{_e(note)}</p>')
    decision = s.get("decision") or {}
    dec_html = ""
    if decision:
        verdict = "approved" if decision.get("approved") else "refused"
        dec_html = _e(f"{verdict} by {decision.get('by') or '?'}")
        if decision.get("message"):
            dec_html += f": {_e(decision['message'])}"
        if decision.get("edited_action"):
            dec_html += f"; edited to <code>{_e(decision['edited_action'])}</code>"
    evidence = s.get("evidence") or []
    risk = _e(s.get("risk")) + (f" ({_e('; '.join(map(str, evidence)))})" if evidence else "")
    status_cls = "bad" if s.get("status") not in ("ok", "answered", None) else ""
    parts.append(_kv([
        ("Page", _e(s.get("title"))),
        ("URL", f"<code>{_e(s.get('url'))}</code>" if s.get("url") else ""),
        ("Marks", _e(s.get("n_marks"))),
    ]))
    parts.append("<h3>Thought</h3>")
    parts.append(f"<pre>{_e(s.get('thought'))}</pre>" if s.get("thought") else '<p class="muted">none</p>')
    parts.append(_kv([
        ("Action", f"<code>{_e(s.get('action'))}</code>" if s.get("action") else ""),
        ("As written", f"<code>{_e(s.get('action_text'))}</code>"
         if s.get("action_text") and s.get("action_text") != s.get("action") else ""),
        ("Target", _e(s.get("target"))),
        ("Risk", risk if s.get("risk") else ""),
        ("Decision", dec_html),
        ("Status", f'<span class="{status_cls}">{_e(s.get("status"))}</span>' if s.get("status") else ""),
        ("Outcome", _e(s.get("outcome"))),
        ("Error", f'<span class="bad">{_e(s.get("error"))}</span>' if s.get("error") else ""),
        ("URL after", f"<code>{_e(s.get('url_after'))}</code>"
         if s.get("url_after") and s.get("url_after") != s.get("url") else ""),
        ("Note", _e(s.get("note"))),
    ]))
    if s.get("reply") and s.get("status") == "format_error":
        parts.append("<h3>Raw reply</h3>")
        parts.append(f"<pre>{_e(s['reply'])}</pre>")
    if step_labs:
        parts.append("<h3>Step labels</h3>")
        parts.append(_grid(("Annotator", "Judgement", "Corrected target", "Comment"),
                           [(x["annotator"], x["judgement"], x["corrected_target"], x["comment"]) for x in step_labs]))
    if corrs:
        parts.append("<h3>Mark corrections</h3>")
        parts.append(_grid(("Kind", "Mark", "Box (x, y, w, h)", "Label", "By"),
                           [(c["kind"], c["mark_id"], ", ".join(map(str, c["bbox"])) if c["bbox"] else "",
                             c["label"], c["by"]) for c in corrs]))
    parts.append("</section>")
    return "\n".join(parts)


# ---------------------------------------------------------------- GIF
def _caption_font(size: int):
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow without FreeType sizes
        return ImageFont.load_default()


def _fit(text: str, font, width: int) -> str:
    text = " ".join(text.split())
    if font.getlength(text) <= width:
        return text
    while text and font.getlength(text + "…") > width:
        text = text[:-1]
    return text + "…"


def run_gif(store: Store, run_id: str, path: Path | str, *, seconds_per_step: float = 1.5,
            width: int = 800) -> Path:
    """An animated GIF of the run's marked screenshots, each scaled to `width` with a caption
    strip below (step number, actor, action). Steps without a readable screenshot are skipped;
    a run with none at all is an error."""
    steps = store.steps(run_id)
    font_size = max(10, width // 50)
    font = _caption_font(font_size)
    strip = font_size * 2 + 14
    sizes = []
    for s in steps:  # first pass: sizes only, so every frame shares one canvas
        img, _ = _step_image(store, s)
        if img is not None:
            sizes.append((s, max(1, round(img.height * width / img.width))))
    if not sizes:
        raise CockpitError(f"run {run_id} has no screenshots to animate")
    canvas_h = max(h for _, h in sizes) + strip
    total = len(steps)

    def frames():
        for s, h in sizes:
            img, _ = _step_image(store, s)
            if img is None:  # vanished since the first pass: keep the frame count, show a blank
                img = Image.new("RGB", (width, h), "white")
            frame = Image.new("RGB", (width, canvas_h), "white")
            frame.paste(img.convert("RGB").resize((width, h), Image.Resampling.LANCZOS), (0, 0))
            d = ImageDraw.Draw(frame)
            d.rectangle([0, canvas_h - strip, width, canvas_h], fill="#1d1d1f")
            who = " (human)" if s.get("actor") == "human" else ""
            action = s.get("action") or s.get("action_text") or s.get("status") or ""
            head = f"Step {s['step']}/{total}{who}: "
            line1 = head + _fit(action, font, width - 12 - int(font.getlength(head)))
            line2 = _fit(s.get("outcome") or s.get("error") or s.get("url") or "", font, width - 12)
            for i, line in enumerate((line1, line2)):
                xy, fill = (6, canvas_h - strip + 5 + i * (font_size + 3)), "white" if i == 0 else "#c7c7cc"
                try:
                    d.text(xy, line, fill=fill, font=font)
                except UnicodeEncodeError:  # Pillow's bitmap fallback font is Latin-1 only
                    d.text(xy, line.encode("latin-1", "replace").decode("latin-1"), fill=fill, font=font)
            yield frame

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    it = frames()
    first = next(it)
    first.save(path, format="GIF", save_all=True, append_images=it,
               duration=max(20, int(seconds_per_step * 1000)), loop=0)
    return path


# ---------------------------------------------------------------- COCO
def write_json(data, path: Path | str) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return path
