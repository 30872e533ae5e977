"""Loading the task files users hand in: the three formats, and messy files."""
import json
import time

import pytest

from cockpit.core.errors import CockpitError
from cockpit.core.tasks.task import Task
from cockpit.core.tasks.taskfile import load_reference_answers, load_tasks, select


def wv(i, site="Allrecipes", **kw):
    rec = {"web_name": site, "id": f"{site}--{i}", "ques": f"Question {i} about {site}?",
           "web": f"https://www.{site.lower()}.com/"}
    rec.update(kw)
    return json.dumps(rec)


def write(tmp_path, text, name="tasks.jsonl"):
    p = tmp_path / name
    p.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return p


def messages(tf):
    return [p.message for p in tf.problems]


def test_webvoyager_jsonl(tmp_path):
    tf = load_tasks(write(tmp_path, "\n".join([wv(0), wv(1), wv(0, "Amazon")]) + "\n"))
    assert tf.format == "webvoyager"
    assert tf.problems == []
    assert tf.tasks[0] == Task("Allrecipes--0", "Question 0 about Allrecipes?",
                               "https://www.allrecipes.com/", "Allrecipes", {})
    assert [t.id for t in tf.tasks] == ["Allrecipes--0", "Allrecipes--1", "Amazon--0"]


def test_gaia_variant_keeps_its_fields(tmp_path):
    line = json.dumps({"task_id": "c61d22de-5f6c", "Level": 2, "Final answer": "egalitarian",
                       "web_name": "GAIA", "id": "GAIA--3", "ques": "Which word...?",
                       "web": "https://www.google.com/"})
    t = load_tasks(write(tmp_path, line)).tasks[0]
    assert (t.id, t.site, t.url) == ("GAIA--3", "GAIA", "https://www.google.com/")
    assert t.extra == {"task_id": "c61d22de-5f6c", "Level": 2, "Final answer": "egalitarian"}


def test_plain_jsonl_generates_ids_and_sites(tmp_path):
    p = write(tmp_path, '{"task": "Find shoes", "url": "https://shop.example.org/x"}\n'
                        '{"task": "Price?", "url": "https://a.example/", "id": "p1", "site": "A",'
                        ' "note": 5}\n')
    tf = load_tasks(p)
    assert tf.format == "plain"
    assert tf.tasks == [Task("task-1", "Find shoes", "https://shop.example.org/x", "shop.example.org"),
                        Task("p1", "Price?", "https://a.example/", "A", {"note": 5})]


WEBARENA = {"sites": ["shopping"], "task_id": 7, "require_login": True,
            "start_url": "http://localhost:7770", "intent": "What is the price of the cheapest mug?",
            "eval": {"eval_types": ["string_match"], "reference_answers": {"must_include": ["$4"]},
                     "reference_url": ""}}


def test_webarena_single_object_pretty_printed(tmp_path):
    tf = load_tasks(write(tmp_path, json.dumps(WEBARENA, indent=2), "7.json"))
    assert tf.format == "webarena" and tf.problems == []
    t = tf.tasks[0]
    assert (t.id, t.task, t.url, t.site) == ("7", WEBARENA["intent"], "http://localhost:7770", "shopping")
    assert t.extra["eval"]["reference_answers"] == {"must_include": ["$4"]}


@pytest.mark.fault("input")
def test_webarena_list_reports_bad_entries_by_line(tmp_path, monkeypatch):
    monkeypatch.delenv("WIKIPEDIA", raising=False)
    mmina = dict(WEBARENA, task_id=8, start_url="__WIKIPEDIA__", cnt_hop=2,
                 procedure=["wiki", "shopping", "end"])
    text = json.dumps([WEBARENA, 5, mmina], indent=2)
    path = write(tmp_path, text, "test.raw.json")
    tf = load_tasks(path, {"wikipedia": "http://127.0.0.1:8888"})  # WebArena's placeholder, mapped
    assert [t.id for t in tf.tasks] == ["7", "8"]
    assert tf.tasks[1].extra["procedure"] == ["wiki", "shopping", "end"]
    assert tf.tasks[1].url == "http://127.0.0.1:8888"
    line_of_5 = text.splitlines().index("  5,") + 1
    assert f"line {line_of_5}: expected a JSON object (one task), got a number" in messages(tf)
    unmapped = load_tasks(path, {})  # (no WIKIPEDIA in the environment either)
    assert [t.id for t in unmapped.tasks] == ["7"]
    placeholder = [p for p in unmapped.problems if "placeholder" in p.message]
    assert placeholder and placeholder[0].line == text.splitlines().index("  {", 3) + 1


