"""vision.recognise.imagefile: a damaged photo is one line in words, silently, on either OpenCV."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.recognise.imagefile import ImageFileError, _log_level, read_image


def test_a_damaged_photo_is_said_in_words_and_opencv_stays_quiet(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    photo = tmp_path / "torn.jpg"
    photo.write_bytes(b"\xff\xd8\xff\xe0 not the rest of a JPEG")
    get_level, _, _ = _log_level()
    before = get_level()
    with pytest.raises(ImageFileError, match="not a picture OpenCV can decode"):
        read_image(photo)
    assert capfd.readouterr().err == ""
    assert get_level() == before  # OpenCV's own log level is given back
