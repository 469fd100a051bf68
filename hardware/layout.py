"""Where each hole of the pegboard is on the LED strip.

A ``Layout`` maps ``(track, hole)`` to an LED index. Hole 0 is the start hole
and holes 1..``holes - 1`` the scoring holes, so a 121 board has 122 holes per
track and the last one is the game hole. The renderer only ever asks the
layout, so a board wired differently (one strip per track, one shared track,
a strip snaking through rows like a wooden board) needs a new layout and no
other change.

Layouts are checked when built: every index inside the strip, no LED used
twice. A mistake in the config file is then one clear message at start-up
instead of two pegs fighting over an LED during a game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "HOLES_121",
    "Layout",
    "LayoutError",
    "OverlappingLedsError",
    "TooFewLedsError",
    "per_side_tracks",
    "shared_track",
    "serpentine",
    "LAYOUT_KINDS",
    "DEFAULT_ROW_LENGTH",
    "Streets",
]

#: Holes per track on a 121 board: the start hole plus holes 1..121.
HOLES_121 = 122
#: Scoring holes per street of a board laid out like a wooden one (4 streets of 30 on a 121).
DEFAULT_ROW_LENGTH = 30


@dataclass(frozen=True, slots=True)
class Streets:
    """How a board's scoring holes 1..``holes - 2`` run in streets of ``row_length``: right,
    left, right, left, as on a wooden board. The serpentine strip, the simulator's picture
    and the drilling template all place holes by this one rule."""

    holes: int
    row_length: int = DEFAULT_ROW_LENGTH

    @property
    def count(self) -> int:
        """How many streets the scoring holes fill."""
        return -(-(self.holes - 2) // self.row_length)

    def street_of(self, hole: int) -> int:
        """The street a scoring hole is in (0 at the top)."""
        return (hole - 1) // self.row_length

    @staticmethod
    def rightward(street: int) -> bool:
        """Whether pegging runs left to right along ``street``."""
        return street % 2 == 0

    def column_of(self, hole: int) -> int:
        """A scoring hole's column from the board's left, 0 to ``row_length - 1``."""
        k = (hole - 1) % self.row_length
        return k if self.rightward(self.street_of(hole)) else self.row_length - 1 - k

    def holes_of(self, street: int) -> range:
        """The scoring holes of ``street``, in pegging order."""
        first = 1 + street * self.row_length
        return range(first, min(first + self.row_length, self.holes - 1))


class LayoutError(ValueError):
    """A layout that cannot describe a real board (bad key, bad number)."""


class OverlappingLedsError(LayoutError):
    """Two holes wired to the same LED."""


class TooFewLedsError(LayoutError):
    """A hole wired past the end of the strip."""


@dataclass(frozen=True, eq=False)
class Layout:
    """Maps ``(track, hole)`` to the index of the LED under that hole.

    ``index[track, hole]`` is the LED; ``n_leds`` is the strip's length (it
    may be longer than the holes need: spare LEDs stay dark). ``shared`` says
    every side pegs on track 0, as on a single-track board.
    """

    kind: str
    index: npt.NDArray[np.intp]
    n_leds: int
    shared: bool = False
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        index = np.array(self.index, dtype=np.intp, copy=True)
        if index.ndim != 2 or index.shape[0] < 1 or index.shape[1] < 2:
            raise LayoutError(
                f"layout {self.kind!r}: index must be tracks x holes (at least 1 x 2), "
                f"got shape {index.shape}"
            )
        if self.n_leds < 1:
            raise TooFewLedsError(
                f"layout {self.kind!r}: n_leds must be at least 1, got {self.n_leds}"
            )
        flat = index.ravel()
        if flat.min() < 0:
            track, hole = np.argwhere(index < 0)[0]
            raise LayoutError(
                f"layout {self.kind!r}: track {track} hole {hole} has negative LED index "
                f"{int(index[track, hole])}"
            )
        if flat.max() >= self.n_leds:
            track, hole = np.unravel_index(int(np.argmax(index)), index.shape)
            raise TooFewLedsError(
                f"layout {self.kind!r}: track {track} hole {hole} needs LED "
                f"{int(index[track, hole])} but the strip has only {self.n_leds} LEDs "
                f"(need at least {int(flat.max()) + 1})"
            )
        values, counts = np.unique(flat, return_counts=True)
        if (counts > 1).any():
            led = int(values[counts > 1][0])
            holes = [f"(track {t}, hole {h})" for t, h in np.argwhere(index == led)]
            raise OverlappingLedsError(
                f"layout {self.kind!r}: LED {led} is used by {' and '.join(holes)}"
            )
        index.setflags(write=False)
        object.__setattr__(self, "index", index)

    @property
    def tracks(self) -> int:
        """How many peg tracks the board has."""
        return int(self.index.shape[0])

    @property
    def holes(self) -> int:
        """Holes per track, the start hole included (122 on a 121 board)."""
        return int(self.index.shape[1])

    @property
    def game_hole(self) -> int:
        """The last hole of every track."""
        return self.holes - 1

    @property
    def row_length(self) -> int:
        """Scoring holes per street where the board is laid out in streets (a serpentine's
        own; the wooden board's 30 for the others, which the strip does not care about)."""
        return int(self.options.get("row_length", DEFAULT_ROW_LENGTH))

    def led(self, track: int, hole: int) -> int:
        """Returns the LED under ``hole`` of ``track``."""
        if not 0 <= track < self.tracks:
            raise LayoutError(f"track {track!r} is not on this board (tracks 0..{self.tracks - 1})")
        if not 0 <= hole < self.holes:
            raise LayoutError(f"hole {hole!r} is not on this board (holes 0..{self.holes - 1})")
        return int(self.index[track, hole])

    def track_for_side(self, side: int) -> int:
        """Returns the track a side pegs on: its own, or track 0 on a shared board."""
        if self.shared:
            return 0
        if not 0 <= side < self.tracks:
            raise LayoutError(
                f"side {side} has no track: layout {self.kind!r} has {self.tracks} tracks; "
                "use more tracks or the shared layout"
            )
        return side

    def __repr__(self) -> str:
        return f"Layout.from_config({ {'kind': self.kind, **self.options}!r})"

    @classmethod
    def from_config(cls, table: Mapping[str, Any]) -> Layout:
        """Builds a layout from the config file's ``[board.layout]`` table.

        ``kind`` picks the builder (``per_side``, ``shared``, ``serpentine``); the
        other keys are that builder's keyword options. Unknown keys are an
        error, so a typo does not silently give the default wiring.
        """
        table = dict(table)
        kind = table.pop("kind", "per_side")
        builder = _BUILDERS.get(kind)
        if builder is None:
            raise LayoutError(
                f"unknown layout kind {kind!r}: choose one of {', '.join(sorted(_BUILDERS))}"
            )
        allowed = _OPTIONS[kind]
        unknown = sorted(set(table) - allowed)
        if unknown:
            raise LayoutError(
                f"layout {kind!r} does not take {', '.join(map(repr, unknown))}; "
                f"it takes {', '.join(sorted(allowed))}"
            )
        for key, value in table.items():
            if key == "reversed":
                if not isinstance(value, list) or not all(isinstance(v, bool) for v in value):
                    raise LayoutError(
                        f"layout {kind!r}: reversed must be a list of booleans, got {value!r}"
                    )
            elif key == "track_starts":
                if not isinstance(value, list) or not all(_is_int(v) for v in value):
                    raise LayoutError(
                        f"layout {kind!r}: track_starts must be a list of integers, got {value!r}"
                    )
            elif not _is_int(value):
                raise LayoutError(f"layout {kind!r}: {key} must be an integer, got {value!r}")
        return builder(**table)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


#: The most a config may ask for: far past any real board, and small enough that building
#: the layout is instant (``tracks = 1000000`` once took 25 s before it was refused).
MAX_TRACKS = 8
MAX_HOLES = 1_000
MAX_LEDS = 10_000
_MOST = {"tracks": MAX_TRACKS, "holes": MAX_HOLES, "row_length": MAX_HOLES, "n_leds": MAX_LEDS}


def _check_positive(kind: str, **values: int | None) -> None:
    for name, value in values.items():
        if value is not None and value < 1:
            raise LayoutError(f"layout {kind!r}: {name} must be at least 1, got {value!r}")
        most = _MOST[name]
        if value is not None and value > most:
            raise LayoutError(f"layout {kind!r}: {name} must be at most {most:,}, got {value!r}")


def _check_offset(kind: str, name: str, value: int) -> None:
    # A negative LED is the layout's own error (it names the hole); only the size is ours.
    if value > MAX_LEDS:
        raise LayoutError(f"layout {kind!r}: {name} must be at most {MAX_LEDS:,}, got {value!r}")


def per_side_tracks(
    tracks: int = 3,
    *,
    holes: int = HOLES_121,
    n_leds: int | None = None,
    track_starts: Sequence[int] | None = None,
    reversed: Sequence[bool] | None = None,
) -> Layout:
    """One strip per side's track, chained: track ``t`` starts at LED ``t * holes``.

    ``track_starts`` moves a track (a chained strip with spare LEDs between
    tracks); ``reversed`` marks a track whose strip runs from the game hole
    back to the start hole, as happens when chained strips zig-zag along the
    board so the data wire stays short.
    """
    _check_positive("per_side", tracks=tracks, holes=holes, n_leds=n_leds)
    for start in track_starts or ():
        _check_offset("per_side", "track_starts", start)
    starts = list(track_starts) if track_starts is not None else [t * holes for t in range(tracks)]
    flips = list(reversed) if reversed is not None else [False] * tracks
    if len(starts) != tracks:
        raise LayoutError(f"layout 'per_side': track_starts {starts!r} must name {tracks} tracks")
    if len(flips) != tracks:
        raise LayoutError(f"layout 'per_side': reversed {flips!r} must name {tracks} tracks")
    index = np.empty((tracks, holes), dtype=np.intp)
    for t in range(tracks):
        run = np.arange(holes) + starts[t]
        index[t] = run[::-1] if flips[t] else run
    options: dict[str, Any] = {"tracks": tracks}
    if holes != HOLES_121:
        options["holes"] = holes
    if n_leds is not None:
        options["n_leds"] = n_leds
    if track_starts is not None:
        options["track_starts"] = starts
    if reversed is not None:
        options["reversed"] = flips
    return Layout(
        "per_side", index, n_leds if n_leds is not None else int(index.max()) + 1, options=options
    )


def shared_track(
    *, holes: int = HOLES_121, n_leds: int | None = None, first_led: int = 0
) -> Layout:
    """A single track that every side pegs on; sides on one hole share its LED."""
    _check_positive("shared", holes=holes, n_leds=n_leds)
    _check_offset("shared", "first_led", first_led)
    index = (np.arange(holes) + first_led).reshape(1, holes)
    options: dict[str, Any] = {}
    if holes != HOLES_121:
        options["holes"] = holes
    if n_leds is not None:
        options["n_leds"] = n_leds
    if first_led:
        options["first_led"] = first_led
    return Layout(
        "shared",
        index,
        n_leds if n_leds is not None else int(index.max()) + 1,
        shared=True,
        options=options,
    )


def serpentine(
    tracks: int = 2,
    *,
    holes: int = HOLES_121,
    row_length: int = DEFAULT_ROW_LENGTH,
    n_leds: int | None = None,
    first_led: int = 0,
) -> Layout:
    """One strip snaking through rows like a wooden board.

    The scoring holes 1..120 of each track are cut into streets of
    ``row_length`` holes (4 streets of 30 on a 121 board). On the board the
    streets run right, left, right, left, and within a street the tracks sit
    in adjacent rows, so the strip passes row by row top to bottom, turning at
    each end. The start holes come first on the strip (one per track), then
    the rows, then the game holes (one per track).
    """
    _check_positive("serpentine", tracks=tracks, holes=holes, row_length=row_length,
                    n_leds=n_leds)
    _check_offset("serpentine", "first_led", first_led)
    scoring = holes - 2
    if scoring < 1:
        raise LayoutError(f"layout 'serpentine': holes must be at least 3, got {holes}")
    streets = Streets(holes, row_length)
    index = np.empty((tracks, holes), dtype=np.intp)
    led = first_led
    for t in range(tracks):
        index[t, 0] = led
        led += 1
    strip_forward = True
    for street in range(streets.count):
        street_holes = list(streets.holes_of(street))
        # Columns: the hole's position from the left of the board.
        columns = street_holes if streets.rightward(street) else street_holes[::-1]
        for t in range(tracks):
            row = columns if strip_forward else columns[::-1]
            for hole in row:
                index[t, hole] = led
                led += 1
            strip_forward = not strip_forward
    for t in range(tracks):
        index[t, holes - 1] = led
        led += 1
    options: dict[str, Any] = {"tracks": tracks}
    if holes != HOLES_121:
        options["holes"] = holes
    if row_length != DEFAULT_ROW_LENGTH:
        options["row_length"] = row_length
    if n_leds is not None:
        options["n_leds"] = n_leds
    if first_led:
        options["first_led"] = first_led
    return Layout("serpentine", index, n_leds if n_leds is not None else led, options=options)


_BUILDERS: dict[str, Callable[..., Layout]] = {
    "per_side": per_side_tracks,
    "shared": shared_track,
    "serpentine": serpentine,
}
_OPTIONS = {
    "per_side": {"tracks", "holes", "n_leds", "track_starts", "reversed"},
    "shared": {"holes", "n_leds", "first_led"},
    "serpentine": {"tracks", "holes", "row_length", "n_leds", "first_led"},
}

#: The names ``Layout.from_config`` accepts for ``kind``.
LAYOUT_KINDS = tuple(sorted(_BUILDERS))
