"""Deck teaching: drawn deals read with and without the taught deck's profile.

For each deck, four layout photos (one suit each, ace to king in two rows) are drawn and
taught (``vision.recognise.deck.teach``; ``as_laid`` as ``cribbage-board vision teach
--as-laid``), then drawn two-player deals of that deck (``vision.drawn.deck_lab
.deal_renderer``, every other frame) are read by ``recognise`` with and without the profile.
A card found counts right when it lies face up in the frame; recall is over the face-up cards
at least half visible. Also the per-frame time of ``recognise`` per profile, one core.

- ``lab-decks``: the lab decks of ``vision.drawn.deck_lab`` (French courts V/D/R, a
  four-colour deck, small indices, a plain deck), each also read with the next deck's
  profile ("cross"): a profile must not hurt a deck it was not taught from.
- ``taught-decks``: Debian's card themes (``--theme``, ``--half``) on the same tables, own
  profile only; a deck whose teaching is refused is reported with the reason, and the
  totals count the taught decks.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from vision.drawn.cardart import CardStyle
from vision.drawn.deck_lab import LAB_DECKS, DrawnDeck, deal_renderer, suit_photos
from vision.recognise.deck import DeckError, DeckProfile, teach
from vision.recognise.detection import recognise
from vision.training.facedecks import FaceDeck

__all__ = ["teach_deck", "read_deals", "lab_decks", "taught_decks"]


def teach_deck(deck: DrawnDeck, *, seed: int = 0, as_laid: bool = False) -> DeckProfile:
    """The deck's profile from four one-suit layout photos."""
    return teach(suit_photos(deck, seed=seed), as_laid=as_laid)


def read_deals(deck: DrawnDeck, profiles: dict[str, DeckProfile | None], *, deals: int,
               stride: int = 2) -> dict[str, dict[str, Any]]:
    """Precision and recall of ``recognise`` on drawn deals of ``deck``, per profile."""
    counts = {name: [0, 0, 0, 0] for name in profiles}  # found, right, recalled, due
    times: dict[str, list[float]] = {name: [] for name in profiles}
    for seed in range(1, deals + 1):
        renderer = deal_renderer(deck, seed)
        for index in range(1, renderer.frame_count, stride):
            frame = renderer.render(index)
            face_up = {t.card for t in frame.truth if t.face_up}
            due = {t.card for t in frame.truth if t.face_up and t.visible >= 0.5}
            for name, profile in profiles.items():
                start = time.perf_counter()
                found = {d.card for d in recognise(frame.image, deck=profile)
                         if d.card is not None}
                times[name].append(1000 * (time.perf_counter() - start))
                c = counts[name]
                c[0] += len(found)
                c[1] += len(found & face_up)
                c[2] += len(found & due)
                c[3] += len(due)
    return {name: {"found": f, "wrong": f - r, "recalled": rc, "due": d,
                   "precision": round(r / f, 4) if f else 1.0,
                   "recall": round(rc / d, 4) if d else 1.0,
                   "ms_per_frame_median": round(statistics.median(times[name]), 2)}
            for name, (f, r, rc, d) in counts.items()}


def lab_decks(*, deals: int, as_laid: bool = False,
              emit: Callable[[str, dict[str, dict[str, Any]]], None] | None = None
              ) -> dict[str, Any]:
    """Each lab deck taught, then read with no, its own and the next deck's profile;
    ``emit(deck, rows)`` is told each deck as it is done (progress)."""
    start = time.perf_counter()
    profiles = {name: teach_deck(deck, as_laid=as_laid) for name, deck in LAB_DECKS.items()}
    teach_s = (time.perf_counter() - start) / len(LAB_DECKS)
    result: dict[str, Any] = {"teach_seconds_per_deck": round(teach_s, 2), "decks": {}}
    names = list(LAB_DECKS)
    for k, (name, deck) in enumerate(LAB_DECKS.items()):
        other = names[(k + 1) % len(names)]
        rows = read_deals(deck, {"none": None, "own": profiles[name],
                                 f"cross:{other}": profiles[other]}, deals=deals)
        result["decks"][name] = rows
        if emit is not None:
            emit(name, rows)
    return result


def taught_decks(decks: Sequence[FaceDeck], *, deals: int, as_laid: bool = False,
                 emit: Callable[[str, dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Each real deck taught and read without and with its profile; then the taught decks
    in all. ``emit(deck, row)`` is told each deck as it is done (refused or read)."""
    totals = {name: {"found": 0, "wrong": 0, "recalled": 0, "due": 0} for name in ("none", "own")}
    rows: dict[str, Any] = {}
    taught = 0
    for face_deck in decks:
        deck = DrawnDeck(CardStyle(), faces=face_deck.face)
        try:
            profile = teach_deck(deck, as_laid=as_laid)
        except DeckError as exc:
            rows[face_deck.name] = {"taught": False, "refused": str(exc)}
        else:
            taught += 1
            read = read_deals(deck, {"none": None, "own": profile}, deals=deals)
            for name, row in read.items():
                for key in totals[name]:
                    totals[name][key] += row[key]
            rows[face_deck.name] = {"taught": True, **read}
        if emit is not None:
            emit(face_deck.name, rows[face_deck.name])
    summary: dict[str, Any] = {"themes": len(decks), "taught": taught}
    for name, t in totals.items():
        summary[name] = {**t, "precision": round(1 - t["wrong"] / max(1, t["found"]), 4),
                         "recall": round(t["recalled"] / max(1, t["due"]), 4)}
    return {"decks": rows, "total": summary}
