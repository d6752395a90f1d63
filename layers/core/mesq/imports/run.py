"""Writing a checked plan, as one import run.

`import_call` is the call every write of one import shares: its principal carries the run's id,
so every change record the import writes has the same `runId` (the history shows the import as
one run, and `undo_import` reverts it by that id). The command line's principal is named
"mesq import --from KIND"; Settings → Import and REST pass the caller's own.

`execute` first checks what only the whole plan can tell (the attachment quota), then writes:
memos one by one (`memo_writes.write_memo`), spaces, then their columns' tasks
(`todo_writes`). It adds to the account and never replaces: every record has an id derived from
the source, written only when absent. A `Progress` (the server's edges pass one) hears of the
report before the first write and then at most once a `Progress.every` seconds while it writes:
the edges keep it, so a run whose process dies (kill -9) still has its report and its Undo.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ..attachments import store as attachment_store
from ..kernel.context import Call, Channel, Principal, Services, new_run_id
from ..kernel.errors import MesqError
from ..kernel.i18n import Text
from ..kernel.tags import parse_tags
from ..memos import store as memo_store
from .memo_writes import write_memo
from .plan import CutShort, Plan, PlannedTask, Report, SourceError, stop_if_asked
from .todo_writes import check_inbox, check_planned, write_inbox, write_space, write_tasks

#: The scopes an import writes with (the command line's principal; a caller's own are checked by
#: the edge: memo:write for memos and flomo, todo:write for Todoist).
SCOPES = frozenset({"memo:read", "memo:write", "todo:read", "todo:write"})


def import_call(
    services: Services,
    user_id: str,
    kind: str,
    *,
    principal: Principal | None = None,
    channel: Channel = "cli",
    language: str = "",
) -> Call:
    """The call every write of one import runs under: one run id, the request's `language` (a
    default board the import makes is named in it, as any write's)."""
    run_id = new_run_id()
    if principal is None:
        principal = Principal(user_id, SCOPES, f"cli:import-{kind}", "pat", name=f"mesq import --from {kind}")
    principal = replace(principal, run_id=run_id)
    return Call(principal=principal, services=services, trace_id=run_id, channel=channel,
                operation_id=f"import_{kind}", language=language)  # fmt: skip


def _check_quota(call: Call, plan: Plan) -> None:
    needed = plan.attachment_bytes
    quota = call.services.deployment.attachment_quota_bytes
    if not needed or quota is None:
        return
    used, _count = attachment_store.read_usage(call.services.items, call.principal.user_id)
    if used + needed > quota:
        raise SourceError(
            Text(
                "the import's attachments take %(needed)s bytes and the account has %(left)s of its"
                " %(quota)s-byte quota left",
                needed=needed,
                left=max(0, quota - used),
                quota=quota,
            )
        )


@dataclass
class Progress:
    """Told the report before the first write (`begun`) and then as it grows (`tick`), at most
    once every `every` seconds: what a run has written so far, kept by the caller."""

    told: Callable[[Report], None]
    every: float = 1.0
    _last: float = field(default=0.0, init=False)
    #: The report once the writes have begun (None before: nothing was kept).
    report: Report | None = field(default=None, init=False)

    def begun(self, report: Report) -> None:
        self.report = report
        self.told(report)
        self._last = time.monotonic()

    def due(self) -> bool:
        return time.monotonic() - self._last >= self.every

    def tick(self, report: Report) -> None:
        if self.due():
            self.begun(report)


def execute(call: Call, plan: Plan, progress: Progress | None = None) -> Report:
    started = time.perf_counter()
    report = plan.report
    report.run_id = call.run_id
    _check_quota(call, plan)
    for space in plan.spaces:
        check_planned(space)
    check_inbox(plan.inbox)
    if progress is not None:
        progress.begun(report)
    try:
        _write(call, plan, report, progress)
    except MesqError as error:  # after a first write: say what is there and how to finish or undo it
        report.seconds = time.perf_counter() - started
        raise CutShort(error.text, report) from error
    except CutShort:
        raise
    except SourceError as error:
        # A file read at its write (a memos folder's file, which memos may delete meanwhile) is
        # gone or changed: the records written before it stay, so "nothing imported" would be false.
        report.seconds = time.perf_counter() - started
        if not any(report.imported.values()):
            raise
        cut = CutShort(error.text, report)
        cut.detail = error.detail  # the OSError's words, for the log only
        raise cut from error
    report.seconds = time.perf_counter() - started
    return report


