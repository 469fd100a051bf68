"""``cribbage-board demo --web PORT`` serves the camera's eye as ``run`` does: a new user
watching the demo on a phone sees what the (drawn) camera sees, with the PIN the demo sets
(``--pin``) or prints. The picture's outlines are checked against the drawn table's truth
for the very frame the eye was handed."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

import firmware.demo.camera_table as camera_table
from firmware.commands.cli import main
from firmware.web.camera_eye import CameraEye, EyeView
from firmware.web.eye_view import point_inside
from vision.live.zones import centroid

PIN = "2468"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fetch(url: str, pin: str | None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"X-Pin": pin} if pin else {})
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_demo_web_serves_the_cameras_eye_matching_the_drawn_table(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    tables: list[Any] = []
    truths: dict[float, dict[Any, Any]] = {}  # each offered frame's time -> its true cards

    class Watched(camera_table.VisionTable):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            tables.append(self)

    offer = CameraEye.offer

    def noted(self: CameraEye, view: EyeView) -> None:
        last = tables[0].camera.last if tables else None
        if last is not None:
            truths[round(view.at, 3)] = last.face_up()
        offer(self, view)

    monkeypatch.setattr(camera_table, "VisionTable", Watched)
    monkeypatch.setattr(CameraEye, "offer", noted)
    port = free_port()
    done: list[int] = []
    demo = threading.Thread(target=lambda: done.append(main(
        ["demo", "--web", str(port), "--pin", PIN, "--seed", "4", "--target", "61",
         "--resolution", "1280x720", "--out", str(tmp_path), "--step-seconds", "0.4",
         "--max-seconds", "14"])), daemon=True)
    demo.start()
    base = f"http://127.0.0.1:{port}"
    found: dict[str, Any] | None = None
    refused: tuple[int, bytes] | None = None
    while demo.is_alive() and found is None:
        time.sleep(0.3)
        try:
            if refused is None:
                refused = fetch(base + "/api/eye", None)
            status, body = fetch(base + "/api/eye", PIN)
        except OSError:
            continue  # not listening yet
        if status == 200:
            data = json.loads(body)
            if len(data["cards"]) >= 2 and round(data["at"], 3) in truths:
                found = data
    picture = fetch(base + "/api/eye.jpg", PIN) if found is not None else (0, b"")
    demo.join(60)
    assert done == [0]
    out = capsys.readouterr().out
    assert f"camera's eye: http://127.0.0.1:{port}/eye (the same PIN)" in out
    assert refused is not None and refused[0] == 401
    assert b"camera's view needs the board's PIN" in refused[1]
    assert found is not None, "the demo's page never showed the camera's eye with cards on it"
    assert picture[0] == 200 and picture[1][:2] == b"\xff\xd8"  # a JPEG
    truth = truths[round(found["at"], 3)]
    fx = found["frame"][0] / found["size"][0]
    fy = found["frame"][1] / found["size"][1]
    table = tables[0]
    assert {p["zone"] for p in found["places"]} == {z.name for z in table.camera.zones.zones}
    for card in found["cards"]:
        middle = centroid([(x * fx, y * fy) for x, y in card["outline"]])
        true = [t for c, t in truth.items() if str(c) == card["card"]]
        assert true, f"the eye names {card['card']}, which is not on the drawn table"
        corners = [tuple(map(float, p)) for p in true[0].corners]
        assert point_inside(middle, corners), (card["card"], middle, corners)
