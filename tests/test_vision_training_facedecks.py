"""Real card themes for training: faces rendered from a theme, index boxes found on them."""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cv2
import numpy as np
import pytest

from engine.cards import Card, Rank
from vision.drawn.cardart import CARD_ASPECT, CardStyle, index_boxes, render_card
from vision.training.drawn import NOT_INDEX, harvest_scenes
from vision.training.facedecks import (
    FaceDeck,
    FaceDeckError,
    face_decks_named,
    find_index_boxes,
    load_face_decks,
    render_theme,
    theme_family,
    theme_files,
    theme_half,
)
from vision.training.harvest import card_labels

STYLE = CardStyle()
ALL = [Card.from_index(i) for i in range(52)]


def drawn_faces(height: int = 300) -> list[np.ndarray]:
    return [render_card(card, height=height, style=STYLE) for card in ALL]


def as_fractions(box: tuple[float, float, float, float], height: int
                 ) -> tuple[float, float, float, float]:
    width = height * CARD_ASPECT
    x0, y0, x1, y1 = box
    return x0 / width, y0 / height, x1 / width, y1 / height


def test_index_boxes_found_on_a_deck_lie_on_its_indices() -> None:
    boxes = find_index_boxes(drawn_faces())
    assert boxes is not None and len(boxes) == 2
    (top, up), (bottom, turned) = boxes
    assert (up, turned) == (1, -1)
    truth = as_fractions(index_boxes(300, STYLE)[0], 300)
    # The found box covers the ink of the drawn index box and not much more.
    assert top[0] >= truth[0] - 0.02 and top[1] >= truth[1] - 0.02
    assert top[2] <= truth[2] + 0.05 and top[3] <= truth[3] + 0.05
    assert top[2] - top[0] > 0.5 * (truth[2] - truth[0])
    # The second box is the first turned half round.
    assert bottom == pytest.approx((1 - top[2], 1 - top[3], 1 - top[0], 1 - top[1]))


def test_a_deck_with_indices_in_all_four_corners_gets_four_boxes() -> None:
    faces = []
    for face in drawn_faces():
        mirrored = face.copy()
        half = face.shape[1] // 2
        mirrored[:, -half:] = face[:, :half][:, ::-1]  # the left half's corner shows on the right
        faces.append(mirrored)
    boxes = find_index_boxes(faces)
    assert boxes is not None and [sign for _, sign in boxes] == [1, -1, 1, -1]


def test_faces_without_corner_marks_have_no_index_boxes() -> None:
    blank = np.zeros((300, 215, 4), np.uint8)
    blank[..., :3], blank[..., 3] = 245, 255
    cv2.circle(blank, (107, 150), 30, (0, 0, 200, 255), -1)  # one big pip in the middle
    assert find_index_boxes([blank] * 52) is None


def write_deck(folder: Path, height: int = 300) -> FaceDeck:
    folder.mkdir(parents=True)
    for card, face in zip(ALL, drawn_faces(height), strict=True):
        cv2.imwrite(str(folder / f"{card}.png"), face)
    boxes = find_index_boxes(drawn_faces(height))
    assert boxes is not None
    return FaceDeck(folder.name, folder, tuple(boxes))


def test_a_face_deck_serves_faces_at_any_size(tmp_path: Path) -> None:
    deck = write_deck(tmp_path / "drawn")
    face = deck.face(Card.parse("QS"), 120, CARD_ASPECT)
    assert face.shape == (120, round(120 * CARD_ASPECT), 4)


def test_scenes_laid_with_a_face_deck_label_its_indices(tmp_path: Path) -> None:
    deck = write_deck(tmp_path / "drawn")
    x, r, s = harvest_scenes(1, frames=2, seed=3, decks=[deck])
    assert len(x) == len(r) == len(s) and (r < 13).any() and (r == 13).any()
    assert np.array_equal(r == 13, s == 4)
    named = {(int(a), int(b)) for a, b in zip(r, s, strict=True) if (a, b) != NOT_INDEX}
    assert named <= {card_labels(card) for card in ALL}


