"""An import's report kept for its page (Settings → Import → the report at
`/settings/import/runs/{runId}`), in the user's partition under `IMPORT#<runId>` for
REPORT_DAYS (TTL), with what its undo did once it is undone. Its skipped and kept entries are kept
twice: in English (`report`, as REST answered) and as templates with their parameters (`words`,
`Report.words`), which the page says in its reader's language. Not carried by an account archive
(its prefix is not an exported kind).

A server's import keeps its report from before its first write (`keep_progress`, told by
`run.Progress`): `running` names the process writing it (`kernel/ports/processes.py`: host, pid
numbering, pid, the process's start), and the counts grow as it writes. The final report replaces
it. A report still `running` whose process is gone (`mesq serve` killed: kill -9, a crash, the
machine's power) is marked `interrupted` when it is read (`read_report`), listed
(`unfinished_reports`) or when `mesq serve` starts (`mark_interrupted_runs`): its counts are what
it had written at its last progress (at most `run.Progress.every` seconds before it stopped), and
its Undo reverts every change of its run.

Every write of a report goes through `_keep`, which keeps the run's small open item
(`IMPORTOPEN#<runId>`) beside it while the run has not finished: the Import page's list, settling
and the start-up check read those, never the reports."""

from __future__ import annotations

import json
import time
from typing import Any

from ..kernel.errors import Conflict
from ..kernel.i18n import Text
from ..kernel.keys import user_partition
from ..kernel.ports import processes
from ..kernel.ports.storage import Condition, ConditionFailed, Delete, ItemStore, Key, Put, Update, WriteOp
from ..kernel.timestamps import now_timestamp
from .plan import Report

PREFIX = "IMPORT#"
#: A run that did not finish (running, interrupted, cut short; not undone) has a small item beside
#: its report, `IMPORTOPEN#<runId>` (what the Import page shows: run id, app, time, state, and
#: what settling and the process check read), so listing them never reads the reports (up to
#: 256 KB each) however many are kept. Written with its report, removed when the run finishes or
#: is undone, expiring with it.
OPEN_PREFIX = "IMPORTOPEN#"
#: The prefix alone: the account's open runs are all indexed (reports kept before the open items
#: existed are indexed once, by the first listing). It sorts first among them: one query reads both.
OPEN_MARKER = OPEN_PREFIX
OPEN_VERSION = 1
#: The open runs a listing reads at most (a few hundred bytes each): an account holds a handful.
OPEN_MOST = 200
REPORT_DAYS = 90
#: A stored report at most, as UTF-8 JSON, and what its undo adds: DynamoDB's item limit is
#: 400 KB, names included.
STORED_BYTES = 256 * 1024
UNDONE_BYTES = 64 * 1024
_LISTS = ("skipped", "kept", "shortened", "merged")
#: A running report kept by a process this one cannot tell about (another machine, container or
#: Lambda function, whose time limit is at most 15 minutes) is taken as interrupted once it has
#: not grown for this long.
STALE_SECONDS = 15 * 60


def _this_process() -> dict[str, Any]:
    """What names the writing process (`kernel/ports/processes.py`), and when it last wrote."""
    return processes.current().this_process() | {"aliveAt": time.time()}


def report_key(user_id: str, run_id: str) -> Key:
    return (user_partition(user_id), PREFIX + run_id)


def open_key(user_id: str, run_id: str) -> Key:
    return (user_partition(user_id), OPEN_PREFIX + run_id)


def _run_id(item: dict[str, Any]) -> str:
    sk = str(item.get("sk", ""))
    return sk[len(OPEN_PREFIX) :] if sk.startswith(OPEN_PREFIX) else sk[len(PREFIX) :]


def _report_item(user_id: str, report: Report, at: str, source: str = "", **state: Any) -> dict[str, Any]:
    """The stored report (its lists cut to fit STORED_BYTES), with its state (`running`,
    `interrupted`, `cutShort`) and the file's fingerprint; kept REPORT_DAYS."""
    pk, sk = report_key(user_id, report.run_id)
    english, words = _fitted(report.as_dict(), report.words())
    item = {"pk": pk, "sk": sk, "report": english, "words": words, "at": at, **state,
            "ttl": int(time.time()) + REPORT_DAYS * 86400}  # fmt: skip
    return item | ({"source": source} if source else {})


