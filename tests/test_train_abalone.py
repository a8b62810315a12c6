"""tools.train_abalone's model 5 recipe (``--tune-book``) on a few real MiGs games: what the flag fits on, and the
file it writes (the shipped ``rank_model_v5.json`` is its output on every training game: docs/rank.md)."""

from __future__ import annotations

import json
import math
import pickle
import sys
from pathlib import Path

import pytest

pytest.importorskip("numpy")

from plybits.abalone import rankmodel5  # noqa: E402
from tests.conftest import shared_data  # noqa: E402
from tools import train_abalone  # noqa: E402

GAMES = 16


def few_games(tmp_path: Path) -> Path:
    """A data directory holding the first GAMES records of the MiGs training file."""
    text = shared_data("abalone", train_abalone.FILE).read_text(encoding="utf-8")
    records = text.split("\n\n[Event ")[:GAMES]
    (tmp_path / train_abalone.FILE).write_text("\n\n[Event ".join(records) + "\n", encoding="utf-8")
    return tmp_path


def test_tune_book_fits_every_game_with_the_book_of_the_earliest_7_8(tmp_path, monkeypatch):
    data_dir = few_games(tmp_path)
    split = train_abalone.split
    monkeypatch.setattr(train_abalone, "split", lambda *_: split(data_dir))
    v4 = train_abalone.OUT / "rank_model_v4.json"
    out, cache = tmp_path / "v5.json", tmp_path / "plies.pkl"
    monkeypatch.setattr(sys, "argv", ["train_abalone", "--model", "5", "--init", str(v4), "--iterations", "3",
                                      "--tune-book", "--cache", str(cache), "--out", str(out)])
    train_abalone.main()
    body = json.loads(out.read_text(encoding="utf-8"))

    train, _ = split(data_dir)
    cut = len(train) - math.ceil(len(train) * train_abalone.TUNE_SHARE)
    fitted, tuning = train[:cut], train[cut:]
    assert (len(fitted), len(tuning)) == (10, 2)  # 12 of the 16 games train (the earliest 80 %)
    base = pickle.loads(cache.read_bytes())  # model 2's plies of every game, which the run collected
    cut_ply = sum(len(moves) for _, _, moves in fitted)
    book = train_abalone.build_book(fitted)  # the earliest 7/8's book, not every game's
    earliest = train_abalone.with_book(train_abalone.plies_of(base, 0, cut_ply), fitted, book, leave_one_out=True)
    latest = train_abalone.with_book(train_abalone.plies_of(base, cut_ply, len(base)), tuning, book,
                                     leave_one_out=False)
    data = train_abalone.with_phase(train_abalone.joined(earliest, latest), train)
    init = json.loads(v4.read_text(encoding="utf-8"))["weights"]
    expected = train_abalone.fit_new(data, rankmodel5.N_FEATURES, init, iterations=3)

    assert body["weights"] == expected
    assert body["weights"][: len(init)] == init
    assert any(body["weights"][len(init):])
    assert body["training_plies"] == len(base) == len(earliest) + len(latest)
    assert body["notes"].endswith("the weights of rank_model_v4.json kept, the 2928 phase weights fitted alone "
                                  "(3 iterations, lr 0.1, l2 0.0001)")

