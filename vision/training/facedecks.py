"""Real deck designs for the drawn training scenes: the card themes Debian packages ship.

The drawn decks (``vision.drawn.cardart``) are ours: one family of shapes, however
their styles vary. Debian's card games carry some forty decks drawn by other
people (aisleriot's ``/usr/share/aisleriot/cards`` and KDE's
``/usr/share/carddecks``: Paris, Dondorf, Bellot, Tigullio, Atlasnye, ...),
each its own index typeface, courts and pips. ``rsvg-convert`` renders every
card of a theme once into a folder; the scene renderer then lays those faces
on its tables, so the network meets index designs nobody here drew.

Training deals the themes of one half (``theme_half``, by a hash of the deck's
family) in ``--face-scenes``; the other half then measures decks it never met
(``benchmarks/vision/accuracy.py --dataset decks``). The device never reads
them. Install with
``apt-get install gnome-cards-data kdegames-card-data-kf5 librsvg2-bin``
(aisleriot's themes without the game, KDE's decks, the renderer): 36 decks
with French suits and corner indices on Debian 12.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import cv2
import numpy as np

from engine.cards import Card, Rank, Suit
from vision.drawn.cardart import CARD_ASPECT

__all__ = ["FACE_FOLDER", "FOREIGN_COURTS", "NO_THEMES", "THEME_DIRS", "FaceDeck", "FaceDeckError",
           "Half", "find_index_boxes", "face_decks_named", "load_face_decks", "render_theme",
           "theme_files", "theme_family", "theme_half", "theme_name"]

THEME_DIRS = (Path("/usr/share/aisleriot/cards"), Path("/usr/share/carddecks"))
# Themes left out: suits that are not French (German, Swiss, tarot), and themes whose
# cards rsvg-convert cannot render one by one (KDE's "french" and "konqi": every card
# fails; "future": the cards come out broken), which would only cost 104 runs each.
SKIPPED_THEMES = frozenset({"german", "swiss-xvii", "tarocco", "future", "konqi", "french"})
FACE_HEIGHT = 440
FACE_FOLDER = Path("/tmp/cribbage-board-faces")
NO_THEMES = ("no card themes found: apt-get install gnome-cards-data kdegames-card-data-kf5 "
             "librsvg2-bin, or train with --face-scenes 0")
SignedBox = tuple[tuple[float, float, float, float], int]
# Themes split by family into a half training may use and a half it never sees, so the
# themes can measure decks the recogniser never met while the rest teach it.
Half = Literal["train", "held-out"]
_TRAIN_DIGITS = "01234567"  # a family's salted SHA-1 starting with these trains

# Decks whose court indices print other letters than J, Q and K, and which courts do: German
# B, D, K (Bube, Dame, Koenig), Russian В, Д, К, French V, D, R. The network knows J, Q and K
# only and is taught that any other letter over a suit is "not an index" (synth.py); a player
# with such a deck teaches it (``vision teach``). Scenes of these decks therefore label those
# courts "not an index": labelled as cards, D and B taught the network that a letter it does
# not know is a court, and it read a French R (king) as a queen.
_JACK_QUEEN = frozenset({Rank.JACK, Rank.QUEEN})
FOREIGN_COURTS: dict[str, frozenset[Rank]] = {
    "atlasnye_skat": _JACK_QUEEN, "berlin": _JACK_QUEEN, "rheinland": _JACK_QUEEN,
    "lattmann": _JACK_QUEEN, "slavic_costumes": _JACK_QUEEN, "Атласные": _JACK_QUEEN,
    "ancient_french": frozenset({Rank.JACK, Rank.QUEEN, Rank.KING}),
}

_RANK_IDS = {Rank.ACE: "1", Rank.JACK: "jack", Rank.QUEEN: "queen", Rank.KING: "king"}
_SUIT_IDS = {Suit.CLUBS: "club", Suit.DIAMONDS: "diamond", Suit.HEARTS: "heart",
             Suit.SPADES: "spade"}


class FaceDeckError(RuntimeError):
    pass


def _card_ids(card: Card) -> tuple[str, str]:
    """The element ids a theme may give ``card``: aisleriot's ``club_1``, KDE's ``1_club``."""
    rank = _RANK_IDS.get(card.rank, str(int(card.rank)))
    suit = _SUIT_IDS[card.suit]
    return f"{suit}_{rank}", f"{rank}_{suit}"


def _all_cards() -> list[Card]:
    return [Card(rank, suit) for suit in Suit for rank in Rank]


def theme_files(dirs: Iterable[Path] = THEME_DIRS) -> list[Path]:
    """Every card theme under ``dirs``, but the ``SKIPPED_THEMES``."""
    found = []
    for d in dirs:
        if d.is_dir():
            found += [p for p in sorted(d.rglob("*.svg*"))
                      if p.suffix in (".svg", ".svgz") and _stem(p) not in SKIPPED_THEMES]
    return found


def theme_name(svg: Path) -> str:
    """The deck's name: its package's folder and the theme's file name, "cards-anglo"."""
    return f"{svg.parent.name}-{_stem(svg)}"


