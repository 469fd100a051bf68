"""``cribbage-board club ...``: the club server, its standings and rounds, and publishing a
board's store by hand (see README's "Club" section)."""

from __future__ import annotations

import argparse
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

from firmware.commands.cli import UsageError, print_json

__all__ = ["register", "describe"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "club", help="club night: the standings server over MQTT, standings, rounds")
    sub = parser.add_subparsers(dest="club_command", required=True,
                                parser_class=type(parser))

    serve = sub.add_parser("serve", help="subscribe to the boards and serve the standings")
    serve.add_argument("--broker", required=True, help="mqtt://host:1883 or mqtts://host:8883")
    serve.add_argument("--db", type=Path, required=True, help="the club's database (created)")
    serve.add_argument("--port", type=int, default=8090, help="the standings page's port")
    serve.add_argument("--host", default="0.0.0.0", help="address to listen on")
    serve.add_argument("--prefix", default=None, help="topic prefix (default cribbage/club)")
    serve.add_argument("--username", help="broker user (the password from --password-file "
                                          "or $CRIBBAGE_CLUB_PASSWORD)")
    serve.add_argument("--password-file", type=Path)
    serve.add_argument("--ca-file", type=Path, help="the broker's CA certificate (TLS)")
    serve.add_argument("--roster", type=Path, help="TOML: players = [...], [aliases]")
    serve.add_argument("--boards", type=Path,
                       help="the club's boards, one name a line (club setup-broker writes "
                            "it): messages of any other board are refused")
    serve.add_argument("--win", type=int, default=None, help="tournament points for a win (2)")
    serve.add_argument("--skunk", type=int, default=None, help="... for a skunk (3)")
    serve.add_argument("--double-skunk", type=int, default=None,
                       help="... for a double skunk (3, as ACC counts it)")
    serve.add_argument("--pin", help="4 to 8 digits: lets the page start and close rounds "
                                     "(POST /api/round with X-Pin)")
    serve.add_argument("--max-seconds", type=float, help="stop after this long")
    serve.set_defaults(handler=run_serve)

    standings = sub.add_parser("standings", help="print the standings from the database")
    standings.add_argument("--db", type=Path, required=True)
    standings.add_argument("--round", type=int, action="append", dest="rounds",
                           help="only this round's games (repeatable)")
    standings.add_argument("--roster", type=Path)
    standings.add_argument("--json", action="store_true", help="print one JSON object")
    standings.set_defaults(handler=run_standings)

    rounds = sub.add_parser("round", help="start or close a tournament round")
    rounds.add_argument("action", choices=("start", "close"))
    rounds.add_argument("name", nargs="?", help="the round's name (start; default 'round N')")
    rounds.add_argument("--db", type=Path, required=True)
    rounds.add_argument("--json", action="store_true", help="print one JSON object")
    rounds.set_defaults(handler=run_round)

    setup = sub.add_parser(
        "setup-broker", help="write Mosquitto's config, a login per board and the ACL "
                             "(install.sh --with-club=BOARD,... runs it); prints new logins")
    setup.add_argument("--boards", nargs="*", default=[], metavar="NAME",
                       help="boards to add (names, or NAME,NAME,...); kept ones stay")
    setup.add_argument("--remove", nargs="*", default=[], metavar="NAME",
                       help="boards to drop")
    setup.add_argument("--reset", nargs="*", default=[], metavar="NAME",
                       help="boards to give a new password (a lost one)")
    setup.add_argument("--server-user", default="club", help="the club server's login")
    setup.add_argument("--prefix", default=None, help="topic prefix (default cribbage/club)")
    setup.add_argument("--listen", metavar="[HOST:]PORT",
                       help="where the broker listens (default all addresses, 1883; 8883 "
                            "with TLS and 1883 on localhost for the server)")
    setup.add_argument("--certfile", type=Path, help="the broker's TLS certificate")
    setup.add_argument("--keyfile", type=Path, help="... and its key")
    setup.add_argument("--cafile", type=Path, help="... and its CA (client checks)")
    setup.add_argument("--root", type=Path, default=Path("/"),
                       help="place the files under this folder (install.sh --root)")
    setup.add_argument("--group", help="the group that may read the server's password "
                                       "(the club server's user)")
    setup.add_argument("--json", action="store_true", help="print one JSON object")
    setup.set_defaults(handler=run_setup_broker)

    publish = sub.add_parser("publish", help="publish a board's store to the broker of a "
                                             "config's [club] table, then exit")
    publish.add_argument("--config", type=Path, required=True)
    publish.add_argument("--store", type=Path, help="default: the config's [store] path")
    publish.add_argument("--timeout", type=float, default=30.0,
                         help="seconds to wait for the broker's acknowledgements")
    publish.add_argument("--json", action="store_true", help="print one JSON object")
    publish.set_defaults(handler=run_publish)


