"""Relative-date resolution for tool-use plans (pure functions, standard library only).

Input: an English date phrase ("next Friday", "three days later", "the 15th", "2025-03-21"), the
reference date ``today`` (a ``datetime.date``) and optionally an ``anchor`` date for phrases relative to
another date ("three days later").  Output: a ``datetime.date`` or ``None`` when the phrase is not
understood.  ``find_date_phrases`` scans a whole query and returns every phrase it resolves, chaining
anchors left to right.  The conventions are documented in docs/tools.md; in short:

* weeks start on Monday (ISO 8601);
* ``Friday`` / ``this Friday`` / ``on Friday`` / ``coming Friday``: the first Friday on or after today;
* ``next Friday``: the Friday of the next calendar week (1 to 13 days ahead);
* ``last Friday``: the Friday of the previous calendar week; ``Friday next week`` = ``Friday of next
  week`` = ``next Friday``; ``Monday of last week`` = ``last Monday``; ``Friday of this week``;
* ``next week`` = Monday of next week; ``this weekend`` = Saturday of this week (today on a Sunday);
  ``next weekend`` = Saturday of next week; ``end of the week`` = Sunday of this week;
* ``next month`` = the 1st of next month; ``end of the month`` = its last day; ``end of next month``;
  ``next year`` = January 1st of next year; ``end of the year`` = December 31st;
* ``in N days|weeks|months|years`` and ``N ... from now|today``: from today; ``N days later|after``,
  ``the next day``, ``the day after``, ``a week later``: from the anchor (today when there is none);
  ``N days before|earlier``, ``the day before``: back from the anchor; adding months or years keeps the
  day of month, clamped to the month's last day (2024-01-31 + 1 month = 2024-02-29);
* ``the 15th``: the first 15th on or after today (months without that day are skipped);
  ``the 15th of next month``; ``March 15`` / ``15 March`` / ``March 15th``: the first on or after today,
  or in the year given (``March 15, 2026``).
"""
from __future__ import annotations

import calendar
import datetime as _dt
import re
from typing import Optional

Date = _dt.date