def theme_family(svg: Path) -> str:
    """The deck a theme draws, whatever its variant: "anglo" for anglo, anglo_bitmap and
    anglo_poker, "tigullio" for tigullio and tigullio-international, so that no variant of
    a deck held out is trained on."""
    return re.split(r"[_-]", _stem(svg).lower())[0]


def theme_half(svg: Path) -> Half:
    """Which half a theme belongs to: a hash of its family, nothing else (24 of Debian 12's
    40 theme files train, 16 are held out)."""
    digest = hashlib.sha1(f"faces:{theme_family(svg)}".encode()).hexdigest()
    return "train" if digest[0] in _TRAIN_DIGITS else "held-out"


def _stem(path: Path) -> str:
    return path.name.split(".")[0]


def _read_svg(path: Path) -> str:
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".svgz" else data).decode("utf-8", "replace")


def _rsvg(svg: Path, element: str, zoom: float, page: tuple[int, int, float, float] | None
          ) -> np.ndarray | None:
    cmd = ["rsvg-convert", "-i", element, "-z", f"{zoom:.6f}"]
    if page is not None:
        w, h, left, top = page
        cmd += [f"--page-width={w}px", f"--page-height={h}px", f"--left={left:.3f}px",
                f"--top={top:.3f}px"]
    done = subprocess.run([*cmd, str(svg)], capture_output=True, check=False)
    if done.returncode:
        return None
    image = cv2.imdecode(np.frombuffer(done.stdout, np.uint8), cv2.IMREAD_UNCHANGED)
    return image if image is not None and image.ndim == 3 and image.shape[2] == 4 else None


def _render_card(svg: Path, element: str, out: Path, height: int) -> bool:
    """Renders one card element cropped to its own outline, ``height`` pixels tall.

    A theme is one sheet holding every card; rendering an element alone still
    draws the whole sheet's canvas, so a small first pass finds where the card
    lies and the second renders just that rectangle. The first pass's pixel is
    four of the theme's units, rounded outward: a card is never cut, and some
    keep a thin transparent margin, which the scenes warp along with the card.
    """
    probe_zoom = 0.25
    probe = _rsvg(svg, element, probe_zoom, None)
    if probe is None:
        return False
    ys, xs = np.nonzero(probe[..., 3])
    if len(xs) == 0:
        return False
    x0, y0 = xs.min() / probe_zoom, ys.min() / probe_zoom
    x1, y1 = (xs.max() + 1) / probe_zoom, (ys.max() + 1) / probe_zoom
    zoom = height / (y1 - y0)
    width = int(round((x1 - x0) * zoom))
    image = _rsvg(svg, element, zoom, (width, height, -x0 * zoom, -y0 * zoom))
    if image is None:
        return False
    return bool(cv2.imwrite(str(out), image))


