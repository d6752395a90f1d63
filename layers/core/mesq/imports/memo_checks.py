"""The limits a planned memo must meet before anything is written (the memo schema's and the
attachment upload path's), so a memo that would fail at write time is a skipped line of the
report instead, decided while planning.

A `#word` longer than a tag can be (MAX_TAG_LENGTH) fails no memo: a person typing one is told
(create_memo refuses it), but an import must not lose a whole file, or a memo, for one line. The
memo is imported with the word as text where it stands, no tag, and the report lists it as kept
as text, in the person's language, so it is never lost without a word."""

from __future__ import annotations

import mimetypes

from ..attachments.uploads import MAX_FILE_BYTES, check_mime_type, clean_display_name
from ..kernel.errors import MesqError
from ..kernel.i18n import Text
from ..kernel.messages import WHOLE, quoted
from ..kernel.spec import load_spec
from ..kernel.tags import MAX_TAG_LENGTH, expand_tag_paths, is_overlong_tag, is_valid_tag, overlong_tags, parse_tags
from ..memos.reads import content_max_characters
from ..memos.writes import MAX_TAG_PATHS_PER_MEMO, OVERLONG_TAG_SHOWN
from .plan import Plan, PlannedMemo


def max_files() -> int:
    return int(load_spec().document["components"]["schemas"]["MemoResourceList"]["maxItems"])


def with_tags(content: str, tags: list[str]) -> str:
    """`content` with a last line `#tag ...` for each valid tag it does not carry: a memo's tags
    are the ones in its content (rename and counters work on the content). One too long to be a
    tag is written there too, as the text it will be (`admit` reports it)."""
    present = {*parse_tags(content), *overlong_tags(content)}
    missing = [tag for tag in dict.fromkeys(tags) if tag not in present and (is_valid_tag(tag) or is_overlong_tag(tag))]
    tagged = f"{content}\n\n{' '.join('#' + tag for tag in missing)}".strip() if missing else content
    if missing and len(tagged) > content_max_characters():
        # the over-long ones would only be text: they must not push a memo past its limit
        valid = [tag for tag in missing if is_valid_tag(tag)]
        tagged = f"{content}\n\n{' '.join('#' + tag for tag in valid)}".strip() if valid else content
    return tagged


def display_name(name: str, fallback: str) -> str:
    """An attachment name the upload path takes: no control characters nor text-direction
    controls, at most 255 characters."""
    return clean_display_name(name, fallback)


def media_type(declared: str, name: str) -> str:
    for candidate in (declared, mimetypes.guess_type(name)[0] or ""):
        try:
            return check_mime_type(candidate.strip())
        except MesqError:
            continue
    return "application/octet-stream"


def too_long(characters: int, limit: int) -> Text:
    return Text("%(count)s characters, over the memo limit of %(limit)s", count=characters, limit=limit)


def problem(memo: PlannedMemo) -> Text | None:
    """Why this memo cannot be written (one line), or None."""
    limit = content_max_characters()
    if not memo.content.strip():
        return Text("empty: no text and no attachments")
    if len(memo.content) > limit:
        return too_long(len(memo.content), limit)
    if len(expand_tag_paths(parse_tags(memo.content))) > MAX_TAG_PATHS_PER_MEMO:
        return Text("more than %(limit)s distinct tags (counting parent tags)", limit=MAX_TAG_PATHS_PER_MEMO)
    if len(memo.files) > max_files():
        return Text("%(count)s attachments, over the %(limit)s a memo holds", count=len(memo.files), limit=max_files())
    for file in memo.files:
        if file.size > MAX_FILE_BYTES:
            return Text(
                "attachment %(name)s is over the %(limit)s-byte limit per file",
                name=quoted(file.name, WHOLE),
                limit=MAX_FILE_BYTES,
            )
    return None


def admit(plan: Plan, memo: PlannedMemo) -> None:
    """The memo into the plan, or its one-line reason onto the report's skipped list; each `#word`
    of it too long to be a tag onto the kept list (it stays in the text, no tag)."""
    why = problem(memo)
    if why is not None:
        plan.report.skip(memo.label, why)
        return
    plan.memos.append(memo)
    for word in overlong_tags(memo.content):
        plan.report.keep(memo.label, overlong_tag_kept(word))


def overlong_tag_kept(word: str) -> Text:
    """The report's words for a `#word` kept as text because it is too long to be a tag."""
    return Text(
        "%(tag)s is longer than %(limit)s characters, the most a tag can have: kept as text, not as a tag",
        tag=quoted("#" + word, limit=OVERLONG_TAG_SHOWN),
        limit=MAX_TAG_LENGTH,
    )
