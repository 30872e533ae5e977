"""Named reads of the run store that the review, report, memory, judge and hop code ask for.

:class:`StoreQueries` is a base class of :class:`cockpit.core.store.db.Store`,
so each read is a method of the store (``store.filtered_run_ids(flt)``) while
its SQL lives here, and nowhere outside ``cockpit.core.store``. ``run_record``
and ``step_records`` give the typed records of :mod:`cockpit.core.store.records`. Methods read
through ``Store.rows`` (fully fetched under the store's lock). Rows are dicts
keyed by column; JSON columns that a method names a meaning for are decoded.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from cockpit.core.store.origin import ROW_COLUMNS, origin_text
from cockpit.core.store.records import Run, Step

#: The Judge column of the runs table: the newest verdict of a judge model (reference checks left out).
#: The judge filter uses it too, so the filter and the column always agree.
_JUDGE = """(SELECT CASE verdict WHEN 1 THEN 'success' WHEN 0 THEN 'fail' ELSE 'undecided' END
     FROM verdicts WHERE verdicts.run_id = runs.id AND verdicts.judge NOT LIKE 'ref:%'
     ORDER BY created DESC LIMIT 1)"""

_TABLE_ROW = f"""SELECT runs.rowid AS rowid, runs.id, runs.started, runs.status, runs.task, runs.site, runs.model, runs.steps,
  runs.answer, runs.task_id, runs.source, runs.demo,
  CASE WHEN json_valid(runs.config) THEN json_extract(runs.config, '$.started_known') END AS started_known,
  {ROW_COLUMNS},
  (SELECT group_concat(annotator || ':' || verdict, ' ') FROM labels WHERE labels.run_id = runs.id) AS human,
  {_JUDGE} AS judge,
  (SELECT verdict FROM adjudications WHERE adjudications.run_id = runs.id) AS adjudicated
