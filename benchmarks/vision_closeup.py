"""Cards read close up: frames cut around one face-up card and enlarged, as a phone shot
taken a hand's width from the table sees them.

    python benchmarks/vision_closeup.py [--theme all] [--half held-out] [--seed 2]
                                        [--zoom 1.2] [--model M] [--json]

The device's camera looks down on the whole table and sees small indices; photos
people take, and the Roboflow set's close-ups, see a card so near that its index
glyphs span up to 15 % of the frame's shorter side. This lays a two-player deal
(``vision.drawn.scene``, 1280x720) with each chosen real deck (Debian's card themes,
``facedecks.py``) and, in every eighth frame, picks one face-up card at random,
turns the frame about it by a random angle and enlarges it so that the card's
height is ``--zoom`` times the frame's shorter side (1.2: the card's top and
bottom run off the frame, its index glyphs about 15 %). Right: cards named that
lie face up in that deal's frame; wrong: cards named that do not. The held-out
half (the default) holds decks no model trained with ``train.py`` has met.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks.real_decks import add_deck_arguments, chosen_decks, deal_frames  # noqa: E402
from vision.recognise.detection import recognise  # noqa: E402
from vision.training.facedecks import FaceDeck  # noqa: E402

FRAME_SIZE = (1280, 720)
EVERY = 8


def close_up(image: np.ndarray, corners: np.ndarray, zoom: float, angle: float) -> np.ndarray:
    """The frame turned by ``angle`` degrees about the card with these corners and enlarged
    until the card is ``zoom`` times the shorter side tall, the card in the middle."""
    centre = corners.mean(axis=0)
    height = float(np.hypot(*(corners[3] - corners[0])))
    width, short = FRAME_SIZE[0], FRAME_SIZE[1]
    m = cv2.getRotationMatrix2D((float(centre[0]), float(centre[1])), angle,
                                zoom * short / height)
    m[:, 2] += (width / 2 - centre[0], short / 2 - centre[1])
    return cv2.warpAffine(image, m, FRAME_SIZE, flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def count_cards(deck: FaceDeck, seed: int, zoom: float, model: str) -> dict[str, int]:
    """Right and wrong cards over the close-ups of one deal."""
    pick = random.Random(f"{deck.name}-{seed}")
    counts = {"frames": 0, "right": 0, "wrong": 0}
    for drawn, face_up in deal_frames(deck, seed, every=EVERY):
        if not face_up:
            continue
        chosen = pick.choice(face_up)
        image = close_up(drawn, np.asarray(chosen.corners), zoom, pick.uniform(0, 360))
        named = {d.card for d in recognise(image, model_path=model) if d.card is not None}
        cards = {c.card for c in face_up}
        counts["frames"] += 1
        counts["right"] += len(named & cards)
        counts["wrong"] += len(named - cards)
    return counts


def zoom_factor(text: str) -> float:
    """A card height in shorter sides, from 0.1 to 4."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number such as 1.2, got {text!r}") from None
    if not 0.1 <= value <= 4.0:
        raise argparse.ArgumentTypeError(f"{text}: the zoom must lie from 0.1 to 4")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_deck_arguments(parser)
    parser.add_argument("--zoom", type=zoom_factor, default=1.2,
                        help="the chosen card's height in frame heights (default 1.2)")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    decks = chosen_decks(args)
    total = {"frames": 0, "right": 0, "wrong": 0}
    for deck in decks:
        counts = count_cards(deck, args.seed, args.zoom, args.model)
        for key, value in counts.items():
            total[key] += value
        print(json.dumps({"theme": deck.name, **counts}) if args.json else
              f"{deck.name}: {counts['right']} right, {counts['wrong']} wrong "
              f"({counts['frames']} close-ups)", flush=True)
    print(json.dumps({"themes": len(decks), "zoom": args.zoom, **total}) if args.json else
          f"all {len(decks)} themes, zoom {args.zoom}: {total['right']} right, "
          f"{total['wrong']} wrong ({total['frames']} close-ups)")


if __name__ == "__main__":
    main()
