"""firmware.club.standings: ACC tournament points, spread, skunks, and players across boards."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware.club.standings import (
    CountedGame,
    PlayerStanding,
    Roster,
    RosterError,
    Scoring,
    standings,
)


def game(winner: str, scores: tuple[int, int], *, sides: tuple[str, str] = ("Ann", "Bob"),
         result: str = "win", board: str = "t1", number: int = 1, round_id: int | None = None,
         value: int = 1) -> CountedGame:
    results = tuple(None if name == winner else result for name in sides)
    return CountedGame(board, "s-" + board, 1, number, tuple((n, (n,)) for n in sides), winner,
                       result, value, scores, results, round_id, 0.0)


def by_name(rows: list[PlayerStanding]) -> dict[str, PlayerStanding]:
    return {row.name: row for row in rows}


def test_acc_points_two_for_a_win_three_for_a_skunk_and_spread_breaks_ties() -> None:
    rows = standings([game("Ann", (121, 100)),                              # Ann +21
                      game("Bob", (80, 121), result="skunk", number=2)])    # Bob +41, skunk
    table = by_name(rows)
    assert (table["Bob"].tournament_points, table["Bob"].spread) == (3, 41 - 21)
    assert (table["Ann"].tournament_points, table["Ann"].spread) == (2, 21 - 41)
    assert table["Bob"].skunks_given == 1 and table["Ann"].skunks_taken == 1
    assert [r.name for r in rows] == ["Bob", "Ann"]


def test_equal_points_are_ordered_by_spread() -> None:
    rows = standings([game("Ann", (121, 119), sides=("Ann", "Bob")),
                      game("Cat", (121, 100), sides=("Cat", "Dan"), board="t2")])
    assert [r.name for r in rows][:2] == ["Cat", "Ann"]


def test_scoring_is_the_clubs_choice() -> None:
    rows = standings([game("Ann", (121, 50), result="double_skunk")],
                     scoring=Scoring(win=1, skunk=2, double_skunk=4))
    ann = by_name(rows)["Ann"]
    assert ann.tournament_points == 4 and ann.double_skunks_given == 1 and ann.skunks_given == 1


def test_names_fold_case_and_spaces_across_boards() -> None:
    rows = standings([game("ann  smith", (121, 90), sides=("ann  smith", "Bob")),
                      game("Ann Smith", (121, 90), sides=("Cat", "Ann Smith"), board="t2")])
    assert by_name(rows)["ann smith"].wins == 2 and len(rows) == 3


def test_a_roster_names_players_and_their_other_spellings(tmp_path: Path) -> None:
    path = tmp_path / "roster.toml"
    path.write_text('players = ["Ann Smith", "Bob Jones", "Eve"]\n'
                    '[aliases]\n"annie" = "Ann Smith"\n')
    roster = Roster.load(path)
    rows = standings([game("ANNIE", (121, 95), sides=("ANNIE", "Stranger"))], roster=roster)
    table = by_name(rows)
    assert table["Ann Smith"].wins == 1 and table["Ann Smith"].on_roster
    assert not table["Stranger"].on_roster
    assert table["Eve"].games == 0  # listed before her first game


@pytest.mark.parametrize(("text", "message"), [
    ("players = [1]\n", "players must be a list of names"),
    ('players = ["Ann", "ann "]\n', "names 'ann ' twice"),
    ('players = ["Ann"]\n[aliases]\nx = "Bob"\n', "alias 'x' names 'Bob', who is not in players"),
    ('teams = 1\n', "unknown key 'teams'"),
    ("players = [", "is not TOML"),
])
def test_a_bad_roster_says_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "roster.toml"
    path.write_text(text)
    with pytest.raises(RosterError, match=message.replace("(", r"\(")):
        Roster.load(path)


def test_rounds_filter_the_games_counted() -> None:
    games = [game("Ann", (121, 100), round_id=1), game("Bob", (100, 121), round_id=2, number=2)]
    rows = by_name(standings(games, rounds=[2]))
    assert rows["Bob"].wins == 1 and rows["Ann"].wins == 0 and rows["Ann"].games == 1


def test_partners_each_get_their_sides_result() -> None:
    partners = CountedGame("t1", "s", 1, 1, (("Ann & Cat", ("Ann", "Cat")),
                                            ("Bob & Dan", ("Bob", "Dan"))),
                           "Ann & Cat", "skunk", 2, (121, 85), (None, "skunk"), None, 0.0)
    rows = by_name(standings([partners]))
    assert rows["Cat"].tournament_points == 3 and rows["Cat"].match_points == 2
    assert rows["Dan"].skunks_taken == 1 and rows["Dan"].spread == -36
