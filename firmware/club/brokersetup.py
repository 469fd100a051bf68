"""The club's Mosquitto set up as MQTT deployments do: a login per board, an ACL, no anonymous.

``cribbage-board club setup-broker`` (and ``install.sh --with-club=BOARD,...``) writes:

- ``/etc/mosquitto/conf.d/cribbage-club.conf``: the listener (TLS on 8883 where a
  certificate is given, plain 1883 on localhost beside it for the server), each with
  ``use_username_as_clientid`` (a listener option: a client's id is its login, so no
  member can take the server's session or another board's), no anonymous clients, the
  password and ACL files, and a queue deep enough for a night's rows;
- ``/etc/mosquitto/cribbage-club.passwd``: one login per board, named as the board, and
  one for the club server, hashed as ``mosquitto_passwd`` hashes them (``$7$``:
  PBKDF2-SHA512, 101 rounds), so lines added with ``mosquitto_passwd`` are kept;
- ``/etc/mosquitto/cribbage-club.acl``: a board writes only ``P/<its name>/...`` and
  reads only its own ``resend``; the server reads every board's rows and writes only
  ``resend`` requests;
- ``/etc/cribbage-board/club-boards``: the boards' names, which ``club serve --boards``
  reads to refuse any other board; ``/etc/cribbage-board/club-password``: the server's.

Run again it keeps every login and password it made, adds the boards named, drops
those given to ``--remove`` and makes a new password for ``--reset``: it prints a new
password once (only its hash is kept). Only the standard library, so ``install.sh``
runs it before the virtualenv exists.
"""

from __future__ import annotations

import base64
import grp
import hashlib
import os
import secrets
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from firmware.club.settings import (
    ClubConfigError,
    board_lines,
    check_board_name,
    check_topic_prefix,
)

__all__ = ["BrokerPlan", "SetupResult", "setup_broker", "hash_password", "acl_text",
           "describe_result", "CONF", "PASSWD", "ACL", "BOARDS", "SERVER_PASSWORD"]

CONF = Path("/etc/mosquitto/conf.d/cribbage-club.conf")
PASSWD = Path("/etc/mosquitto/cribbage-club.passwd")
ACL = Path("/etc/mosquitto/cribbage-club.acl")
BOARDS = Path("/etc/cribbage-board/club-boards")
SERVER_PASSWORD = Path("/etc/cribbage-board/club-password")
CLUB_ENV = Path("/etc/cribbage-board/club.env")


@dataclass(frozen=True)
class BrokerPlan:
    """What to set up: ``root`` places the files (paths inside them stay the real ones)."""

    boards: tuple[str, ...] = ()
    remove: tuple[str, ...] = ()
    reset: tuple[str, ...] = ()
    server_user: str = "club"
    prefix: str = "cribbage/club"
    listen: tuple[str, int] | None = None      # (host, port); default all addresses
    certfile: Path | None = None
    keyfile: Path | None = None
    cafile: Path | None = None
    root: Path = Path("/")
    group: str | None = None                    # may read the server's password
    broker_group: str = "mosquitto"             # may read the password and ACL files


@dataclass(frozen=True)
class SetupResult:
    boards: tuple[str, ...]                    # every board the broker now knows
    new: tuple[tuple[str, str], ...]           # (board, password) made now, shown once
    kept: tuple[str, ...]
    removed: tuple[str, ...]
    server_user: str
    server_new: bool
    url: str
    files: tuple[Path, ...]
    notes: tuple[str, ...]


def hash_password(password: str, *, salt: bytes | None = None, rounds: int = 101) -> str:
    """A Mosquitto 2 password hash (``mosquitto_passwd``'s ``$7$`` format)."""
    salt = salt if salt is not None else secrets.token_bytes(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, rounds)
    return (f"$7${rounds}${base64.b64encode(salt).decode()}$"
            f"{base64.b64encode(digest).decode()}")


