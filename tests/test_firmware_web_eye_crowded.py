"""The camera's eye with crowded edges (issue 61's walk-through at 390 px): a pegging pile of
four fanned cards at the picture's bottom edge and another at its top edge, as a game's last
deal leaves them. No name label covers another, nor any card's corner index, even where
none of the usual places beside a card is free."""

from __future__ import annotations

import pytest
from test_firmware_web_eye import PLAYERS, Table

from engine.cards import Card
from firmware.web.camera_eye import EyeTable, EyeView
from firmware.web.eye_picture import draw_eye


@pytest.fixture(scope="module")
def drawn() -> Table:
    return Table()


def overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def fanned(top: float, left: float, step: float, size: tuple[float, float]
           ) -> list[tuple[tuple[float, float], ...]]:
    w, h = size
    return [((left + k * step, top), (left + k * step + w, top),
             (left + k * step + w, top + h), (left + k * step, top + h)) for k in range(4)]


def test_fanned_piles_at_both_edges_keep_every_label_clear(drawn: Table) -> None:
    size = (56.0, 80.0)
    bottom = fanned(720 - 80 - 4, 560, 24, size)  # at the frame's bottom edge
    top = fanned(6, 580, 24, size)  # at its top edge
    names = ["10S", "2C", "3C", "8H", "6S", "9D", "QS", "7C"]
    cards = tuple((Card.parse(n), zone, o) for n, zone, o in
                  zip(names, ["Ann"] * 4 + ["Bob"] * 4, bottom + top, strict=True))
    view = EyeView(drawn.image, 0.0, cards, (), drawn.zones,
                   EyeTable("1.3", (), (), tuple((p, p) for p in PLAYERS)))
    _, data = draw_eye(view)
    labels = [c["label"] for c in data["cards"]]
    clashes = [(data["cards"][i]["card"], data["cards"][j]["card"])
               for i, a in enumerate(labels) for j, b in enumerate(labels) if i < j
               and overlap(a, b)]
    assert clashes == []
    for card in data["cards"]:
        xs = [x for x, _ in card["outline"]]
        ys = [y for _, y in card["outline"]]
        index = [min(xs), min(ys), min(xs) + 0.3 * (max(xs) - min(xs)),
                 min(ys) + 0.25 * (max(ys) - min(ys))]
        covering = [c["card"] for c in data["cards"] if overlap(c["label"], index)]
        assert covering == [], card["card"]
    for label in labels:  # inside the picture
        assert 0 <= label[0] and label[2] <= data["size"][0]
        assert 0 <= label[1] and label[3] <= data["size"][1]
