"""Supervision becomes training data (issue #43): one real supervised run (supervised_run.py) exported as SFT,
preference pairs, process labels and grounding, in every layout, each loaded by the library that trains on it.

`datasets` (Hugging Face) and pyarrow are installed here and load the Parquet files. TRL and LLaMA-Factory need
torch and cannot be installed on this machine: their files are loaded with `datasets` (which both use to read
data) and checked against their documented schemas (TRL's preference and stepwise-supervision columns;
LLaMA-Factory's ShareGPT turns, ``<image>`` count and dataset_info.json). OpenAI's file is checked against
its fine-tuning format and image limits.
"""
import base64
import io
import json

import pytest
from PIL import Image

from cockpit.core.store import Store
from cockpit.core.store.queries import RunFilter
from cockpit.core.training.export import ExportOptions, export
from tests.core.training.supervised_run import REJECTION, supervised_run

datasets = pytest.importorskip("datasets")


@pytest.fixture(scope="module")
def exported(browser, site, tmp_path_factory):
    root = tmp_path_factory.mktemp("training")
    with Store(root / "home") as store:
        run = supervised_run(browser, site, store)
        steps = {s["step"]: s for s in store.steps(run.run_id)}
        out = {}
        for kind, layout in (("sft", "openai"), ("sft", "hf"), ("sft", "sharegpt"), ("preference", "trl"),
                             ("preference", "sharegpt"), ("process", "trl"), ("grounding", "hf"),
                             ("grounding", "screenspot")):
            out[kind, layout] = export(store, ExportOptions(kind, layout), root / f"{kind}-{layout}")
        marks = {k: json.loads(store.read_file(s["marks_file"])) for k, s in steps.items()}
    return run, steps, marks, out


def no_weight(messages):
    return [{k: v for k, v in m.items() if k != "weight"} for m in messages]


def test_sft_in_openai_chat_jsonl_is_exactly_what_the_model_was_sent_with_the_executed_reply(exported):
    run, steps, _, out = exported
    res = out["sft", "openai"]
    assert dict(res.tally.made) == {"accepted": 3, "edited": 1, "target": 1, "takeover": 1}
    lines = [json.loads(x) for x in (res.out / "sft.openai.jsonl").read_text().splitlines()]
    assert len(lines) == 6
    last = {}
    for row in lines:
        msgs = row["messages"]
        assert msgs[0]["role"] == "system" and msgs[-1]["role"] == "assistant" and "weight" not in msgs[-1]
        assert all(m.get("weight") == 0 for m in msgs[:-1] if m["role"] == "assistant")  # only the last is learnt
        urls = [p["image_url"]["url"] for m in msgs if isinstance(m["content"], list) for p in m["content"]
                if p["type"] == "image_url"]
        assert 1 <= len(urls) <= 3  # WebVoyager's three newest screenshots, well within OpenAI's 10
        for u in urls:
            with Image.open(io.BytesIO(base64.b64decode(u.split(",", 1)[1]))) as im:
                assert im.mode in ("RGB", "RGBA") and im.size == (1024, 768)
        last[msgs[-1]["content"]] = msgs
    m = run.marks
    # step 2, accepted: the request exactly as the model server received it, and the model's own reply
    accepted = last[steps[2]["reply"]]
    assert no_weight(accepted[:-1]) == run.requests[1]["messages"]
    # step 1's target corrected in Review, step 3 edited at the gate: the model's thought, the right action
    assert f"Thought: this button looks right.\nAction: Click [{m['details link']}]" in last
    edited = last[f"Thought: back to the start.\nAction: Click [{m['order link']}]"]
    assert no_weight(edited[:-1]) == run.requests[2]["messages"]
    # step 6, taken over: the prompt the agent would have had, built as the agent builds it
    taken = last[f"Thought: \nAction: Type [{m['typed name']}]; Ada"]
    sent_after = run.requests[5]["messages"]  # step 7's request, the first after the take-over
    n = len(run.requests[4]["messages"]) + 1  # step 5's request and its reply
    assert no_weight(taken[:n]) == sent_after[:n]
    turn = taken[-2]["content"][0]["text"]
    assert turn.startswith(sent_after[-1]["content"][0]["text"].splitlines()[0])  # the feedback on step 5
    assert f"[{m['typed name']}]: <input type=text>" in turn and "The page is 'Order'" in turn
    assert "weight" not in json.dumps(lines[0]["messages"][-1])