def _so_far(report: Report, created: Counter[str]) -> Report:
    """The report with the batches of the column under way (`write_tasks`'s `created`, merged into
    the report once the column ends): a column holds up to 5,000 tasks, minutes of writes."""
    so_far = replace(report, imported=report.imported.copy(), existing=report.existing.copy())
    so_far.existing["tasks"] += created["existing"]
    so_far.in_trash += created["in_trash"]
    so_far.imported.update({name: count for name, count in created.items() if name not in ("existing", "in_trash")})
    return so_far


def _write(call: Call, plan: Plan, report: Report, progress: Progress | None) -> None:
    """The plan's writes; `progress` told of the report at most once a second, between two memos,
    two spaces or columns, and two batches of a column's tasks."""

    def tick(report: Report) -> None:
        if progress is not None:
            progress.tick(report)

    tags: set[str] = set()
    for memo in plan.memos:
        tick(report)
        stop_if_asked()
        report.records += 1
        if write_memo(call, memo, report.kind):
            report.imported["memos"] += 1
            report.imported["attachments"] += len(memo.files)
            report.imported["comments"] += memo.comments
            report.imported["pinned"] += memo.pinned
            report.imported["archived"] += memo.archived
            tags.update(parse_tags(memo.content))
        else:
            report.existing["memos"] += 1
            there = memo_store.read_memo(call.services.items, call.principal.user_id, memo.memo_id)
            report.in_trash += there is not None and there.get("status") == "DELETED"
    for space in plan.spaces:
        tick(report)
        report.imported.update(write_space(call, space))
        if space.into is not None:
            report.merge(space.name, Text("into the existing space %(space)s", space=space.into))
        for column in space.columns:
            tick(report)
            created: Counter[str] = Counter()
            written: list[PlannedTask] = []

            def between(created: Counter[str] = created) -> None:  # two batches of this column's tasks
                if progress is not None and progress.due():
                    progress.begun(_so_far(report, created))

            try:
                write_tasks(call, space.space_id, column, created, written, between=between)
            finally:  # the batches written before a fault count too (the report of a run cut short)
                report.existing["tasks"] += created.pop("existing", 0)
                report.in_trash += created.pop("in_trash", 0)
                report.imported.update(created)
                for record in written:  # only what this run wrote was imported, shortened or not
                    if record.cut is not None:
                        report.shorten(record.label or record.title, record.cut)
            report.records += sum(1 + len(task.subtasks) for task in column.tasks)
            tags.update(tag for task in column.tasks for tag in task.tags)
            tags.update(tag for task in column.tasks for sub in task.subtasks for tag in sub.tags)
    if plan.inbox:
        tick(report)
        report.merge("Inbox", Text("into your inbox"))  # Todoist's Inbox project, as it names it
        created = Counter()
        written = []
        try:
            write_inbox(call, plan.inbox, created, written, between=lambda: tick(_so_far(report, created)))
        finally:
            report.existing["tasks"] += created.pop("existing", 0)
            report.in_trash += created.pop("in_trash", 0)
            report.imported.update(created)
            for record in written:
                if record.cut is not None:
                    report.shorten(record.label or record.title, record.cut)
        report.records += sum(1 + len(task.subtasks) for task in plan.inbox)
        tags.update(tag for task in plan.inbox for tag in task.tags)
    if tags and (report.imported["memos"] or report.imported["tasks"] or report.imported["subtasks"]):
        report.imported["tags"] = len(tags)
