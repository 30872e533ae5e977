"""Exports of the run store: labels tables, HTML report (inert with hostile text), GIF, COCO marks, CLI."""
import csv
import io
import json
from html.parser import HTMLParser

import pytest
from PIL import Image

from cockpit.core.page.marks import Mark
from cockpit.core.review import coco_marks, exports, label_tables
from cockpit.core.store import Store, corrections, labels
from cockpit.core.store.newrun import NewRun
from tests.clitools import cockpit
from tests.images import png

THOUGHT = "<script>alert(1)</script>"
TITLE = "<img src=x onerror=alert(1)>"
ANSWER = 'It costs "><b>bold</b> $5'
COMMENT = 'looks fine,\nbut "quoted" <script>x</script>'
ANNOTATOR = "eve<i>"


MARKS = [Mark(1, (10, 10, 100, 30), "a", text="Home <b>"), Mark(2, (10, 50, 80, 20), "button", text="Go"),
         Mark(3, (300, 200, 50, 80), "input", role="textbox")]  # the last one sticks out of the image

SHOT = (320, 240)  # the screenshots' size


@pytest.fixture
def report_home(tmp_path):
    root = tmp_path / "home"
    with Store(root) as store:
        a = store.new_run(NewRun("Find the price " + TITLE, "https://shop.example/?q=<script>", task_id="Shop--1",
                                 site="Shop", model="m1", run_id="run-a", started=1000.0))
        colors = ["red", "green", "blue"]
        for k in (1, 2, 3):
            files = store.write_step_files(a, k, screenshot=png(colors[k - 1], SHOT), marked=png(colors[k - 1], SHOT),
                                           marks=[m.to_dict() for m in MARKS])
            row = dict(step=k, title=TITLE, url=f"https://shop.example/{k}?x=\"'<>", thought=THOUGHT,
                       action=f"Click [{k}]", action_text=f'click [{k}] "><b>', target=k, status="ok",
                       outcome=f"clicked <u>{k}</u>", n_marks=3, risk="low", evidence=["<svg onload=alert(1)>"],
                       **files)
            decision = None
            if k == 2:
                row["decision"] = {"approved": True, "by": "human:<ada>", "message": "<iframe src=x>",
                                   "edited_action": None}
                decision = {"action": "Click [2]", "approved": 1, "by": "human:<ada>"}
            if k == 3:
                row.update(action="ANSWER; " + ANSWER, status="answered", outcome="answered")
            store.commit_step(a, row, decision)
        store.finish_run(a, "answered", answer=ANSWER)
        # step 3's screenshots go missing
        for rel in (store.step(a, 3)["screenshot"], store.step(a, 3)["screenshot_clean"]):
            store.file(rel).unlink()
        corrections.add(store, a, 1, "spurious", mark_id=2, by="human:ada")
        corrections.add(store, a, 2, "missing", bbox=(200, 100, 40, 20), label="Search <field>",
                             element={"tag": "input"}, by="human:ada")
        labels.set_label(store, a, "ada", "success", comment=COMMENT, seconds=12.34)
        labels.set_label(store, a, ANNOTATOR, "fail", category="Hallucination", comment="=1+1", blind=True)
        labels.set_verdict(store, a, "judge<x>", 3, "v1", 1)
        labels.set_step_label(store, a, 1, "ada", "wrong_target", corrected_target=1, comment="<s>no</s>")

        b = store.new_run(NewRun("Unlabelled task", "https://b.example", run_id="run-b", started=2000.0))
        files = store.write_step_files(b, 1, screenshot=png("white", SHOT), marked=png("gray", SHOT), marks=[])
        store.commit_step(b, dict(step=1, thought="t", action="ANSWER; ok", status="answered", **files))
        store.finish_run(b, "answered", answer="ok")
    return root


class Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.attrs = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.append((tag, attrs))

    handle_startendtag = handle_starttag


