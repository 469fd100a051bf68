"""Table zones: calibration from one frame, and cards assigned by where most of them lie."""

import pytest

from vision.live.zones import (
    TableZones,
    Zone,
    ZoneError,
    clip_polygon,
    default_markers,
    polygon_area,
)


def card_at(x: float, y: float, w: float = 60, h: float = 90) -> list[tuple[float, float]]:
    return [(x, y), (x + w, y), (x + w, y + h), (x, y + h)]


MARKERS = {"Ann": card_at(100, 300), "Bob": card_at(1100, 300),
           "starter": card_at(600, 50), "crib": card_at(600, 600)}


def test_calibration_splits_the_whole_frame_between_the_areas() -> None:
    zones = TableZones.from_markers((1280, 720), MARKERS)
    assert zones.names == ("Ann", "Bob", "starter", "crib")
    assert sum(z.area for z in zones.zones) == pytest.approx(1280 * 720)
    for name, outline in MARKERS.items():
        assert zones.assign(outline) == name


def test_a_card_on_a_boundary_goes_to_the_zone_holding_most_of_it() -> None:
    zones = TableZones.from_markers((1280, 720), MARKERS)
    # The starter/crib boundary runs along y = 370 in the middle of the frame.
    assert zones.assign(card_at(620, 330)) == "crib"  # 50 px below, 40 above
    assert zones.assign(card_at(620, 290)) == "starter"
    assert zones.assign(card_at(620, 325)) in ("starter", "crib")  # exactly half: nearest centre
    assert zones.assign(card_at(620, 325)) == zones.assign(card_at(620, 325))


def test_cards_outside_every_zone_belong_nowhere() -> None:
    zones = TableZones((Zone("Ann", ((0, 0), (100, 0), (100, 100), (0, 100))),))
    assert zones.assign(card_at(500, 500)) is None
    assert zones.assign(card_at(90, 10)) is None  # a sixth of it inside
    assert zones.assign(card_at(40, 10)) == "Ann"


def test_zone_config_round_trip_and_errors() -> None:
    zones = TableZones.from_markers((1280, 720), MARKERS)
    assert TableZones.from_config(zones.to_config()) == zones
    with pytest.raises(ZoneError, match="convex"):
        Zone("Ann", ((0, 0), (10, 0), (5, 2), (10, 10), (0, 10)))
    with pytest.raises(ZoneError, match="overlap"):
        TableZones((Zone("A", ((0, 0), (10, 0), (10, 10), (0, 10))),
                    Zone("B", ((5, 5), (15, 5), (15, 15), (5, 15)))))
    with pytest.raises(ZoneError, match="at least 2 areas"):
        TableZones.from_markers((100, 100), {"Ann": card_at(0, 0)})
    with pytest.raises(ZoneError, match="list of \\[x, y\\] points"):
        TableZones.from_config({"Ann": "left"})


def test_clipping_is_exact_for_squares() -> None:
    a = [(0, 0), (10, 0), (10, 10), (0, 10)]
    b = [(5, 5), (15, 5), (15, 15), (5, 15)]
    assert abs(polygon_area(clip_polygon(a, b))) == pytest.approx(25)
    assert abs(polygon_area(clip_polygon(a, list(reversed(b))))) == pytest.approx(25)


def test_default_markers_ask_each_seat_for_an_ace() -> None:
    markers = default_markers(["Ann", "Bob", "Cid", "Dan"])
    assert {k: str(v) for k, v in markers.items()} == {
        "Ann": "AC", "Bob": "AD", "Cid": "AH", "Dan": "AS", "starter": "KH", "crib": "KS"}
    with pytest.raises(ZoneError, match="2 to 4 players"):
        default_markers(["Ann"])
