"""The drawn-scene harvest labels candidates exactly: the card read upright, or "not an index"."""

from __future__ import annotations

import numpy as np

from engine.cards import Card, Rank
from vision.drawn.cardart import CardStyle, render_card
from vision.drawn.scene import TruthCard
from vision.recognise.candidates import find_candidates
from vision.training.drawn import NOT_INDEX, _label_frame, drawn_boxes, harvest_scenes
from vision.training.harvest import card_labels


def one_card_frame(card: Card, *, turn: bool) -> tuple[np.ndarray, TruthCard]:
    """A card on a plain grey table, upright or turned half round."""
    style = CardStyle()
    art = render_card(card, height=200, style=style)
    if turn:
        art = art[::-1, ::-1].copy()
    frame = np.full((400, 500, 3), 90, np.uint8)
    y, x = 100, 180
    alpha = art[:, :, 3:4].astype(np.float32) / 255.0
    region = frame[y:y + art.shape[0], x:x + art.shape[1]]
    region[:] = (alpha * art[:, :, :3] + (1 - alpha) * region).astype(np.uint8)
    w, h = art.shape[1], art.shape[0]
    corners = [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]
    if turn:
        corners = corners[2:] + corners[:2]
    truth = TruthCard(card, "Ann", True, tuple(corners), 1.0)  # type: ignore[arg-type]
    return frame, truth


def test_both_indices_are_labelled_with_the_card_whichever_way_it_lies() -> None:
    boxes = drawn_boxes(CardStyle())
    for turn in (False, True):
        frame, truth = one_card_frame(Card.parse("7H"), turn=turn)
        _, labels = _label_frame(frame, (truth,), boxes, np.random.default_rng(0), 1.0)
        named = [lab for lab in labels if lab != NOT_INDEX]
        assert named.count(card_labels(Card.parse("7H"))) >= 2, labels
        assert set(named) == {card_labels(Card.parse("7H"))}


def test_a_face_down_card_gives_only_negatives() -> None:
    boxes = drawn_boxes(CardStyle())
    frame, truth = one_card_frame(Card.parse("QS"), turn=False)
    down = TruthCard(truth.card, truth.zone, False, truth.corners, 1.0)
    _, labels = _label_frame(frame, (down,), boxes, np.random.default_rng(0), 1.0)
    assert len(find_candidates(frame)) > 0
    assert all(lab == NOT_INDEX for lab in labels)


def test_a_court_printed_with_another_letter_is_not_an_index() -> None:
    # A German deck's queen says D: its upright index is "not an index", not a queen, so the
    # network learns no letter but J, Q and K as a court (it read a French R as a queen).
    boxes = drawn_boxes(CardStyle())
    german = frozenset({Rank.JACK, Rank.QUEEN})

    def labels(card: str, foreign: frozenset[Rank] = frozenset()) -> list[tuple[int, int]]:
        frame, truth = one_card_frame(Card.parse(card), turn=False)
        return _label_frame(frame, (truth,), boxes, np.random.default_rng(0), 0.0, foreign)[1]

    queens = labels("QS").count(card_labels(Card.parse("QS")))
    foreign = labels("QS", german)
    assert queens >= 2 and set(foreign) == {NOT_INDEX}
    assert len(foreign) >= queens  # every upright index kept, as a negative
    assert card_labels(Card.parse("KS")) in labels("KS", german)  # its K is a king's K


def test_scene_harvest_is_seeded_and_labels_are_in_range() -> None:
    x1, r1, s1 = harvest_scenes(1, frames=2, seed=3)
    x2, r2, s2 = harvest_scenes(1, frames=2, seed=3)
    assert np.array_equal(x1, x2) and np.array_equal(r1, r2) and np.array_equal(s1, s2)
    assert x1.shape[1:] == (32, 32, 3) and len(x1) == len(r1) == len(s1)
    assert set(r1.tolist()) <= set(range(14)) and set(s1.tolist()) <= set(range(5))
    # "Not an index" is all or nothing: both heads agree.
    assert np.array_equal(r1 == 13, s1 == 4)
    assert (r1 < 13).any() and (r1 == 13).any()