def test_sft_as_hugging_face_parquet_loads_with_image_features(exported):
    _, _, _, out = exported
    folder = out["sft", "hf"].out
    ds = datasets.load_dataset("parquet", data_files=str(folder / "data" / "*.parquet"), split="train")
    assert len(ds) == 6 and isinstance(ds.features["images"].feature, datasets.Image)
    for row in ds:
        parts = [p for m in row["messages"] for p in m["content"] if p["type"] == "image"]
        assert len(parts) == len(row["images"]) >= 1 and row["images"][0].size == (1024, 768)
        assert row["messages"][-1]["role"] == "assistant"
    by_source = sorted(ds["source"])
    assert by_source == ["accepted"] * 3 + ["edited", "takeover", "target"]
    # the card's header names the data files: the folder itself loads
    whole = datasets.load_dataset(str(folder), split="train")
    assert len(whole) == 6


def test_preference_pairs_in_trls_layout(exported):
    run, steps, _, out = exported
    res = out["preference", "trl"]
    ds = datasets.load_dataset("parquet", data_files=str(res.out / "data" / "*.parquet"), split="train")
    assert set(ds.column_names) >= {"prompt", "chosen", "rejected", "images"}  # TRL's vision preference columns
    rows = {r["step"]: r for r in ds}
    assert sorted(rows) == [1, 3, 4]
    m = run.marks
    text = {k: (r["chosen"][0]["content"][0]["text"], r["rejected"][0]["content"][0]["text"]) for k, r in rows.items()}
    assert text[1] == (f"Thought: this button looks right.\nAction: Click [{m['details link']}]", steps[1]["reply"])
    assert text[3][0].endswith(f"Action: Click [{m['order link']}]") and text[3][1] == steps[3]["reply"]
    # the rejection: chosen is what was done next on the same page (the take-over's typing; the scroll between
    # was judged no progress), its message kept
    assert text[4] == (f"Thought: keep browsing first.\nAction: Type [{m['typed name']}]; Ada", steps[4]["reply"])
    assert rows[4]["message"] == REJECTION and rows[4]["source"] == "rejected"
    for r in rows.values():
        assert r["chosen"][0]["role"] == r["rejected"][0]["role"] == "assistant"
        n_images = sum(p["type"] == "image" for msg in r["prompt"] for p in msg["content"])
        assert n_images == len(r["images"]) >= 1


def test_process_labels_in_trls_stepwise_supervision_layout(exported):
    _, _, _, out = exported
    res = out["process", "trl"]
    ds = datasets.load_dataset("parquet", data_files=str(res.out / "data" / "*.parquet"), split="train")
    (row,) = list(ds)
    assert row["steps"] == [1, 2, 3, 4, 5, 7, 8]  # the model's steps; step 6 was a person's
    assert row["labels"] == [False, True, False, False, False, True, True]
    assert row["label_sources"] == ["judgement", "judgement", "correction", "rejection", "judgement", "judgement",
                                    "outcome"]
    assert row["judgements"][:2] == ["wrong target", "good"] and row["judgements"][4] == "unnecessary"
    assert row["outcome"] == 1 and row["outcome_source"] == "human"
    assert len(row["completions"]) == len(row["labels"]) and row["completions"][-1].endswith("ANSWER; ordered")


