"""What the command line says, worded right: `cockpit --help` names each command's own sub-commands (it said
"check" for `key status`), a single failed attempt is "1 attempt", a JSON error is said with one "at"."""
import re
from pathlib import Path

from cockpit.cli import build_parser
from tests.clitools import cockpit, free_port, no_traceback, ok

ROOT_PAGES = Path(__file__).resolve().parent.parent / "pages"


def help_lines(text: str) -> dict[str, str]:
    """`cockpit --help`'s one entry per command: name -> its help, unwrapped."""
    block = text.split("COMMAND\n", 1)[1].split("\noptions:", 1)[0]
    entries, name = {}, None
    for line in block.splitlines():
        m = re.match(r"^ {4}(\S+)\s*(.*)$", line)
        if m:
            name = m.group(1)
            entries[name] = m.group(2)
        elif name and line.strip():
            entries[name] += " " + line.strip()
    return entries


def sub_commands(parser, name: str) -> list[str]:
    """The words a command takes first: its sub-commands, or the choices of its first positional argument."""
    sub = next(a for a in parser._actions if a.dest == "command").choices[name]
    for action in sub._actions:
        if action.option_strings:
            continue
        if action.choices:
            return list(action.choices)
        return []
    return []


def test_the_help_names_every_command_and_its_sub_commands(tmp_path):
    out = ok(cockpit(tmp_path / "home", "--help"))
    entries = help_lines(out)
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    assert list(entries) == list(commands)
    unnamed = {name: [w for w in sub_commands(parser, name) if not re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])",
                                                                                entries[name])]
               for name in commands}
    assert {k: v for k, v in unnamed.items() if v} == {}
    assert "check" not in entries["key"]  # `cockpit key status` is the command


def test_one_failed_attempt_is_one_attempt(tmp_path):
    """A model server that is not there, no retries: the run fails saying so, in the singular."""
    r = cockpit(tmp_path / "home", "run", "--task", "Find the price", "--url", str(ROOT_PAGES / "agent_start.html"),
                "--base-url", f"http://127.0.0.1:{free_port()}/v1", "--model", "m", "--retries", "0",
                "--max-steps", "1")
    no_traceback(r)
    said = r.stdout + r.stderr
    assert "model call failed after 1 attempt:" in said, said[-2000:]
    assert "1 attempts" not in said


def test_a_json_error_in_a_task_file_is_said_with_one_at(tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    line = '{"ques": "Find the price", "web": "http://example.com/'
    tasks.write_text(line)  # the string runs to the end of the file
    r = cockpit(tmp_path / "home", "run", "--tasks", str(tasks), "--dry-run")
    no_traceback(r)
    assert r.returncode == 2
    column = line.index('"http') + 1
    assert f"line 1: not valid JSON (Unterminated string starting at column {column})" in r.stderr, r.stderr
    assert " at at " not in r.stderr
