"""Cards read in frames squashed to a square, as photos resized for a dataset are.

    python benchmarks/vision_squashed.py [--theme all] [--half held-out] [--seed 2]
                                         [--size 720x720] [--model M] [--photo] [--json]

The Roboflow photos are 16:9 and 4:3 shots resized to 640x640, so every glyph in
them is narrowed along the frame's x; a camera looking at the table aslant
foreshortens indices the same way. This lays a two-player deal (``vision.drawn.scene``,
1280x720) with each chosen real deck (Debian's card themes, ``facedecks.py``),
resizes every other frame to ``--size`` (720x720: x by 0.56) and counts, frame by frame, the
face-up cards ``recognise`` names (right) and the cards it names that are not
face up (wrong), in the squashed frame and in the frame as drawn. ``--size``
takes any width and height: 720x405 shrinks the frame as much without squashing
it, which tells the squash from the lost pixels. The held-out
half (the default) holds decks no model trained with ``train.py`` has met.
``--photo`` reads both frames as photos of unknown pixel shape (``recognise_photo``,
which also reads them widened back), as ``vision eval`` reads the dataset photos.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks.real_decks import add_deck_arguments, chosen_decks, deal_frames  # noqa: E402
from vision.recognise.detection import Detection, recognise  # noqa: E402
from vision.recognise.frames import frame_size as parse_size  # noqa: E402
from vision.recognise.photo import recognise_photo  # noqa: E402
from vision.training.facedecks import FaceDeck  # noqa: E402


def count_cards(deck: FaceDeck, seed: int, size: tuple[int, int], model: str, *,
                photo: bool = False) -> dict[str, int]:
    """Right and wrong cards over every other frame of the deal, squashed and as drawn."""
    def read(image: np.ndarray) -> list[Detection]:
        if photo:
            return recognise_photo(image, model_path=model)
        return recognise(image, model_path=model)

    counts = {"face_up": 0, "squashed_right": 0, "squashed_wrong": 0,
              "drawn_right": 0, "drawn_wrong": 0}
    for drawn, truth in deal_frames(deck, seed, every=2):
        face_up = {c.card for c in truth}
        counts["face_up"] += len(face_up)
        squashed = cv2.resize(drawn, size, interpolation=cv2.INTER_AREA)
        for name, image in (("squashed", squashed), ("drawn", drawn)):
            found = {d.card for d in read(image) if d.card is not None}
            counts[f"{name}_right"] += len(found & face_up)
            counts[f"{name}_wrong"] += len(found - face_up)
    return counts


def frame_size(text: str) -> tuple[int, int]:
    """``WIDTHxHEIGHT`` -> (width, height), each 64 pixels or more."""
    try:
        width, height = parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if min(width, height) < 64:
        raise argparse.ArgumentTypeError(f"{text}: each side must be at least 64 pixels")
    return width, height


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_deck_arguments(parser)
    parser.add_argument("--size", type=frame_size, default=(720, 720),
                        help="WIDTHxHEIGHT the frames are resized to (default 720x720)")
    parser.add_argument("--photo", action="store_true",
                        help="read the frames as photos (vision.recognise.photo.recognise_photo)")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    decks = chosen_decks(args)
    total: dict[str, int] = {}
    for deck in decks:
        counts = count_cards(deck, args.seed, args.size, args.model, photo=args.photo)
        for key, value in counts.items():
            total[key] = total.get(key, 0) + value
        print(json.dumps({"theme": deck.name, **counts}) if args.json else
              f"{deck.name}: squashed {counts['squashed_right']} right, "
              f"{counts['squashed_wrong']} wrong; drawn {counts['drawn_right']} right, "
              f"{counts['drawn_wrong']} wrong (of {counts['face_up']})", flush=True)
    print(json.dumps({"themes": len(decks), **total}) if args.json else
          f"all {len(decks)} themes: squashed {total.get('squashed_right', 0)} right, "
          f"{total.get('squashed_wrong', 0)} wrong; drawn {total.get('drawn_right', 0)} right, "
          f"{total.get('drawn_wrong', 0)} wrong (of {total.get('face_up', 0)} face up)")


if __name__ == "__main__":
    main()
