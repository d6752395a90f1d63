"""An import's report kept for its page (Settings → Import → the report at
`/settings/import/runs/{runId}`), in the user's partition under `IMPORT#<runId>` for
REPORT_DAYS (TTL), with what its undo did once it is undone. Its skipped and kept entries are kept
twice: in English (`report`, as REST answered) and as templates with their parameters (`words`,
`Report.words`), which the page says in its reader's language. Not carried by an account archive
(its prefix is not an exported kind).

A server's import keeps its report from before its first write (`keep_progress`, told by
`run.Progress`): `running` names the process writing it (host, pid, the process's start), and the
counts grow as it writes. The final report replaces it. A report still `running` whose process is
gone (`mesq serve` killed: kill -9, a crash, the machine's power) is marked `interrupted` when it is
read (`read_report`): its counts are what it had written at its last progress (at most
`run.Progress.every` seconds before it stopped), and its Undo reverts every change of its run."""

from __future__ import annotations

import json
import os
import platform
import time
from typing import Any

from ..kernel.errors import Conflict
from ..kernel.i18n import Text
from ..kernel.keys import user_partition
from ..kernel.ports.storage import ItemStore, Key
from ..kernel.timestamps import now_timestamp
from .plan import Report

PREFIX = "IMPORT#"
REPORT_DAYS = 90
#: A stored report at most, as UTF-8 JSON, and what its undo adds: DynamoDB's item limit is
#: 400 KB, names included.
STORED_BYTES = 256 * 1024
UNDONE_BYTES = 64 * 1024
_LISTS = ("skipped", "kept", "shortened")
#: A running report kept by a process on another machine (a Lambda function, whose time limit is
#: at most 15 minutes) is taken as interrupted once it has not grown for this long.
STALE_SECONDS = 15 * 60


def _process_start(pid: int) -> str:
    """When process `pid` started (Linux: its start time in clock ticks since boot), so a pid the
    system gave to another process since is not taken for the import's; "" where unknown."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rpartition(")")[2].split()[19]
    except (OSError, IndexError):
        return ""


def _pid_space() -> str:
    """Which numbering this process's pids belong to: the kernel's boot (a Lambda execution
    environment, a virtual machine: each its own) and the pid namespace within it (a container).
    Pids from another numbering say nothing here: a Lambda container's Python often has the same
    pid as the next one's, and two containers sharing a data directory each count from 1. "" where
    unknown (no /proc: macOS, whose pids are the host's)."""
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as boot:
            return boot.read().strip() + "/" + os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


def _this_process() -> dict[str, Any]:
    return {"host": platform.node(), "pids": _pid_space(), "pid": os.getpid(), "start": _process_start(os.getpid()),
            "aliveAt": time.time()}  # fmt: skip


def report_key(user_id: str, run_id: str) -> Key:
    return (user_partition(user_id), PREFIX + run_id)


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
    pk, sk = report_key(user_id, report.run_id)
    english, words = _fitted(report.as_dict(), report.words())
    item = {"pk": pk, "sk": sk, "report": english, "words": words, "at": at or now_timestamp(),
            "ttl": int(time.time()) + REPORT_DAYS * 86400}  # fmt: skip
    if cut_short is not None:
        item["cutShort"] = cut_short.stored()
    if source:
        item["source"] = source
    items.put(item | _undo_kept(items, (pk, sk)))


def _undo_kept(items: ItemStore, key: Key) -> dict[str, Any]:
    """What an Undo already did to this run (its report taken for interrupted while it still ran),
    kept by the run's last save: the page then says it was undone, never offers Undo as if not."""
    stored = items.get(key)
    if stored is None or not stored.get("undone"):
        return {}
    return {"undone": stored["undone"], "undoneAt": stored.get("undoneAt", "")}


def keep_progress(items: ItemStore, user_id: str, report: Report, at: str, source: str = "") -> None:
    """The report of a run still writing (`at`: when it began), with the process that writes it.
    One a reader has marked interrupted meanwhile (it took the process for gone) is not written
    over: the run stops (Conflict, so cut short), since an Undo of it may be under way."""
    pk, sk = report_key(user_id, report.run_id)
    stored = items.get((pk, sk))
    if stored is not None and (stored.get("interrupted") or stored.get("undone")):
        raise Conflict("this import was taken for interrupted while it ran, so it stopped here")
    english, words = _fitted(report.as_dict(), report.words())
    items.put({"pk": pk, "sk": sk, "report": english, "words": words, "at": at, "running": _this_process(),
               "ttl": int(time.time()) + REPORT_DAYS * 86400} | ({"source": source} if source else {}))  # fmt: skip


def keep_interrupted(items: ItemStore, user_id: str, report: Report, at: str, source: str = "") -> None:
    """The report of a run a fault stopped half-way (not a refusal: those are `CutShort`'s)."""
    pk, sk = report_key(user_id, report.run_id)
    english, words = _fitted(report.as_dict(), report.words())
    items.put({"pk": pk, "sk": sk, "report": english, "words": words, "at": at, "interrupted": True,
               "interruptedAt": now_timestamp(), "ttl": int(time.time()) + REPORT_DAYS * 86400}
              | ({"source": source} if source else {}) | _undo_kept(items, (pk, sk)))  # fmt: skip


def settle_unfinished(items: ItemStore, user_id: str, run_id: str, source: str) -> None:
    """A run of the file `source` (its fingerprint) that finished completes the earlier runs of the
    same file that did not (interrupted, cut short): as their page advised, it imported the same
    file again. They are marked `completedBy` it and leave the Import page's list while it is not
    undone (its Undo leaves what they wrote: then they are listed again); their reports and Undo stay."""
    if not source:
        return
    after = None
    while True:
        page = items.query(user_partition(user_id), prefix=PREFIX, after=after)
        for item in page.items:
            if item.get("source") != source or item.get("undone") or item.get("completedBy"):
                continue
            if item.get("running"):  # marked interrupted when its process is gone, else left running
                item = read_report(items, user_id, str(item["sk"])[len(PREFIX) :]) or item
            if not item.get("running") and (item.get("interrupted") or item.get("cutShort")):
                items.put(item | {"completedBy": run_id})
        after = page.next_key
        if after is None:
            return


def forget_report(items: ItemStore, user_id: str, run_id: str) -> None:
    """A run that wrote nothing after all (its file refused at a write): no report."""
    items.delete(report_key(user_id, run_id))


def _gone(running: dict[str, Any]) -> bool:
    """Whether the process that kept a running report has ended without its final report."""
    here = _pid_space()
    if running.get("host") != platform.node() or running.get("pids") != here:
        # Another machine, container or Lambda environment (its pid may be one of ours by chance,
        # even with the same start): only the report's progress tells whether it still runs. ("" on
        # both sides: a system without /proc, macOS, has no pid namespaces: its pids are the host's.)
        return time.time() - float(running.get("aliveAt") or 0) > STALE_SECONDS
    pid = running.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool):
        return True
    if pid == os.getpid():  # this process: running unless it started after the report's writer
        return str(running.get("start") or "") != _process_start(pid)
    try:
        os.kill(pid, 0)  # no signal: only whether the process exists
    except ProcessLookupError:
        return True
    except PermissionError:  # another user's process: its start says whether it is the writer
        pass
    return str(running.get("start") or "") != _process_start(pid)


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
    running = stored.get("running") if stored is not None else None
    if stored is None or not isinstance(running, dict) or not _gone(running):
        return stored
    marked = {key: value for key, value in stored.items() if key != "running"}
    marked |= {"interrupted": True, "interruptedAt": now_timestamp()}
    items.put(marked)
    return marked


