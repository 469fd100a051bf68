"""``cribbage-board board FILE.jsonl -o OUT.png`` (CONTRACT.md)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import cv2
import pytest

from firmware.commands.cli import main

HEELS = [
    {"type": "new_game", "players": ["Ann", "Bob"]},
    {"type": "deal", "dealer": "Ann"},
    {"type": "starter", "card": "JH"},
]


def write_log(tmp_path: Path, events: list[dict[str, object]]) -> Path:
    path = tmp_path / "game.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def test_draws_the_board_after_his_heels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "board.png"
    assert main(["board", str(write_log(tmp_path, HEELS)), "-o", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["png"] == str(out)
    assert report["sides"] == [
        {"name": "Ann", "pegs": [2, 0], "track": 0},
        {"name": "Bob", "pegs": [0, 0], "track": 1},
    ]
    assert report["layout"] == {"kind": "per_side", "tracks": 3, "n_leds": 366}
    image = cv2.imread(str(out))
    assert image is not None and image.shape[1] > 600


def test_layout_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "board.png"
    assert (
        main(
            [
                "board",
                str(write_log(tmp_path, HEELS)),
                "-o",
                str(out),
                "--layout",
                "shared",
                "--json",
            ]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert report["layout"]["kind"] == "shared" and [s["track"] for s in report["sides"]] == [0, 0]


def test_config_layout_is_used(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[board.layout]\nkind = "serpentine"\ntracks = 2\n')
    out = tmp_path / "board.png"
    assert (
        main(
            [
                "board",
                str(write_log(tmp_path, HEELS)),
                "-o",
                str(out),
                "--config",
                str(config),
                "--json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["layout"]["n_leds"] == 244


def test_text_output_and_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "board.png"
    assert main(["board", str(write_log(tmp_path, HEELS)), "-o", str(out), "--terminal"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0].startswith("○ → ·●")  # Ann's back peg at start, front on 2
    assert text.endswith(f"wrote {out}\n")


def test_bad_log_exits_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = write_log(tmp_path, HEELS + [{"type": "play", "player": "Ann", "card": "5S"}])
    out = tmp_path / "board.png"
    assert main(["board", str(log), "-o", str(out), "--json"]) == 2
    captured = capsys.readouterr()
    assert json.loads(captured.out)["error"]["event"] == 3
    assert len(captured.err.strip().splitlines()) == 1 and "line 4" in captured.err
    assert not out.exists()


def test_missing_log_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["board", str(tmp_path / "nope.jsonl"), "-o", str(tmp_path / "b.png")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_unwritable_output_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "no-such-dir" / "b.png"
    assert main(["board", str(write_log(tmp_path, HEELS)), "-o", str(out)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_too_few_tracks_in_the_config_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[board.layout]\nkind = "per_side"\ntracks = 1\n')
    log = write_log(tmp_path, HEELS)
    assert main(["board", str(log), "-o", str(tmp_path / "b.png"), "--config", str(config)]) == 2
    assert "side 1 has no track" in capsys.readouterr().err


def test_output_over_a_fifo_is_refused_and_the_fifo_kept(tmp_path: Path, capsys) -> None:
    fifo = tmp_path / "board.png"
    os.mkfifo(fifo)
    log = Path(__file__).parent / "games" / "two-players.jsonl"
    assert main(["board", str(log), "-o", str(fifo)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "board.png' is a FIFO, not a file" in err
    assert stat.S_ISFIFO(fifo.stat().st_mode) and list(tmp_path.iterdir()) == [fifo]


def test_the_picture_gets_what_the_umask_allows(tmp_path: Path, capsys) -> None:
    before = os.umask(0o022)
    try:
        log = Path(__file__).parent / "games" / "two-players.jsonl"
        assert main(["board", str(log), "-o", str(tmp_path / "b.png")]) == 0
    finally:
        os.umask(before)
    assert stat.S_IMODE((tmp_path / "b.png").stat().st_mode) == 0o644


def test_a_jpeg_name_gets_jpeg_data_and_other_names_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = str(write_log(tmp_path, HEELS))
    out = tmp_path / "board.JPG"
    assert main(["board", log, "-o", str(out)]) == 0
    assert out.read_bytes()[:3] == b"\xff\xd8\xff"  # JPEG, not PNG
    assert (tmp_path / "board.png").exists() is False
    capsys.readouterr()
    assert main(["board", log, "-o", str(tmp_path / "board.gif")]) == 2
    err = capsys.readouterr().err
    assert err.endswith("board.gif': name a .png, .jpg or .jpeg file\n")
    assert not (tmp_path / "board.gif").exists()


def test_the_title_is_in_words_and_led_numbers_are_an_option(tmp_path: Path) -> None:
    from engine.game import Game
    from firmware.commands.board import board_title
    from hardware.layout import Layout
    from hardware.state import board_state_from_game
    from hardware.strips.simulator import SimulatorStrip

    game = Game.replay([*HEELS, {"type": "adjust", "player": "Ann", "points": 119}])
    layout = Layout.from_config({"kind": "per_side", "tracks": 3})
    title = board_title("g.jsonl", game, layout)
    assert title == ("g.jsonl: Ann 121, Bob 0; game over: Ann won (double skunk); a new game "
                     "with the same players starts the next game (a track per side, 366 LEDs)")
    strip = SimulatorStrip(layout)
    state = board_state_from_game(game)
    plain = strip.to_image(state, title=title)
    wiring = strip.to_image(state, title=title, led_numbers=True)
    margin = slice(0, 40)  # the left margin holds the LED numbers, and nothing else
    assert (plain[:, margin] != wiring[:, margin]).any()


def test_template_writes_the_guides_board_as_a_1_to_1_svg(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import xml.etree.ElementTree as ET

    out = tmp_path / "template.svg"
    assert main(["board", "--template", "-o", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["layout"] == {"kind": "per_side", "tracks": 3, "n_leds": 366}
    assert (report["holes"], report["pitch_mm"]) == (366, 16.667)
    assert (report["width_mm"], report["height_mm"]) == (600.0, 293.3)  # 40 mm: the buttons
    assert len(report["pieces"]) == 12 and report["pieces"][0] == [0, 30]
    root = ET.fromstring(out.read_text())
    assert root.get("width") == "600.00mm"
    circles = [c for c in root.iter("{http://www.w3.org/2000/svg}circle")
               if c.get("class") == "hole"]
    assert len(circles) == 366


def test_template_follows_the_config_and_the_pitch(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[board.layout]\nkind = "serpentine"\ntracks = 2\n')
    out = tmp_path / "t.svg"
    assert main(["board", "--template", "--config", str(config), "--pitch", "33.333",
                 "-o", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["holes"] == 244 and report["pitch_mm"] == 33.333


@pytest.mark.parametrize(("argv", "message"), [
    (["board", "--template", "-o", "t.png"], "the template is an .svg file"),
    (["board", "--template", "game.jsonl", "-o", "t.svg"], "give no event log"),
    (["board", "-o", "b.png"], "name the game's event log"),
    (["board", "--template", "--pitch", "2", "-o", "t.svg"], "pitch 2.0 mm"),
    # 0 is a pitch asked for, not "no pitch": refused, not the default quietly used.
    (["board", "--template", "--pitch", "0", "-o", "t.svg"], "pitch 0.0 mm"),
])
def test_template_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch, argv: list[str],
                               message: str) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_template_with_a_three_track_config_and_serpentine_draws_three_tracks(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[board.layout]\nkind = "per_side"\ntracks = 3\n')
    out = tmp_path / "t.svg"
    assert main(["board", "--template", "--config", str(config), "--layout", "serpentine",
                 "-o", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["layout"]["kind"] == "serpentine" and report["layout"]["tracks"] == 3
    assert report["holes"] == 366


def test_template_on_a4_writes_numbered_pages(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "template.svg"
    assert main(["board", "--template", "--paper", "a4", "-o", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["paper"] == "a4" and len(report["pages"]) == 6
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [f"template-p{n}.svg" for n in range(1, 7)]
    assert report["pages"][0]["file"] == str(tmp_path / "template-p1.svg")
    assert main(["board", "--template", "--paper", "letter", "-o", str(out)]) == 0
    said = capsys.readouterr().out
    assert "6 Letter pages" in said and "print each at 100 %" in said


def test_template_pitch_that_overlaps_the_strips_is_a_usage_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["board", "--template", "--pitch", "8", "-o", "t.svg"]) == 2
    err = capsys.readouterr().err
    assert "strips would overlap" in err and "12 mm" in err
    assert not (tmp_path / "t.svg").exists()


def test_template_on_letter_as_one_html_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "template.html"
    assert main(["board", "--template", "--paper", "letter", "-o", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [p["file"] for p in report["pages"]] == [str(out)] * 6
    assert sorted(p.name for p in tmp_path.iterdir()) == ["template.html"]
    assert out.read_text().count("<svg ") == 6
    monkeypatch.chdir(tmp_path)
    assert main(["board", "--template", "-o", "t.html"]) == 2  # a plotter sheet is an .svg
    assert "--paper a4 or --paper letter" in capsys.readouterr().err
    assert main(["board", "game.jsonl", "--paper", "a4", "-o", "b.png"]) == 2
    assert "--paper go with --template" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["board", "{log}", "-o", "{missing}/board.png"],
    ["board", "--template", "-o", "{missing}/t.svg"],
    ["board", "--template", "--paper", "a4", "-o", "{missing}/t.svg"],
    ["board", "--template", "--paper", "a4", "-o", "{missing}/t.html"],
])
def test_a_missing_output_folder_is_named_not_a_raw_errno(
        argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A typo in the folder is refused (as export does), not made into a new folder.
    missing = tmp_path / "no-such"
    log = write_log(tmp_path, HEELS)
    assert main([a.format(log=log, missing=missing) for a in argv]) == 2
    err = capsys.readouterr().err
    assert f"no folder {str(missing)!r}" in err and "Errno" not in err
    assert not missing.exists()
    (tmp_path / "a-file").write_text("x")
    assert main([a.format(log=log, missing=tmp_path / "a-file") for a in argv]) == 2
    err = capsys.readouterr().err
    assert f"{str(tmp_path / 'a-file')!r} is a file, not a folder" in err and "Errno" not in err