def _scoring(args: argparse.Namespace) -> Any:
    from firmware.club.standings import Scoring

    given = {k: getattr(args, k) for k in ("win", "skunk", "double_skunk")
             if getattr(args, k) is not None}
    for key, value in given.items():
        if not 0 <= value <= 100:
            raise UsageError(f"--{key.replace('_', '-')} must be 0 to 100 points, not {value!r}")
    return Scoring(**given) if given else None


def _roster(path: Path | None) -> Any:
    from firmware.club.standings import Roster

    return Roster.load(path) if path is not None else Roster()


def run_serve(args: argparse.Namespace) -> int:
    from firmware.device import logs

    # Refused messages and resend requests are logged: under systemd with the journal's
    # priorities (``journalctl -u cribbage-club -p warning``: only the refusals).
    with logs.attached():
        return _serve(args)


def _serve(args: argparse.Namespace) -> int:
    from firmware.club.server import ClubServer, serve_club
    from firmware.club.settings import (
        TOPIC_PREFIX,
        ClubConfigError,
        check_topic_prefix,
        parse_broker,
        read_boards,
        read_secret,
    )
    from firmware.device.notify import Notifier
    from firmware.store.files import require_folder
    from firmware.web.pins import is_pin

    require_folder(args.db)  # before the broker, the page or systemd hear of it
    broker = parse_broker(args.broker)
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be a port number, not {args.port!r}")
    if args.pin is not None and not is_pin(args.pin):
        raise UsageError(f"--pin must be 4 to 8 digits, not {args.pin!r}")
    prefix = check_topic_prefix(args.prefix, what="--prefix") if args.prefix else TOPIC_PREFIX
    password = None
    try:
        if args.username is not None:
            if args.password_file is not None:
                password = read_secret(args.password_file, what="--password-file")
            else:
                password = os.environ.get("CRIBBAGE_CLUB_PASSWORD")
            if not password:
                raise UsageError("--username needs a password: --password-file FILE or "
                                 "$CRIBBAGE_CLUB_PASSWORD")
        boards = None if args.boards is None else read_boards(args.boards)
    except ClubConfigError as exc:
        raise UsageError(str(exc)) from None
    server = ClubServer(args.db, broker=broker, prefix=prefix,
                        username=args.username, password=password,
                        ca_file=None if args.ca_file is None else str(args.ca_file),
                        roster=_roster(args.roster), scoring=_scoring(args), boards=boards)
    notifier = Notifier()
    stop = threading.Event()
    previous = {s: signal.signal(s, lambda *_: stop.set())
                for s in (signal.SIGTERM, signal.SIGINT)}
    server.start()
    web = None
    try:
        web = serve_club(server, host=args.host, port=args.port, pin=args.pin)
        said = f"standings at {' or '.join(web.urls())}"
        print(f"club server: {args.db} from {broker}; {said}", flush=True)
        if boards is None:
            print("club server: no --boards: every board on the broker counts", flush=True)
        else:
            print(f"club server: {len(boards)} boards known: others are refused", flush=True)
        notifier.ready(said)  # systemd (systemd/cribbage-club.service): the page is up
        stop.wait(args.max_seconds)
    finally:
        notifier.stopping()
        for number, handler in previous.items():
            signal.signal(number, handler)
        if web is not None:
            web.stop()
        server.stop()
    print(f"club server stopping: {server.kept} rows kept, {server.refused} refused",
          flush=True)
    return 0


def run_standings(args: argparse.Namespace) -> int:
    from firmware.club.clubdb import ClubDB

    db = ClubDB(args.db, readonly=True)
    try:
        report = db.report(roster=_roster(args.roster), rounds=args.rounds)
    finally:
        db.close()
    if args.json:
        print_json(report)
    else:
        print(describe(report))
    return 0


