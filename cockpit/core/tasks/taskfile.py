"""Task files: read the task lists users bring, whatever shape they are in.

Three formats are understood, detected per record so a file may mix them:

* WebVoyager JSONL: ``web_name``, ``id``, ``ques``, ``web`` (the GAIA variant
  adds ``task_id``, ``Level``, ``Final answer``, all kept in ``extra``);
* plain JSONL: ``task``, ``url``, optional ``id`` and ``site``;
* WebArena / VisualWebArena / MMInA config JSON: one object or a list of
  objects with ``task_id``, ``start_url``, ``intent`` (``eval`` etc. kept).

Loading never gives up on a messy file: every bad line becomes a
:class:`TaskProblem` naming its line and the good lines still load. JSONL is
streamed line by line, so a 100 MB file never sits in memory as one string
(a line over 16 MB is skipped, read in bounded chunks). A JSON array is parsed
whole, so one over MAX_DOCUMENT_BYTES is refused, saying to split it or use
JSONL. Only a missing file, a directory or such an array raises :class:`CockpitError`.
How one record becomes a :class:`Task` is :mod:`cockpit.core.tasks.task`.

This module only reads files into data. It must not run, judge or store
tasks, and must not import Qt.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from cockpit.core.errors import CockpitError
from cockpit.core.tasks import webarena_sites
from cockpit.core.tasks.filetext import (
    decode_whole,
    first_char,
    first_text,
    line_at,
    looks_like_one_document,
    read_lines,
    skip_space,
)
from cockpit.core.tasks.task import Task, detect, to_task
from cockpit.core.words import json_error

FORMATS = ("webvoyager", "plain", "webarena")
MAX_PROBLEMS = 1000  # past this, one summary problem; a broken 100 MB file stays usable
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024  # a WebArena JSON array is parsed whole (refused above this); JSONL never is


@dataclass(frozen=True, slots=True)
class TaskProblem:
    line: int | None  # 1-based; None for a problem about the whole file
    message: str  # starts with "line N: " when line is set
    note: bool = False  # only a remark (a guessed scheme): the task is fine as read


@dataclass
class TaskFile:
    path: Path
    format: str  # the majority of "webvoyager" | "plain" | "webarena"; "unknown" if no record
    tasks: list[Task]
    problems: list[TaskProblem]
    dropped: int = 0  # problems and notes past MAX_PROBLEMS: counted in the last entry of problems, not listed
    dropped_notes: int = 0  # how many of those dropped were notes

    @property
    def problem_count(self) -> int:
        """Every real problem found, listed or not (notes are not problems)."""
        listed = self.problems[:-1] if self.dropped else self.problems
        return sum(not p.note for p in listed) + self.dropped - self.dropped_notes

    @property
    def note_count(self) -> int:
        """Every note (e.g. a scheme guessed for an address), listed or not."""
        listed = self.problems[:-1] if self.dropped else self.problems
        return sum(p.note for p in listed) + self.dropped_notes


class Selection(NamedTuple):
    tasks: list[Task]
    unknown_ids: list[str]  # asked-for ids no task has
    unknown_sites: list[str]  # asked-for sites no task has


# ---------------------------------------------------------------- loading

def load_tasks(path, sites: dict[str, str] | None = None) -> TaskFile:
    """Read a task file (JSONL or JSON). Raises CockpitError only if it cannot be opened.

    `sites`: addresses for WebArena's placeholders (NAME -> URL) beside the environment's
    (:mod:`cockpit.core.tasks.webarena_sites`)."""
    path = Path(path)
    if not path.exists():
        raise CockpitError(f"task file not found: {path}")
    if path.is_dir():
        raise CockpitError(f"{path} is a folder, not a task file")
    binary = binary_kind(path)
    if binary:
        raise CockpitError(f"{path.name} is not a task file: it is {binary}. A task file is JSON Lines (one object "
                           'per line, with "task" and "url") or a JSON array of such objects')
    loader = _Loader(path, webarena_sites.site_map(sites))
    try:
        loader.run()
    except OSError as e:
        raise CockpitError(f"cannot read task file {path}: {e.strerror or e}") from e
    return loader.result()


#: The first bytes of files people pick by mistake in a file dialog, and what to call them.
MAGIC = ((b"\x89PNG", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"), (b"GIF8", "a GIF image"),
         (b"PK\x03\x04", "a ZIP archive (a Cockpit bundle is imported with File → Import runs…)"),
         (b"%PDF", "a PDF document"), (b"SQLite format 3\x00", "an SQLite database"))


def binary_kind(path: Path) -> str:
    """What a binary file is ('a PNG image', 'a binary file'), or '' for text (UTF-16 with its mark is text)."""
    try:
        with open(path, "rb") as f:
            head = f.read(8192)
    except OSError:
        return ""  # said where the file is read
    kind = next((words for magic, words in MAGIC if head.startswith(magic)), "")
    if kind or head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return kind
    return "a binary file" if b"\x00" in head else ""


class _Loader:
    def __init__(self, path: Path, sites: dict[str, str] | None = None):
        self.path = path
        self.sites = sites or {}
        self.logins: Counter[str] = Counter()  # WebArena's storage_state (or "") -> tasks that need a log-in
        self.tasks: list[Task] = []
        self.problems: list[TaskProblem] = []
        self.dropped = self.dropped_notes = 0
        self.seen: dict[str, int] = {}  # id -> line it was first seen on
        self.formats: Counter[str] = Counter()

    def run(self) -> None:
        size = self.path.stat().st_size
        if size > MAX_DOCUMENT_BYTES and first_char(self.path) == "[":
            raise CockpitError(
                f"{self.path} is a {size / 2**20:.0f} MB JSON array; Cockpit reads a JSON task file whole, "
                f"up to {MAX_DOCUMENT_BYTES // 2**20} MB. Split it, or write it as JSONL (one task per line), "
                "which is read line by line at any size")
        first = first_text(self.path)
        if first is None:  # empty, blank, or a first line too long to look at: its problems say which
            self._load_jsonl()
            return
        if looks_like_one_document(first) and size <= MAX_DOCUMENT_BYTES:
            doc = _Loader(self.path, self.sites)
            verdict = doc._load_document()
            if verdict == "broken":
                # A broken first line of a JSONL file looks like a broken document too:
                # whichever reading finds tasks wins.
                self._load_jsonl()
                if not self.tasks:
                    self._adopt(doc)
                return
            if verdict == "document":
                self._adopt(doc)
                return
        self._load_jsonl()

    def _adopt(self, other: _Loader) -> None:
        self.tasks, self.problems, self.dropped = other.tasks, other.problems, other.dropped
        self.dropped_notes = other.dropped_notes
        self.seen, self.formats, self.logins = other.seen, other.formats, other.logins

    def _load_jsonl(self) -> None:
        for lineno, text in read_lines(self.path, self.problem):
            self._load_line(lineno, text)

    def result(self) -> TaskFile:
        for state, n in sorted(self.logins.items()):
            self.problem(None, f"{n} task{'s need' if n != 1 else ' needs'} a logged-in session (WebArena's "
                               f"storage_state {state}): Cockpit does not load Playwright storage states; log in "
                               "to the site first (take over in the window and keep the browser state, or a "
                               "browser profile already logged in)", True)
        problems = self.problems
        if self.dropped:
            real, notes = self.dropped - self.dropped_notes, self.dropped_notes
            more = " and ".join(([f"{real} more problem{'s' * (real != 1)}"] if real else [])
                                + ([f"{notes} more note{'s' * (notes != 1)}"] if notes else []))
            problems = problems + [TaskProblem(None, f"... and {more}")]
        fmt = self.formats.most_common(1)[0][0] if self.formats else "unknown"
        return TaskFile(self.path, fmt, self.tasks, problems, self.dropped, self.dropped_notes)

    def problem(self, line: int | None, message: str, note: bool = False) -> None:
        if len(self.problems) >= MAX_PROBLEMS:
            self.dropped += 1
            self.dropped_notes += note
            return
        self.problems.append(TaskProblem(line, f"line {line}: {message}" if line else message, note))

    def _load_line(self, lineno: int, text: str) -> None:
        if not text.strip():
            return
        try:
            record = json.loads(text)
        except json.JSONDecodeError as e:
            self.problem(lineno, f"not valid JSON ({json_error(e, 'column')})")
            return
        self._add(lineno, record)

    def _load_document(self) -> str:
        """Parse the file as one JSON value (a WebArena config).

        Returns "document", "jsonl" (more than one value: not a document) or
        "broken" (invalid JSON; problems recorded).
        """
        with open(self.path, "rb") as f:
            text = decode_whole(f.read()).lstrip("\ufeff")
        start = skip_space(text, 0)
        decoder = json.JSONDecoder()
        if text.startswith("[", start):
            return self._load_array(text, start + 1, decoder)
        try:
            record, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError as e:
            self.problem(e.lineno, f"not valid JSON ({json_error(e, 'column')})")
            return "broken"
        if text[end:].strip():
            return "jsonl"  # a second value follows
        self._add(line_at(text, start), record)
        return "document"

    def _load_array(self, text: str, i: int, decoder: json.JSONDecoder) -> str:
        line, pos = 1, 0
        while True:
            i = skip_space(text, i)
            if text.startswith("]", i):
                return "jsonl" if text[i + 1:].strip() else "document"
            line += text.count("\n", pos, i)
            pos = i
            try:
                record, i = decoder.raw_decode(text, i)
            except json.JSONDecodeError as e:
                self.problem(e.lineno, f"not valid JSON ({json_error(e, 'column')}); "
                                       "the rest of the file was not read")
                return "broken"
            self._add(line, record)
            i = skip_space(text, i)
            if text.startswith(",", i):
                i += 1
            elif not text.startswith("]", i):
                self.problem(line_at(text, i), 'expected "," or "]" between tasks; '
                                                "the rest of the file was not read")
                return "broken"

    def _add(self, lineno: int, record) -> None:
        notes: list[tuple[int, str, bool]] = []
        add = lambda line, msg, note=False: notes.append((line, msg, note))  # noqa: E731
        if isinstance(record, dict) and detect(record) == "webarena":
            record = webarena_sites.prepare(record, self.sites, add, lineno)
        task = to_task(record, lineno, add, base=self.path.parent) if record else None
        first = self.seen.get(task.id) if task else None
        if first is not None:  # a skipped duplicate's other notes would only be noise
            notes = [(lineno, f'duplicate id "{task.id}" (first on line {first}); skipped', False)]
        for line, msg, note in notes:
            self.problem(line, msg, note)
        if task is None or first is not None:
            return
        self.formats[detect(record)] += 1
        if record.get("require_login") and record.get("storage_state"):  # WebArena logs in only with one
            self.logins[str(record["storage_state"])] += 1
        self.seen[task.id] = lineno
        self.tasks.append(task)


# ---------------------------------------------------------------- selecting

def select(tasks: list[Task], ids: list[str] | None = None,
           sites: list[str] | None = None) -> Selection:
    """The tasks with one of ``ids`` and on one of ``sites`` (None = no filter).

    Both filters must hold when both are given. Sites match case-insensitively.
    Tasks keep their file order. Ids and sites no task has come back in
    ``unknown_ids`` / ``unknown_sites`` so a caller can say so.
    """
    want_ids = set(ids) if ids is not None else None
    want_sites = {s.casefold() for s in sites} if sites is not None else None
    chosen = [t for t in tasks
              if (want_ids is None or t.id in want_ids)
              and (want_sites is None or t.site.casefold() in want_sites)]
    known_ids = {t.id for t in tasks}
    known_sites = {t.site.casefold() for t in tasks}
    unknown_ids = [i for i in ids or [] if i not in known_ids]
    unknown_sites = [s for s in sites or [] if s.casefold() not in known_sites]
    return Selection(chosen, unknown_ids, unknown_sites)


# ---------------------------------------------------------------- reference answers

def load_reference_answers(path) -> dict[str, list[dict]]:
    """WebVoyager's reference answers as {"Allrecipes--0": [{"type": "golden", "ans": "..."}]}.

    The file is keyed by web_name, each holding "answers" with a numeric
    "id"; the task id is "<web_name>--<id>", the join WebVoyager uses.
    Malformed entries are skipped; an unreadable file raises CockpitError.
    """
    path = Path(path)
    if not path.is_file():
        raise CockpitError(f"reference answer file not found: {path}")
    try:
        data = json.loads(decode_whole(path.read_bytes()).lstrip("\ufeff"))
    except json.JSONDecodeError as e:
        raise CockpitError(f"{path.name}: not valid JSON ({json_error(e)})") from e
    if not isinstance(data, dict):
        raise CockpitError(f"{path.name}: expected an object keyed by site name")
    out: dict[str, list[dict]] = {}
    for site, entry in data.items():
        answers = entry.get("answers") if isinstance(entry, dict) else None
        for a in answers if isinstance(answers, list) else []:
            number = a.get("id") if isinstance(a, dict) else None
            if isinstance(number, str) and number.strip().isdigit():
                number = int(number)
            if not isinstance(number, int) or isinstance(number, bool):
                continue
            out.setdefault(f"{site}--{number}", []).append(
                {"type": str(a.get("type", "")), "ans": str(a.get("ans", ""))})
    return out
