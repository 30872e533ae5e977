"""Counts Cockpit says agree with their number: no f-string puts a number before a plural noun ("{n} runs") or
writes "run(s)"; they go through cockpit.core.words.plural. The few sites where the number is never 1, or
where the text goes to a model and must stay as it is, are listed below with the reason."""
import ast
import re
from pathlib import Path

from cockpit.core.words import json_error, noun, plural

ROOT = Path(__file__).resolve().parent.parent
NOUNS = ("runs|steps|attempts|tasks|folders|problems|files|marks|labels|verdicts|annotators|screenshots|actions|"
         "calls|hops|batches|candidates|errors|elements|pages|rows|replies|times|browsers|conflicts|models|notes|"
         "tries|boxes|corrections|memories|histories|tokens|requests|messages|thoughts|results|characters|tabs|"
         "seconds|relabels|fields|categories")
COUNT_THEN_NOUN = re.compile(rf"^ ({NOUNS})\b")
MAYBE_PLURAL = re.compile(r"\b(run|step|attempt|folder|problem|file|mark|label|annotator|screenshot|action|relabel|"
                          r"field|message|token|error|task|histor(y|ie))\(s\)")
#: file:line text -> why it may stay as it is
ALLOWED = {
    "cockpit/ui/review/label_bar.py: steps": "'X steps through ...': the verb, not a count",
    "cockpit/core/page/effects.py: marks": "'+2/-1 marks': a change in marks, not a count of them",
    "cockpit/core/lookahead/worldmodel.py: elements": "'+2/-1 elements' as above, in the world model's prompt",
    "cockpit/core/tasks/webarena_sites.py: tabs": "said only when WebArena opens more than one tab",
    "cockpit/core/agent/hooks/breakpoints.py: times": "a loop is two or more repeats",
    "cockpit/core/agent/hooks/breakpoints.py: actions": "two or more no-op actions in a row",
    "cockpit/core/store/m2w_import.py: histories": "said only for more than one history",
    "cockpit/core/review/judge_prompt.py: screenshots": "the judge's prompt (PROMPT_VERSION): not changed here",
    "cockpit/core/demo/policy.py: results": "the demo policy's reply, sent as the model's: as recorded",
    "cockpit/core/agent/execute.py: seconds": "the Wait action's seconds, a float (5 by default)",
    "cockpit/core/tasks/webarena_eval.py: calls": "'the target X calls f()': the verb, not a count",
    "cockpit/cli/progress.py: tokens": "'25 tokens/s': a rate, plural whatever its number",
    "cockpit/ui/live/thought_strip.py: tokens": "'25 tokens/s': a rate, plural whatever its number",
}


def count_sites() -> dict[str, int]:
    """"<file>: <noun>" -> line, for each f-string that writes a value right before a plural noun."""
    found = {}
    for path in sorted((ROOT / "cockpit").rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if not isinstance(node, ast.JoinedStr):
                continue
            for before, after in zip(node.values, node.values[1:]):
                if isinstance(before, ast.FormattedValue) and isinstance(after, ast.Constant) \
                        and isinstance(after.value, str) and (m := COUNT_THEN_NOUN.match(after.value)):
                    found[f"{path.relative_to(ROOT)}: {m.group(1)}"] = node.lineno
    return found


def test_no_count_is_written_before_a_plural_noun():
    sites = count_sites()
    unexplained = {k: v for k, v in sites.items() if k not in ALLOWED}
    assert not unexplained, "use cockpit.core.words.plural for these counts: " + "; ".join(
        f"{k.split(':')[0]}:{v} ({k.split(': ')[1]})" for k, v in unexplained.items())
    assert not set(ALLOWED) - set(sites), f"listed but gone (remove them): {set(ALLOWED) - set(sites)}"


def test_no_run_s_in_what_cockpit_says():
    hits = [f"{p.relative_to(ROOT)}:{n}" for p in sorted((ROOT / "cockpit").rglob("*.py"))
            for n, line in enumerate(p.read_text().splitlines(), 1) if MAYBE_PLURAL.search(line)]
    assert not hits, f"'(s)' plurals: {hits}"


def test_the_helpers():
    assert [plural(n, "run") for n in (0, 1, 2)] == ["0 runs", "1 run", "2 runs"]
    assert plural(1, "attempt") == "1 attempt" and plural(3, "category") == "3 categories"
    assert plural(2, "conflicting relabel") == "2 conflicting relabels" and plural(2, "box") == "2 boxes"
    assert plural(1234, "run", grouped=True) == "1,234 runs" and noun(1, "field") == "field"
    import json
    for text, said in (('{"a": "open', "Unterminated string starting at line 1, column 7"),
                       ('{"a" 1}', "Expecting ':' delimiter at line 1, column 6")):
        try:
            json.loads(text)
        except json.JSONDecodeError as e:
            assert json_error(e) == said
            assert " at at " not in json_error(e, "column") and " at at " not in json_error(e, "character")