def acl_text(prefix: str, server_user: str) -> str:
    """The ACL: patterns apply to every login (``%u`` is its name), ``user`` lines to one."""
    return "\n".join([
        "# cribbage club (written by `cribbage-board club setup-broker`; rewritten each run).",
        "# A board writes only its own topics and reads only its own resend requests.",
        f"pattern write {prefix}/%u/event",
        f"pattern write {prefix}/%u/now",
        f"pattern write {prefix}/%u/online",
        f"pattern read {prefix}/%u/resend",
        "",
        "# The club server reads every board and writes only resend requests.",
        f"user {server_user}",
        f"topic read {prefix}/+/event",
        f"topic read {prefix}/+/now",
        f"topic read {prefix}/+/online",
        f"topic write {prefix}/+/resend",
        "",
    ])


def _conf_text(plan: BrokerPlan) -> str:
    lines = ["# cribbage club broker (written by `cribbage-board club setup-broker`; "
             "rewritten each run).",
             "# Every client logs in; what each may read and write is in the ACL."]
    tls = plan.certfile is not None
    host, port = plan.listen if plan.listen is not None else ("", 8883 if tls else 1883)
    # A listener option: mosquitto's conf.c sets it on the last ``listener`` above it, so
    # it follows each listener's own lines (the other options here are global).
    tied = "use_username_as_clientid true"
    lines.append(f"listener {port}" + (f" {host}" if host else ""))
    if tls:
        lines += [f"certfile {plan.certfile}", f"keyfile {plan.keyfile}"]
        if plan.cafile is not None:
            lines.append(f"cafile {plan.cafile}")
        if plan.listen is None:
            lines.append(tied)
            lines.append("# The club server on this machine, without TLS.")
            lines.append("listener 1883 127.0.0.1")
    lines += ["allow_anonymous false", f"password_file {PASSWD}", f"acl_file {ACL}",
              "# Rows wait here while the club server is down (Debian's default: 1000).",
              "max_queued_messages 100000",
              "# A client's id is its login: no member can take another's session.", tied,
              ""]
    return "\n".join(lines)


def _read_passwd(path: Path) -> dict[str, str]:
    """``name -> hash`` of a Mosquitto password file (comments and blanks dropped)."""
    found: dict[str, str] = {}
    if not path.exists():
        return found
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        name, sep, hashed = line.partition(":")
        if not sep or not hashed.startswith("$"):
            raise ClubConfigError(f"{str(path)!r}, line {number}: not a hashed "
                                  "mosquitto_passwd entry")
        found[name] = hashed
    return found


def _read_names(path: Path) -> list[str]:
    if not path.exists():
        return []
    return [name for _, name in board_lines(path.read_text(encoding="utf-8"))]