def _open_item(item: dict[str, Any]) -> dict[str, Any] | None:
    """The open-run item of a report item, or of an open-run item (the same fields); None when
    the run is finished or undone."""
    if item.get("undone") or not (item.get("running") or item.get("interrupted") or item.get("cutShort")):
        return None
    run_id = _run_id(item)
    kind = (item.get("report") or {}).get("kind", "")
    opened = {"pk": item["pk"], "sk": OPEN_PREFIX + run_id, "report": {"runId": run_id, "kind": kind},
              "at": item.get("at", "")}  # fmt: skip
    opened |= {
        name: item[name] for name in ("running", "interrupted", "source", "completedBy", "ttl") if item.get(name)
    }
    return opened | ({"cutShort": True} if item.get("cutShort") else {})


def _keep(items: ItemStore, item: dict[str, Any], stored: dict[str, Any] | None) -> None:
    """The report `item` in place of `stored` (None: there is none), its open-run item beside it:
    in one transaction when the run opens or ends, so a listing never shows a finished run as
    unfinished (nor misses one), plainly while a running one's progress is saved."""
    opened = _open_item(item)
    if opened is None and stored is None:
        items.put(item)
        return
    if opened is not None and stored is not None and _open_item(stored) is not None:
        items.put(item)
        items.put(opened)
        return
    key = (str(item["pk"]), OPEN_PREFIX + _run_id(item))
    other: WriteOp = Put(opened) if opened is not None else Delete(key)
    items.transact([Put(item), other])


def save_report(
    items: ItemStore,
    user_id: str,
    report: Report,
    *,
    at: str | None = None,
    cut_short: Text | None = None,
    source: str = "",
) -> None:
    """The final report; `cut_short`: why the run stopped part-way (`CutShort`'s words: its
    request's time was up, the server stopping, a store's refusal), which its page says; `source`:
    the file's fingerprint (`settle_unfinished`)."""
    stored = items.get(report_key(user_id, report.run_id))
    state = {"cutShort": cut_short.stored()} if cut_short is not None else {}
    _keep(items, _report_item(user_id, report, at or now_timestamp(), source, **state) | _undo_kept(stored), stored)


def _undo_kept(stored: dict[str, Any] | None) -> dict[str, Any]:
    """What an Undo already did to this run (its report taken for interrupted while it still ran),
    kept by the run's last save: the page then says it was undone, never offers Undo as if not."""
    if stored is None or not stored.get("undone"):
        return {}
    return {"undone": stored["undone"], "undoneAt": stored.get("undoneAt", "")}


def keep_progress(items: ItemStore, user_id: str, report: Report, at: str, source: str = "") -> None:
    """The report of a run still writing (`at`: when it began), with the process that writes it.
    One a reader has marked interrupted meanwhile (it took the process for gone) is not written
    over: the run stops (Conflict, so cut short), since an Undo of it may be under way."""
    stored = items.get(report_key(user_id, report.run_id))
    if stored is not None and (stored.get("interrupted") or stored.get("undone")):
        raise Conflict("this import was taken for interrupted while it ran, so it stopped here")
    _keep(items, _report_item(user_id, report, at, source, running=_this_process()), stored)


def keep_interrupted(items: ItemStore, user_id: str, report: Report, at: str, source: str = "") -> None:
    """The report of a run a fault stopped half-way (not a refusal: those are `CutShort`'s)."""
    stored = items.get(report_key(user_id, report.run_id))
    marked = _report_item(user_id, report, at, source, interrupted=True, interruptedAt=now_timestamp())
    _keep(items, marked | _undo_kept(stored), stored)