def test_html_report_renders_hostile_text_inert(report_home):
    with Store(report_home) as store:
        page = exports.html_report(store, "run-a")
    low = page.lower()
    assert "<script" not in low and "<img src=x" not in low and "<iframe" not in low and "<svg" not in low
    assert "onerror=" not in low.replace("onerror=alert(1)&gt;", "")  # only as escaped text
    assert '<meta http-equiv="Content-Security-Policy" content="default-src &#x27;none&#x27;; img-src data:; ' \
           'style-src &#x27;unsafe-inline&#x27;">' in page
    for text in (THOUGHT, TITLE, ANSWER, COMMENT, ANNOTATOR, "<iframe src=x>", "Search <field>", "<s>no</s>",
                 "judge<x>", 'https://shop.example/1?x="\'<>'):
        assert exports._e(text) in page, text
    p = Tags()
    p.feed(page)
    assert set(p.tags) <= exports.HTML_TAGS, set(p.tags) - exports.HTML_TAGS
    imgs = [dict(a) for t, a in p.attrs if t == "img"]
    assert len(imgs) == 2 and all(i["src"].startswith("data:image/jpeg;base64,") for i in imgs)
    for _tag, attrs in p.attrs:
        assert not any(k.startswith("on") or k in ("href", "action", "formaction") for k, _ in attrs)
    assert "screenshot file missing or unreadable" in page  # step 3, not a crash
    assert "Step 3" in page


def test_html_report_image_is_a_small_jpeg(tmp_path):
    with Store(tmp_path) as store:
        r = store.new_run(NewRun("big", "u"))
        files = store.write_step_files(r, 1, marked=png("red", (2000, 1000)))
        store.commit_step(r, dict(step=1, **files))
        page = exports.html_report(store, r)
    import base64
    data = base64.b64decode(page.split("data:image/jpeg;base64,")[1].split('"')[0])
    with Image.open(io.BytesIO(data)) as im:
        assert im.format == "JPEG" and im.size == (1024, 512)


def test_gif_has_one_frame_per_readable_screenshot(report_home, tmp_path):
    with Store(report_home) as store:
        path = exports.run_gif(store, "run-a", tmp_path / "a.gif", seconds_per_step=0.5, width=200)
        with pytest.raises(Exception, match="no screenshots"):
            r = store.new_run(NewRun("empty", "u"))
            store.commit_step(r, dict(step=1, action="Wait"))
            exports.run_gif(store, r, tmp_path / "e.gif")
    with Image.open(path) as im:
        assert im.n_frames == 2 and im.size[0] == 200 and im.size[1] > 150
        assert im.info["duration"] == 500


def test_coco_marks_with_human_corrections(report_home):
    with Store(report_home) as store:
        coco = coco_marks.coco_marks(store)
        only_a = coco_marks.coco_marks(store, ["run-a"], include_spurious=False)
    assert [(i["run_id"], i["step"]) for i in coco["images"]] == [("run-a", 1), ("run-a", 2), ("run-b", 1)]
    assert coco["images"][0]["file_name"] == "runs/run-a/step-001/screenshot.png"
    assert (coco["images"][0]["width"], coco["images"][0]["height"]) == (320, 240)
    assert [c["name"] for c in coco["categories"]] == ["interactive"]
    anns = coco["annotations"]
    assert len(anns) == 3 + 4  # three marks on step 1, three plus one human box on step 2
    assert len({a["id"] for a in anns}) == len(anns)
    step1 = [a for a in anns if a["image_id"] == 1]
    assert [(a["mark_id"], a["spurious"], a["source"]) for a in step1] == [
        (1, False, "som"), (2, True, "som"), (3, False, "som")]
    assert step1[0]["bbox"] == [10, 10, 100, 30] and step1[0]["area"] == 3000 and step1[0]["iscrowd"] == 0
    assert step1[2]["bbox"] == [300, 200, 20, 40]  # clipped to the 320x240 image
    human = [a for a in anns if a["source"] == "human"]
    assert len(human) == 1 and human[0]["image_id"] == 2 and human[0]["bbox"] == [200, 100, 40, 20]
    assert human[0]["label"] == "Search <field>" and human[0]["mark_id"] is None and human[0]["tag"] == "input"
    assert not any(a["spurious"] for a in anns if a["image_id"] == 2)
    assert len(only_a["images"]) == 2 and len(only_a["annotations"]) == 6
    assert all(a["mark_id"] != 2 or a["image_id"] != 1 for a in only_a["annotations"])
    json.dumps(coco)  # serialisable as is


