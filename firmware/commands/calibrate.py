"""``cribbage-board calibrate``: find the table's zones from one frame of marker cards.

``--check`` instead measures the cards in view and says whether the camera's mount, lens and
resolution make them big enough to read (``vision.live.camera_check``), what focus the camera
set (a Camera Module 3's lens: ``vision.live.lens``), and whether each player's area is in
view (``vision.live.zones.areas_in_view``: the calibrated zones inside the frame, and, where
the marker cards are laid, each marker seen whole). Card-sized shapes of
which the recogniser reads none, though big enough to read, are not cards (a screenshot, a
box, the felt's pattern): with no card to measure it says so and exits 2, as a calibration
that finds no marker card does. Both print where the phone page shows the camera's view
(``firmware.web.camera_eye``), which helps to aim and mount the camera.

The players lay one agreed card in each area (seat i the ace of clubs,
diamonds, hearts, spades in ``[game] players`` order; the king of hearts where
the starter goes, the king of spades where the crib goes), the camera takes
one frame, and the frame is split into the cells nearest each marker
(``TableZones.from_markers``). ``--write`` puts the zones into the config's
``[zones]`` table, with ``card_px``, the marker cards' long side (the scale the
device reads cards at), and leaves every other byte of the file as it was.

There is no TOML writer in the dependencies, so the ``[zones]`` table is
written here and the new file is read back with ``load_device_config`` (and
compared with the old one, table by table) before it atomically replaces the
original: a file the device cannot read is never left behind.
"""

from __future__ import annotations

import argparse
import re
import statistics
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.cards import Card
from firmware.device.camera_frame import add_source_arguments
from firmware.store.files import replace_file
from vision.live.zones import default_markers

if TYPE_CHECKING:  # the check's module loads the recogniser: only when a command runs
    from vision.live.camera_check import CameraCheck

__all__ = ["register", "CalibrationError", "default_markers", "zones_toml",
           "replace_zones_table", "none_read", "view_links", "view_line", "EXIT_NO_CARDS"]

Point = tuple[float, float]
_HEADER = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_\-\"'. ]+?)\s*\]\]?\s*(#.*)?$")


