"""Deck teaching on drawn decks: recognition with and without the taught profile.

    python benchmarks/vision_teach.py [--deals N] [--json]

For each lab deck (``vision.drawn.deck_lab``): four layout photos (one suit each, ace
to king in two rows) are drawn and taught (``vision.recognise.deck.teach``), then drawn
two-player deals of that deck (``vision.drawn.scene``) are read by ``recognise``
with and without the profile. A card found counts right when it lies face up
in the frame; recall is over the face-up cards at least half visible. Each
deck is also read with the profile of the other decks ("cross"): a profile
must not hurt a deck it was not taught from. Last, the per-frame time of
``recognise`` with and without a profile, one core.

``--theme NAME`` (or ``all``) does the same with real decks instead: the card
themes Debian packages carry (``vision/training/facedecks.py``; ``apt-get
install gnome-cards-data kdegames-card-data-kf5 librsvg2-bin``), drawn on the
same tables. A deck whose teaching is refused is reported with the reason, and
the totals count the taught decks. ``--as-laid`` teaches as ``cribbage-board
vision teach --as-laid`` does.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402

from vision.drawn.cardart import CardStyle  # noqa: E402
from vision.drawn.deck_lab import LAB_DECKS, DrawnDeck, deal_renderer, suit_photos  # noqa: E402
from vision.recognise.deck import DeckError, DeckProfile, teach  # noqa: E402
from vision.recognise.detection import recognise  # noqa: E402
from vision.training.facedecks import FaceDeckError, face_decks_named  # noqa: E402


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=4, help="drawn deals per deck")
    ap.add_argument("--theme", help="real decks: a theme's name (or part of it), or all")
    ap.add_argument("--as-laid", action="store_true",
                    help="teach taking each card as laid, as `vision teach --as-laid` does")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    if args.theme:
        themes(args)
        return
    start = time.perf_counter()
    profiles = {name: teach_deck(deck, as_laid=args.as_laid) for name, deck in LAB_DECKS.items()}
    teach_s = (time.perf_counter() - start) / len(LAB_DECKS)
    result: dict[str, Any] = {"teach_seconds_per_deck": round(teach_s, 2), "decks": {}}
    names = list(LAB_DECKS)
    for k, (name, deck) in enumerate(LAB_DECKS.items()):
        other = names[(k + 1) % len(names)]
        rows = read_deals(deck, {"none": None, "own": profiles[name],
                                 f"cross:{other}": profiles[other]}, deals=args.deals)
        result["decks"][name] = rows
        if not args.json:
            for label, row in rows.items():
                print(f"{name:20s} {label:28s} found {row['found']:4d} wrong {row['wrong']:3d} "
                      f"precision {row['precision']:.4f} recall {row['recall']:.4f} "
                      f"{row['ms_per_frame_median']:.1f} ms", flush=True)
    if args.json:
        print(json.dumps(result))


def themes(args: argparse.Namespace) -> None:
    """Each chosen real deck taught and read without and with its profile; then the taught
    decks in all."""
    try:
        decks = face_decks_named(args.theme)
    except FaceDeckError as exc:
        raise SystemExit(str(exc)) from None
    totals = {name: {"found": 0, "wrong": 0, "recalled": 0, "due": 0} for name in ("none", "own")}
    taught = 0
    for face_deck in decks:
        deck = DrawnDeck(CardStyle(), faces=face_deck.face)
        try:
            profile = teach_deck(deck, as_laid=args.as_laid)
        except DeckError as exc:
            print(json.dumps({"theme": face_deck.name, "taught": False, "refused": str(exc)})
                  if args.json else f"{face_deck.name:40s} not taught: {exc}", flush=True)
            continue
        taught += 1
        rows = read_deals(deck, {"none": None, "own": profile}, deals=args.deals)
        for name, row in rows.items():
            for key in totals[name]:
                totals[name][key] += row[key]
        print(json.dumps({"theme": face_deck.name, "taught": True, **rows}) if args.json else
              f"{face_deck.name:40s} " + "  ".join(
                  f"{name}: found {row['found']} wrong {row['wrong']} recall {row['recall']:.3f}"
                  for name, row in rows.items()), flush=True)
    summary: dict[str, Any] = {"themes": len(decks), "taught": taught}
    for name, t in totals.items():
        summary[name] = {**t, "precision": round(1 - t["wrong"] / max(1, t["found"]), 4),
                         "recall": round(t["recalled"] / max(1, t["due"]), 4)}
    print(json.dumps(summary) if args.json else
          f"taught {taught} of {len(decks)} themes; " + "  ".join(
              f"{name}: found {summary[name]['found']} wrong {summary[name]['wrong']} "
              f"precision {summary[name]['precision']:.4f} recall {summary[name]['recall']:.4f}"
              for name in totals))


if __name__ == "__main__":
    main()
