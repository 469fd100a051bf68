"""The coach's reading of the event store: matches and games picked by period, for
``engine.stats`` and ``engine.review``.

Opens nothing itself: callers pass a store (the CLI and the page open it
read-only, so the coach can read while the device plays). A period counts a
game by the time its ``new_game`` was stored, so a game is never split.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from engine.events import NewGame, as_event
from engine.review import DealReview, review_log
from engine.stats import MatchLog, Stats, compute_stats, score_races
from engine.words import fold_name
from firmware.store.eventstore import EventStore

__all__ = ["CoachError", "parse_moment", "match_logs", "store_stats", "store_review",
           "read_stats", "read_review"]


class CoachError(ValueError):
    """A period or match the coach cannot read: a date it cannot parse, no such match."""


def parse_moment(text: str, *, what: str) -> float:
    """Reads ``2026-11-01`` or ``2026-11-01T19:30`` (local time) as a Unix time."""
    try:
        return datetime.fromisoformat(text).timestamp()
    except ValueError:
        raise CoachError(f"{what} must be a date like 2026-11-01 or 2026-11-01T19:30, "
                         f"not {text!r}") from None


def match_logs(store: EventStore, *, since: float | None = None, until: float | None = None
               ) -> list[MatchLog]:
    """Every match's log, each naming the games begun in [since, until)."""
    logs = []
    for match in store.matches():
        rows = list(store.events(match.id))
        # Parsed once here, not again by each fold of compute_stats.
        events = [as_event(row.line) for row in rows]
        begun = [row.at for row, event in zip(rows, events, strict=True)
                 if isinstance(event, NewGame)]
        games = {number for number, at in enumerate(begun, start=1)
                 if (since is None or at >= since) and (until is None or at < until)}
        if games:
            logs.append(MatchLog(events, None if len(games) == len(begun) else games))
    return logs


def store_stats(store: EventStore, *, player: str | None = None, since: float | None = None,
                until: float | None = None) -> Stats:
    if player is not None:
        player = _stored_name(store, player)
    stats = compute_stats(match_logs(store, since=since, until=until), player=player)
    if player is not None and not any(p.name == player for p in stats.players):
        raise CoachError(f"no games of {player!r} in the store"
                         + (" in that period" if since or until else ""))
    return stats


def _stored_name(store: EventStore, given: str) -> str:
    """The name as the store spells it for ``given`` (``fold_name``: case and runs of spaces
    aside); unknown names pass."""
    key = fold_name(given)
    for match in store.matches():
        for name in match.players:
            if fold_name(name) == key:
                return name
    return given


def store_review(store: EventStore, match: int | None = None) -> dict[str, Any]:
    """The review of a match (default: the current one): its deals and each game's race."""
    ids = [m.id for m in store.matches()]
    match = store.match if match is None else match
    if match is None or match not in ids:
        raise CoachError(f"no match {match} in the store (matches: "
                         f"{', '.join(map(str, ids)) or 'none'})")
    # Parsed once here, not again by each of the two folds.
    events = [as_event(row.line) for row in store.events(match)]
    deals: tuple[DealReview, ...] = review_log(events)
    games = sorted({deal.game for deal in deals})
    races = score_races(events)
    return {"match": match, "deals": [deal.to_json() for deal in deals],
            "races": {str(game): races[game] for game in games}}


def read_stats(path: Path, *, player: str | None = None, since: float | None = None,
               until: float | None = None) -> dict[str, Any]:
    """``store_stats`` of the store at ``path``, opened read-only (the page's and CLI's)."""
    with EventStore.open(path, readonly=True) as store:
        return store_stats(store, player=player, since=since, until=until).to_json()


def read_review(path: Path, *, match: int | None = None) -> dict[str, Any]:
    """``store_review`` of the store at ``path``, opened read-only."""
    with EventStore.open(path, readonly=True) as store:
        return store_review(store, match)
