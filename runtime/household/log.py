"""Episode logs of household episodes: JSON Lines records (issue #13; graded by validators/household).

Input: the episode's header facts, then one call per step with each agent's action text, message and
observation text.  Output: ``EpisodeLog`` (its ``records``: a header dict, then one dict per step),
``lines()`` / ``write(path)`` (JSON Lines) and ``read(path_or_text)`` (the records back, header first).

Header: ``{"scenario": S, "seed": N, "agents": [...]}`` (plus ``household``, ``syntax``, ``horizon``);
step record: ``{"step": t, "actions": {agent: "action text as written"}, "messages": {agent: "text"},
"observations": {agent: "sha256 hex digest of the observation text the agent was shown after the step"}}``.
An agent that gave no action (None) has no entry in ``actions``; ``messages`` holds the agents that sent one.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Union


def digest(text: str) -> str:
    """The sha256 hex digest of an observation text (UTF-8)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EpisodeLog:
    """The records of one episode, in memory."""

    def __init__(self, scenario: str, seed: int, agents: tuple[str, ...], **extra: object) -> None:
        self.records: list[dict] = [{"scenario": scenario, "seed": seed, "agents": list(agents), **extra}]

    def step(self, t: int, actions: dict[str, str], messages: dict[str, str], observations: dict[str, str]) -> None:
        """Record step ``t``: action texts, messages sent, observation texts (stored as digests)."""
        self.records.append({"step": t, "actions": dict(actions), "messages": dict(messages),
                             "observations": {a: digest(o) for a, o in observations.items()}})

    def lines(self) -> list[str]:
        return [json.dumps(r, ensure_ascii=False, sort_keys=False) for r in self.records]

    def text(self) -> str:
        return "\n".join(self.lines()) + "\n"

    def write(self, path: Union[str, Path]) -> None:
        Path(path).write_text(self.text(), encoding="utf-8")


def read(source: Union[str, Path]) -> list[dict]:
    """The records of a JSON Lines log (a path, or the text itself when it holds a newline or a brace)."""
    text = source if isinstance(source, str) and ("\n" in source or source.lstrip().startswith("{")) \
        else Path(source).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]