def test_grounding_boxes_come_from_the_marks_and_their_corrections(exported):
    run, steps, marks, out = exported
    by_id = {k: {m["id"]: m for m in v} for k, v in marks.items()}
    ds = datasets.load_dataset("parquet", data_files=str(out["grounding", "hf"].out / "data" / "*.parquet"),
                               split="train")
    rows = {r["step"]: r for r in ds}
    m = run.marks
    expect = {1: ("target", m["details link"]), 2: ("accepted", m["details link"]), 3: ("edited", m["order link"]),
              6: ("takeover", m["typed name"]), 7: ("accepted", None)}
    assert sorted(rows) == sorted(expect)
    for step, (source, mark_id) in expect.items():
        r = rows[step]
        mark = by_id[step][mark_id] if mark_id else next(x for x in marks[step] if x["text"] == "Place order")
        assert r["source"] == source and r["bbox"] == mark["bbox"] and r["image"].size == (1024, 768)
        x, y, w, h = mark["bbox"]
        assert r["point"] == [x + w / 2, y + h / 2]
    assert rows[2]["instruction"].startswith("Open the details page") and rows[2]["instruction_source"] == "element"
    screenspot = json.loads((out["grounding", "screenspot"].out / "screenspot_web.json").read_text())
    assert len(screenspot) == 5
    for e in screenspot:
        with Image.open(out["grounding", "screenspot"].out / e["img_filename"]) as im:
            iw, ih = im.size
        x, y, w, h = e["bbox"]
        assert 0 <= x and x + w <= iw and 0 <= y and y + h <= ih and e["data_type"] in ("text", "icon")
        assert set(e) >= {"img_filename", "bbox", "instruction", "data_type", "data_source"}


@pytest.mark.parametrize("kind", ["sft", "preference"])
def test_llama_factory_sharegpt_follows_its_documented_layout(exported, kind):
    _, _, _, out = exported
    folder = out[kind, "sharegpt"].out
    info = json.loads((folder / "dataset_info.json").read_text())
    (entry,) = info.values()
    assert entry["formatting"] == "sharegpt" and entry["columns"]["messages"] == "conversations"
    assert entry.get("ranking", False) == (kind == "preference")
    ds = datasets.load_dataset("json", data_files=str(folder / entry["file_name"]), split="train")
    assert len(ds) == (6 if kind == "sft" else 3)
    for row in ds:
        turns = row["conversations"]
        odd, even = ("human", "observation"), ("gpt", "function_call")
        assert all(t["from"] in (odd if i % 2 == 0 else even) for i, t in enumerate(turns))
        assert len(turns) % 2 == (0 if kind == "sft" else 1)  # SFT ends with the reply; a pair's prompt does not
        assert sum(t["value"].count("<image>") for t in turns) == len(row["images"]) >= 1
        assert all((folder / p).is_file() for p in row["images"])
        assert row["system"].strip()
        if kind == "preference":
            assert row["chosen"]["from"] == row["rejected"]["from"] == "gpt"


def test_the_card_states_counts_filters_runs_and_models(exported, tmp_path):
    run, _, _, out = exported
    card = (out["sft", "openai"].out / "README.md").read_text()
    assert "| a step a person took over | 1 |" in card and "| the model's own reply, accepted | 3 |" in card
    assert f"| {run.run_id} | agent-model |" in card and "| agent-model | 6 |" in card
    assert "fewer than 10 examples: OpenAI fine-tuning needs at least 10: 1" in card
    sources = [json.loads(x) for x in (out["sft", "openai"].out / "sources.jsonl").read_text().splitlines()]
    assert [s["run_id"] for s in sources] == [run.run_id]


def test_a_filter_that_lets_no_run_through_exports_nothing_and_says_so(exported, tmp_path):
    run, _, _, out = exported
    store_root = out["sft", "openai"].out.parent / "home"
    with Store(store_root) as store:
        res = export(store, ExportOptions("sft", "openai", filter=RunFilter(human="fail")), tmp_path / "none")
    assert res.run_ids == [] and res.rows == 0
    assert "- runs the filter selected: 0" in (tmp_path / "none" / "README.md").read_text()
    assert "- human: fail" in (tmp_path / "none" / "README.md").read_text()
