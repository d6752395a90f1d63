"""A task's recurrence (an RRULE) in words in the page's language: "Every week on Friday",
"每周的周五". The domain reads the rule (`todos/quick_add.rule_shape`); the words live here,
where the message catalog is extracted from. The raw rule stays under the task page's "Advanced"."""

from __future__ import annotations

from jinja2 import pass_context
from jinja2.runtime import Context

from ...todos.quick_rules import rule_shape
from .i18n import DEFAULT_LANGUAGE, LANGUAGES, N_, NP_, Translator

ENGLISH = Translator(DEFAULT_LANGUAGE)
CUSTOM_RULE = N_("Repeats (custom rule)")
_EVERY_ONE = {
    "DAILY": N_("Every day"),
    "WEEKLY": N_("Every week"),
    "MONTHLY": N_("Every month"),
    "YEARLY": N_("Every year"),
}
_EVERY_MANY = {
    "DAILY": NP_("Every %(num)d day", "Every %(num)d days"),
    "WEEKLY": NP_("Every %(num)d week", "Every %(num)d weeks"),
    "MONTHLY": NP_("Every %(num)d month", "Every %(num)d months"),
    "YEARLY": NP_("Every %(num)d year", "Every %(num)d years"),
}
_DAY_NAMES = dict(
    zip(
        ("MO", "TU", "WE", "TH", "FR", "SA", "SU"),
        (N_("Monday"), N_("Tuesday"), N_("Wednesday"), N_("Thursday"), N_("Friday"), N_("Saturday"), N_("Sunday")),
        strict=True,
    )
)


def listed(items: list[str], say: Translator) -> str:
    """ "Monday, Wednesday" / "周一、周三": a list in the language's separator."""
    out = items[0]
    for item in items[1:]:
        out = say.gettext("%(list)s, %(item)s", list=out, item=item)
    return out


def recurrence_words(rule: str, say: Translator = ENGLISH) -> str:
    """ "Every week on Friday", "Every weekday", "Every 2 weeks on Monday, Wednesday", "Every month
    on day 15, 6 times", "Every month on the last day"; a rule words cannot say exactly reads
    "Repeats (custom rule)"."""
    shape = rule_shape(rule)
    if shape is None:
        return say.gettext(CUSTOM_RULE)
    if shape.weekdays:
        words = say.gettext("Every weekday")
    elif shape.every == 1:
        words = say.gettext(_EVERY_ONE[shape.freq])
    else:
        words = say.ngettext(*_EVERY_MANY[shape.freq], shape.every)
    if shape.days and not shape.weekdays:
        days = listed([say.gettext(_DAY_NAMES[day]) for day in shape.days], say)
        words = say.gettext("%(every)s on %(days)s", every=words, days=days)
    if shape.or_last_day:
        words = say.gettext("%(every)s on day %(day)s, or the last day of a shorter month", every=words,
                            day=shape.month_days[0])  # fmt: skip
    elif shape.month_days:
        days = listed([str(day) for day in shape.month_days], say)
        words = say.gettext("%(every)s on day %(days)s", every=words, days=days)
    if shape.last_day:
        words = say.gettext("%(every)s on the last day", every=words)
    if shape.leap_day:
        words = say.gettext("%(every)s on 29 February, or 28 February in other years", every=words)
    if shape.count is not None:
        words = say.ngettext("%(words)s, once", "%(words)s, %(num)d times", shape.count, words=words)
    if shape.until:
        words = say.gettext("%(words)s, until %(date)s", words=words, date=shape.until)
    return words


@pass_context
def recurrence_filter(context: Context, rule: str) -> str:
    """The `recurrence` template filter: in the render's language (`render_context` sets it)."""
    language = context.get("language")
    return recurrence_words(rule, Translator(language) if language in LANGUAGES else ENGLISH)