@pytest.mark.fault("input")
def test_messy_jsonl_every_problem_names_its_line(tmp_path):
    lines = [
        "\ufeff" + wv(0),                                       # 1 BOM
        "",                                                     # 2 blank: silent
        wv(1)[:-1] + ', "x" 1}',                                # 3 invalid JSON
        "[1, 2]",                                               # 4 array
        "42",                                                   # 5 number
        json.dumps({"web_name": "Allrecipes", "web": "https://x.org"}),    # 6 no ques
        json.dumps({"id": "A--9", "ques": "q", "web": 12}),     # 7 wrong type
        wv(0),                                                  # 8 duplicate
        wv(2, web="www.allrecipes.com/recipes"),                # 9 no scheme
        "   ",                                                  # 10 blank
        wv(3),                                                  # 11 fine
    ]
    tf = load_tasks(write(tmp_path, "\r\n".join(lines) + "\r\n"))
    assert [t.id for t in tf.tasks] == ["Allrecipes--0", "Allrecipes--2", "Allrecipes--3"]
    assert tf.tasks[1].url == "https://www.allrecipes.com/recipes"
    assert tf.tasks[2].url == "https://www.allrecipes.com/"  # no \r left over
    assert [p.line for p in tf.problems] == [3, 4, 5, 6, 7, 8, 9]
    got = messages(tf)
    assert got[0].startswith("line 3: not valid JSON (Expecting ")
    assert "column" in got[0]
    assert got[1:] == [
        "line 4: expected a JSON object (one task), got an array",
        "line 5: expected a JSON object (one task), got a number",
        'line 6: missing "ques" (the task text)',
        'line 7: "web" must be a string, got a number',
        'line 8: duplicate id "Allrecipes--0" (first on line 1); skipped',
        'line 9: "web" has no scheme, using https://www.allrecipes.com/recipes',
    ]


@pytest.mark.fault("input")
def test_non_utf8_line_is_reported_and_still_loads(tmp_path):
    data = (wv(0) + "\n").encode() + b'{"task": "Caf\xe9 menu", "url": "https://cafe.example/"}\n'
    tf = load_tasks(write(tmp_path, data))
    assert tf.tasks[1].task == "Caf\ufffd menu"
    assert tf.problems[0].line == 2 and "not valid UTF-8" in tf.problems[0].message


def test_mixed_file_reports_majority_format(tmp_path):
    text = "\n".join([wv(0), wv(1), '{"task": "t", "url": "https://x.org"}'])
    tf = load_tasks(write(tmp_path, text))
    assert tf.format == "webvoyager" and len(tf.tasks) == 3


@pytest.mark.fault("input")
def test_first_line_broken_does_not_lose_the_rest(tmp_path):
    tf = load_tasks(write(tmp_path, '{"web_name": "A", "ques": \n' + wv(1) + "\n" + wv(2)))
    assert [t.id for t in tf.tasks] == ["Allrecipes--1", "Allrecipes--2"]
    assert [p.line for p in tf.problems] == [1]


@pytest.mark.fault("input")
def test_utf16_file_from_powershell(tmp_path):
    tf = load_tasks(write(tmp_path, ("\ufeff" + wv(0) + "\r\n" + wv(1) + "\r\n").encode("utf-16-le")))
    assert [t.id for t in tf.tasks] == ["Allrecipes--0", "Allrecipes--1"] and tf.problems == []


@pytest.mark.fault("input")
def test_empty_file(tmp_path):
    tf = load_tasks(write(tmp_path, "\n\n"))
    assert tf.tasks == [] and tf.problems == [] and tf.format == "unknown"


@pytest.mark.fault("input")
def test_missing_file_and_directory_are_clear_errors(tmp_path):
    with pytest.raises(CockpitError, match="task file not found"):
        load_tasks(tmp_path / "nope.jsonl")
    with pytest.raises(CockpitError, match="is a folder"):
        load_tasks(tmp_path)


@pytest.mark.fault("input")
@pytest.mark.serial  # CPU-bound and timed: alone, so the suite's other workers do not take its CPU
def test_100_mb_file_streams_quickly(tmp_path):
    question = "Find a vegetarian lasagna recipe with more than 100 reviews and a rating of " \
               "at least 4.5 stars, and tell me its prep time. " * 3
    p = tmp_path / "big.jsonl"
    with open(p, "w", encoding="utf-8") as f:
        chunk = []
        for i in range(240_000):
            chunk.append(json.dumps({"web_name": "Allrecipes", "id": f"Allrecipes--{i}",
                                     "ques": question, "web": "https://www.allrecipes.com/"}))
            if len(chunk) == 10_000:
                f.write("\n".join(chunk) + "\n")
                chunk = []
        f.write("{broken\n")
    assert p.stat().st_size > 100 * 1024 * 1024
    t0 = time.monotonic()
    tf = load_tasks(p)
    elapsed = time.monotonic() - t0
    assert len(tf.tasks) == 240_000
    assert [pr.line for pr in tf.problems] == [240_001]
    assert elapsed < 60, f"took {elapsed:.1f} s"


