"""Forging club messages through a real Mosquitto (issue 51), shared by the forgery tests
(tests/test_firmware_club_forgery.py) and the forgery benchmark (benchmarks/club/forgery.py),
so that both attack the club the same way: the broker ``club setup-broker`` writes, raw
MQTT clients with or without a login, whole legal games as another board, forged undos.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mqttbroker import MosquittoBroker, free_port, wait_until

from firmware.club.brokersetup import BrokerPlan, setup_broker
from firmware.club.messages import EventMessage
from firmware.club.outbox import Outbox
from firmware.club.settings import read_secret
from firmware.store.eventstore import EventStore
from firmware.store.schema import row_crc

__all__ = ["SecuredBroker", "forged_game", "hang_up", "publish_all", "refused", "rogue",
           "secured_broker", "store_id", "undo_of"]

_MADE = itertools.count()  # each forged game its own store, however often a seed repeats


@dataclass(frozen=True)
class SecuredBroker:
    """A broker as ``club setup-broker`` sets it up, not started yet."""

    broker: MosquittoBroker
    passwords: dict[str, str]   # board -> password, as setup-broker printed them
    server_password: str
    etc: Path                   # the cribbage-board folder it wrote (club-boards, ...)


def secured_broker(folder: Path, boards: tuple[str, ...]) -> SecuredBroker:
    """``setup_broker`` for ``boards`` (a login per board, the ACL, no anonymous) under
    ``folder``, its config's paths pointed at ``folder``'s root, on a free port."""
    root, port = folder / "root", free_port()
    made = setup_broker(BrokerPlan(boards=boards, listen=("127.0.0.1", port), root=root))
    conf_d = folder / "conf.d"
    conf_d.mkdir()
    conf = (root / "etc/mosquitto/conf.d/cribbage-club.conf").read_text()
    (conf_d / "club.conf").write_text(conf.replace("/etc/", f"{root}/etc/"))
    etc = root / "etc/cribbage-board"
    return SecuredBroker(MosquittoBroker(folder, conf_d=conf_d, port=port), dict(made.new),
                         read_secret(etc / "club-password", what="password"), etc)


def rogue(broker: MosquittoBroker, *, login: tuple[str, str] | None = None,
          client_id: str | None = None) -> Any:
    """A raw MQTT client, connected: whoever is on the club's network, with or without a
    login, under ``client_id`` if given. Its user data is the broker's answer to the login
    (see ``refused``)."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(CallbackAPIVersion.VERSION2,
                         client_id=client_id or f"rogue-{time.monotonic()}")
    answers: list[Any] = []
    client.on_connect = lambda c, u, f, reason, p: answers.append(reason)
    if login is not None:
        client.username_pw_set(*login)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    wait_until(lambda: answers, timeout_s=10, what="the broker to answer the rogue")
    client.user_data_set(answers[0])
    return client


def refused(client: Any) -> bool:
    """Whether the broker refused ``client``'s login (it then sends nothing)."""
    return bool(client.user_data_get().is_failure)


def hang_up(clients: Iterable[Any]) -> None:
    """Stops each rogue's network thread and disconnects it (a refused one too)."""
    for client in clients:
        client.loop_stop()
        client.disconnect()


def publish_all(client: Any, topic: str, payloads: list[bytes]) -> None:
    for payload in payloads:
        client.publish(topic, payload, qos=1).wait_for_publish(5)


def store_id(path: Path) -> str:
    """The store id the club knows the store at ``path`` by (its outbox's)."""
    outbox = Outbox(path, board="table-1")
    try:
        found = outbox.store()
    finally:
        outbox.close()
    assert found is not None
    return found


def forged_game(folder: Path, board: str, events: Iterable[dict[str, Any]]) -> list[bytes]:
    """A whole legal game (``events``) as board ``board`` would publish it, checksums and
    all, from a fresh store under ``folder``."""
    path = folder / f"forged-{board}-{next(_MADE)}.sqlite3"
    with EventStore.open(path, clock=time.time) as store:
        for event in events:
            store.append(event)
    outbox = Outbox(path, board=board)
    try:
        pending = outbox.pending(limit=100_000)
        return [EventMessage.of(board, pending.store or "", r).payload() for r in pending.rows]
    finally:
        outbox.close()


def undo_of(path: Path, match: int, board: str) -> bytes:
    """The last row of ``match`` of the store at ``path``, sent as undone by ``board``:
    what a forger who heard the row makes of it (the checksum needs no secret)."""
    with EventStore.open(path, readonly=True) as real:
        row = list(real.events(match))[-1]
    return EventMessage(board, store_id(path), row.id, row.match,
                        row_crc(row.id, row.match, row.at, row.line), row.at, row.line,
                        undone=True).payload()