def describe(report: dict[str, Any]) -> str:
    """The standings as a person reads them: one line per player, best first."""
    rounds = {r["id"]: r for r in report["rounds"]}
    lines = []
    if report["round_filter"]:
        lines.append("round " + ", ".join(rounds[r]["name"] if r in rounds else str(r)
                                          for r in report["round_filter"]))
    lines.append(f"{'#':>3} {'player':<20} {'GP':>3} {'W':>3} {'L':>3} {'sk+':>4} {'sk-':>4} "
                 f"{'MP':>4} {'pts':>4} {'spread':>7}")
    roster = any(row["on_roster"] for row in report["standings"])
    for row in report["standings"]:
        name = row["name"] + ("" if row["on_roster"] or not roster else " *")
        lines.append(f"{row['place']:>3} {name:<20} {row['games']:>3} {row['wins']:>3} "
                     f"{row['losses']:>3} {row['skunks_given']:>4} {row['skunks_taken']:>4} "
                     f"{row['match_points']:>4} {row['tournament_points']:>4} "
                     f"{row['spread']:>+7}")
    if not report["standings"]:
        lines.append("no games counted yet")
    scoring = report["scoring"]
    lines.append(f"{len(report['games'])} games; tournament points: win {scoring['win']}, "
                 f"skunk {scoring['skunk']}, double skunk {scoring['double_skunk']}")
    open_rounds = [r["name"] for r in report["rounds"] if r["open"]]
    if open_rounds:
        lines.append(f"open round: {open_rounds[0]}")
    if roster and not all(row["on_roster"] for row in report["standings"]):
        lines.append("* not on the roster")
    return "\n".join(lines)


def run_round(args: argparse.Namespace) -> int:
    from firmware.club.clubdb import ClubDB

    if args.action == "close" and args.name is not None:
        raise UsageError("`club round close` takes no name: it closes the open round")
    db = ClubDB(args.db)
    try:
        found = db.start_round(args.name) if args.action == "start" else db.close_round()
    finally:
        db.close()
    if args.json:
        print_json(found.to_json())
    else:
        print(f"{found.name} {'started' if args.action == 'start' else 'closed'}")
    return 0


def run_setup_broker(args: argparse.Namespace) -> int:
    from firmware.club.brokersetup import BrokerPlan, describe_result, setup_broker
    from firmware.club.settings import TOPIC_PREFIX, ClubConfigError

    def names(values: list[str]) -> tuple[str, ...]:
        return tuple(n for value in values for n in value.split(",") if n)

    listen = None
    if args.listen:
        host, _, port = args.listen.rpartition(":")
        if not port.isdigit() or not 0 < int(port) < 65536:
            raise UsageError(f"--listen must be [HOST:]PORT, not {args.listen!r}")
        listen = (host, int(port))
    plan = BrokerPlan(boards=names(args.boards), remove=names(args.remove),
                      reset=names(args.reset), server_user=args.server_user,
                      prefix=args.prefix or TOPIC_PREFIX, listen=listen,
                      certfile=args.certfile, keyfile=args.keyfile, cafile=args.cafile,
                      root=args.root, group=args.group)
    try:
        result = setup_broker(plan)
    except ClubConfigError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print_json({"boards": list(result.boards),
                    "new": [{"board": b, "password": p} for b, p in result.new],
                    "kept": list(result.kept), "removed": list(result.removed),
                    "server_user": result.server_user, "url": result.url,
                    "files": [str(f) for f in result.files], "notes": list(result.notes)})
    else:
        print(describe_result(result))
    return 0


def run_publish(args: argparse.Namespace) -> int:
    from firmware.club.publisher import start_publisher
    from firmware.device.config import load_device_config
    from firmware.store.eventstore import EventStore

    config = load_device_config(args.config)
    if config.club is None:
        raise UsageError(f"{args.config}: no [club] table: nothing says where to publish")
    path = args.store or config.store.path
    with EventStore.open(path, readonly=True) as store:
        last = store.last_id
    began = time.monotonic()
    publisher = start_publisher(path, config.club)
    try:
        done = publisher.flush(last, timeout_s=args.timeout)
    finally:
        publisher.stop()
    if not done:
        raise OSError(f"the broker {config.club.broker} did not acknowledge every row within "
                      f"{args.timeout} s ({publisher.sent} of {last}); "
                      f"{publisher.last_error or 'is it running?'}")
    report = {"store": str(path), "board": config.club.board, "rows": last,
              "sent": publisher.sent, "seconds": round(time.monotonic() - began, 3)}
    if args.json:
        print_json(report)
    else:
        print(f"published {publisher.sent} of {last} rows of {path} as board "
              f"{config.club.board!r} to {config.club.broker}")
    return 0