@pytest.mark.fault("input")
def test_problems_are_capped_on_a_hopeless_file(tmp_path):
    tf = load_tasks(write(tmp_path, "nonsense\n" * 5000))
    assert len(tf.problems) == 1001
    assert tf.problems[-1].line is None and tf.problems[-1].message == "... and 4000 more problems"


def test_select_by_ids_and_sites(tmp_path):
    tasks = load_tasks(write(tmp_path, "\n".join([wv(0), wv(1), wv(0, "Amazon")]))).tasks
    sel = select(tasks, ids=["Amazon--0", "Allrecipes--1", "Nope--1"])
    assert [t.id for t in sel.tasks] == ["Allrecipes--1", "Amazon--0"]  # file order
    assert sel.unknown_ids == ["Nope--1"] and sel.unknown_sites == []
    tasks_, unknown_ids, unknown_sites = select(tasks, sites=["allrecipes", "Bing"])
    assert [t.id for t in tasks_] == ["Allrecipes--0", "Allrecipes--1"]
    assert unknown_sites == ["Bing"]
    both = select(tasks, ids=["Allrecipes--0", "Amazon--0"], sites=["Amazon"])
    assert [t.id for t in both.tasks] == ["Amazon--0"]
    assert select(tasks).tasks == tasks


def test_reference_answers_join_on_the_number(tmp_path):
    ref = {"Allrecipes": {"notice": "", "answers": [
        {"id": 0, "type": "possible", "ans": "Vegetarian Four Cheese Lasagna"},
        {"id": 1, "type": "golden", "ans": "3 hrs"}, {"type": "golden"}, "junk"]},
        "Cambridge Dictionary": {"notice": "n", "answers": [{"id": "2", "type": "golden", "ans": "x"}]},
        "Broken": 3}
    p = write(tmp_path, json.dumps(ref), "reference_answer.json")
    answers = load_reference_answers(p)
    assert answers == {"Allrecipes--0": [{"type": "possible", "ans": "Vegetarian Four Cheese Lasagna"}],
                       "Allrecipes--1": [{"type": "golden", "ans": "3 hrs"}],
                       "Cambridge Dictionary--2": [{"type": "golden", "ans": "x"}]}
    tasks = load_tasks(write(tmp_path, wv(1))).tasks
    assert answers[tasks[0].id][0]["ans"] == "3 hrs"


@pytest.mark.fault("input")
def test_reference_answers_bad_file(tmp_path):
    with pytest.raises(CockpitError, match="not found"):
        load_reference_answers(tmp_path / "none.json")
    with pytest.raises(CockpitError, match="not valid JSON"):
        load_reference_answers(write(tmp_path, "{oops", "r.json"))


@pytest.mark.fault("input")
def test_broken_object_first_line_still_streams(tmp_path):
    tf = load_tasks(write(tmp_path, '{"web_name": "A", "ques": 1 2}\n' + wv(1)))
    assert [t.id for t in tf.tasks] == ["Allrecipes--1"]
    assert [p.line for p in tf.problems] == [1]


def test_one_line_webarena_array(tmp_path):
    tf = load_tasks(write(tmp_path, json.dumps([WEBARENA, dict(WEBARENA, task_id=8)]), "a.json"))
    assert [t.id for t in tf.tasks] == ["7", "8"] and tf.format == "webarena"


def test_a_file_url_to_a_page_that_is_not_there_is_a_problem_not_a_task(tmp_path):
    """A walkthrough's `cockpit run --dry-run` said "would run 1 task" for file:///nonexistent/page.html, which
    the window refuses: the task file says it is not there, as it does for a relative path."""
    import json
    page = tmp_path / "page.html"
    page.write_text("<title>here</title>")
    tasks = tmp_path / "t.jsonl"
    tasks.write_text(json.dumps({"id": "gone", "task": "t", "url": "file:///nonexistent/page.html"}) + "\n"
                     + json.dumps({"id": "here", "task": "t", "url": page.as_uri()}) + "\n"
                     + json.dumps({"id": "dir", "task": "t", "url": tmp_path.as_uri()}) + "\n")
    tf = load_tasks(tasks)
    assert [t.id for t in tf.tasks] == ["here"] and tf.tasks[0].url == page.as_uri()
    said = [(p.line, p.message) for p in tf.problems]
    assert said == [(1, 'line 1: "url" names a local file, but /nonexistent/page.html does not exist; task skipped'),
                    (3, f'line 3: "url" names a local file, but {tmp_path} is a folder, not a page; task skipped')], said
