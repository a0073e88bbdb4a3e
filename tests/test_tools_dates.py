"""Relative-date resolution (validators/tools/dates.py): fixed cases and invariants over whole years."""
import calendar
import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chronoplan.validators.tools.dates import add_months, find_date_phrases, parse_iso_date, resolve_date

D = dt.date
WED = D(2025, 3, 12)          # the DESIGN sketch's reference date (a Wednesday)
DAYS_2024 = [D(2024, 1, 1) + dt.timedelta(days=i) for i in range(366)]
BOUNDARY_DAYS = DAYS_2024 + [D(2023, 12, 25) + dt.timedelta(days=i) for i in range(8)] + \
    [D(2100, 2, 27) + dt.timedelta(days=i) for i in range(4)] + \
    [D(2000, 2, 27) + dt.timedelta(days=i) for i in range(4)]
WEEKDAY_NAMES = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]


@pytest.mark.parametrize("phrase, expected", [
    ("today", D(2025, 3, 12)), ("tomorrow", D(2025, 3, 13)), ("yesterday", D(2025, 3, 11)),
    ("the day after tomorrow", D(2025, 3, 14)),
    ("next Friday", D(2025, 3, 21)),            # the Friday of next week (DESIGN sketch)
    ("this Friday", D(2025, 3, 14)), ("Friday", D(2025, 3, 14)), ("on Friday", D(2025, 3, 14)),
    ("this Wednesday", D(2025, 3, 12)), ("next Wednesday", D(2025, 3, 19)), ("next Monday", D(2025, 3, 17)),
    ("last Monday", D(2025, 3, 3)), ("Monday of last week", D(2025, 3, 3)), ("Friday next week", D(2025, 3, 21)),
    ("next week", D(2025, 3, 17)), ("this weekend", D(2025, 3, 15)), ("next weekend", D(2025, 3, 22)),
    ("end of the week", D(2025, 3, 16)), ("end of the month", D(2025, 3, 31)),
    ("end of next month", D(2025, 4, 30)), ("next month", D(2025, 4, 1)), ("next year", D(2026, 1, 1)),
    ("in three days", D(2025, 3, 15)), ("in 2 weeks", D(2025, 3, 26)), ("in a month", D(2025, 4, 12)),
    ("three days from now", D(2025, 3, 15)), ("a fortnight from today", D(2025, 3, 26)),
    ("the 15th", D(2025, 3, 15)), ("the 12th", D(2025, 3, 12)), ("the 11th", D(2025, 4, 11)),
    ("the 31st", D(2025, 3, 31)), ("the 3rd of next month", D(2025, 4, 3)), ("the first of next month", D(2025, 4, 1)),
    ("March 15", D(2025, 3, 15)), ("15 March", D(2025, 3, 15)), ("March 1st", D(2026, 3, 1)),
    ("the 15th of March", D(2025, 3, 15)), ("Feb 29", D(2028, 2, 29)), ("March 15, 2027", D(2027, 3, 15)),
    ("2025-03-21", D(2025, 3, 21)), ("  Next  FRIDAY. ", D(2025, 3, 21)),
])
def test_fixed_phrases(phrase, expected):
    assert resolve_date(phrase, WED) == expected


@pytest.mark.parametrize("phrase, expected", [
    ("three days later", D(2025, 3, 24)), ("a week later", D(2025, 3, 28)), ("the next day", D(2025, 3, 22)),
    ("the day before", D(2025, 3, 20)), ("two days before", D(2025, 3, 19)), ("2 days earlier", D(2025, 3, 19)),
    ("the following Monday", D(2025, 3, 24)), ("a month later", D(2025, 4, 21)),
])
def test_anchor_relative(phrase, expected):
    assert resolve_date(phrase, WED, anchor=D(2025, 3, 21)) == expected
    # without an anchor the same phrase counts from today
    assert resolve_date(phrase, WED) == resolve_date(phrase, WED, anchor=WED)


@pytest.mark.parametrize("phrase", ["", "soon", "next", "the 32nd", "the 0th", "February 30", "2025-02-29",
                                    "2025-13-01", "in many days", "x" * 500, "next Fursday", "the sun",
                                    "in 999999999 days", "15"])
def test_not_understood(phrase):
    assert resolve_date(phrase, WED) is None


def test_bad_arguments_do_not_raise():
    assert resolve_date(None, WED) is None
    assert resolve_date("today", "2025-03-12") is None
    assert resolve_date("three days later", WED, anchor="x") is None
    assert resolve_date("tomorrow", D(9999, 12, 31)) is None
    assert resolve_date("yesterday", D(1, 1, 1)) is None
    assert resolve_date("next year", D(9999, 6, 1)) is None
    assert parse_iso_date(20250312) is None


@pytest.mark.parametrize("today", BOUNDARY_DAYS, ids=str)
def test_weekday_invariants_every_day(today):
    monday = today - dt.timedelta(days=today.weekday())
    for wd, name in enumerate(WEEKDAY_NAMES):
        this = resolve_date(f"this {name}", today)
        nxt = resolve_date(f"next {name}", today)
        last = resolve_date(f"last {name}", today)
        assert this.weekday() == nxt.weekday() == last.weekday() == wd
        assert 0 <= (this - today).days <= 6
        assert 1 <= (nxt - today).days <= 13
        assert (nxt - monday).days == 7 + wd                  # inside next ISO week
        assert (monday - last).days == 7 - wd                 # inside the previous ISO week
        assert resolve_date(name, today) == this
        assert resolve_date(f"{name} next week", today) == nxt
        assert nxt > today > last
    assert resolve_date("tomorrow", today) - resolve_date("yesterday", today) == dt.timedelta(days=2)
    assert resolve_date("next week", today) == monday + dt.timedelta(days=7)
    assert resolve_date("next weekend", today).weekday() == 5