FROM runs"""

#: Keys of a runs-table row that the table may be sorted by, and the SQL each sorts on.
SORT_KEYS = {"started": "runs.started", "id": "runs.id", "status": "runs.status", "task": "runs.task", "site": "runs.site",
             "model": "runs.model", "steps": "runs.steps", "human": "human", "judge": "judge",
             "answer": "runs.answer"}
#: Runs columns whose distinct values the review filters offer.
DISTINCT_COLUMNS = ("site", "model", "status")
#: RunFilter.agreement: the annotators' success verdicts on a run labelled by two or more.
AGREEMENT = ("agree", "disagree")


@dataclass
class RunFilter:
    """Which runs a list shows: finished ones, and running ones too with ``running`` (Review, where a batch started
    from the command line is watched as it goes; an export or a report counts finished runs only)."""
    search: str = ""
    site: str = ""
    model: str = ""
    status: str = ""
    since: float | None = None  # epoch seconds
    human: str = ""  # success | fail | unsure | not_executable | unlabelled
    judge: str = ""  # success | fail | undecided | unjudged
    annotator: str = ""  # runs this annotator labelled
    until: float | None = None  # epoch seconds: runs started before it
    agreement: str = ""  # agree | disagree: two or more annotators, all of one verdict / not
    side_effects: str = ""  # yes | no | unsure: someone (the annotator, when picked) answered so
    repetition: str = ""  # yes | no | unsure
    extra: dict = field(default_factory=dict)
    running: bool = False  # running runs too

    def sql(self) -> tuple[str, list]:
        where, params = ["1 = 1" if self.running else "runs.status != 'running'"], []
        for col in ("site", "model", "status"):
            if getattr(self, col):
                where.append(f"runs.{col} = ?")
                params.append(getattr(self, col))
        if self.since:
            where.append("runs.started >= ?")
            params.append(self.since)
        if self.until:
            where.append("runs.started < ?")
            params.append(self.until)
        if self.search.strip():
            where.append("runs.rowid IN (SELECT rowid FROM runs_fts WHERE runs_fts MATCH ?)")
            params.append(fts_query(self.search, prefix=True))
            if order := words_in_order(self.search):  # NEAR is in any order: the words as typed
                where.append("(runs.task LIKE ? ESCAPE '\\' OR COALESCE(runs.answer, '') LIKE ? ESCAPE '\\')")
                params += [order, order]
        # With an annotator picked, the human verdict is that annotator's (fail = runs *they* called a
        # failure; unlabelled = runs *they* have not labelled), not anyone's.
        who, who_params = ("AND labels.annotator = ?", [self.annotator]) if self.annotator else ("", [])
        if self.human == "unlabelled":
            where.append(f"NOT EXISTS (SELECT 1 FROM labels WHERE labels.run_id = runs.id {who})")
            params += who_params
        elif self.human:
            where.append(f"EXISTS (SELECT 1 FROM labels WHERE labels.run_id = runs.id {who} AND labels.verdict = ?)")
            params += who_params + [self.human]
        elif self.annotator:
            where.append(f"EXISTS (SELECT 1 FROM labels WHERE labels.run_id = runs.id {who})")
            params += who_params
        for axis in ("side_effects", "repetition"):
            if getattr(self, axis):
                where.append(f"EXISTS (SELECT 1 FROM labels WHERE labels.run_id = runs.id {who} AND labels.{axis} = ?)")
                params += who_params + [getattr(self, axis)]
        if self.agreement:
            if self.agreement not in AGREEMENT:
                raise ValueError(f"agreement is one of {', '.join(AGREEMENT)}, not {self.agreement!r}")
            verdicts = "(SELECT COUNT(DISTINCT verdict) FROM labels WHERE labels.run_id = runs.id)"
            where.append("(SELECT COUNT(*) FROM labels WHERE labels.run_id = runs.id) >= 2 AND "
                         + (f"{verdicts} = 1" if self.agreement == "agree" else f"{verdicts} >= 2"))
        if self.judge == "unjudged":
            where.append(f"{_JUDGE} IS NULL")
        elif self.judge:
            where.append(f"{_JUDGE} = ?")
            params.append(self.judge)
        return " WHERE " + " AND ".join(where), params


def _marks(n: int) -> str:
    return ",".join("?" * n)


class StoreQueries:
    """The named reads, over the three a store provides (:class:`~cockpit.core.store.db.Store` derives from
    this class and defines them)."""

    def rows(self, sql: str, params=()) -> list[dict]:  # pragma: no cover - Store's
        raise NotImplementedError

    def run(self, run_id: str) -> dict:  # pragma: no cover - Store's
        raise NotImplementedError

    def steps(self, run_id: str, *, with_request: bool = True, after: int = 0) -> list[dict]:  # pragma: no cover
        raise NotImplementedError

    # ---------- typed records (cockpit.core.store.records) ----------
    def run_record(self, run_id: str) -> Run:
        """The run as a typed record; StoreError when there is none."""
        return Run.from_row(self.run(run_id))

    def step_records(self, run_id: str) -> list[Step]:
        """The run's steps in order as typed records (their messages sent left out)."""
        return [Step.from_row(r) for r in self.steps(run_id, with_request=False)]

    def steps_with_request(self, run_id: str) -> set[int]:
        """The run's steps whose request to the model is stored (Review offers Re-ask on them), in one read that
        leaves the requests themselves on disk."""
        return {r["step"] for r in self.rows("SELECT step FROM steps WHERE run_id = ? AND request IS NOT NULL "
                                             "AND request NOT IN ('', '[]', '{}', 'null')", [run_id])}

    # ---------- the review table ----------
    def filtered_run_ids(self, flt: RunFilter, sort: str = "started", descending: bool = True) -> list[str]:
        """Ids of the runs `flt` lets through, ordered by the table column `sort` (a key of SORT_KEYS),
        ties by id."""
        where, params = flt.sql()
        order = "DESC" if descending else "ASC"
        col = SORT_KEYS[sort]
        if col in ("human", "judge"):
            sql = f"SELECT runs.id AS id, {col} AS k FROM ({_TABLE_ROW}) AS runs{where} ORDER BY k {order}, id"
        else:
            sql = f"SELECT runs.id AS id FROM runs{where} ORDER BY {col} {order}, runs.id"
        return [r["id"] for r in self.rows(sql, params)]

    def table_rows(self, run_ids: list[str]) -> list[dict]:
        """The review table's rows of these runs, in the given order (ids not in the store left out):
        the run's columns plus ``human`` (annotator:verdict ...), ``judge`` (the newest verdict) and
        ``adjudicated`` (the adjudicated verdict, or None)."""
        if not run_ids:
            return []
        got = {r["id"]: r for r in self.rows(f"{_TABLE_ROW} WHERE runs.id IN ({_marks(len(run_ids))})",
                                              list(run_ids))}
        return [got[i] for i in run_ids if i in got]

    def distinct_values(self, column: str) -> list[str]:
        """The values a runs column (one of DISTINCT_COLUMNS) takes, sorted, empty ones left out."""
        if column not in DISTINCT_COLUMNS:
            raise ValueError(f"no distinct values of {column!r}")
        rows = self.rows(f"SELECT DISTINCT {column} AS v FROM runs WHERE {column} != '' ORDER BY 1")
        return [r["v"] for r in rows if r["v"]]

    def human_verdicts_text(self, run_id: str) -> str | None:
        """A run's labels as the table's Human column shows them ("ann:verdict ann2:verdict"); None without."""
        return self.rows("SELECT group_concat(annotator || ':' || verdict, ' ') AS h FROM labels "
                          "WHERE run_id = ?", [run_id])[0]["h"]

    def run_origin(self, run: dict) -> str:
        """Where `run` (a runs row, its config decoded as ``run`` gives it) was imported from, in words
        (cockpit.core.store.origin.origin_text); "" for a run recorded here."""
        rows = self.rows("SELECT origin FROM imports WHERE run_id = ? AND kind = 'bundle'", [run["id"]])
        config = run.get("config") if isinstance(run.get("config"), dict) else {}
        return origin_text(run.get("source"), config.get("imported_from"), rows[0]["origin"] if rows else None)

    def other_runs_of_task(self, run_id: str, task_id: str, task: str) -> list[dict]:
        """Other runs of a task (the same task id, or the same task text), newest first:
        id, model, status, started, answer."""
        return self.rows("SELECT id, model, status, started, answer FROM runs WHERE id != ? AND "
                          "((task_id != '' AND task_id = ?) OR task = ?) ORDER BY started DESC",
                          [run_id, task_id or "", task])

    def runs_to_compare(self, run: dict) -> list[dict]:
        """Runs Compare offers beside `run` (a runs row), each with ``why``: first its task's other runs, its branches
        and the run it branched from ("same task", "branch of this run", "the run this one branched from"), then
        runs of other tasks that started on its start page ("same start page"), then elsewhere on its site ("same
        site": scheme, host and port); newest first within each (walkthrough 9: only the same task was offered)."""
        url = (run.get("url") or "").strip()
        parts = urlsplit(url)
        site = f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""
        like = site.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self.rows(
            "SELECT id, task, task_id, model, status, started, answer, url, parent_run FROM runs WHERE id != ? AND "
            "((task_id != '' AND task_id = ?) OR task = ? OR parent_run = ? OR id = ? OR (? != '' AND (url = ? OR "
            "url LIKE ? ESCAPE '\\' OR url LIKE ? ESCAPE '\\'))) ORDER BY started DESC",
            [run["id"], run.get("task_id") or "", run.get("task") or "", run["id"], run.get("parent_run") or "",
             site, site, like + "/%", like + "?%"])
        order = ("same task", "branch of this run", "the run this one branched from", "same start page", "same site")
        for r in rows:
            r["why"] = ("branch of this run" if r["parent_run"] == run["id"] else "the run this one branched from"
                        if r["id"] == run.get("parent_run") else "same task" if (r["task_id"] and r["task_id"] ==
                        run.get("task_id")) or r["task"] == run.get("task") else "same start page"
                        if url and (r["url"] or "").strip() == url else "same site")
        return sorted(rows, key=lambda r: order.index(r["why"]))  # (stable: newest first within each)

    # ---------- runs as a whole ----------
    def finished_run_ids(self) -> list[str]:
        """Ids of the runs that are not running, oldest first."""
        return [r["id"] for r in self.rows("SELECT id FROM runs WHERE status != 'running' ORDER BY started")]

    def finished_step_counts(self) -> list[int]:
        """The number of steps of each run that is not running (0 for none recorded)."""
        return [r["steps"] or 0 for r in self.rows("SELECT steps FROM runs WHERE status != 'running'")]

    def action_step_counts(self) -> dict[str, int]:
        """Each run's steps but its ANSWER step, for the runs that are not running: ``{run_id: n}`` (0 for none)."""
        rows = self.rows("SELECT runs.id AS id, COUNT(steps.step) AS n FROM runs LEFT JOIN steps ON "
                          "steps.run_id = runs.id AND COALESCE(steps.action, '') NOT LIKE 'ANSWER%' "
                          "WHERE runs.status != 'running' GROUP BY runs.id")
        return {r["id"]: r["n"] for r in rows}

    def run_summaries(self) -> list[dict]:
        """Every run, oldest first (ties by id): id, task, task_id, site, model, status, steps, started, source."""
        return self.rows("SELECT id, task, task_id, site, model, status, steps, started, source FROM runs "
                          "ORDER BY started, id")

    def run_levels(self) -> dict[str, str]:
        """Each run's task difficulty level where its task has one (Online-Mind2Web's easy / medium / hard, kept
        in the run's config by the importer, or a task file's ``level`` field): ``{run_id: level}``."""
        rows = self.rows("SELECT id, COALESCE(json_extract(config, '$.level'), "
                          "json_extract(config, '$.task_extra.level')) AS level FROM runs "
                          "WHERE config IS NOT NULL AND json_valid(config)")
        return {r["id"]: str(r["level"]) for r in rows if r["level"] not in (None, "")}

    # ---------- hops (cockpit.core.tasks.hops) ----------
    def run_hops(self, run_id: str) -> dict | None:
        """A run's final hop result (``runs.hops``), or None when it was not tracked."""
        rows = self.rows("SELECT hops FROM runs WHERE id = ?", [run_id])
        return json.loads(rows[0]["hops"]) if rows and rows[0]["hops"] else None

    def step_hops(self, run_id: str) -> dict[int, dict]:
        """Each tracked step's hop progress: ``{step: {"passed", "total", "new"}}``."""
        rows = self.rows("SELECT step, hops FROM steps WHERE run_id = ? AND hops IS NOT NULL ORDER BY step",
                          [run_id])
        return {r["step"]: json.loads(r["hops"]) for r in rows}

    def hop_results(self, run_ids: list[str] | None = None, batch: str | None = None) -> list[dict]:
        """Runs with a hop result that are not running, oldest first: id, task_id and hops (JSON text,
        as stored: the caller skips what does not parse). Only `run_ids` / `batch` when given."""
        where, params = ["hops IS NOT NULL", "status != 'running'"], []
        if run_ids is not None:
            if not run_ids:
                return []
            where.append(f"id IN ({_marks(len(run_ids))})")
            params += list(run_ids)
        if batch:
            where.append("batch = ?")
            params.append(batch)
        return self.rows(f"SELECT id, task_id, hops FROM runs WHERE {' AND '.join(where)} ORDER BY started",
                          params)

    # ---------- procedural memory (cockpit.core.agent.procedural_memory) ----------
    def similar_runs(self, fts: str, limit: int) -> list[dict]:
        """Runs (not running) whose task matches the FTS5 query `fts`, best match first:
        id, task, answer, status and score (bm25 on the task; lower is better)."""
        return self.rows(
            "SELECT r.id, r.task, r.answer, r.status, bm25(runs_fts, 1.0, 0.0) AS score "
            "FROM runs_fts JOIN runs r ON r.rowid = runs_fts.rowid "
            "WHERE runs_fts MATCH ? AND r.status != 'running' ORDER BY score LIMIT ?", [fts, limit])

    def missing_runs(self, run_ids) -> list[str]:
        """Those of `run_ids` this store does not hold, in their order (asked in chunks, not one query each)."""
        ids = list(dict.fromkeys(run_ids))
        held: set[str] = set()
        for i in range(0, len(ids), 900):
            chunk = ids[i:i + 900]
            held |= {r["id"] for r in self.rows(f"SELECT id FROM runs WHERE id IN ({_marks(len(chunk))})", chunk)}
        return [r for r in ids if r not in held]

    def run_labels(self, run_ids: list[str]) -> list[dict]:
        """The human labels of these runs: run_id, annotator, verdict."""
        if not run_ids:
            return []
        return self.rows(f"SELECT run_id, annotator, verdict FROM labels WHERE run_id IN ({_marks(len(run_ids))})",
                          list(run_ids))

    def decided_verdicts(self, run_ids: list[str]) -> list[dict]:
        """The judge verdicts (reference checks too) of these runs that decided: run_id, verdict, created."""
        if not run_ids:
            return []
        return self.rows(f"SELECT run_id, verdict, created FROM verdicts WHERE run_id IN ({_marks(len(run_ids))}) "
                          "AND verdict IS NOT NULL", list(run_ids))

    def agent_actions(self, run_id: str) -> list[dict]:
        """The agent's own steps that ran or answered, in order: action and status."""
        return self.rows("SELECT action, status FROM steps WHERE run_id = ? AND COALESCE(actor, 'agent') = 'agent' "
                          "AND status IN ('ok', 'answered') AND action IS NOT NULL AND action != '' ORDER BY step",
                          [run_id])

    def used_memories(self, run_id: str) -> list[str] | None:
        """The run ids a run was given as memories (None: memory was off for it)."""
        rows = self.rows("SELECT memories FROM runs WHERE id = ?", [run_id])
        return json.loads(rows[0]["memories"]) if rows and rows[0]["memories"] else None

    # ---------- interventions ----------
    def human_decisions(self, run_id: str | None = None) -> list[dict]:
        """Every approval-gate decision a person made (in one run when given): run_id, step, approved,
        edited_action."""
        one = " AND run_id = ?" if run_id else ""
        return self.rows("SELECT run_id, step, approved, edited_action FROM decisions WHERE by LIKE 'human:%'"
                          f"{one} ORDER BY run_id, id", [run_id] if run_id else [])

    def intervened_steps(self, run_id: str | None = None) -> list[dict]:
        """Steps a person took (take-over) or that paused for one (a breakpoint) or carry a person's note (in one
        run when given): run_id, step, actor, flags (JSON text)."""
        one = " AND run_id = ?" if run_id else ""
        return self.rows("SELECT run_id, step, actor, flags FROM steps WHERE (actor = 'human' "
                          f"OR flags LIKE '%breakpoint: %' OR flags LIKE '%note: %'){one} ORDER BY run_id, step",
                          [run_id] if run_id else [])

    # ---------- the judge ----------
    def step_actions(self, run_id: str) -> list[dict]:
        """Each step's action as recorded, in order: step, action, action_text, target, marks_file, pointer
        (WebJudge's action history)."""
        return self.rows("SELECT step, action, action_text, target, marks_file, pointer FROM steps "
                          "WHERE run_id = ? ORDER BY step", [run_id])

    def step_screenshots(self, run_id: str) -> list[dict]:
        """Each step's screenshot paths, in order: step, screenshot (marked), screenshot_clean
        (only these: a long run's stored requests are large)."""
        return self.rows("SELECT step, screenshot, screenshot_clean FROM steps WHERE run_id = ? ORDER BY step",
                          [run_id])


