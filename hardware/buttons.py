"""The table's buttons (GO, MUGGINS, UNDO, CONFIRM) and the optional claim dial.

Three layers, each testable alone:

- ``PressLogic``: debounce and long press for one button, a pure state
  machine fed ``(pressed, time)``; gpiozero's mock pins do not simulate
  bounce, so this is where it is tested.
- ``ButtonPanel``: gpiozero ``Button``s (and a ``RotaryEncoder``) on the pins
  from the config. Their callbacks run on gpiozero's threads and only put a
  ``PinEdge`` (or a dial step) on a queue; the program's loop calls
  ``poll()``, which runs the logic and returns ``ButtonEvent``s. So every
  state change happens on the loop's thread.
- ``Controls``: turns button events into game actions, with the long-press
  meanings (hold UNDO for a new game) and their confirmation.

Time always comes in as an argument or an injected ``clock``: tests never sleep.
"""

from __future__ import annotations

import importlib
import os
import queue
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "ButtonEvent",
    "PinEdge",
    "PressLogic",
    "ButtonSpec",
    "EncoderSpec",
    "ButtonConfig",
    "ButtonConfigError",
    "ButtonsUnavailableError",
    "ButtonPanel",
    "make_pin_factory",
    "lgpio_work_dir",
    "PIN_FACTORIES",
    "Action",
    "Controls",
    "BUTTON_NAMES",
    "HELD_CHOICES",
]

EventKind = Literal["press", "long_press", "turn"]

#: While a held button waits for CONFIRM, these buttons choose another action instead:
#: hold UNDO, then GO for a misdeal, MUGGINS to correct the last card read, or UNDO again
#: to adjust a score by hand. GO and MUGGINS keep no long press of their own, so a plain
#: press acts at once.
HELD_CHOICES: Mapping[str, Mapping[str, str]] = {
    "new_game": {"go": "misdeal", "muggins": "correct", "undo": "adjust"},
}

#: The buttons the game knows, in the order they sit on the panel.
BUTTON_NAMES = ("go", "muggins", "undo", "confirm")

#: Pin factory name -> "module:Class" in gpiozero. Chosen by name, never guessed.
PIN_FACTORIES = {
    "lgpio": "gpiozero.pins.lgpio:LGPIOFactory",
    "rpigpio": "gpiozero.pins.rpigpio:RPiGPIOFactory",
    "pigpio": "gpiozero.pins.pigpio:PiGPIOFactory",
    "native": "gpiozero.pins.native:NativeFactory",
    "mock": "gpiozero.pins.mock:MockFactory",
}


class ButtonConfigError(ValueError):
    """A bad ``[buttons]`` table: unknown key, bad pin, a pin used twice."""


class ButtonsUnavailableError(OSError):
    """The pin factory cannot run here (no lgpio, not a Pi, no permission)."""


@dataclass(frozen=True)
class ButtonEvent:
    """Something a player did: ``press``, ``long_press`` or a dial ``turn`` of ``value`` steps."""

    name: str
    kind: EventKind
    value: int = 0
    at: float = 0.0


@dataclass(frozen=True)
class PinEdge:
    """A raw level change seen by a gpiozero callback, before debouncing."""

    name: str
    pressed: bool
    at: float


