"""A device for the phone page's tests: real store, flow, loop and renderer, a scripted
camera, and the hub; the loop either stepped by the test or run on its own thread."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from engine.simulate import simulate_game
from firmware.demo.scripted_table import (
    BlankCamera,
    ScriptedTracker,
    Step,
    SteppedClock,
    table_script,
)
from firmware.device.loop import DeviceLoop
from firmware.store.eventstore import EventStore
from firmware.table.flow import ButtonAction, Feedback, TableFlow, TableInput
from firmware.web.hub import Hub, Snapshot
from hardware.layout import per_side_tracks
from hardware.render import Renderer
from hardware.strips.simulator import SimulatorStrip

PIN = "2468"


class RecordingFlow(TableFlow):
    """The real flow, noting every input it is handed (to prove the page's inputs take the
    same path as the buttons')."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.inputs: list[TableInput] = []

    def handle(self, item: TableInput, game: Any) -> Any:
        self.inputs.append(item)
        return super().handle(item, game)


class PacedCamera(BlankCamera):
    """A blank camera that also waits a little real time per frame when the loop runs on
    its own thread, so the loop does not spin a core."""

    def __init__(self, clock: SteppedClock, pause: threading.Event | None = None,
                 seconds: float = 0.005) -> None:
        super().__init__(clock)
        self.pause, self.seconds = pause, seconds

    def read(self, timeout: float = 0.5) -> Any:
        if self.pause is not None:
            self.pause.wait(self.seconds)
        return super().read(timeout)


class Device:
    """One board with a hub: ``play`` scripted steps, ``step`` the loop, or ``run_thread``."""

    def __init__(self, path: Path, players: Sequence[str] = ("Ann", "Bob"),
                 rules: dict[str, Any] | None = None, *, tracks: int = 3,
                 seats: Sequence[str] | None = None) -> None:
        self.clock = SteppedClock()
        self.store = EventStore.open(path, clock=self.clock)
        self.layout = per_side_tracks(tracks)
        self.strip = SimulatorStrip(self.layout)
        self.renderer = Renderer(self.layout)
        self._never = threading.Event()  # never set: waiting on it is a pause
        self.camera = PacedCamera(self.clock)
        self.tracker = ScriptedTracker()
        self.hub = Hub()
        self.said: list[Feedback] = []
        self.flow = RecordingFlow(tuple(players), dict(rules or {}), seats=seats)
        self.loop = DeviceLoop(store=self.store, flow=self.flow, strip=self.strip,
                               renderer=self.renderer, clock=self.clock, source=self.camera,
                               recognise=lambda image: [], tracker=self.tracker,
                               on_feedback=self.said.append, hub=self.hub)
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: BaseException | None = None

    # -- stepped by the test -----------------------------------------------------------------

    def start(self) -> None:
        self.loop.start()

    def play(self, steps: Sequence[Step]) -> None:
        """Scripted table moments, one loop turn each (buttons are fed like the demo)."""
        from firmware.table.flow import ButtonAction

        for step in steps:
            with self.lock:
                if step.press is not None:
                    self.loop.feed([ButtonAction(step.press, step.value, self.clock())])
                else:
                    self.tracker.push(step.seen)
                self.loop.step()

    def lines(self) -> list[str]:
        with self.lock:
            return list(self.store.lines)

    # -- on its own thread ---------------------------------------------------------------------

    def run_thread(self) -> None:
        """Steps the loop on a thread of its own, as ``run`` does on the main thread."""
        self.camera.pause = self._never

        def turn() -> None:
            try:
                while not self._stop.is_set():
                    with self.lock:
                        self.loop.step()
            except BaseException as exc:  # the test reports it in stop()
                self.error = exc

        self._thread = threading.Thread(target=turn, name="test-device-loop", daemon=True)
        self._thread.start()

    def stop_thread(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)
            assert not self._thread.is_alive(), "the device loop thread did not stop"
            self._thread = None
        self._stop.clear()
        if self.error is not None:
            raise self.error

    def close(self) -> None:
        self.stop_thread()
        self.hub.close()
        self.store.close()

    # -- reading the page's side -------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        snapshot = self.hub.latest
        assert snapshot is not None
        return snapshot.data()

    def wait_for(self, check: Callable[[dict[str, Any]], bool], *,
                 timeout: float = 10.0) -> dict[str, Any]:
        """The first snapshot for which ``check`` holds (the loop must be running)."""
        seen: Snapshot | None = self.hub.latest
        if seen is not None and check(seen.data()):
            return seen.data()
        version = seen.version if seen is not None else 0
        while True:
            found = self.hub.wait(version, timeout)
            assert found is not None, "no snapshot matched in time"
            data = found.data()
            if check(data):
                return data
            version = found.version


@contextmanager
def served(device: Device, **app: Any) -> Iterator[str]:
    """``device`` started, its loop on a thread, and the phone page (``create_app`` with
    ``PIN`` and ``app``'s options) served for it on a free loopback port, for a real browser:
    yields the page's address; stops the server, then the device."""
    from firmware.web.server import WebServer, create_app

    device.start()
    device.run_thread()
    server = WebServer(create_app(device.hub, pin=PIN, **app), host="127.0.0.1", port=0,
                       hub=device.hub)
    server.start()
    try:
        yield f"http://127.0.0.1:{server.port}/"
    finally:
        server.stop()
        device.close()


def scripted_game(players: Sequence[str] = ("Ann", "Bob"), rules: dict[str, Any] | None = None,
                  seed: int = 2) -> tuple[list[dict[str, Any]], list[Step]]:
    """A simulated game's true log and what the table shows while it is played."""
    rng = random.Random(seed)
    truth = simulate_game(rng, tuple(players), dict(rules or {}))
    return truth, table_script(truth, rng=rng)


def starter_step(steps: Sequence[Step]) -> int:
    from vision.live.tracker import CardAppeared

    return next(i for i, s in enumerate(steps) if s.seen and
                isinstance(s.seen[0], CardAppeared) and s.seen[0].zone == "starter")


class TableRig:
    """A device loop on ``store`` as the store's tests drive it: two players, a scripted
    camera, a stepped clock, and every word it says in ``said``; ``start``ed."""

    def __init__(self, store: EventStore) -> None:
        layout = per_side_tracks(3)
        self.clock = SteppedClock()
        self.tracker = ScriptedTracker()
        self.strip = SimulatorStrip(layout)
        self.said: list[Feedback] = []
        self.loop = DeviceLoop(store=store, flow=TableFlow(("Ann", "Bob"), {}),
                               strip=self.strip, renderer=Renderer(layout), clock=self.clock,
                               source=BlankCamera(self.clock), recognise=lambda image: [],
                               tracker=self.tracker, on_feedback=self.said.append)
        self.loop.start()

    def play(self, steps: Sequence[Step]) -> None:
        """Each step's button pressed or cards shown, one loop step and a second apart."""
        for step in steps:
            if step.press is not None:
                self.loop.feed([ButtonAction(step.press, step.value, self.clock())])
            else:
                self.tracker.push(step.seen)
            self.loop.step()
            self.clock.advance(1.0)