WEEKDAYS = {name: i for i, name in enumerate(
    ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"))}
WEEKDAYS.update({k[:3]: v for k, v in list(WEEKDAYS.items())})
WEEKDAYS.update({"tues": 1, "wednes": 2, "thur": 3, "thurs": 3})
MONTHS = {name: i + 1 for i, name in enumerate(
    ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"))}
MONTHS.update({k[:3]: v for k, v in list(MONTHS.items())})
MONTHS["sept"] = 9
NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "thirty": 30, "couple": 2, "a couple of": 2,
}
_ORDINAL_WORDS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
    "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
    "twentieth": 20, "thirtieth": 30,
}
MAX_PHRASE = 200          # longer inputs are not date phrases
MAX_OFFSET = 100_000      # days; larger offsets are rejected (no OverflowError)

_ISO = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_WD = "|".join(sorted(WEEKDAYS, key=len, reverse=True))
_WD_FULL = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_MON = "|".join(sorted(MONTHS, key=len, reverse=True))
_NUM = r"[0-9]{1,5}|a couple of|" + "|".join(sorted((k for k in NUMBER_WORDS if k != "a couple of"),
                                                  key=len, reverse=True))
_UNIT = r"days?|weeks?|months?|years?|fortnights?"
_DAYNUM = r"([0-9]{1,2})(?:st|nd|rd|th)?"


# ----------------------------------------------------------------------------- calendar helpers
def add_days(d: Date, n: int) -> Optional[Date]:
    """``d + n`` days, or None outside the supported range."""
    if abs(n) > MAX_OFFSET:
        return None
    try:
        return d + _dt.timedelta(days=n)
    except OverflowError:
        return None


def add_months(d: Date, n: int) -> Optional[Date]:
    """``d + n`` calendar months, the day clamped to the target month's last day."""
    if abs(n) > MAX_OFFSET:
        return None
    total = d.year * 12 + (d.month - 1) + n
    year, month = divmod(total, 12)
    if not 1 <= year <= 9999:
        return None
    day = min(d.day, calendar.monthrange(year, month + 1)[1])
    return Date(year, month + 1, day)


def month_end(d: Date) -> Date:
    return d.replace(day=calendar.monthrange(d.year, d.month)[1])


def week_monday(d: Date) -> Optional[Date]:
    return add_days(d, -d.weekday())


def parse_iso_date(text: str) -> Optional[Date]:
    """``YYYY-MM-DD`` exactly (a real calendar date) or None."""
    if not isinstance(text, str):
        return None
    m = _ISO.fullmatch(text.strip())
    if not m:
        return None
    try:
        return Date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def _number(word: str) -> Optional[int]:
    word = word.strip()
    if word.isascii() and word.isdigit():
        return int(word)
    return NUMBER_WORDS.get(word)


def _shift(d: Date, n: int, unit: str) -> Optional[Date]:
    unit = unit.rstrip("s")
    if unit == "day":
        return add_days(d, n)
    if unit == "week":
        return add_days(d, 7 * n)
    if unit == "fortnight":
        return add_days(d, 14 * n)
    if unit == "month":
        return add_months(d, n)
    if unit == "year":
        return add_months(d, 12 * n)
    return None


def _next_day_of_month(today: Date, day: int) -> Optional[Date]:
    """The first date on or after ``today`` whose day of month is ``day``."""
    if not 1 <= day <= 31:
        return None
    y, m = today.year, today.month
    for _ in range(13):
        if day <= calendar.monthrange(y, m)[1]:
            cand = Date(y, m, day)
            if cand >= today:
                return cand
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
        if y > 9999:
            return None
    return None


def _month_day(today: Date, month: int, day: int, year: Optional[int]) -> Optional[Date]:
    if year is not None:
        try:
            return Date(year, month, day)
        except ValueError:
            return None
    for y in range(today.year, min(today.year + 9, 9999) + 1):   # Feb 29 may need up to 8 years
        try:
            cand = Date(y, month, day)
        except ValueError:
            continue
        if cand >= today:
            return cand
    return None


def _normalize(phrase: str) -> str:
    text = phrase.lower().strip()
    text = re.sub(r"[\s,]+", " ", text)
    text = text.strip(" .!?;:")
    text = re.sub(r"^(?:on|by|for|until|till|from|starting|at) (?=\S)", "", text)
    text = re.sub(r"^the (?=(?:" + _WD + r")\b)", "", text)
    return text.strip()


# ----------------------------------------------------------------------------- the resolver
_FIXED = {
    "today": ("today", 0), "tonight": ("today", 0), "now": ("today", 0),
    "tomorrow": ("today", 1), "yesterday": ("today", -1),
    "the day after tomorrow": ("today", 2), "day after tomorrow": ("today", 2),
    "the day before yesterday": ("today", -2), "day before yesterday": ("today", -2),
    "the next day": ("base", 1), "next day": ("base", 1), "the following day": ("base", 1),
    "the day after": ("base", 1), "the day before": ("base", -1), "the previous day": ("base", -1),
    "the same day": ("base", 0), "that day": ("base", 0), "same day": ("base", 0),
}
def resolve_date(phrase: str, today: Date, anchor: Optional[Date] = None) -> Optional[Date]:
    """Resolve ``phrase`` relative to ``today`` (and ``anchor`` for "... later"); None if not understood."""
    if not isinstance(phrase, str) or not isinstance(today, Date) or len(phrase) > MAX_PHRASE:
        return None
    if anchor is not None and not isinstance(anchor, Date):
        return None
    base = anchor or today
    iso = parse_iso_date(phrase)
    if iso is not None:
        return iso
    t = _normalize(phrase)
    if t in _FIXED:
        which, offset = _FIXED[t]
        return add_days(today if which == "today" else base, offset)
    m = re.fullmatch(r"(?:this |coming |this coming |upcoming |the coming )(" + _WD + r")|(" + _WD_FULL + r")", t)
    if m:
        return add_days(today, (WEEKDAYS[m.group(1) or m.group(2)] - today.weekday()) % 7)
    m = (re.fullmatch(r"(next|last) (" + _WD + r")", t)
         or re.fullmatch(r"(?P<wd>" + _WD + r") (?:of )?(?P<rel>next|last|this) week", t))
    if m:
        rel, wd = (m.group("rel"), m.group("wd")) if "wd" in m.re.groupindex else (m.group(1), m.group(2))
        monday = week_monday(today)
        week = {"next": 7, "last": -7, "this": 0}[rel]
        return None if monday is None else add_days(monday, week + WEEKDAYS[wd])
    m = re.fullmatch(r"(?:the )?(?:following|next) (" + _WD + r") after that|the following (" + _WD + r")", t)
    if m:
        wd = WEEKDAYS[m.group(1) or m.group(2)]
        return add_days(base, (wd - base.weekday() - 1) % 7 + 1)
    return _resolve_periods(t, today, base)


def _resolve_periods(t: str, today: Date, base: Date) -> Optional[Date]:  # noqa: C901
    monday = week_monday(today)
    if monday is None:
        return None
    periods = {
        "next week": add_days(monday, 7), "this weekend": today if today.weekday() == 6 else add_days(monday, 5),
        "the weekend": today if today.weekday() == 6 else add_days(monday, 5),
        "next weekend": add_days(monday, 12), "end of the week": add_days(monday, 6),
        "end of this week": add_days(monday, 6), "the end of the week": add_days(monday, 6),
        "the end of this week": add_days(monday, 6), "end of next week": add_days(monday, 13),
        "the end of next week": add_days(monday, 13),
    }
    if t in periods:
        return periods[t]
    first_next = add_months(today.replace(day=1), 1)
    if t in ("next month", "start of next month", "the start of next month", "beginning of next month",
             "the beginning of next month", "the first of next month", "the 1st of next month"):
        return first_next
    if re.fullmatch(r"(the )?end of (the|this) month|(the )?end of month|month end"
                    r"|(the )?last day of (the|this) month", t):
        return month_end(today)
    if re.fullmatch(r"(the )?end of next month|(the )?last day of next month", t):
        return None if first_next is None else month_end(first_next)
    if t == "next year":
        return _safe_date(today.year + 1, 1, 1)
    if re.fullmatch(r"(the )?end of (the|this) year", t):
        return Date(today.year, 12, 31)
    m = re.fullmatch(r"in (" + _NUM + r") (" + _UNIT + r")(?: time)?|(" + _NUM + r") (" + _UNIT
                     + r") from (?:now|today)", t)
    if m:
        n = _number(m.group(1) or m.group(3))
        return None if n is None else _shift(today, n, m.group(2) or m.group(4))
    m = re.fullmatch(r"(" + _NUM + r") (" + _UNIT + r") (later|after(?:wards)?|on|before|earlier|prior)", t)
    if m:
        n = _number(m.group(1))
        if n is None:
            return None
        sign = -1 if m.group(3) in ("before", "earlier", "prior") else 1
        return _shift(base, sign * n, m.group(2))
    m = re.fullmatch(r"(?:the )?" + _DAYNUM + r"(?: of (this|next) month)?", t)
    if m and (m.group(2) or re.search(r"[0-9](st|nd|rd|th)\b", t) or t.startswith("the ")):
        day = int(m.group(1))
        if m.group(2) == "next":
            return None if first_next is None or day > month_end(first_next).day else first_next.replace(day=day)
        if m.group(2) == "this":
            return _safe_date(today.year, today.month, day)
        return _next_day_of_month(today, day)
    m = re.fullmatch(r"(?:the )?(" + "|".join(_ORDINAL_WORDS) + r") of (this|next) month", t)
    if m:
        return _resolve_periods(f"the {_ORDINAL_WORDS[m.group(1)]}th of {m.group(2)} month", today, base)
    m = re.fullmatch(r"(" + _MON + r")\.? " + _DAYNUM + r"(?: ([0-9]{4}))?", t) or None
    if m:
        return _month_day(today, MONTHS[m.group(1)], int(m.group(2)), _int(m.group(3)))
    m = re.fullmatch(r"(?:the )?" + _DAYNUM + r" (?:of )?(" + _MON + r")\.?(?: ([0-9]{4}))?", t)
    if m:
        return _month_day(today, MONTHS[m.group(2)], int(m.group(1)), _int(m.group(3)))
    return None


def _int(s: Optional[str]) -> Optional[int]:
    return None if s is None else int(s)


def _safe_date(y: int, m: int, d: int) -> Optional[Date]:
    try:
        return Date(y, m, d)
    except ValueError:
        return None


# ----------------------------------------------------------------------------- scanning a query
_WORD = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}|[A-Za-z]+\.?|[0-9]+(?:st|nd|rd|th)?|,")
_SKIP_START = {",", "on", "by", "for", "until", "till", "from", "at", "starting", "and", "or", "to"}
_START_WORDS = ({"the", "this", "next", "last", "today", "tomorrow", "yesterday", "tonight", "in", "end", "coming",
                 "upcoming", "following", "day", "same", "that", "start", "beginning", "month", "couple",
                 "a", "an", "fortnight"} | set(WEEKDAYS) | set(MONTHS) | set(NUMBER_WORDS) | set(_ORDINAL_WORDS))
_SINGLE_OK = {"today", "tomorrow", "yesterday", "tonight"} | {
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}


def find_date_phrases(text: str, today: Date, max_words: int = 7) -> list[tuple[str, Date]]:
    """Every date phrase in ``text`` (longest match first, left to right) with its resolved date.

    Phrases relative to another date ("three days later") are anchored on the previous phrase found.
    A single word counts only when it is a full weekday name, an ISO date or today/tomorrow/yesterday.
    """
    if not isinstance(text, str) or not isinstance(today, Date):
        return []
    tokens = [(m.group(0), m.start(), m.end()) for m in _WORD.finditer(text[:20_000])]
    found: list[tuple[str, Date]] = []
    anchor: Optional[Date] = None
    i = 0
    while i < len(tokens):
        hit = None
        first = tokens[i][0].lower().rstrip(".")
        if first not in _SKIP_START and (first in _START_WORDS or first[:1] in tuple("0123456789")):
            for j in range(min(len(tokens), i + max_words), i, -1):
                if tokens[j - 1][0] == ",":
                    continue
                words = [t[0].lower().rstrip(".") for t in tokens[i:j]]
                if len(words) == 1 and words[0] not in _SINGLE_OK and not _ISO.fullmatch(words[0]):
                    continue
                phrase = text[tokens[i][1]:tokens[j - 1][2]].rstrip(".")
                d = resolve_date(phrase, today, anchor)
                if d is not None:
                    hit = (phrase, d, j)
                    break
        if hit:
            found.append((hit[0], hit[1]))
            anchor = hit[1]
            i = hit[2]
        else:
            i += 1
    return found
