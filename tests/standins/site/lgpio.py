"""A stand-in ``lgpio`` module (lg 0.2): importing it does what importing the real one does.

Put ``tests/standins/site`` first on ``sys.path`` and drop ``lgpio`` from ``sys.modules``
(``tests/standins/lgpio_import.py`` does both), so ``import lgpio`` runs this file anew.

From joan2937/lg:

- ``PY_LGPIO/lgpio_extra.py`` (the module's Python half): at import,
  ``_notify_thread = _callback_thread()`` calls ``_lgpio._notify_open()`` without
  checking its result, then ``open('.lgd-nfy{}'.format(handle), 'rb')`` relative to
  the current directory.
- ``lgNotify.c`` ``lgNotifyOpenWithSize``: the pipe is ``"%s/.lgd-nfy%d"`` of
  ``lguGetWorkDir()`` and the handle (0 for the first), made by
  ``xCreatePipe(name, 0664)`` and opened ``O_RDWR|O_NONBLOCK``; when that fails it
  returns ``LG_BAD_PATHNAME`` (-3). So an unwritable working directory makes the
  import raise ``FileNotFoundError: ... '.lgd-nfy-3'``.
- ``lgUtil.c`` ``lguGetWorkDir``: ``$LG_WD`` (relative to the current directory when
  not absolute), else ``getcwd()``; then it ``chdir()``s the whole process there.
- ``gpiochip_open(n)`` opens ``/dev/gpiochip<n>``; failing, it raises ``lgpio.error``
  (``'can not open gpiochip'``).
"""

from __future__ import annotations

import os

SET_ACTIVE_LOW, SET_OPEN_DRAIN, SET_OPEN_SOURCE = 4, 8, 16
SET_PULL_UP, SET_PULL_DOWN, SET_PULL_NONE = 32, 64, 128
SET_BIAS_PULL_UP, SET_BIAS_PULL_DOWN, SET_BIAS_DISABLE = 32, 64, 128
RISING_EDGE, FALLING_EDGE, BOTH_EDGES = 1, 2, 3
BAD_PATHNAME = -3
GPIOCHIP_DIR = "/dev"


class error(Exception):  # noqa: N801 - the library's name
    def __init__(self, value: str) -> None:
        self.value = value

    def __str__(self) -> str:
        return repr(self.value)


def _work_dir() -> str:
    wanted = os.environ.get("LG_WD")
    where = (wanted if wanted.startswith("/") else os.path.join(os.getcwd(), wanted)) \
        if wanted else os.getcwd()
    try:
        os.chdir(where)
    except OSError:
        pass  # LG_DBG "can't set working directory": carries on
    return where


_pipe_fds: list[int] = []


def _notify_open() -> int:
    handle = 0
    name = f"{_work_dir()}/.lgd-nfy{handle}"
    try:
        os.mkfifo(name, 0o664)
    except FileExistsError:
        pass
    except OSError:
        return BAD_PATHNAME
    try:
        _pipe_fds.append(os.open(name, os.O_RDWR | os.O_NONBLOCK))
    except OSError:
        return BAD_PATHNAME
    return handle


_notify = _notify_open()
_file = open(f".lgd-nfy{_notify}", "rb")  # noqa: SIM115 - kept open, as the library does


def gpiochip_open(gpiochip: int) -> int:
    if not os.path.exists(f"{GPIOCHIP_DIR}/gpiochip{gpiochip}"):
        raise error("can not open gpiochip")
    return gpiochip << 16


def gpiochip_close(handle: int) -> int:
    return 0