class PressLogic:
    """Debounce and long press for one button.

    A level counts only once it has been steady for ``debounce_s``, so contact
    bounce and short spikes on a long wire never become a press. A button
    without a long-press meaning (``long_press_s`` None) reports ``press`` as
    soon as the press is steady. A button with one reports ``long_press``
    once held that long (while still held, so the player sees it take), and
    ``press`` on release only if it was released earlier.

    >>> logic = PressLogic("go", debounce_s=0.03)
    >>> logic.feed(True, 10.0), logic.feed(False, 10.004), logic.feed(True, 10.006)
    ([], [], [])
    >>> logic.poll(10.05)
    [ButtonEvent(name='go', kind='press', value=0, at=10.006)]
    """

    def __init__(
        self, name: str, *, debounce_s: float = 0.03, long_press_s: float | None = None
    ) -> None:
        if debounce_s < 0:
            raise ButtonConfigError(f"debounce_s must not be negative, got {debounce_s!r}")
        if long_press_s is not None and long_press_s <= debounce_s:
            raise ButtonConfigError(
                f"long_press_s {long_press_s!r} must be longer than debounce_s {debounce_s!r}"
            )
        self.name = name
        self.debounce_s = debounce_s
        self.long_press_s = long_press_s
        self._raw = False
        self._raw_at = 0.0
        self._stable = False
        self._pressed_at = 0.0
        self._long_fired = False

    @property
    def pressed(self) -> bool:
        """The debounced level."""
        return self._stable

    def feed(self, pressed: bool, now: float) -> list[ButtonEvent]:
        """Takes a raw level seen at ``now``; returns the events it settles."""
        events = self.poll(now) if pressed != self._raw else []
        if pressed != self._raw:
            self._raw = pressed
            self._raw_at = now
        return events + self.poll(now)

    def poll(self, now: float) -> list[ButtonEvent]:
        """Returns the events due by ``now`` (a settled level, a long press)."""
        events: list[ButtonEvent] = []
        if self._raw != self._stable and now - self._raw_at >= self.debounce_s:
            self._stable = self._raw
            if self._stable:
                self._pressed_at = self._raw_at
                self._long_fired = False
                if self.long_press_s is None:
                    events.append(ButtonEvent(self.name, "press", at=self._raw_at))
            elif self.long_press_s is not None and not self._long_fired:
                events.append(ButtonEvent(self.name, "press", at=self._pressed_at))
        if (
            self._stable
            and self.long_press_s is not None
            and not self._long_fired
            and now - self._pressed_at >= self.long_press_s
        ):
            self._long_fired = True
            events.append(
                ButtonEvent(self.name, "long_press", at=self._pressed_at + self.long_press_s)
            )
        return events

    def next_deadline(self) -> float | None:
        """Returns when ``poll`` next has something to do, or None."""
        if self._raw != self._stable:
            return self._raw_at + self.debounce_s
        if self._stable and self.long_press_s is not None and not self._long_fired:
            return self._pressed_at + self.long_press_s
        return None


@dataclass(frozen=True)
class ButtonSpec:
    """One button: its name, BCM GPIO number and long-press time (None: no long press)."""

    name: str
    pin: int
    long_press_s: float | None = None


@dataclass(frozen=True)
class EncoderSpec:
    """A rotary encoder's two BCM GPIO numbers, and the claim it may dial up to."""

    a: int
    b: int
    max_value: int = 29