#: In a search of several words, the last one is read as the beginning of a word from this many characters on.
PREFIX_MIN = 3
#: In a search of several words, at most this many other words in all may stand between them ("Delete the
#: first item in the Tiny" finds "Delete the first item (Invoice 101) in the Tiny…": walkthrough 8).
WORDS_BETWEEN = 3
#: How many first letters of each word :func:`words_in_order` checks the order by (the index stems words:
#: "items" finds "item", so the order is checked on the words' beginnings).
ORDER_LETTERS = 4


def words_in_order(text: str) -> str:
    """A LIKE pattern that holds when the beginnings of a search's words stand in the order typed ("lasagna
    vegetarian" does not find "vegetarian lasagna"); "" for one word or none."""
    starts = [re.sub(r"\W", "", w.lower())[:ORDER_LETTERS].replace("_", "\\_") for w in text.split()]
    starts = [w for w in starts if w]  # (\W took any % away; _ is escaped)
    return "%" + "%".join(starts) + "%" if len(starts) > 1 else ""


def fts_query(text: str, prefix: bool = False) -> str:
    """Plain words to an FTS5 query that cannot be a syntax error. `prefix` (a search box read as it is typed):
    one word matches the words it begins ("lasag" finds lasagna); several match near each other, at most
    WORDS_BETWEEN other words between them in all (in the order typed: :func:`words_in_order`, checked beside
    it), the last one a prefix only from PREFIX_MIN characters on ("Open Note A" finds "Open Note A…", not "Open
    Note B and check it says a word"; "open not" finds both). Without `prefix`: every word."""
    words = [w.replace('"', '""') for w in text.split() if re.search(r"\w", w)]  # "" is a quote inside a string
    if not words:
        return '""'
    if not prefix:
        return " ".join(f'"{w}"' for w in words)
    if len(words) == 1:
        return f'"{words[0]}"*'
    last = "*" if len(words[-1].replace('""', '"')) >= PREFIX_MIN else ""
    phrases = " ".join(f'"{w}"' for w in words)
    return f"NEAR({phrases}{last}, {len(words) - 2 + WORDS_BETWEEN})"