@pytest.mark.parametrize("today", BOUNDARY_DAYS, ids=str)
def test_month_invariants_every_day(today):
    end = resolve_date("end of the month", today)
    assert (end.year, end.month) == (today.year, today.month) and end >= today
    assert (end + dt.timedelta(days=1)).day == 1
    first_next = resolve_date("next month", today)
    assert first_next.day == 1 and first_next == end + dt.timedelta(days=1)
    end_next = resolve_date("end of next month", today)
    assert (end_next.year, end_next.month) == (first_next.year, first_next.month)
    assert (end_next + dt.timedelta(days=1)).day == 1
    in_month = resolve_date("in one month", today)
    assert in_month.day == min(today.day, calendar.monthrange(in_month.year, in_month.month)[1])
    assert (in_month.year * 12 + in_month.month) - (today.year * 12 + today.month) == 1
    in_year = resolve_date("in a year", today)
    assert in_year.year == today.year + 1 and in_year.month == today.month
    for day in (1, 15, 29, 30, 31):
        d = resolve_date(f"the {day}th" if day not in (1, 31) else f"the {day}{'st'}", today)
        assert d.day == day and d >= today
        assert (d - today).days < 62                          # at most one month without that day skipped
        between = [today + dt.timedelta(days=k) for k in range((d - today).days)]
        assert all(x.day != day for x in between)             # it is the first such date
    assert resolve_date("in 10 days", today) == today + dt.timedelta(days=10)
    assert resolve_date("ten days later", today, anchor=end) == end + dt.timedelta(days=10)


def test_leap_days():
    assert resolve_date("tomorrow", D(2024, 2, 28)) == D(2024, 2, 29)
    assert resolve_date("tomorrow", D(2023, 2, 28)) == D(2023, 3, 1)
    assert resolve_date("end of the month", D(2024, 2, 3)) == D(2024, 2, 29)
    assert resolve_date("end of the month", D(2100, 2, 3)) == D(2100, 2, 28)   # not a leap year
    assert resolve_date("end of the month", D(2000, 2, 3)) == D(2000, 2, 29)   # divisible by 400
    assert resolve_date("in a year", D(2024, 2, 29)) == D(2025, 2, 28)          # clamped
    assert resolve_date("in one month", D(2024, 1, 31)) == D(2024, 2, 29)
    assert resolve_date("the 29th", D(2023, 2, 10)) == D(2023, 3, 29)           # February 2023 skipped
    assert resolve_date("February 29", D(2025, 1, 1)) == D(2028, 2, 29)
    assert resolve_date("the 31st", D(2024, 4, 1)) == D(2024, 5, 31)
    assert add_months(D(2024, 3, 31), -1) == D(2024, 2, 29)


def test_year_boundaries():
    assert resolve_date("next Monday", D(2024, 12, 31)) == D(2025, 1, 6)
    assert resolve_date("next month", D(2024, 12, 5)) == D(2025, 1, 1)
    assert resolve_date("the 3rd of next month", D(2024, 12, 18)) == D(2025, 1, 3)
    assert resolve_date("last Friday", D(2025, 1, 2)) == D(2024, 12, 27)
    assert resolve_date("in two weeks", D(2023, 12, 20)) == D(2024, 1, 3)
    assert resolve_date("March 15", D(2025, 3, 16)) == D(2026, 3, 15)


@settings(max_examples=300, deadline=None)
@given(st.dates(min_value=D(1900, 1, 1), max_value=D(2200, 12, 31)), st.integers(0, 6), st.integers(0, 400))
def test_random_dates(today, wd, n):
    name = WEEKDAY_NAMES[wd]
    this, nxt = resolve_date(f"this {name}", today), resolve_date(f"next {name}", today)
    if wd >= today.weekday():            # this week's one is still ahead (or today): next is a week later
        assert nxt == this + dt.timedelta(days=7)
    else:                                # this week's one is past: "this" already means next week's
        assert nxt == this
    assert resolve_date(f"in {n} days", today) == today + dt.timedelta(days=n)
    assert resolve_date(f"{n} days before", today, anchor=today) == today - dt.timedelta(days=n)
    later = resolve_date(f"{n} days later", today, anchor=today)
    assert resolve_date(f"{n} days earlier", today, anchor=later) == today


def test_find_date_phrases_chains_anchors():
    q = "Book a flight to Paris next Friday and a return flight three days later; remind me the day before."
    assert find_date_phrases(q, WED) == [("next Friday", D(2025, 3, 21)), ("three days later", D(2025, 3, 24)),
                                         ("the day before", D(2025, 3, 23))]
    assert find_date_phrases("Fly on March 30, 2025 or tomorrow", WED) == [
        ("March 30, 2025", D(2025, 3, 30)), ("tomorrow", D(2025, 3, 13))]
    # single ambiguous words are not dates
    assert find_date_phrases("Sat in the sun at 15 a.m. in May", WED) == []
    assert find_date_phrases(None, WED) == [] and find_date_phrases("x", None) == []
    many = find_date_phrases("tomorrow " * 5000, WED)          # only the first 20,000 characters are read
    assert 2000 < len(many) <= 20_000 // 9 + 1 and {d for _, d in many} == {D(2025, 3, 13)}
