"""WebVoyager's run folders as its run.py writes them (results/<timestamp>/task<id>/), for the import tests."""
import json

from cockpit.core.store.webvoyager import PLACEHOLDER
from tests.images import png

SYSTEM = ("Imagine you are a robot browsing the web, just like humans. Now you need to complete a "
          "task. In each iteration, you will receive an Observation that includes a screenshot of "
          "a webpage and some texts. ...\n"
          "Your reply should strictly follow the format:\nThought: {Your brief thoughts}\n"
          "Action: {One Action format you choose}")
TASK = ("Provide a recipe for vegetarian lasagna with more than 100 reviews and a rating of at "
        "least 4.5 stars suitable for 6 people.")
URL = "https://www.allrecipes.com/"
OBS = ("Observation: please analyze the attached screenshot and give the Thought and Action. "
       "I've provided the tag name of each element and the text it contains (if text exists). "
       "Note that <textarea> or <input> may be textbox, but not exactly. Please focus more on "
       "the screenshot and then refer to the textual information.\n")


def image_part(url=PLACEHOLDER):
    return {"type": "image_url", "image_url": {"url": url}}


def webvoyager_messages(image_url=PLACEHOLDER):
    first = (f"Now given a task: {TASK}  Please interact with {URL} and get the answer. \n"
             + OBS + '[1]: <input> "Search the site";\n[2]: <a> "Dinners";')
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": [{"type": "text", "text": first}, image_part(image_url)]},
        {"role": "assistant", "content": "Thought: The search box is at the top. I will search "
                                         "for vegetarian lasagna.\n\nAction: Type [1]; vegetarian lasagna"},
        {"role": "user", "content": "Observation: A screenshot and some texts. (Omitted in context.)"},
        {"role": "assistant", "content": "Thought: The results are shown; the first one has 4.6 "
                                         "stars.\n\nAction: Click [7]"},
        {"role": "user", "content": [{"type": "text", "text": "Format ERROR: Both 'Thought' and "
                                      "'Action' should be included in your reply."}]},
        {"role": "assistant", "content": [{"type": "text",
                                           "text": "**Thought:** I need to scroll.\n**Action:** Scroll [WINDOW]; down"}]},
        {"role": "user", "content": [{"type": "text", "text": OBS + '[3]: <a> "Reviews";'},
                                     image_part(image_url)]},
        {"role": "assistant", "content": "Thought: Vegetarian Four Cheese Lasagna has 4.6 stars "
                                         "and 200 reviews.\n\nAction: ANSWER; [Vegetarian Four "
                                         "Cheese Lasagna]"},
    ]


def wv_folder(root, name, shots=(1, 2, 4), messages=None, no_box=False):
    """results/<timestamp>/task<name>/ under `root` with a screenshot per step in `shots` (and its no-box twin
    with `no_box`), `messages` (else webvoyager_messages()) and a log; the folder."""
    folder = root / "20240120_15_30_05" / f"task{name}"
    folder.mkdir(parents=True)
    for k in shots:
        (folder / f"screenshot{k}.png").write_bytes(png())
        if no_box:
            (folder / f"screenshot{k}_no_box.png").write_bytes(png("gray"))
    (folder / "interact_messages.json").write_text(json.dumps(messages or webvoyager_messages()))
    (folder / "agent.log").write_text("2024-01-20 15:30:06 - INFO - Iter: 1\n")
    return folder


def webvoyager_results(tmp_path):
    """What WebVoyager's run.py leaves behind: results/<timestamp>/task<id>/; the results folder."""
    folder = tmp_path / "results" / "20240120_15_30_05" / "taskAllrecipes--3"
    folder.mkdir(parents=True)
    for k in (1, 2, 4):  # step 3 errored: no screenshot
        (folder / f"screenshot{k}.png").write_bytes(png())
    (folder / "screenshot1_no_box.png").write_bytes(png("gray"))
    (folder / "accessibility_tree1.json").write_text("{}")
    (folder / "interact_messages.json").write_text(json.dumps(webvoyager_messages()))
    (folder / "agent.log").write_text("2024-01-20 15:30:06 - INFO - ########## TASK ##########\n"
                                      "2024-01-20 15:30:09 - INFO - Iter: 1\n")
    return tmp_path / "results"