def test_labels_rows_round_trip_through_csv_and_jsonl(report_home, tmp_path):
    with Store(report_home) as store:
        rows = label_tables.labels_rows(store)
        vrows = label_tables.verdict_rows(store)
    assert [(r["run_id"], r["annotator"]) for r in rows] == [("run-a", "ada"), ("run-a", ANNOTATOR), ("run-b", None)]
    assert rows[0]["comment"] == COMMENT and rows[0]["seconds"] == 12.3 and rows[0]["blind"] is False
    assert rows[1]["category"] == "Hallucination" and rows[1]["blind"] is True
    assert rows[0]["answer"] == ANSWER and rows[0]["labelled_at"].endswith("+00:00")
    assert rows[2]["verdict"] is None and rows[2]["task"] == "Unlabelled task"
    assert vrows == [{"run_id": "run-a", "task_id": "Shop--1", "judge": "judge<x>", "k": 3, "prompt_version": "v1",
                      "verdict": "success", "judged_at": vrows[0]["judged_at"]}]

    j = label_tables.write_labels_jsonl(rows, tmp_path / "l.jsonl")
    assert [json.loads(line) for line in j.read_text(encoding="utf-8").splitlines()] == rows

    c = label_tables.write_labels_csv(rows, tmp_path / "l.csv")
    raw = c.read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf")
    with open(c, encoding="utf-8", newline="") as f:
        back = list(csv.DictReader(f))
    assert list(back[0]) == list(label_tables.LABEL_FIELDS)
    assert back == [{k: "" if v is None else str(v) for k, v in r.items()} for r in rows]


def test_cli_writes_each_format(report_home, tmp_path):
    out = tmp_path / "out"
    r = cockpit(report_home, "export", "all", "--format", "labels-csv", "--out", str(out / "labels.csv"))
    assert r.returncode == 0, r.stderr
    with open(out / "labels.csv", encoding="utf-8", newline="") as f:
        assert [(x["run_id"], x["annotator"]) for x in csv.DictReader(f)] == [
            ("run-a", "ada"), ("run-a", ANNOTATOR), ("run-b", "")]

    r = cockpit(report_home, "export", "run-b", "--format", "labels-jsonl", "--out", str(out / "labels.jsonl"))
    assert r.returncode == 0, r.stderr
    assert [json.loads(x)["run_id"] for x in (out / "labels.jsonl").read_text().splitlines()] == ["run-b"]

    r = cockpit(report_home, "export", "all", "--format", "coco", "--drop-spurious", "--out", str(out / "marks.json"))
    assert r.returncode == 0, r.stderr
    coco = json.loads((out / "marks.json").read_text())
    assert len(coco["images"]) == 3 and len(coco["annotations"]) == 6
    assert (report_home / coco["images"][0]["file_name"]).is_file()

    r = cockpit(report_home, "export", "run-a", "run-b", "--format", "html", "--out", str(out / "html"))
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in (out / "html").iterdir()) == ["run-a.html", "run-b.html"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in (out / "html" / "run-a.html").read_text(encoding="utf-8")

    r = cockpit(report_home, "export", "run-a", "--format", "gif", "--width", "160", "--out", str(out / "gif"))
    assert r.returncode == 0, r.stderr
    with Image.open(out / "gif" / "run-a.gif") as im:
        assert im.n_frames == 2 and im.size[0] == 160

    r = cockpit(report_home, "export", "nope", "--format", "coco", "--out", str(out / "x.json"))
    assert r.returncode == 1 and "no run 'nope'" in r.stderr and not (out / "x.json").exists()
    r = cockpit(report_home, "export", "all", "--format", "labels-csv", "--out", str(out))
    assert r.returncode == 2 and "is a folder" in r.stderr
    r = cockpit(report_home, "export", "run-a", "--format", "webvoyager", "--out", str(out / "wv"))
    assert r.returncode == 0, r.stderr
    assert (out / "wv" / "taskShop--1" / "interact_messages.json").is_file()