def unfinished_reports(items: ItemStore, user_id: str, most: int = 20) -> list[dict[str, Any]]:
    """The newest reports (up to `most`) of imports still running, interrupted or cut short and not
    undone, for the Import page to link to: a browser whose server died mid-import never got the
    report's address. Reports are kept 90 days; an account holds a handful."""
    found: list[dict[str, Any]] = []
    after = None
    while True:
        page = items.query(user_partition(user_id), prefix=PREFIX, descending=True, after=after)
        for item in page.items:
            if not (item.get("running") or item.get("interrupted") or item.get("cutShort")) or item.get("undone"):
                continue
            if item.get("completedBy"):  # the same file imported again since, to its end, and not undone
                completing = items.get(report_key(user_id, str(item["completedBy"])))
                if completing is not None and not completing.get("undone"):
                    continue
            run_id = str(item.get("sk", ""))[len(PREFIX) :]
            stored = read_report(items, user_id, run_id)  # marks one whose process is gone
            if stored is not None and not stored.get("undone"):
                found.append(stored)
        after = page.next_key
        if after is None or len(found) >= most:
            break
    return sorted(found, key=lambda stored: str(stored.get("at", "")), reverse=True)[:most]


def mark_undone(items: ItemStore, user_id: str, run_id: str, undone: dict[str, Any]) -> None:
    stored = read_report(items, user_id, run_id)
    if stored is not None:
        items.put({**stored, "undone": _undone_fitted(undone), "undoneAt": now_timestamp()})


def _undone_fitted(undone: dict[str, Any]) -> dict[str, Any]:
    """What the undo did, its list of records left as they were cut until it fits UNDONE_BYTES
    (100 records with titles of 500 characters pushed a full report past DynamoDB's limit after the
    undo had run); `notUndoneCount` stays whole."""
    left = list(undone.get("notUndone", []))
    while left and len(json.dumps(undone | {"notUndone": left}, ensure_ascii=False).encode("utf-8")) > UNDONE_BYTES:
        left = left[: len(left) // 2]
    return undone | {"notUndone": left}
