"""tools.train_abalone's model 5 recipe (``--tune-book``) and model 6's (the reply book) on a few real MiGs games: what
they fit on, and the files they write (the shipped ``rank_model_v5.json`` and ``rank_model_v6.json`` are their output on
every training game: docs/rank.md)."""

from __future__ import annotations

import json
import math
import pickle
import sys
from pathlib import Path

import pytest

pytest.importorskip("numpy")

import numpy as np  # noqa: E402

from plybits.abalone import rankmodel5, rankmodel6  # noqa: E402
from plybits.abalone.rank import canonical_moves  # noqa: E402
from plybits.openingbook import book_rows  # noqa: E402
from plybits.registry import get_game  # noqa: E402
from tests.conftest import shared_data  # noqa: E402
from tools import train_abalone  # noqa: E402
from tools.rank_fit import collect, fit  # noqa: E402

GAMES = 16


def few_games(tmp_path: Path) -> Path:
    """A data directory holding the first GAMES records of the MiGs training file."""
    text = shared_data("abalone", train_abalone.FILE).read_text(encoding="utf-8")
    records = text.split("\n\n[Event ")[:GAMES]
    (tmp_path / train_abalone.FILE).write_text("\n\n[Event ".join(records) + "\n", encoding="utf-8")
    return tmp_path


def run_tool(tmp_path: Path, monkeypatch, *argv: str) -> tuple[dict, Path, list]:
    """``tools.train_abalone ARGV --cache C --out O`` on :func:`few_games`: (the file written, C, the training games)."""
    data_dir = few_games(tmp_path)
    split = train_abalone.split
    monkeypatch.setattr(train_abalone, "split", lambda: split(data_dir))
    out, cache = tmp_path / "model.json", tmp_path / "plies.pkl"
    monkeypatch.setattr(sys, "argv", ["train_abalone", *argv, "--cache", str(cache), "--out", str(out)])
    train_abalone.main()
    return json.loads(out.read_text(encoding="utf-8")), cache, split(data_dir)[0]


def test_tune_book_fits_every_game_with_the_book_of_the_earliest_7_8(tmp_path, monkeypatch):
    v4 = train_abalone.OUT / "rank_model_v4.json"
    body, cache, train = run_tool(tmp_path, monkeypatch, "--model", "5", "--init", str(v4), "--iterations", "3",
                                  "--tune-book")
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



def test_with_reply_adds_the_reply_feature_of_each_game_counted_out_of_the_book(tmp_path, monkeypatch):
    """Each unforced ply's moves get model 6's ``F_REPLY`` of :func:`rankmodel6.move_features`, read with the reply
    book of the other games (leave-one-out), or of all of them for games read as new."""
    train, _ = train_abalone.split(few_games(tmp_path))
    game = get_game("abalone")
    data = collect(((game.position(s), m) for _, s, m in train), canonical_moves, lambda b, moves, h: [[0]] * len(moves))
    replies = train_abalone.build_replies(train)
    for leave_one_out in (True, False):
        out = train_abalone.with_reply(data, train, replies, leave_one_out)
        assert replies == train_abalone.build_replies(train)  # each game counted back in
        added = iter(np.split(np.frombuffer(out.ids, dtype=np.int32), np.cumsum(out.per_move)[:-1]))
        found = 0
        for k, (_, start, moves) in enumerate(train):
            others = train_abalone.build_replies(train[:k] + train[k + 1 :]) if leave_one_out else replies
            monkeypatch.setattr(rankmodel6.MODEL_6, "replies", others)
            board, history = game.position(start), []
            for move in moves:
                legal = canonical_moves(board)
                if len(legal) >= 2:
                    for feats in rankmodel6.move_features(board, legal, history):
                        expected = [0] + [f for f in feats if f >= rankmodel6.F_REPLY]
                        assert list(next(added)) == expected
                        found += len(expected) - 1
                board.push(move)
                history.append(move)
        assert found > (50 if leave_one_out else 200)


def test_model_6_fits_the_reply_weights_then_all_and_writes_the_reply_book(tmp_path, monkeypatch):
    v5 = train_abalone.OUT / "rank_model_v5.json"
    body, cache, train = run_tool(tmp_path, monkeypatch, "--model", "6", "--init", str(v5), "--iterations", "3",
                                  "--joint", "2", "--lr", "0.01")
    base = pickle.loads(cache.read_bytes())
    book = train_abalone.build_book(train)
    replies = train_abalone.build_replies(train)
    data = train_abalone.with_reply(train_abalone.with_phase(train_abalone.with_book(base, train, book, True), train),
                                    train, replies, True)
    init = json.loads(v5.read_text(encoding="utf-8"))["weights"]
    alone = train_abalone.fit_new(data, rankmodel6.N_FEATURES, init, iterations=3)
    assert alone[: len(init)] == init and any(alone[len(init):])
    expected = fit(data, rankmodel6.N_FEATURES, iterations=2, lr=0.01, l2=1e-4, init=alone)
    assert body["weights"] == expected and body["features"] == rankmodel6.N_FEATURES
    assert body["replies"] == json.loads(json.dumps(book_rows(replies))) and "book" not in body
    assert body["notes"].endswith("the weights of rank_model_v5.json kept, the reply book's fitted alone "
                                  "(3 iterations, lr 0.1, l2 0.0001), then all of them (2 iterations, lr 0.01)")