def _write(path: Path, text: str, *, mode: int, group: str | None, notes: list[str]) -> None:
    """Writes ``text`` whole (a temporary file renamed over), then sets mode and group."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = path.with_name(path.name + ".new")
    fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    if group is not None:
        try:
            os.chown(fresh, -1, grp.getgrnam(group).gr_gid)
        except (KeyError, PermissionError) as exc:
            notes.append(f"note: {path} is not group {group!r} "
                         f"({'no such group' if isinstance(exc, KeyError) else exc.strerror}): "
                         "only root can read it")
            mode &= 0o700
    os.chmod(fresh, mode)
    os.replace(fresh, path)


def _names(values: Iterable[str], what: str) -> list[str]:
    out = []
    for value in values:
        try:
            out.append(check_board_name(value))
        except ClubConfigError as exc:
            raise ClubConfigError(f"{what}: {exc}") from None
    return out


def setup_broker(plan: BrokerPlan) -> SetupResult:
    """Writes the broker's files under ``plan.root``; see the module docstring."""
    prefix = check_topic_prefix(plan.prefix, what="--prefix")
    server = check_board_name(plan.server_user)
    wanted = _names(plan.boards, "--boards")
    removed = _names(plan.remove, "--remove")
    reset = _names(plan.reset, "--reset")
    if (plan.certfile is None) != (plan.keyfile is None):
        raise ClubConfigError("--certfile and --keyfile go together")
    if server in wanted:
        raise ClubConfigError(f"a board cannot be named {server!r}: that is the server's "
                              "login (--server-user)")
    root = plan.root

    def at(path: Path) -> Path:
        return root / path.relative_to("/")

    logins = _read_passwd(at(PASSWD))
    boards = [b for b in _read_names(at(BOARDS)) if b in logins]
    unknown = [b for b in reset if b not in boards and b not in wanted]
    if unknown:
        raise ClubConfigError(f"--reset {unknown[0]!r}: no such board (known: "
                              f"{', '.join(boards) or 'none'})")
    for board in wanted:
        if board not in boards:
            boards.append(board)
    boards = [b for b in boards if b not in removed]
    notes: list[str] = []
    new: list[tuple[str, str]] = []
    hashes = {name: logins[name] for name in boards if name in logins}
    for board in boards:
        if board not in hashes or board in reset:
            password = secrets.token_urlsafe(18)
            hashes[board] = hash_password(password)
            new.append((board, password))
    server_password_file = at(SERVER_PASSWORD)
    server_new = server not in logins or not server_password_file.exists()
    if server_new:
        password = secrets.token_urlsafe(24)
        hashes[server] = hash_password(password)
        _write(server_password_file, password + "\n", mode=0o640, group=plan.group,
               notes=notes)
    else:
        hashes[server] = logins[server]
    # Logins someone added with mosquitto_passwd by hand stay (a display, a second server).
    for name, hashed in logins.items():
        if name not in hashes and name not in removed:
            hashes[name] = hashed
    _write(at(PASSWD), "".join(f"{n}:{h}\n" for n, h in hashes.items()), mode=0o640,
           group=plan.broker_group, notes=notes)
    _write(at(ACL), acl_text(prefix, server), mode=0o640, group=plan.broker_group,
           notes=notes)
    _write(at(CONF), _conf_text(plan), mode=0o644, group=None, notes=notes)
    _write(at(BOARDS), "# The club's boards (club serve --boards), one a line; written by "
           "`cribbage-board club setup-broker`.\n" + "".join(f"{b}\n" for b in boards),
           mode=0o644, group=None, notes=notes)
    env = at(CLUB_ENV)
    if env.exists() and "--boards" not in env.read_text(encoding="utf-8"):
        notes.append(f"note: {CLUB_ENV} predates the boards' logins: add to its CLUB_OPTIONS "
                     f"--username {server} --password-file {SERVER_PASSWORD} "
                     f"--boards {BOARDS}")
    tls = plan.certfile is not None
    host, port = plan.listen if plan.listen is not None else (
        socket.gethostname(), 8883 if tls else 1883)
    url = f"{'mqtts' if tls else 'mqtt'}://{host or socket.gethostname()}:{port}"
    return SetupResult(tuple(boards), tuple(new), tuple(b for b in boards
                                                         if b not in dict(new)),
                       tuple(b for b in removed if b in logins), server, server_new, url,
                       (CONF, PASSWD, ACL, BOARDS, SERVER_PASSWORD), tuple(notes))


def describe_result(result: SetupResult) -> str:
    """What ``club setup-broker`` prints: each new board's ``[club]`` table, shown once."""
    lines = [f"club broker: {len(result.boards)} board(s) on {result.url}: "
             f"{', '.join(result.boards) or 'none yet (--boards NAME ...)'}"]
    for board, password in result.new:
        lines += [f"new login for board {board!r} (shown only now; put it in that board's "
                  "/etc/cribbage-board/config.toml):",
                  "  [club]", f'  broker = "{result.url}"', f'  board = "{board}"',
                  f'  username = "{board}"', f'  password = "{password}"']
    if result.kept:
        lines.append(f"kept: {', '.join(result.kept)} (passwords unchanged; --reset NAME "
                     "makes a new one)")
    if result.removed:
        lines.append(f"removed: {', '.join(result.removed)}")
    lines.append(f"server login {result.server_user!r}: "
                 f"{'new password' if result.server_new else 'password kept'} in "
                 f"{SERVER_PASSWORD}")
    lines += list(result.notes)
    lines.append("then: sudo systemctl restart mosquitto cribbage-club")
    return "\n".join(lines)
