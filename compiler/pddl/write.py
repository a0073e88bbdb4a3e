"""A small PDDL model and its deterministic text rendering.

Input: ``Domain`` / ``Problem`` values built by ``compiler.pddl.temporal`` or ``compiler.pddl.classical``
(names already mangled by ``compiler.pddl.names``).  Output: PDDL 2.1 text (``write_domain``,
``write_problem``): constants, durative actions with ``at start`` / ``over all`` / ``at end`` conditions and
effects, optional ``(and (>= ?duration 0) (<= ?duration X))`` envelopes, timed initial literals, action
costs.  Numbers are exact decimals (every number handed in must have a terminating decimal expansion; the
exporters scale time so they are integers or halves).  The same model always renders to the same bytes.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Optional, Union

from chronoplan.compiler.decimal_text import exact_decimal


@dataclass(frozen=True)
class Lit:
    pred: str
    args: tuple[str, ...] = ()
    positive: bool = True

    def text(self) -> str:
        atom = "(" + " ".join((self.pred,) + self.args) + ")"
        return atom if self.positive else f"(not {atom})"

    def negate(self) -> Lit:
        return Lit(self.pred, self.args, not self.positive)


@dataclass(frozen=True)
class Predicate:
    name: str
    params: tuple[tuple[str, str], ...] = ()     # (?var, type)
    comment: str = ""


@dataclass(frozen=True)
class DurativeAction:
    name: str
    params: tuple[tuple[str, str], ...]
    duration: Fraction
    duration_le: bool                               # True: (<= ?duration d) (an envelope), else (= ?duration d)
    cond_start: tuple[Lit, ...] = ()
    cond_end: tuple[Lit, ...] = ()
    eff_start: tuple[Lit, ...] = ()
    eff_end: tuple[Lit, ...] = ()
    comment: str = ""
    cond_all: tuple[Lit, ...] = ()                  # (over all ...) conditions


@dataclass(frozen=True)
class PddlAction:
    name: str
    params: tuple[tuple[str, str], ...]
    pre: tuple[Lit, ...] = ()
    eff: tuple[Lit, ...] = ()
    cost: Optional[Union[Fraction, str]] = None    # a number, or a numeric term such as "(steps ?from ?to)"
    comment: str = ""


@dataclass(frozen=True)
class Domain:
    name: str
    requirements: tuple[str, ...]
    types: tuple[tuple[str, str], ...]              # (type, parent)
    predicates: tuple[Predicate, ...]
    actions: tuple
    functions: tuple[str, ...] = ()                 # e.g. "(total-cost) - number"
    header: tuple[str, ...] = ()                    # comment lines
    constants: tuple[tuple[str, str], ...] = ()     # (name, type): objects the actions name


@dataclass(frozen=True)
class Problem:
    name: str
    domain: str
    objects: tuple[tuple[str, str], ...]            # (name, type)
    init: tuple[Lit, ...]
    tils: tuple[tuple[Fraction, Lit], ...] = ()
    numeric_init: tuple[tuple[str, Fraction], ...] = ()   # ("(total-cost)", 0)
    goal: tuple[Lit, ...] = ()
    metric: Optional[str] = None
    header: tuple[str, ...] = ()


def num(x) -> str:
    """An exact decimal for a Fraction/int with a terminating expansion; ValueError otherwise."""
    return exact_decimal(Fraction(x))


def _params(params) -> str:
    return " ".join(f"{v} - {t}" for v, t in params)


def _conj(items: list, indent: str) -> str:
    if not items:
        return "()"
    if len(items) == 1:
        return items[0]
    inner = ("\n" + indent + "     ").join(items)
    return f"(and {inner})"


def _comment(text: str, indent: str) -> list:
    return [f"{indent}; {line}".rstrip() for line in text.splitlines()] if text else []


def _durative(a: DurativeAction) -> list:
    out = _comment(a.comment, "  ")
    out.append(f"  (:durative-action {a.name}")
    out.append(f"   :parameters ({_params(a.params)})")
    if a.duration_le:          # both bounds: unified-planning's reader needs an interval
        out.append(f"   :duration (and (>= ?duration 0) (<= ?duration {num(a.duration)}))")
    else:
        out.append(f"   :duration (= ?duration {num(a.duration)})")
    conds = [f"(at start {lit.text()})" for lit in a.cond_start] + [f"(over all {lit.text()})" for lit in a.cond_all] \
        + [f"(at end {lit.text()})" for lit in a.cond_end]
    effs = [f"(at start {lit.text()})" for lit in a.eff_start] + [f"(at end {lit.text()})" for lit in a.eff_end]
    out.append(f"   :condition {_conj(conds, '    ')}")
    out.append(f"   :effect {_conj(effs, '    ')})")
    return out


def _action(a: PddlAction) -> list:
    out = _comment(a.comment, "  ")
    out.append(f"  (:action {a.name}")
    out.append(f"   :parameters ({_params(a.params)})")
    out.append(f"   :precondition {_conj([lit.text() for lit in a.pre], '    ')}")
    effs = [lit.text() for lit in a.eff]
    if a.cost is not None:
        effs.append(f"(increase (total-cost) {a.cost if isinstance(a.cost, str) else num(a.cost)})")
    out.append(f"   :effect {_conj(effs, '    ')})")
    return out


def write_domain(d: Domain) -> str:
    out = _comment("\n".join(d.header), "")
    out.append(f"(define (domain {d.name})")
    out.append(f"  (:requirements {' '.join(d.requirements)})")
    if d.types:
        by_parent: dict = {}
        for t, parent in d.types:
            by_parent.setdefault(parent, []).append(t)
        lines = [f"{' '.join(ts)} - {parent}" for parent, ts in by_parent.items()]
        out.append("  (:types " + "\n          ".join(lines) + ")")
    if d.constants:
        by_type: dict = {}
        for o, t in d.constants:
            by_type.setdefault(t, []).append(o)
        out.append("  (:constants " + "\n              ".join(f"{' '.join(os)} - {t}" for t, os in by_type.items())
                   + ")")
    if d.predicates:
        out.append("  (:predicates")
        for p in d.predicates:
            text = "(" + " ".join([p.name] + ([_params(p.params)] if p.params else [])) + ")"
            out.append(f"    {text}" + (f"  ; {p.comment}" if p.comment else ""))
        out.append("  )")
    if d.functions:
        out.append("  (:functions " + " ".join(d.functions) + ")")
    for a in d.actions:
        out.append("")
        out += _durative(a) if isinstance(a, DurativeAction) else _action(a)
    out.append(")")
    return "\n".join(out) + "\n"


def write_problem(p: Problem) -> str:
    out = _comment("\n".join(p.header), "")
    out.append(f"(define (problem {p.name})")
    out.append(f"  (:domain {p.domain})")
    if p.objects:
        by_type: dict = {}
        for o, t in p.objects:
            by_type.setdefault(t, []).append(o)
        out.append("  (:objects " + "\n            ".join(f"{' '.join(os)} - {t}" for t, os in by_type.items())
                   + ")")
    init = [lit.text() for lit in p.init]
    init += [f"(= {f} {num(v)})" for f, v in p.numeric_init]
    init += [f"(at {num(t)} {lit.text()})" for t, lit in p.tils]
    out.append("  (:init")
    for line in init:
        out.append(f"    {line}")
    out[-1] += ")"
    goals = [lit.text() for lit in p.goal]
    goal = goals[0] if len(goals) == 1 else "(and " + "\n              ".join(goals) + ")"
    out.append(f"  (:goal {goal})")
    if p.metric:
        out.append(f"  (:metric {p.metric})")
    out.append(")")
    return "\n".join(out) + "\n"
