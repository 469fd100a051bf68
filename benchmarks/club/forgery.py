"""Club forgeries (issue 51): forged boards, forged undos and resend storms, counted.

One real board (table-1) plays a whole game and starts a second match; then forgers
try, through a real Mosquitto:

- ``auth``: the broker as ``club setup-broker`` writes it (a login per board, the ACL,
  no anonymous), the server given the club's boards. Forgers: an anonymous client and
  a guessed password (each publishing ``--games`` whole legal games as t9, checksums
  computed), table-2's own login (the same games as t9, the undo of table-1's
  game-ending row on table-1's topic and on its own, ten resend requests to table-1);
- ``open``: an open broker, the server given the club's boards; an anonymous forger
  does all of the above.

For each: forged messages tried (a forger refused a login sends none), accepted
(rows kept beyond the real board's, games of any other store counted, standings that
differ from the engine's replay of table-1's log, resend requests the board answered
and the rows it published again), and logged (the server's refusals, the broker's
refused login attempts and dropped publishes: ``log_type all``). Needs ``mosquitto``;
prints numbers, asserts nothing; ``--json`` prints one object.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from clubforger import (  # noqa: E402
    forged_game,
    hang_up,
    publish_all,
    refused,
    rogue,
    secured_broker,
    store_id,
    undo_of,
)
from mqttbroker import MosquittoBroker, wait_until  # noqa: E402

from engine.game import Game  # noqa: E402
from engine.simulate import simulate_game  # noqa: E402
from firmware.club.publisher import ClubPublisher  # noqa: E402
from firmware.club.server import ClubServer  # noqa: E402
from firmware.club.settings import ClubConfig, parse_broker  # noqa: E402
from firmware.store.eventstore import EventStore  # noqa: E402

BOARDS = frozenset({"table-1", "table-2"})


def events(seed: int, players: tuple[str, ...] = ("Ann", "Bob")) -> list[dict[str, Any]]:
    return simulate_game(random.Random(seed), players, {"target": 121})


def send(forger: Any, topic: str, payloads: list[bytes]) -> int:
    if not refused(forger):  # else nothing goes out: the broker would not let it log in
        publish_all(forger, topic, payloads)
    return len(payloads)


def engine_games(path: Path) -> list[tuple[str, str, list[int]]]:
    with EventStore.open(path, readonly=True) as store:
        out = []
        for match in store.matches():
            game = Game.replay(e.line for e in store.events(match.id))
            out += [(g.winner, g.result, list(g.scores)) for g in game.match]
        return out


def scenario(folder: Path, *, auth: bool, games: int) -> dict[str, Any]:
    folder.mkdir()
    passwords: dict[str, str] = {}
    server_login: tuple[str, str] | None = None
    if auth:
        secured = secured_broker(folder, tuple(sorted(BOARDS)))
        broker, passwords = secured.broker, secured.passwords
        server_login = ("club", secured.server_password)
    else:
        broker = MosquittoBroker(folder)
    broker.start()
    url = parse_broker(broker.url)
    server = ClubServer(folder / "club.sqlite3", broker=url, boards=BOARDS, reconnect_max_s=1,
                        username=server_login[0] if server_login else None,
                        password=server_login[1] if server_login else None)
    server.start()
    path = folder / "table-1.sqlite3"
    store = EventStore.open(path, clock=time.time)
    config = ClubConfig(broker=url, board="table-1", username="table-1" if auth else None,
                        password=passwords["table-1"] if auth else None)
    board = ClubPublisher(path, config, poll_s=0.02, reconnect_max_s=1, resend_every_s=60)
    board.start()
    forgers: list[Any] = []
    try:
        for event in events(31):
            store.append(event)
        second = events(32, ("Cy", "Di"))
        store.start_match(second[0])
        for event in second[1:10]:
            store.append(event)
        wait_until(lambda: server.kept == store.last_id, timeout_s=60, what="table-1's rows")
        kept, sid = server.kept, store_id(path)
        heard: list[bytes] = []
        listener = rogue(broker, login=server_login)
        forgers.append(listener)
        listener.on_message = lambda c, u, m: heard.append(m.payload)
        listener.subscribe("cribbage/club/table-1/event", qos=1)
        time.sleep(0.3)
        logins: list[tuple[str, str] | None] = [None]
        if auth:
            logins += [("table-1", "guess"), ("table-2", passwords["table-2"])]
        tried = {"forged boards": 0, "forged undos": 0, "resend storm": 0}
        for login in logins:
            forger = rogue(broker, login=login)
            forgers.append(forger)
            for seed in range(games):
                tried["forged boards"] += send(forger, "cribbage/club/t9/event",
                                              forged_game(folder, "t9", events(40 + seed)))
            tried["forged undos"] += send(forger, "cribbage/club/table-1/event",
                                         [undo_of(path, 1, "table-1")])
            tried["forged undos"] += send(forger, "cribbage/club/table-2/event",
                                         [undo_of(path, 1, "table-2")])
        time.sleep(1.0)
        heard.clear()  # from here on only what table-1 publishes again
        resend = json.dumps({"v": 1, "store": sid, "from": 1}).encode()
        for forger in forgers[1:]:
            tried["resend storm"] += send(forger, "cribbage/club/table-1/resend", [resend] * 10)
        time.sleep(3.0)  # what gets through arrives (a real broker: nothing to wait on)
        latest = server.hub.latest
        assert latest is not None
        report = latest.data()
        real = [(g["winner"], g["result"], [s["score"] for s in g["sides"]])
                for g in report["games"] if g["store"] == sid]
        republished = max(0, len(heard) - store.last_id)  # beyond one answer
        return {
            "broker": "logins and ACL" if auth else "open",
            "tried": tried,
            "accepted": {
                "rows kept beyond table-1's": server.kept - kept,
                "games of other stores counted": sum(g["store"] != sid
                                                     for g in report["games"]),
                "standings differ from the engine": real != engine_games(path),
                "resend answers": board.resends_answered,
                "rows republished beyond one answer": republished,
                "rows republished": len(heard),
            },
            "logged": {"server refusals": server.refused,
                       "broker refused login attempts": broker.refused_logins(),
                       "broker dropped publishes": broker.denied() if auth else None},
            "store rows": store.last_id,
        }
    finally:
        hang_up(forgers)
        board.stop()
        server.stop()
        store.close()
        broker.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2,
                        help="whole forged games each forger publishes as t9 (2)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        found = [scenario(Path(tmp) / "auth", auth=True, games=args.games),
                 scenario(Path(tmp) / "open", auth=False, games=args.games)]
    if args.json:
        print(json.dumps(found, indent=2))
        return
    for result in found:
        print(f"{result['broker']} broker (table-1: {result['store rows']} rows)")
        print(f"  tried:    {result['tried']}")
        print(f"  accepted: {result['accepted']}")
        print(f"  logged:   {result['logged']}")


if __name__ == "__main__":
    main()