SVG_CARD = ('<g id="{id}"><rect x="{x}" y="{y}" width="63" height="88" rx="4" fill="#fff" '
            'stroke="#000"/><text x="{tx}" y="{ty}" font-size="12" fill="#c00">{label}</text></g>')
SUIT_IDS = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}
RANK_IDS = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}


def theme_svg(cards: list[Card]) -> str:
    """A card theme in aisleriot's style: one sheet, each card a group with its own id."""
    parts = []
    for k, card in enumerate(cards):
        x, y = 70 * (k % 13), 95 * (k // 13)
        rank = str(card)[:-1]
        ident = f"{SUIT_IDS[str(card)[-1]]}_{RANK_IDS.get(rank, rank)}"
        parts.append(SVG_CARD.format(id=ident, x=x, y=y, tx=x + 4, ty=y + 14, label=rank))
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="910" height="380">'
            + "".join(parts) + "</svg>")


needs_rsvg = pytest.mark.skipif(shutil.which("rsvg-convert") is None,
                                reason="rsvg-convert (librsvg2-bin) is not installed")


@needs_rsvg
def test_a_theme_renders_each_card_cropped_to_its_outline(tmp_path: Path) -> None:
    (tmp_path / "cards").mkdir()
    svg = tmp_path / "cards" / "tiny.svg"
    svg.write_text(theme_svg(ALL))
    out = render_theme(svg, tmp_path / "faces", height=176)
    assert out is not None
    face = cv2.imread(str(out / "10H.png"), cv2.IMREAD_UNCHANGED)
    # 63 x 88 at 2x, give or take the probe's pixel (4 units): never cut, at most a margin.
    assert face.shape[0] == 176 and 126 - 10 <= face.shape[1] <= 126 + 10
    rows, cols = np.nonzero(face[..., 3])
    assert rows.max() - rows.min() + 1 >= 176 - 10 and cols.max() - cols.min() + 1 >= 126 - 12
    # Rendered once: a second call finds the faces and does not render again.
    (out / "10H.png").unlink()
    assert render_theme(svg, tmp_path / "faces", height=176) == out
    assert not (out / "10H.png").exists()


@needs_rsvg
def test_renders_started_together_each_get_the_whole_deck(tmp_path: Path) -> None:
    """Two trainings on two cores render the same themes at once; neither may lose its deck."""
    (tmp_path / "cards").mkdir()
    svg = tmp_path / "cards" / "tiny.svg"
    svg.write_text(theme_svg(ALL))
    faces = tmp_path / "faces"
    # What a render cut short (a killed training) leaves behind is no deck, and is replaced.
    (faces / "cards-tiny").mkdir(parents=True)
    (faces / "cards-tiny" / "theme.svg").write_text("cut short")
    with ThreadPoolExecutor(2) as pool:
        outs = list(pool.map(lambda _: render_theme(svg, faces, height=88), range(2)))
    assert outs == [faces / "cards-tiny"] * 2
    assert (faces / "cards-tiny" / "done").is_file()
    assert len(list((faces / "cards-tiny").glob("*.png"))) == 52
    assert [p.name for p in faces.iterdir()] == ["cards-tiny"]


@needs_rsvg
def test_decks_are_chosen_by_part_of_their_name(tmp_path: Path) -> None:
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "tiny.svg").write_text(theme_svg(ALL))
    folder, dirs = tmp_path / "faces", [tmp_path / "cards"]
    assert [d.name for d in face_decks_named("TIN", folder, dirs)] == ["cards-tiny"]
    assert [d.name for d in face_decks_named("all", folder, dirs)] == ["cards-tiny"]
    with pytest.raises(FaceDeckError, match="no theme named 'anglo' among the 1 installed: "
                                            "cards-tiny"):
        face_decks_named("anglo", folder, dirs)
    with pytest.raises(FaceDeckError, match="no card themes found: apt-get install"):
        face_decks_named("all", tmp_path / "none", [tmp_path / "absent"])