def _pin(where: str, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 27:
        raise ButtonConfigError(f"{where} must be a BCM GPIO number 0..27, got {value!r}")
    return value


def _seconds(where: str, value: object) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
        raise ButtonConfigError(f"{where} must be a number of seconds, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class ButtonConfig:
    """The ``[buttons]`` table.

    ``pins`` maps each button to its GPIO; ``long_press`` maps a button to
    what holding it means (default: hold UNDO for ``new_game``).
    """

    pin_factory: str = "lgpio"
    pins: Mapping[str, int] = field(
        default_factory=lambda: {"go": 17, "muggins": 27, "undo": 22, "confirm": 23}
    )
    debounce_s: float = 0.03
    long_press_s: float = 1.5
    long_press: Mapping[str, str] = field(default_factory=lambda: {"undo": "new_game"})
    encoder: EncoderSpec | None = None

    def __post_init__(self) -> None:
        if self.pin_factory not in PIN_FACTORIES:
            raise ButtonConfigError(
                f"unknown pin_factory {self.pin_factory!r}: "
                f"choose one of {', '.join(PIN_FACTORIES)}"
            )
        used: dict[int, str] = {}
        owners = [(n, p) for n, p in self.pins.items()]
        if self.encoder is not None:
            owners += [("encoder.a", self.encoder.a), ("encoder.b", self.encoder.b)]
        for name, pin in owners:
            _pin(f"buttons.{name}", pin)
            if pin in used:
                raise ButtonConfigError(f"GPIO{pin} is given to both {used[pin]!r} and {name!r}")
            used[pin] = name
        for name in self.long_press:
            if name not in self.pins:
                raise ButtonConfigError(
                    f"long_press names {name!r}, which is not a configured button"
                )

    def specs(self) -> list[ButtonSpec]:
        """Returns one ``ButtonSpec`` per configured button."""
        return [
            ButtonSpec(name, pin, self.long_press_s if name in self.long_press else None)
            for name, pin in self.pins.items()
        ]

    @classmethod
    def from_config(cls, table: Mapping[str, Any]) -> ButtonConfig:
        """Builds the config from a ``[buttons]`` TOML table.

        Keys: ``pin_factory``, ``debounce_s``, ``long_press_s``, one key per
        button (``go = 17``; leave a button out if the panel lacks it), a
        ``long_press`` table (``undo = "new_game"``) and an ``encoder`` table
        (``a``, ``b``, ``max_value``).
        """
        base = cls()
        pins: dict[str, int] = {}
        values: dict[str, Any] = {}
        for key, value in table.items():
            if key in BUTTON_NAMES:
                pins[key] = _pin(f"buttons.{key}", value)
            elif key == "pin_factory":
                if not isinstance(value, str):
                    raise ButtonConfigError(f"buttons.pin_factory must be a name, got {value!r}")
                values[key] = value
            elif key in ("debounce_s", "long_press_s"):
                values[key] = _seconds(f"buttons.{key}", value)
            elif key == "long_press":
                if not isinstance(value, Mapping) or not all(
                    isinstance(v, str) for v in value.values()
                ):
                    raise ButtonConfigError(
                        f"buttons.long_press must map buttons to actions, got {value!r}"
                    )
                values[key] = dict(value)
            elif key == "encoder":
                if (
                    not isinstance(value, Mapping)
                    or not {"a", "b"} <= set(value)
                    or set(value) - {"a", "b", "max_value"}
                ):
                    raise ButtonConfigError(
                        f"buttons.encoder needs a and b (and optional max_value), got {value!r}"
                    )
                values[key] = EncoderSpec(
                    _pin("buttons.encoder.a", value["a"]),
                    _pin("buttons.encoder.b", value["b"]),
                    int(value.get("max_value", 29)),
                )
            else:
                raise ButtonConfigError(
                    f"unknown buttons key {key!r}: buttons are {', '.join(BUTTON_NAMES)}"
                )
        return cls(
            pin_factory=values.get("pin_factory", base.pin_factory),
            pins=pins or dict(base.pins),
            debounce_s=values.get("debounce_s", base.debounce_s),
            long_press_s=values.get("long_press_s", base.long_press_s),
            long_press=values.get(
                "long_press", {k: v for k, v in base.long_press.items() if k in (pins or base.pins)}
            ),
            encoder=values.get("encoder"),
        )


def make_pin_factory(name: str) -> Any:
    """Returns gpiozero's pin factory called ``name`` (``lgpio`` on a Pi 5).

    Raises ``ButtonsUnavailableError`` when it cannot run here, rather than
    letting gpiozero fall back to another factory.
    """
    target = PIN_FACTORIES.get(name)
    if target is None:
        raise ButtonConfigError(
            f"unknown pin_factory {name!r}: choose one of {', '.join(PIN_FACTORIES)}"
        )
    module_name, class_name = target.split(":")
    work_dir = lgpio_work_dir()  # before the import, which chdir()s there
    try:
        module = importlib.import_module(module_name)
        return getattr(module, class_name)()
    except Exception as exc:  # gpiozero raises ImportError, OSError, RuntimeError or its own
        if ".lgd-nfy" in str(exc):
            raise ButtonsUnavailableError(
                f"pin factory {name!r} is unavailable: lgpio could not make its notification "
                f"pipe .lgd-nfy0 in {work_dir!r} ($LG_WD, else the current directory), which "
                "this user cannot write: run from a directory it can write (the service runs "
                "in its WorkingDirectory=/var/lib/cribbage-board) or set LG_WD to one") from exc
        raise ButtonsUnavailableError(f"pin factory {name!r} is unavailable: {exc}") from exc


def lgpio_work_dir() -> str:
    """Where lgpio will make its notification pipe: ``$LG_WD``, else the current directory.

    lgpio's Python module opens the pipe at import (``lgpio_extra.py``: ``_notify_thread =
    _callback_thread()``), named ``.lgd-nfy<handle>`` in ``lguGetWorkDir()`` (``lgUtil.c``,
    which also ``chdir()``s the process there). In a directory the user cannot write the
    import fails with ``FileNotFoundError: '.lgd-nfy-3'`` (-3 is LG_BAD_PATHNAME). The facts
    and sources: ``docs/interfaces/gpiozero-lgpio.md``.
    """
    wanted = os.environ.get("LG_WD")
    try:
        here = os.getcwd()
    except OSError:
        here = "?"
    if not wanted:
        return here
    return wanted if wanted.startswith("/") else os.path.join(here, wanted)


class ButtonPanel:
    """The buttons on their GPIO pins, and the optional claim dial.

    Wiring: each button between its GPIO and GND (internal pull-up, active
    low): GO GPIO17 (header pin 11), MUGGINS GPIO27 (13), UNDO GPIO22 (15),
    CONFIRM GPIO23 (16). A rotary encoder's A and B to two GPIOs (say GPIO5,
    pin 29 and GPIO6, pin 31) and its common pin to GND. Keep button wires
    away from the LED data line; the debounce rides out what is left.

    Call ``poll()`` from the program's loop (at least every ``debounce_s``,
    or by ``next_deadline()``); it returns the settled ``ButtonEvent``s.
    """

    def __init__(
        self,
        buttons: Sequence[ButtonSpec],
        *,
        pin_factory: Any,
        encoder: EncoderSpec | None = None,
        debounce_s: float = 0.03,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        from gpiozero import Button, RotaryEncoder  # type: ignore[import-untyped]

        self._clock = clock
        self._edges: queue.SimpleQueue[PinEdge | ButtonEvent] = queue.SimpleQueue()
        self._logic = {
            b.name: PressLogic(b.name, debounce_s=debounce_s, long_press_s=b.long_press_s)
            for b in buttons
        }
        self._devices: list[Any] = []
        try:
            for spec in buttons:
                button = Button(spec.pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
                button.when_pressed = self._edge_callback(spec.name, True)
                button.when_released = self._edge_callback(spec.name, False)
                self._devices.append(button)
            if encoder is not None:
                dial = RotaryEncoder(
                    encoder.a, encoder.b, bounce_time=None, max_steps=0, pin_factory=pin_factory
                )
                dial.when_rotated_clockwise = self._turn_callback(+1)
                dial.when_rotated_counter_clockwise = self._turn_callback(-1)
                self._devices.append(dial)
        except BaseException:
            self.close()
            raise

    @classmethod
    def from_config(
        cls,
        config: ButtonConfig,
        *,
        pin_factory: Any | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> ButtonPanel:
        """Opens the panel the config describes, on its named pin factory unless one is given."""
        factory = pin_factory if pin_factory is not None else make_pin_factory(config.pin_factory)
        return cls(
            config.specs(),
            pin_factory=factory,
            encoder=config.encoder,
            debounce_s=config.debounce_s,
            clock=clock,
        )

    def _edge_callback(self, name: str, pressed: bool) -> Callable[[], None]:
        def callback() -> None:
            self._edges.put(PinEdge(name, pressed, self._clock()))

        return callback

    def _turn_callback(self, step: int) -> Callable[[], None]:
        def callback() -> None:
            self._edges.put(ButtonEvent("dial", "turn", step, self._clock()))

        return callback

    def poll(self, now: float | None = None) -> list[ButtonEvent]:
        """Runs the queued edges through the logic; returns the events settled by ``now``."""
        events: list[ButtonEvent] = []
        while True:
            try:
                item = self._edges.get_nowait()
            except queue.Empty:
                break
            if isinstance(item, PinEdge):
                events += self._logic[item.name].feed(item.pressed, item.at)
            else:
                events.append(item)
        when = self._clock() if now is None else now
        for logic in self._logic.values():
            events += logic.poll(when)
        return events

    def next_deadline(self) -> float | None:
        """Returns the earliest time ``poll`` has pending work, or None."""
        deadlines = [
            d for d in (lg.next_deadline() for lg in self._logic.values()) if d is not None
        ]
        return min(deadlines, default=None)

    def close(self) -> None:
        """Releases the pins."""
        for device in self._devices:
            device.close()
        self._devices.clear()


@dataclass(frozen=True)
class Action:
    """What the game should do: ``go``, ``muggins``, ``undo``, ``confirm``, ``claim``
    (``value`` points), ``dial`` (the claim shown so far), ``ask_confirm`` /
    ``cancelled`` (``subject`` is the action waiting for CONFIRM), or a long-press
    meaning such as ``new_game`` once confirmed."""

    name: str
    value: int = 0
    subject: str = ""


class Controls:
    """Turns button events into actions; owns only the confirmation and the dial.

    A long press with a meaning (hold UNDO: ``new_game``) is not done at
    once: it returns ``ask_confirm`` and waits ``confirm_timeout_s`` for
    CONFIRM; a button ``choices`` names for it (default ``HELD_CHOICES``: after holding
    UNDO, GO is a misdeal, MUGGINS a correction and UNDO a score adjusted by hand) does
    that instead, and any other button cancels it. Turning the dial sets a claim
    (0..``max_value``) that CONFIRM then sends as ``claim``.
    """

    def __init__(
        self,
        *,
        long_press: Mapping[str, str] | None = None,
        confirm_timeout_s: float = 5.0,
        max_value: int = 29,
        choices: Mapping[str, Mapping[str, str]] | None = None,
    ) -> None:
        self.long_press = dict(long_press if long_press is not None else {"undo": "new_game"})
        self.choices = dict(HELD_CHOICES if choices is None else choices)
        self.confirm_timeout_s = confirm_timeout_s
        self.max_value = max_value
        self._pending: tuple[str, float] | None = None
        self._dial: int | None = None

    @property
    def pending(self) -> str | None:
        """The action waiting for CONFIRM, if any."""
        return self._pending[0] if self._pending else None

    def expire(self, now: float) -> Action | None:
        """Cancels a confirmation that waited too long; returns ``cancelled`` if it did."""
        if self._pending is not None and now - self._pending[1] > self.confirm_timeout_s:
            subject = self._pending[0]
            self._pending = None
            return Action("cancelled", subject=subject)
        return None

    def handle(self, event: ButtonEvent) -> Action:
        """Returns the action ``event`` means now.

        A confirmation that timed out before ``event`` is dropped first, so a
        late CONFIRM is a plain ``confirm``; call ``expire`` from the loop to
        hear about the timeout itself.
        """
        self.expire(event.at)
        if event.kind == "turn":
            start = self._dial if self._dial is not None else 0
            self._dial = max(0, min(self.max_value, start + event.value))
            return Action("dial", self._dial)
        if event.kind == "long_press" and event.name in self.long_press:
            subject = self.long_press[event.name]
            self._pending = (subject, event.at)
            return Action("ask_confirm", subject=subject)
        if self._pending is not None:
            subject = self._pending[0]
            self._pending = None
            if event.name == "confirm":
                return Action(subject)
            chosen = self.choices.get(subject, {}).get(event.name)
            if chosen is not None:
                return Action(chosen)
            return Action("cancelled", subject=subject)
        if event.name == "confirm" and self._dial is not None:
            claim, self._dial = self._dial, None
            return Action("claim", claim)
        return Action(event.name)