def settle_unfinished(items: ItemStore, user_id: str, run_id: str, source: str) -> None:
    """A run of the file `source` (its fingerprint) that finished completes the earlier runs of the
    same file that did not (interrupted, cut short): as their page advised, it imported the same
    file again. They are marked `completedBy` it and leave the Import page's list while it is not
    undone (its Undo leaves what they wrote: then they are listed again, `mark_undone`); their
    reports and Undo stay. Reads the open runs only, never a report."""
    if not source:
        return
    for item in _open_items(items, user_id):
        if item.get("source") != source or item.get("completedBy"):
            continue
        marked = _marked_if_gone(items, item)  # interrupted when its process is gone, else left running
        if marked is None or marked.get("running"):
            continue
        if _update_report(items, marked, Update(report_key(user_id, _run_id(marked)), set={"completedBy": run_id})):
            items.put(marked | {"completedBy": run_id})


def forget_report(items: ItemStore, user_id: str, run_id: str) -> None:
    """A run that wrote nothing after all (its file refused at a write): no report."""
    items.transact([Delete(report_key(user_id, run_id)), Delete(open_key(user_id, run_id))])


def _update_report(items: ItemStore, opened: dict[str, Any], update: Update) -> bool:
    """`update` on the report of the open run `opened`; False (and the open item gone) when the
    report is no longer kept (expired, forgotten)."""
    try:
        items.update(Update(update.key, set=update.set, remove=update.remove, condition=Condition(exists=True)))
    except ConditionFailed:
        items.delete((str(opened["pk"]), str(opened["sk"])))
        return False
    return True


def _gone(running: dict[str, Any]) -> bool:
    """Whether the process that kept a running report has ended without its final report: as its
    process table says (`kernel/ports/processes.py`), or, where this process cannot tell (another
    machine, container or Lambda environment), by the report's progress."""
    runs = processes.current().still_runs(running)
    if runs is None:
        return time.time() - float(running.get("aliveAt") or 0) > STALE_SECONDS
    return not runs


