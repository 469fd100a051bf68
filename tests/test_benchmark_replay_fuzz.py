"""``benchmarks/engine/replay_fuzz.py``, quick: a few hundred mutated logs through ``replay``."""

from __future__ import annotations

from benchscripts import load_benchmark

fuzz = load_benchmark("engine/replay_fuzz")


def test_a_few_hundred_mutated_logs_give_no_traceback_and_no_hang() -> None:
    tally = fuzz.fuzz(cases=160, seed=42, limit_s=10.0)
    report = tally.to_json()
    assert report["cases"] == 160
    assert set(report["mutations"]) == set(fuzz.MUTATIONS)  # every kind was tried
    assert (report["tracebacks"], report["hangs"], report["bad_output"]) == (0, 0, 0), \
        report["examples"]
    assert report["ok"] + report["refused"] == 160


def test_the_harness_counts_a_traceback(monkeypatch, tmp_path) -> None:
    # The quick test above could pass with a harness that counts nothing.
    import firmware.commands.gamelog

    def broken(path):  # noqa: ANN001, ANN202
        raise KeyError("a bug")

    monkeypatch.setattr(firmware.commands.gamelog, "load_game", broken)
    report = fuzz.fuzz(cases=3, seed=1).to_json()
    assert report["tracebacks"] == 3
    assert "KeyError" in report["examples"][0]["why"]