@needs_rsvg
def test_a_theme_missing_a_card_is_skipped(tmp_path: Path) -> None:
    svg = tmp_path / "part.svg"
    svg.write_text(theme_svg(ALL[:51]))
    assert render_theme(svg, tmp_path / "faces") is None
    assert load_face_decks(tmp_path / "faces", dirs=[tmp_path]) == []


def test_only_french_suited_themes_are_taken(tmp_path: Path) -> None:
    for name in ("anglo.svgz", "german.svgz", "tarocco.svgz", "notes.txt"):
        (tmp_path / name).write_bytes(b"")
    assert [p.name for p in theme_files([tmp_path, tmp_path / "absent"])] == ["anglo.svgz"]


def test_every_variant_of_a_deck_falls_in_the_same_half() -> None:
    variants = [Path("/usr/share/aisleriot/cards") / f"{stem}.svgz"
                for stem in ("anglo", "anglo_bitmap", "anglo_modern_4_color", "anglo_poker")]
    variants.append(Path("/usr/share/carddecks/svg-anglo/Anglo.svgz"))
    assert {theme_family(p) for p in variants} == {"anglo"}
    assert len({theme_half(p) for p in variants}) == 1
    assert theme_family(Path("/x/tigullio-international.svgz")) == "tigullio"
    # The split is fixed by the names alone (held-out decks must stay held out), and Debian's
    # themes fall in both halves.
    halves = {stem: theme_half(Path(f"/x/{stem}.svg")) for stem in
              ("anglo", "paris", "bellot", "standard", "penguins", "dondorf")}
    assert halves == {"anglo": "held-out", "paris": "train", "bellot": "train",
                      "standard": "held-out", "penguins": "held-out", "dondorf": "train"}


@needs_rsvg
def test_a_half_chooses_among_the_named_decks(tmp_path: Path) -> None:
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "anglo.svg").write_text(theme_svg(ALL))  # held out
    (tmp_path / "cards" / "paris.svg").write_text(theme_svg(ALL))  # trains
    folder, dirs = tmp_path / "faces", [tmp_path / "cards"]
    assert [d.name for d in face_decks_named("all", folder, dirs, half="held-out")] == [
        "cards-anglo"]
    assert [d.name for d in load_face_decks(folder, dirs, half="train")] == ["cards-paris"]
    assert len(face_decks_named("all", folder, dirs)) == 2
    (tmp_path / "cards" / "paris.svg").unlink()
    with pytest.raises(FaceDeckError, match="no usable deck in the train half"):
        face_decks_named("all", folder, dirs, half="train")


@needs_rsvg
def test_decks_printing_other_court_letters_name_those_courts(tmp_path: Path) -> None:
    (tmp_path / "cards").mkdir()
    for stem in ("berlin", "paris"):  # German B, D, K; and J, Q, K
        (tmp_path / "cards" / f"{stem}.svg").write_text(theme_svg(ALL))
    decks = {d.name: d for d in load_face_decks(tmp_path / "faces", [tmp_path / "cards"])}
    assert decks["cards-berlin"].foreign_courts == {Rank.JACK, Rank.QUEEN}
    assert decks["cards-paris"].foreign_courts == frozenset()


def test_the_screen_sees_deals_laid_with_the_real_decks_too(tmp_path: Path) -> None:
    from vision.training.screen import _frames

    deck = write_deck(tmp_path / "drawn")
    plain = list(_frames(None, 1, seed=5))
    more = list(_frames(None, 1, seed=5, decks=[deck], face_scenes=2))
    assert len(more) == len(plain) + 2 * 4  # four frames of each deal
    assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(plain[:4], more[:4], strict=True))
