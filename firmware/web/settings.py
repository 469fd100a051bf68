"""The players, rules and colours chosen on the phone, kept across restarts.

Why a file: the table flow starts a new match whenever the store's game has
other players than the flow's settings (``TableFlow.start``), and the flow is
built from the config. Without remembering the phone's choice, every power
cut in a game set up on the phone would throw that game away.

Which wins: the file records the config's settings as they were when the
phone chose. While the config still says the same, the phone's choice
stands; once someone edits the config's players, rules or colours, the
config wins again (the newest decision), and the file is ignored.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from firmware.store.files import replace_file
from firmware.web.inputs import InputError, TableSettings, check_settings

__all__ = ["SettingsFile", "settings_path"]


# The phone's settings are a few hundred bytes; a file far larger is not theirs.
_MAX_BYTES = 64 * 1024


def settings_path(store: Path) -> Path:
    """Where the phone's settings live: beside the event store (``events.settings.json``)."""
    return store.with_suffix(".settings.json")


class SettingsFile:
    """The phone's settings for a store, over ``base`` (the config's)."""

    def __init__(self, path: Path, base: TableSettings) -> None:
        self.path, self.base = path, base
        self.problem: str | None = None  # why an existing file was ignored, to print at start

    def load(self, *, tracks: int = 4, shared: bool = False,
             game_hole: int = 121) -> TableSettings | None:
        """The phone's settings when they still apply to this config and this board
        (``tracks``, ``shared``, ``game_hole`` as in ``check_settings``), else None; then
        ``problem`` says why a file that exists was not used."""
        self.problem = None
        try:
            with self.path.open("rb") as handle:
                raw = handle.read(_MAX_BYTES + 1)
            if len(raw) > _MAX_BYTES:
                raise ValueError(f"it is larger than {_MAX_BYTES} bytes")
            data = json.loads(raw.decode("utf-8"))
        except FileNotFoundError:
            return None
        except RecursionError:  # e.g. "[" x 100000: nested deeper than Python will follow
            self.problem = f"cannot read {str(self.path)!r}: its JSON is nested too deeply"
            return None
        except (OSError, ValueError) as exc:
            self.problem = f"cannot read {str(self.path)!r}: {exc}"
            return None
        if not isinstance(data, dict) or data.get("base") != _json(self.base):
            self.problem = "the config changed since the phone chose the players: the config wins"
            return None
        chosen = data.get("chosen")
        try:
            if not isinstance(chosen, dict):
                raise InputError("no settings in the file")
            return check_settings(chosen.get("players"), chosen.get("rules"),
                                  chosen.get("colours") or None, tracks=tracks, shared=shared,
                                  game_hole=game_hole)
        except InputError as exc:
            self.problem = f"{str(self.path)!r} is not usable: {exc}"
            return None

    def save(self, chosen: TableSettings) -> None:
        """Writes the file atomically (a power cut leaves the old one or the new one)."""
        text = json.dumps({"base": _json(self.base), "chosen": _json(chosen)}, indent=1,
                          ensure_ascii=False)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(self.path, (text + "\n").encode("utf-8"))


def _json(settings: TableSettings) -> Any:
    # Round-trip through JSON so that tuples and lists compare alike.
    return json.loads(json.dumps(settings.to_json()))
