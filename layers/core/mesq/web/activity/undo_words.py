"""What an undo did (or would do), said in one sentence in the page's language: "Undid 31
changes.", "Undid 29 changes; 2 were left as they are: the record changed since." Never the
API's own message (English, with ids and revisions): each reason the service gives (`code`) has
its words here.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..kit.i18n import N_, NP_, Translator
from .words import Names, act_of, thing

#: Why a change was left as it is, by the service's code (counted: "2 changed since").
_REASONS = {
    "REVISION_CONFLICT": NP_("%(num)d changed since", "%(num)d changed since"),
    "NOT_UNDOABLE": NP_("%(num)d cannot be undone", "%(num)d cannot be undone"),
    "CONFLICT": NP_("%(num)d was already undone", "%(num)d were already undone"),
    "NOT_FOUND": NP_("%(num)d no longer exists", "%(num)d no longer exist"),
    "FORBIDDEN": NP_("%(num)d is not yours to undo here", "%(num)d are not yours to undo here"),
}
_OTHER_REASON = NP_("%(num)d could not be undone", "%(num)d could not be undone")


def reasons(refused: list[dict[str, Any]], say: Translator) -> str:
    """`2 changed since, 1 cannot be undone`."""
    counts = Counter(str(entry.get("code", "")) for entry in refused)
    return say.gettext(", ").join(
        say.ngettext(*_REASONS.get(code, _OTHER_REASON), count) for code, count in counts.most_common()
    )


#: Records a report names when an undo leaves some as they are; the rest are counted.
NAMED_LEFT = 3


def left_records(refused: list[dict[str, Any]], say: Translator, *, done: bool = True) -> str:
    """The records an undo left (`done`) or would leave as they are, each once, by kind and title
    ("Left as it is: the memo “周报”."): the first NAMED_LEFT, then "and 2 more". A count alone ("2
    changed since") did not tell a person which of their records the undo did not touch."""
    records: dict[tuple[str, str], dict[str, Any]] = {}
    # a record someone changed since first (what a person looks for), what can never be undone
    # (a space's or tag's creation) last; newest first within: named by its newest change's title
    for entry in sorted(refused, key=lambda entry: entry.get("code") == "NOT_UNDOABLE"):
        record = entry.get("record") or {}
        records.setdefault((str(record.get("kind")), str(record.get("id"))), record)
    if not records:
        return ""
    named = [thing({"record": record}, Names(), say).striptags() for record in list(records.values())[:NAMED_LEFT]]
    listed = say.pgettext("records named in a list", ", ").join(named)
    rest = len(records) - len(named)
    if rest:
        listed = say.ngettext("%(records)s and %(num)d more", "%(records)s and %(num)d more", rest, records=listed)
    said = (
        NP_("Left as it is: %(records)s.", "Left as they are: %(records)s.")
        if done
        else NP_("Will stay as it is: %(records)s.", "Will stay as they are: %(records)s.")
    )
    return say.ngettext(*said, len(records), records=listed)


def undo_report(answer: dict[str, Any], say: Translator, *, redo: bool = False) -> str:
    """The sentence after an undo: how many were undone, and why the others were not. `redo`: the
    changes undone were undo entries, so what was taken back is back ("Redid 2 changes.")."""
    undone, refused = len(answer["undone"]), answer["notUndone"]
    if not undone and not refused:  # nothing pending: undone already (a stale page, a second tab, a double click)
        if redo:
            return say.gettext("Nothing was redone: it was all redone already.")
        return say.gettext("Nothing was undone: it was all undone already.")
    if not refused:
        if redo:
            return say.ngettext("Redid %(num)d change.", "Redid %(num)d changes.", undone)
        return say.ngettext("Undid %(num)d change.", "Undid %(num)d changes.", undone)
    why = reasons(refused, say)
    named = left_records(refused, say)
    if not undone:
        if redo:
            return _then(say.gettext("Nothing was redone: %(reasons)s.", reasons=why), named, say)
        return _then(say.gettext("Nothing was undone: %(reasons)s.", reasons=why), named, say)
    if redo:
        done = say.ngettext("Redid %(num)d change", "Redid %(num)d changes", undone)
    else:
        done = say.ngettext("Undid %(num)d change", "Undid %(num)d changes", undone)
    kept = say.ngettext("%(num)d was left as it is", "%(num)d were left as they are", len(refused))
    return _then(say.gettext("%(done)s; %(kept)s (%(reasons)s).", done=done, kept=kept, reasons=why), named, say)


def _then(first: str, second: str, say: Translator) -> str:
    """Two sentences of a report, as the page's language sets sentences side by side."""
    return say.gettext("%(first)s %(second)s", first=first, second=second) if second else first


def preview_report(
    answer: dict[str, Any], say: Translator, *, redo: bool = False, run: bool = False, since: bool = False
) -> str:
    """The dry run's sentence: what Undo would do, before it does it (`redo`: what Redo would
    bring back, the undo entries it undoes; `run`: the Undo takes one run, an import's, not a
    session; `since`: it takes an app's changes since a time)."""
    would, refused = len(answer["undone"]), answer["notUndone"]
    if not would and not refused:  # nothing pending: said, never "Nothing here can be undone: ." with no reason
        if redo:
            return say.gettext("Nothing is left to redo here: it was all redone already.")
        return say.gettext("Nothing is left to undo here: it was all undone already.")
    named = left_records(refused, say, done=False)
    if not would:
        if redo:
            return _then(say.gettext("Nothing here can be redone: %(reasons)s.", reasons=reasons(refused, say)), named,
                         say)  # fmt: skip
        return _then(say.gettext("Nothing here can be undone: %(reasons)s.", reasons=reasons(refused, say)), named, say)
    if redo:
        text = say.ngettext("This redoes %(num)d change.", "This redoes %(num)d changes.", would)
    else:
        text = say.ngettext("This undoes %(num)d change.", "This undoes %(num)d changes.", would)
    if answer.get("more") and since:  # an app's changes since a time: rounds until none is left
        text = say.ngettext(
            "This undoes %(num)d change, then the rest since that time in the same way.",
            "This undoes %(num)d changes, then the rest since that time in the same way.",
            would,
        )
    elif answer.get("more") and run:  # an import's run: its page's Undo takes the run, never the session
        text = say.ngettext(
            "This undoes %(num)d change, then the rest of the run in the same way.",
            "This undoes %(num)d changes, then the rest of the run in the same way.",
            would,
        )
    elif answer.get("more"):  # the dry run counts one round (MAX_UNDO); Undo goes on until none is left
        text = say.ngettext(
            "This undoes %(num)d change, then the rest of the session in the same way.",
            "This undoes %(num)d changes, then the rest of the session in the same way.",
            would,
        )
    if refused:
        left = say.ngettext("%(num)d will be left as it is", "%(num)d will be left as they are", len(refused))
        text = _then(text, say.gettext("%(left)s (%(reasons)s).", left=left, reasons=reasons(refused, say)), say)
        text = _then(text, named, say)
    return text


#: An app's undo since a time that finds nothing of it to undo: no change since, or all undone.
_NOTHING_SINCE = N_("Nothing is left to undo: %(name)s changed nothing since then that is not undone already.")
_NOTHING_SINCE_DONE = N_("Nothing was undone: %(name)s changed nothing since then that is not undone already.")


def nothing_since(name: str, say: Translator, *, done: bool = False) -> str:
    """The preview's (or, `done`, the notice's) words when an app's changes since the time chosen
    hold nothing to undo: never "Undid 0 changes"."""
    return say.gettext(_NOTHING_SINCE_DONE if done else _NOTHING_SINCE, name=name)


#: A record after its change was undone, by the act undone ("back from the trash").
_AFTER_UNDO = {
    "create": N_("moved to the trash"), "add": N_("moved to the trash"), "edit": N_("its earlier version is back"),
    "rename": N_("its earlier name is back"), "move_column": N_("back in its column"),
    "move_space": N_("back in its space"), "reorder": N_("back in its place"), "complete": N_("open again"),
    "reopen": N_("done again"), "pin": N_("no longer pinned"), "unpin": N_("pinned again"),
    "archive": N_("back in the timeline"), "unarchive": N_("archived again"), "unarchive_column": N_("archived again"),
    "trash": N_("back from the trash"), "restore": N_("back in the trash"), "recolour": N_("its colour is back"),
}  # fmt: skip


#: A repeating task's occurrence is closed by moving its due on, never by `done`: undoing that
#: brings its due back ("open again" said it had been closed); undoing the undo moves it on again.
_OCCURRENCE_AFTER_UNDO = {"complete": N_("its earlier due is back"), "reopen": N_("on to its next due again")}


def _after_undo(change: dict[str, Any]) -> str | None:
    """The phrase for a record after `change` was undone (an `_AFTER_UNDO` value), or None."""
    act = act_of(change)
    if act in _OCCURRENCE_AFTER_UNDO and "done" not in change["fields"]:
        return _OCCURRENCE_AFTER_UNDO[act]
    return _AFTER_UNDO.get(act)


def undone_state(changes: list[dict[str, Any]], say: Translator) -> str:
    """A toast's answer to its Undo: what the record is now, one phrase per act undone, newest
    first ("Undone: back from the trash, no longer pinned.")."""
    phrases = list(dict.fromkeys(say.gettext(phrase) for phrase in map(_after_undo, changes) if phrase))
    if not phrases:
        return say.gettext("Undone.")
    return say.gettext("Undone: %(what)s.", what=say.gettext(", ").join(phrases))


__all__ = ["left_records", "nothing_since", "preview_report", "reasons", "undo_report", "undone_state"]
