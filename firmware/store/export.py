"""A stored match as CONTRACT.md's JSON Lines game log, for ``export`` and the phone page.

The store's ``line`` column already holds each event as one line of that log, so an
export is the match's live rows (undone ones left out, as ``replay`` skips them) in
order: what ``replay`` and ``board`` read back.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from firmware.store.eventstore import EventStore

__all__ = ["ExportError", "Exported", "export_match", "read_export"]


class ExportError(ValueError):
    """A match the store does not hold, or holds no events of."""


@dataclass(frozen=True, slots=True)
class Exported:
    """One match's log: its id, players and the JSON Lines text (one event a line)."""

    match: int
    players: tuple[str, ...]
    text: str

    @property
    def events(self) -> int:
        return self.text.count("\n")


def export_match(store: EventStore, match: int | None = None) -> Exported:
    """The log of ``match`` (default: the current one)."""
    known = {m.id: m for m in store.matches()}
    chosen = store.match if match is None else match
    if chosen is None or chosen not in known:
        listed = ", ".join(map(str, known)) or "none"
        what = "no match in the store" if chosen is None else f"no match {chosen} in the store"
        raise ExportError(f"{what} (matches: {listed})")
    lines = [row.line for row in store.events(chosen)]
    if not lines:
        raise ExportError(f"match {chosen} has no events (its new_game was undone)")
    return Exported(chosen, known[chosen].players, "".join(line + "\n" for line in lines))


def read_export(path: Path, match: int | None = None) -> Exported:
    """``export_match`` of the store at ``path``, opened read-only (safe while the device
    plays)."""
    with EventStore.open(path, readonly=True) as store:
        return export_match(store, match)