def _fitted(english: dict[str, Any], words: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The report with its lists cut (the same entries from both) until it fits STORED_BYTES: 200
    entries a list of up to 300 characters each, twice, were 2 MB of Chinese, and DynamoDB refused
    the item, after the import was written. The counts stay whole; the page says how many it lists."""
    listed = max((len(english.get(name, [])) for name in _LISTS), default=0)
    while listed and _size(english, words) > STORED_BYTES:
        listed //= 2
        english = {**english, **{name: english.get(name, [])[:listed] for name in _LISTS}}
        words = {**words, **{name: words.get(name, [])[:listed] for name in _LISTS}}
    return english, words


def _size(english: dict[str, Any], words: dict[str, Any]) -> int:
    return len(json.dumps([english, words], ensure_ascii=False).encode("utf-8"))


def read_report(items: ItemStore, user_id: str, run_id: str) -> dict[str, Any] | None:
    """The kept report; one whose process ended while it ran is marked `interrupted` (and kept so)."""
    stored = items.get(report_key(user_id, run_id))
    return None if stored is None else _marked_if_gone(items, stored)


def _marked_if_gone(items: ItemStore, item: dict[str, Any]) -> dict[str, Any] | None:
    """`item` (a report, or a run's open item) as it is once marked `interrupted` if its process
    ended while it ran (the report and the open item kept so); as it is otherwise. None: an open
    item whose report is no longer kept (removed with it)."""
    running = item.get("running")
    if not isinstance(running, dict) or not _gone(running):
        return item
    marked = {key: value for key, value in item.items() if key != "running"}
    marked |= {"interrupted": True, "interruptedAt": now_timestamp()}
    if str(item.get("sk", "")).startswith(PREFIX):  # the report itself, held whole
        _keep(items, marked, item)
        return marked
    state = {"interrupted": True, "interruptedAt": marked["interruptedAt"]}
    if not _update_report(
        items, item, Update((str(item["pk"]), PREFIX + _run_id(item)), set=state, remove=["running"])
    ):
        return None
    items.put(marked)
    return marked


def _open_items(items: ItemStore, user_id: str) -> list[dict[str, Any]]:
    """The account's open runs (OPEN_MOST at most), in one query of their small items; the
    reports kept before those existed are indexed first, once."""
    listed = items.query(user_partition(user_id), prefix=OPEN_PREFIX, limit=OPEN_MOST + 1).items
    if not listed or listed[0].get("sk") != OPEN_MARKER:
        _index_open_runs(items, user_id)
        listed = items.query(user_partition(user_id), prefix=OPEN_PREFIX, limit=OPEN_MOST + 1).items
    return [item for item in listed if item.get("sk") != OPEN_MARKER]


def _index_open_runs(items: ItemStore, user_id: str) -> None:
    """The open item of every kept report of a run that did not finish (reports kept before the
    open items existed), then the marker: once an account, every report read once."""
    after = None
    while True:
        page = items.query(user_partition(user_id), prefix=PREFIX, after=after)
        for item in page.items:
            opened = _open_item(item)
            if opened is None:
                continue
            if opened.get("completedBy"):  # settled by a run since undone: open again
                completing = items.get(report_key(user_id, str(opened["completedBy"])))
                if completing is None or completing.get("undone"):
                    opened.pop("completedBy")
            items.put(opened)
        after = page.next_key
        if after is None:
            break
    items.put({"pk": user_partition(user_id), "sk": OPEN_MARKER, "version": OPEN_VERSION, "indexedAt": now_timestamp()})


def unfinished_reports(items: ItemStore, user_id: str, most: int = 20) -> list[dict[str, Any]]:
    """The newest (up to `most`) of the imports still running, interrupted or cut short and not
    undone, for the Import page to link to: a browser whose server died mid-import never got the
    report's address. Their open items, not the reports: each holds the report's `runId` and
    `kind`, its `at` and its state (`running`, `interrupted`, `cutShort`); a run whose process is
    gone is marked interrupted (one write each, the report and its open item)."""
    found: list[dict[str, Any]] = []
    for item in _open_items(items, user_id):
        if item.get("completedBy"):  # the same file imported again since, to its end, and not undone
            continue
        marked = _marked_if_gone(items, item)
        if marked is not None:
            found.append(marked)
    return sorted(found, key=lambda stored: str(stored.get("at", "")), reverse=True)[:most]


def mark_interrupted_runs(items: ItemStore, user_id: str) -> int:
    """The account's running imports whose process is gone marked interrupted (`mesq serve`'s
    start: read by REST or the store, they say so before any page is opened); how many."""
    return sum(
        1
        for item in _open_items(items, user_id)
        if item.get("running") and (marked := _marked_if_gone(items, item)) is not None and not marked.get("running")
    )


def mark_undone(items: ItemStore, user_id: str, run_id: str, undone: dict[str, Any]) -> None:
    """What the undo of a run did, kept on its report (which leaves the open runs); the runs it had
    completed (`settle_unfinished`) are open again: what they wrote is still there."""
    stored = read_report(items, user_id, run_id)
    if stored is None:
        return
    _keep(items, {**stored, "undone": _undone_fitted(undone), "undoneAt": now_timestamp()}, stored)
    for item in _open_items(items, user_id):
        reopened = Update(report_key(user_id, _run_id(item)), remove=["completedBy"])
        if item.get("completedBy") == run_id and _update_report(items, item, reopened):
            items.put({key: value for key, value in item.items() if key != "completedBy"})


def _undone_fitted(undone: dict[str, Any]) -> dict[str, Any]:
    """What the undo did, its list of records left as they were cut until it fits UNDONE_BYTES
    (100 records with titles of 500 characters pushed a full report past DynamoDB's limit after the
    undo had run); `notUndoneCount` stays whole."""
    left = list(undone.get("notUndone", []))
    while left and len(json.dumps(undone | {"notUndone": left}, ensure_ascii=False).encode("utf-8")) > UNDONE_BYTES:
        left = left[: len(left) // 2]
    return undone | {"notUndone": left}
