"""hardware.state: board states, leapfrogging pegs and the engine adapter."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from hardware.state import BoardState, BoardStateError, SidePegs, board_state_from_game


def test_pegging_leapfrogs_the_back_peg() -> None:
    state = BoardState.new(["Ann", "Bob"]).pegged(0, 5).pegged(0, 3)
    assert state.sides[0] == SidePegs("Ann", front=8, back=5)
    assert state.pegged(0, 0) == state


def test_front_peg_stops_in_the_game_hole() -> None:
    state = BoardState.new(["Ann"]).with_pegs(0, 118, 110).pegged(0, 9)
    assert (state.sides[0].front, state.sides[0].back) == (121, 118)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"sides": (SidePegs("Ann", 122, 0),)}, r"'Ann' front peg on hole 122 is off the board"),
        ({"sides": (SidePegs("Ann"),), "turn": 1}, r"turn 1 is not a side"),
        ({"sides": (SidePegs("Ann"),), "skunk": 121}, r"skunk line 121 must be between 1 and 120"),
        ({"sides": ()}, r"needs at least one side"),
    ],
)
def test_bad_states_are_rejected(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(BoardStateError, match=message):
        BoardState(**kwargs)  # type: ignore[arg-type]


def test_negative_points_are_rejected() -> None:
    with pytest.raises(BoardStateError, match="cannot peg -2 points"):
        BoardState.new(["Ann"]).pegged(0, -2)


def _game(**kw: object) -> SimpleNamespace:
    base = dict(
        rules=SimpleNamespace(target=121, skunk=91, double_skunk=61),
        sides=(
            SimpleNamespace(name="Ann & Cy", players=("Ann", "Cy"), score=30, pegs=(30, 24)),
            SimpleNamespace(name="Bob & Di", players=("Bob", "Di"), score=12, pegs=(12, 4)),
        ),
        turn="Di",
        winner=None,
    )
    base.update(kw)
    return SimpleNamespace(**base)


def test_adapter_reads_sides_pegs_and_whose_turn() -> None:
    state = board_state_from_game(_game())
    assert [(s.name, s.front, s.back) for s in state.sides] == [
        ("Ann & Cy", 30, 24),
        ("Bob & Di", 12, 4),
    ]
    assert (state.turn, state.winner, state.skunk, state.double_skunk) == (1, None, 91, 61)


def test_adapter_after_a_win_has_no_turn() -> None:
    state = board_state_from_game(_game(winner="Ann & Cy", turn="Bob"))
    assert (state.turn, state.winner) == (None, 0)


def test_adapter_61_game_without_double_skunk() -> None:
    game = _game(rules=SimpleNamespace(target=61, skunk=31, double_skunk=None), turn=None)
    state = board_state_from_game(game)
    assert (state.target, state.skunk, state.double_skunk, state.turn) == (61, 31, None, None)


def test_adapter_names_an_unknown_player() -> None:
    with pytest.raises(BoardStateError, match="'Eve' is not a player"):
        board_state_from_game(_game(turn="Eve"))


def test_adapter_with_the_real_engine() -> None:
    game_module = pytest.importorskip("engine.game")
    game = game_module.Game.replay(
        [
            '{"type": "new_game", "players": ["Ann", "Bob"]}',
            '{"type": "deal", "dealer": "Ann"}',
            '{"type": "starter", "card": "JH"}',
        ]
    )
    state = board_state_from_game(game)
    assert [(s.front, s.back) for s in state.sides] == [(2, 0), (0, 0)]
    assert state.turn == 1  # Bob leads the play