class CalibrationError(ValueError):
    """Calibration cannot finish: a marker card not found, or a file it cannot update."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "calibrate", help="find the table zones from one frame with a marker card in each area")
    parser.add_argument("--config", type=Path, metavar="FILE",
                        help="device config (players, camera; --write updates its [zones])")
    add_source_arguments(parser)
    parser.add_argument("--image", type=Path, metavar="FILE", help="one still image instead")
    parser.add_argument("--marker", action="append", default=[], metavar="ZONE=CARD",
                        help="the card laid in ZONE (a player, starter or crib), e.g. Ann=5H")
    parser.add_argument("--write", action="store_true",
                        help="save the zones into the config file's [zones] table")
    parser.add_argument("--check", action="store_true",
                        help="camera check: are the cards big enough to read (no markers "
                             "needed); says what resolution or height would do")
    parser.add_argument("--mount-cm", type=float, metavar="CM",
                        help="with --check: the camera's height over the table, for advice "
                             "(default: [camera] mount_cm)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=_calibrate)


def _markers(players: Sequence[str], overrides: Sequence[str]) -> dict[str, Card]:
    markers = default_markers(players)
    for text in overrides:
        zone, sep, card = text.partition("=")
        if not sep or zone not in markers:
            raise CalibrationError(f"--marker {text!r}: expected ZONE=CARD with ZONE one of "
                                   f"{', '.join(markers)}")
        markers[zone] = Card.parse(card)
    cards = list(markers.values())
    twice = sorted({str(c) for c in cards if cards.count(c) > 1})
    if twice:
        raise CalibrationError(f"each area needs its own marker card; {', '.join(twice)} "
                               f"marks two areas")
    return markers


def _frame(args: argparse.Namespace, config: Any) -> Any:

    if args.image is not None:
        if args.source is not None or args.path is not None:
            raise CalibrationError("give either --image FILE or --source/--path, not both")
        from vision.recognise.imagefile import read_image

        return read_image(args.image)
    from firmware.device.camera_frame import grab_frame

    return grab_frame(config, source=args.source, path=args.path)


def _frame_and_focus(args: argparse.Namespace, config: Any) -> tuple[Any, Any]:
    """The frame, and the focus the camera set for it (None: an image file, a webcam)."""
    if args.image is not None:
        return _frame(args, config), None
    from firmware.device.camera_frame import grab_frame_and_focus

    return grab_frame_and_focus(config, source=args.source, path=args.path)


def _config_zones(config: Any) -> dict[str, Any] | None:
    """The calibrated ``[zones]`` by area name (None: not calibrated)."""
    zones = config.zones
    if not zones.seats:
        return None
    named: dict[str, Any] = dict(zip(config.players, zones.seats, strict=False))
    named.update({name: polygon for name, polygon in (("starter", zones.starter),
                                                       ("crib", zones.crib))
                  if polygon is not None})
    return named


def _calibrate(args: argparse.Namespace) -> int:
    from firmware.commands.cli import print_json
    from firmware.device.config import load_device_config
    from vision.live.camera_check import card_heights
    from vision.live.zones import TableZones
    from vision.recognise.detection import recognise

    if args.check:
        return _check(args)
    if args.mount_cm is not None:
        raise CalibrationError("--mount-cm applies to --check")
    if args.write and args.config is None:
        raise CalibrationError("--write needs --config FILE (the file to update)")
    config = load_device_config(args.config)
    markers = _markers(config.players, args.marker)
    image = _frame(args, config)
    height, width = image.shape[:2]
    found = {d.card: d for d in recognise(image) if d.card is not None}
    missing = [f"{card} ({zone})" for zone, card in markers.items() if card not in found]
    if missing:
        raise CalibrationError(f"marker cards not found: {', '.join(missing)}; lay them face "
                               f"up, one in each area, and try again")
    outlines = {zone: list(found[card].corners) for zone, card in markers.items()}
    zones = TableZones.from_markers((width, height), outlines)
    table = zones.to_config()
    card_px = statistics.median(card_heights(list(outlines.values())))
    section = {"seats": [table[name] for name in config.players],
               "starter": table["starter"], "crib": table["crib"], "card_px": card_px}
    written = None
    if args.write:
        if (width, height) != tuple(config.camera.size):
            raise CalibrationError(f"the frame is {width}x{height} but [camera] size is "
                                   f"{config.camera.size[0]}x{config.camera.size[1]}: zones "
                                   f"would not fit the camera's frames")
        replace_zones_table(args.config, section)
        written = str(args.config)
    if args.json:
        print_json({"size": [width, height], "zones": table,
                    "card_px": round(card_px, 1),
                    "markers": {zone: str(card) for zone, card in markers.items()},
                    "confidence": {zone: round(found[card].confidence, 4)
                                   for zone, card in markers.items()},
                    "written": written, "view": view_links(config)})
    else:
        for name, polygon in table.items():
            points = " ".join(f"({x:g},{y:g})" for x, y in polygon)
            print(f"{name} [{markers[name]}]: {points}")
        print(f"cards: {card_px:.0f} px long")
        if written:
            print(f"zones written to {written}")
        _print_view(config)
    return 0


def _check(args: argparse.Namespace) -> int:
    """``calibrate --check``: the camera check (``vision.live.camera_check``) on one frame."""
    from firmware.commands.cli import print_json
    from firmware.device.config import load_device_config
    from vision.live.camera_check import card_outlines, check_camera
    from vision.live.zones import areas_in_view
    from vision.recognise.detection import recognise

    if args.write or args.marker:
        raise CalibrationError("--check measures the cards in view; it takes no --write or "
                               "--marker")
    config = load_device_config(args.config)
    image, focus = _frame_and_focus(args, config)
    height, width = image.shape[:2]
    detections = recognise(image)
    mount_cm = args.mount_cm if args.mount_cm is not None else config.camera.mount_cm
    try:
        outlines = card_outlines(image, detections)
        result = check_camera((width, height), outlines, mount_cm=mount_cm)
    except ValueError as exc:
        raise CalibrationError(str(exc)) from None
    read = sum(d.card is not None for d in detections)
    result = none_read(result, read=read)
    areas = areas_in_view((width, height), default_markers(config.players),
                          {d.card: d.corners for d in detections if d.card is not None},
                          unread=len(outlines) - read, zones=_config_zones(config))
    if args.json:
        print_json({**result.to_json(), "view": view_links(config),
                    "focus": focus.to_json() if focus is not None else None,
                    "areas": [area.to_json() for area in areas]})
        return EXIT_NO_CARDS if result.verdict == "no cards" else 0
    if result.verdict != "no cards":
        print(result.advice)
    _print_focus_and_areas(focus, areas)
    _print_view(config)
    if result.verdict == "no cards":
        raise CalibrationError(result.advice)
    return 0


def _print_focus_and_areas(focus: Any, areas: Sequence[Any]) -> None:
    """The focus set (a camera that sets one), and each area out of view, named."""
    if focus is not None:
        print(focus.words)
    out = [a for a in areas if a.in_view is False]
    for area in out:
        whose = f"the {area.area}'s" if area.area in ("starter", "crib") else f"{area.area}'s"
        print(f"out of view: {whose} area: {area.why}; aim or raise the camera until it is "
              f"in the frame")
    seen = [a.area for a in areas if a.in_view]
    if seen and not out:
        print(f"areas in view: {', '.join(seen)}")
    elif not seen and not out:
        print("areas: not judged: lay each area's marker card (calibrate's) to check that "
              "every area is in view")


#: ``calibrate --check`` with no card to measure: the exit status of a calibration whose
#: marker cards are not found (a ``CalibrationError``), so scripts treat both alike.
EXIT_NO_CARDS = 2


def none_read(result: CameraCheck, *, read: int) -> CameraCheck:
    """``result``, unless the recogniser read none of the shapes it measured although they are
    big enough to read (``marginal`` or ``good``): then they are not cards (a screenshot of a
    page, a box, a pattern on the felt), and there is nothing to judge the camera by."""
    from vision.live.camera_check import CameraCheck

    if read or result.verdict not in ("good", "marginal"):
        return result
    shapes = f"{result.cards} card-shaped thing{'s' if result.cards != 1 else ''}"
    return CameraCheck(result.frame, 0, None, None, "no cards",
                       f"no cards read: the {shapes} in view ({result.card_px:g} px tall, big "
                       f"enough to read) are not cards the board can read; lay three or "
                       f"four cards face up where they are played and check again")


def view_links(config: Any) -> list[str]:
    """Where the phone page shows the camera's view, while the board runs (none when the
    config turns the page off)."""
    from firmware.web.camera_eye import eye_links

    web = config.web
    return eye_links(web.host, web.port) if web.enabled else []


def view_line(config: Any) -> str | None:
    """The line that says where to see what the camera sees (``doctor --camera`` says it too)."""
    links = view_links(config)
    return f"see what the camera sees, while the board runs: {' or '.join(links)}" if links \
        else None


def _print_view(config: Any) -> None:
    line = view_line(config)
    if line is not None:
        print(line)


# -- writing the [zones] table ---------------------------------------------------------------


def _number(value: float) -> str:
    return repr(round(float(value), 1))


def _polygon(points: Sequence[Sequence[float]]) -> str:
    return "[" + ", ".join(f"[{_number(x)}, {_number(y)}]" for x, y in points) + "]"


def zones_toml(section: Mapping[str, Any]) -> str:
    """The ``[zones]`` table as TOML text: ``seats`` (one polygon per player), starter, crib."""
    lines = ["[zones]", "# Written by cribbage-board calibrate: frame pixels, seats in "
             "[game] players order."]
    if "seats" in section:
        lines.append("seats = [")
        lines += [f"    {_polygon(p)}," for p in section["seats"]]
        lines.append("]")
    for key in ("starter", "crib"):
        if key in section:
            lines.append(f"{key} = {_polygon(section[key])}")
    if "card_px" in section:
        lines.append("# A card's long side where cards lie (the marker cards): the reading scale.")
        lines.append(f"card_px = {_number(section['card_px'])}")
    return "\n".join(lines) + "\n"


def _header_lines(text: str) -> list[tuple[int, str]]:
    """(line number, table name) of every table header, skipping brackets inside values.

    A line that starts with ``[`` inside a multi-line array (``seats = [`` then
    ``[[0, 480], ...]``) is a value, not a header; strings and comments are skipped
    while counting brackets.
    """
    headers = []
    depth = 0
    for number, line in enumerate(text.splitlines()):
        if depth == 0:
            match = _HEADER.match(line)
            if match:
                headers.append((number, match.group(1).strip().strip("\"'")))
                continue
        quote = None
        for ch in line:
            if quote:
                if ch == quote:
                    quote = None
            elif ch in "\"'":
                quote = ch
            elif ch == "#":
                break
            elif ch in "[{":
                depth += 1
            elif ch in "]}":
                depth = max(0, depth - 1)
    return headers


def replace_zones_table(path: Path, section: Mapping[str, Any]) -> None:
    """Rewrites ``path`` with ``section`` as its ``[zones]`` table; everything else is kept.

    The new text goes to a temporary file beside the original, is loaded with
    ``load_device_config`` and compared, and only then replaces the original.
    """
    from firmware.device.config import load_device_config

    path = Path(path)
    original = path.read_text(encoding="utf-8")
    lines = original.splitlines(keepends=True)
    headers = _header_lines(original)
    zones_at = [i for i, (_, name) in enumerate(headers) if name == "zones"]
    if any(name.startswith("zones.") for _, name in headers):
        raise CalibrationError(f"{path}: has [zones.*] sub-tables; edit [zones] by hand")
    block = zones_toml(section)
    if zones_at:
        start = headers[zones_at[0]][0]
        later = headers[zones_at[0] + 1:]
        end = later[0][0] if later else len(lines)
        # Comments and blank lines just above the next table belong to that table.
        while end > start + 1 and (not lines[end - 1].strip()
                                   or lines[end - 1].lstrip().startswith("#")):
            end -= 1
        tail = "\n" if end < len(lines) else ""
        text = "".join(lines[:start]) + block + tail + "".join(lines[end:])
    else:
        sep = "" if not original or original.endswith("\n\n") else (
            "\n" if original.endswith("\n") else "\n\n")
        text = original + sep + block
    try:
        before = tomllib.loads(original)
        after = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CalibrationError(f"{path}: cannot update [zones] safely: {exc}") from None
    if {k: v for k, v in before.items() if k != "zones"} != \
            {k: v for k, v in after.items() if k != "zones"}:
        raise CalibrationError(f"{path}: rewriting [zones] would change other tables; "
                               f"edit it by hand")
    def reads_back(written: Path) -> None:
        checked = load_device_config(written)
        if len(checked.zones.seats) != len(section.get("seats", [])):
            raise CalibrationError(f"{path}: the written [zones] did not read back")

    replace_file(path, text.encode("utf-8"), check=reads_back, mode=path.stat().st_mode & 0o7777)