def render_theme(svg: Path, folder: Path, *, height: int = FACE_HEIGHT) -> Path | None:
    """Renders the 52 faces of the theme ``svg`` into ``folder``/NAME/, once.

    Returns the deck's folder, or None when the theme lacks a card (some
    hold only part of a deck under other names).
    """
    if shutil.which("rsvg-convert") is None:
        raise FaceDeckError("rsvg-convert is missing: apt-get install librsvg2-bin")
    out = folder / theme_name(svg)
    if (out / "done").is_file():
        return out
    text = _read_svg(svg)
    ids = set(re.findall(r'id="([^"]+)"', text))
    elements = {}
    for card in _all_cards():
        element = next((e for e in _card_ids(card) if e in ids), None)
        if element is None:
            return None
        elements[card] = element
    # Rendered in a folder of its own and renamed into place whole, so two trainings started
    # together (two seeds on two cores) never see, or delete, each other's half-made deck.
    folder.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=folder))
    try:
        plain = work / "theme.svg"  # decompressed once: rsvg-convert reads it twice a card
        plain.write_text(text, encoding="utf-8")
        with ThreadPoolExecutor(4) as pool:
            ok = list(pool.map(
                lambda c: _render_card(plain, elements[c], work / f"{c}.png", height), elements))
        plain.unlink()
        if not all(ok):
            return None
        (work / "done").write_text("52\n")
        _move_into_place(work, out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out


def _move_into_place(work: Path, out: Path) -> None:
    """Renames a finished deck folder to ``out``, unless another process got there first."""
    if out.is_dir() and not (out / "done").is_file():
        # A render cut short before decks were renamed into place (another process may be
        # clearing it too, hence no errors).
        shutil.rmtree(out, ignore_errors=True)
    try:
        work.rename(out)
    except OSError:
        if not (out / "done").is_file():
            raise


def _ink(face: np.ndarray) -> np.ndarray:
    """Printed ink on a BGRA face: darker than its paper, or strongly coloured."""
    bgr = face[..., :3].astype(np.int16)
    inside = face[..., 3] > 200
    paper = float(np.median(bgr[inside].max(axis=1))) if inside.any() else 255.0
    dark = bgr.min(axis=2) < paper - 70
    coloured = bgr.max(axis=2) - bgr.min(axis=2) > 70
    ink: np.ndarray = ((dark | coloured) & inside).astype(np.uint8)
    return ink


def _corner_ink_box(face: np.ndarray) -> tuple[float, float, float, float] | None:
    """The box round the small ink marks in a face's top-left corner, in fractions."""
    h, w = face.shape[:2]
    n, _, stats, centres = cv2.connectedComponentsWithStats(_ink(face), connectivity=8)
    boxes = []
    for i in range(1, n):
        x, y, bw, bh, area = (int(v) for v in stats[i])
        small = area >= 4e-5 * w * h and bw <= 0.2 * w and bh <= 0.2 * h
        off_edge = x > 0.01 * w and y > 0.01 * h  # a frame line round the card is no index
        cx, cy = centres[i]
        if small and off_edge and cx < 0.2 * w and cy < 0.3 * h and x + bw < 0.24 * w:
            boxes.append((x / w, y / h, (x + bw) / w, (y + bh) / h))
    if not boxes:
        return None
    b = np.array(boxes)
    return float(b[:, 0].min()), float(b[:, 1].min()), float(b[:, 2].max()), float(b[:, 3].max())


def find_index_boxes(faces: Sequence[np.ndarray]) -> list[SignedBox] | None:
    """Where a deck's indices lie, as fractions of the face, from its 52 faces.

    Each box comes with +1 when its index reads with the card upright and -1
    when it reads turned half round. The top-left box spans most of the
    deck's corner marks (10th to 90th percentile of the cards' boxes, so a
    wide "10" counts and a stray pip does not); decks whose top-right corner
    carries marks on most cards get the mirrored pair too. None when fewer
    than half the faces show a corner index (themes that print none).
    """
    left = [b for f in faces if (b := _corner_ink_box(f)) is not None]
    right = [b for f in faces if (b := _corner_ink_box(np.ascontiguousarray(f[:, ::-1])))
             is not None]
    if len(left) < len(faces) / 2:
        return None
    a = np.array(left)
    x0, y0 = (float(np.percentile(a[:, k], 10)) for k in (0, 1))
    x1, y1 = (float(np.percentile(a[:, k], 90)) for k in (2, 3))
    boxes: list[SignedBox] = [((x0, y0, x1, y1), 1), ((1 - x1, 1 - y1, 1 - x0, 1 - y0), -1)]
    if len(right) >= 0.75 * len(faces):
        boxes += [((1 - x1, y0, 1 - x0, y1), 1), ((x0, 1 - y1, x1, 1 - y0), -1)]
    return boxes


@dataclass(frozen=True)
class FaceDeck:
    """One rendered theme: its 52 faces in ``folder``, where their indices lie, and the
    courts whose index letter is not J, Q or K (``FOREIGN_COURTS``)."""

    name: str
    folder: Path
    index_boxes: tuple[SignedBox, ...]
    foreign_courts: frozenset[Rank] = frozenset()

    def face(self, card: Card, height: int, aspect: float = CARD_ASPECT) -> np.ndarray:
        """``card``'s face, BGRA, ``height`` pixels tall and ``aspect`` as wide as tall.

        Themes differ a little in proportions; the scenes lay every card in the
        same outline, so each face is stretched to it.
        """
        original = _load_face(self.folder / f"{card}.png")
        size = (max(2, round(height * aspect)), height)
        return cv2.resize(original, size, interpolation=cv2.INTER_AREA)


@functools.lru_cache(maxsize=52)  # one deck: a scene asks for its cards again and again
def _load_face(path: Path) -> np.ndarray:
    face = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if face is None or face.ndim != 3 or face.shape[2] != 4:
        raise FaceDeckError(f"{path}: not a BGRA card face")
    return face


def load_face_decks(folder: Path, dirs: Iterable[Path] = THEME_DIRS, *,
                    themes: Iterable[Path] | None = None,
                    half: Half | Literal["all"] | None = None) -> list[FaceDeck]:
    """Every usable installed theme (or those of ``themes``; of one ``half`` only when given,
    "all" being the training options' word for both), rendered into ``folder`` (kept there
    for the next run)."""
    decks = []
    for svg in theme_files(dirs) if themes is None else themes:
        if half not in (None, "all") and theme_half(svg) != half:
            continue
        out = render_theme(svg, folder)
        if out is None:
            continue
        boxes_file = out / "index_boxes.json"
        if boxes_file.is_file():
            raw = json.loads(boxes_file.read_text())
        else:
            faces = [_load_face(out / f"{card}.png") for card in _all_cards()]
            raw = find_index_boxes(faces)
            boxes_file.write_text(json.dumps(raw))
        if raw:
            boxes = tuple((tuple(float(v) for v in box), int(sign)) for box, sign in raw)
            decks.append(FaceDeck(out.name, out, boxes,  # type: ignore[arg-type]
                                  FOREIGN_COURTS.get(_stem(svg), frozenset())))
    return decks


def face_decks_named(name: str, folder: Path = FACE_FOLDER,
                     dirs: Iterable[Path] = THEME_DIRS, *, half: Half | None = None
                     ) -> list[FaceDeck]:
    """The installed decks whose name holds ``name`` (any case), or all of them for "all";
    of one ``half`` only when given."""
    installed = theme_files(dirs)
    # Only the chosen themes are rendered: the first run of all of them takes minutes.
    chosen = [svg for svg in installed
              if (name == "all" or name.lower() in theme_name(svg).lower())
              and (half is None or theme_half(svg) == half)]
    decks = load_face_decks(folder, themes=chosen)
    if decks:
        return decks
    if not installed:
        raise FaceDeckError(NO_THEMES)
    if name == "all":
        raise FaceDeckError(NO_THEMES if half is None else
                            f"no usable deck in the {half} half of the installed themes")
    if chosen:
        raise FaceDeckError(f"{', '.join(theme_name(svg) for svg in chosen)}: no usable deck "
                            f"(a card missing, or no corner index to read)")
    raise FaceDeckError(f"no theme named {name!r} among the {len(installed)} installed: "
                        f"{', '.join(theme_name(svg) for svg in installed)}")
