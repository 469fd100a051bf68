"""``cribbage-board vision eval DIR --json``, ``vision show IMAGE -o OUT.png``, ``vision snap``."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from test_vision_photo import FAN_CARDS, SQUARE, fan

from firmware.commands.cli import main
from vision.training.synth import place, render_card

CONTRACT_KEYS = {
    "images", "cards_labelled", "cards_found", "card_precision", "card_recall",
    "images_exact", "ms_per_image_median", "per_image",
}


@pytest.fixture()
def photo_dir(tmp_path: Path) -> Path:
    for name, cards in (("a.png", [(5, 2)]), ("b.png", [(9, 0), (11, 1)])):
        img = np.full((480, 640, 3), (60, 110, 150), np.uint8)
        for k, (rank, suit) in enumerate(cards):
            place(img, render_card(rank, suit), (200 + 250 * k, 240), 20 * k, 0.6)
        cv2.imwrite(str(tmp_path / name), img)
    (tmp_path / "labels.json").write_text(json.dumps({"images": [
        {"file": "a.png", "cards": ["6H"]},
        {"file": "b.png", "cards": ["10C", "QD", "AS"]},
    ]}))
    return tmp_path


def test_eval_json_has_exactly_the_contract_keys(
    photo_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["vision", "eval", str(photo_dir), "--json"]) == 0
    out, err = capsys.readouterr()
    assert out.count("\n") == 1
    result = json.loads(out)
    assert set(result) == CONTRACT_KEYS
    # Progress goes to stderr (not a terminal here: a line a tenth of the way).
    assert err.splitlines() == ["vision eval: 1/2 a.png", "vision eval: 2/2 b.png"]
    assert result["images"] == 2
    assert result["cards_labelled"] == 4  # a set per image: AS is labelled but absent
    assert result["card_recall"] <= 0.75
    assert result["card_precision"] == 1.0
    assert [p["file"] for p in result["per_image"]] == ["a.png", "b.png"]
    assert result["per_image"][1]["expected"] == ["AS", "10C", "QD"]
    for p in result["per_image"]:
        assert set(p) == {"file", "expected", "found"}
    assert result["ms_per_image_median"] > 0


def test_eval_split_test_reads_only_the_test_part(
    photo_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["vision", "eval", str(photo_dir), "--json", "--split", "test"]) == 0
    assert json.loads(capsys.readouterr().out)["images"] == 1  # ceil(30 % of 2)


def test_eval_reads_photos_widened_back_unless_their_pixels_are_square(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cv2.imwrite(str(tmp_path / "fan.png"), cv2.resize(fan(), SQUARE, interpolation=cv2.INTER_AREA))
    (tmp_path / "labels.json").write_text(json.dumps({"images": [
        {"file": "fan.png", "cards": sorted(str(c) for c in FAN_CARDS)}]}))
    assert main(["vision", "eval", str(tmp_path), "--json"]) == 0
    as_photo = json.loads(capsys.readouterr().out)
    assert main(["vision", "eval", str(tmp_path), "--json", "--square-pixels"]) == 0
    read_once = json.loads(capsys.readouterr().out)
    assert as_photo["card_recall"] == 1.0 and as_photo["card_precision"] == 1.0
    assert read_once["card_recall"] <= 0.7


def test_eval_without_labels_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vision", "eval", str(tmp_path), "--json"]) == 2
    err = capsys.readouterr().err
    assert "labels.json" in err and err.count("\n") == 1


def test_eval_missing_image_exits_2(photo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (photo_dir / "a.png").unlink()
    assert main(["vision", "eval", str(photo_dir), "--json"]) == 2
    assert "a.png" in capsys.readouterr().err


def test_show_writes_a_png_with_outlines(photo_dir: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.png"
    assert main(["vision", "show", str(photo_dir / "b.png"), "-o", str(out), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert {d["card"] for d in shown["detections"]} >= {"10C", "QD"}
    drawn = cv2.imread(str(out))
    original = cv2.imread(str(photo_dir / "b.png"))
    assert drawn.shape == original.shape
    assert (np.abs(drawn.astype(int) - original).sum(axis=2) > 60).sum() > 500


def test_show_unreadable_image_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "x.png"
    bad.write_text("not a picture")
    assert main(["vision", "show", str(bad), "-o", str(tmp_path / "o.png")]) == 2
    assert "cannot read the image" in capsys.readouterr().err


@pytest.mark.parametrize("content, why", [
    (None, "No such file or directory"),
    (b"\x89PNG\r\n\x1a\n garbage", "not a picture OpenCV can decode"),
    (b"", "not a picture OpenCV can decode"),
])
def test_an_unreadable_image_is_one_line_and_no_opencv_warning(
        tmp_path: Path, capfd: pytest.CaptureFixture[str], content: bytes | None,
        why: str) -> None:
    bad = tmp_path / "x.png"
    if content is not None:
        bad.write_bytes(content)
    assert main(["vision", "show", str(bad), "-o", str(tmp_path / "o.png")]) == 2
    err = capfd.readouterr().err  # OpenCV writes to the descriptor, past sys.stderr
    assert err.splitlines() == [f"cribbage-board vision: cannot read the image {str(bad)!r}: "
                                f"{why}"]


def test_snap_saves_the_cameras_frame_and_never_a_half_photo(
        photo_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replay = tmp_path / "camera"
    replay.mkdir()
    frame = cv2.imread(str(photo_dir / "a.png"))
    cv2.imwrite(str(replay / "frame_00000.png"), frame)
    out = tmp_path / "clubs.png"
    snap = ["vision", "snap", "--source", "replay", "--path", str(replay), "-o", str(out)]
    assert main([*snap, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"output": str(out), "width": 640,
                                                   "height": 480}
    assert np.array_equal(cv2.imread(str(out)), frame)
    # A photo already there is kept unless --force says otherwise.
    out.write_bytes(b"kept")
    assert main(snap) == 2
    assert "exists" in capsys.readouterr().err and out.read_bytes() == b"kept"
    assert main([*snap, "--force"]) == 0
    assert np.array_equal(cv2.imread(str(out)), frame)
    assert not list(tmp_path.glob("*.part"))


@pytest.mark.parametrize(("args", "message"), [
    (["--source", "replay"], "--source replay needs --path DIR"),
    (["--source", "opencv", "--path", "x"], "--path applies to --source replay"),
])
def test_snap_names_what_the_source_lacks(
        args: list[str], message: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.png"
    assert main(["vision", "snap", *args, "-o", str(out)]) == 2
    assert message in capsys.readouterr().err and not out.exists()


def test_snap_writes_png_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vision", "snap", "--source", "replay", "--path", str(tmp_path),
                 "-o", str(tmp_path / "x.jpg")]) == 2
    assert ".png" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["vision", "show", "{photo}", "-o", "{missing}/o.png"],
    ["vision", "snap", "--source", "replay", "--path", "{tmp}", "-o", "{missing}/o.png"],
    # Named before the photos are read or taught from: no minutes of teaching lost.
    ["vision", "teach", "{tmp}/absent.jpg", "--suit", "hearts", "-o", "{missing}/deck.npz"],
])
def test_a_missing_output_folder_is_named_before_any_work(
        argv: list[str], photo_dir: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "no-such"
    filled = [a.format(photo=photo_dir / "a.png", tmp=tmp_path, missing=missing) for a in argv]
    assert main(filled) == 2
    err = capsys.readouterr().err
    assert f"no folder {str(missing)!r}" in err and "Errno" not in err
