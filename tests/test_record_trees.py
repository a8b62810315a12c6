"""Records with variations come back as the same tree: nested variations keep their nesting, and a record read,
stored, written and stored again gives the same container (python-chess, the peer reader, as the oracle); a
record nested too deep or holding a NAG too long is a clear error."""

from __future__ import annotations

import io
import logging
import random

import chess
import chess.pgn
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import plybits
from plybits import pgntext
from plybits.annotations import MAX_DEPTH, MAX_NAG
from plybits.errors import InvalidRecordError, LimitExceededError, PlybitsError
from plybits.recordcoder import Number, Writer

logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)


def export(text: str) -> str:
    """python-chess's export of the game ``text`` as python-chess reads it."""
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and not game.errors, game
    return game.accept(chess.pgn.StringExporter(headers=False, variations=True, comments=True))


def round_trip(text: str, scheme: str = "rank") -> tuple[bytes, str, bytes]:
    """The container of ``text``, the record it decodes to, and that record's container."""
    first = plybits.encode("chess", scheme, record=text).data
    record = plybits.decode(first, format="record").record
    assert record is not None
    return first, record, plybits.encode("chess", scheme, record=record).data


# ------------------------------------------------------------------------------------------ issue 24, item 8


def test_alternatives_nested_in_a_variation_first_move_are_siblings_as_python_chess_reads_them() -> None:
    text = "1. e4 (1. d4 (1. d4 (1. d4))) e5 *"
    notes = pgntext.read(text, kind="PGN").notes
    assert [line.moves for line in notes.steps[0].variations] == [["d4"], ["d4"], ["d4"]]
    assert all(not line.steps for line in notes.steps[0].variations)
    first, record, again = round_trip(text)
    assert again == first
    assert export(record) == export(text)


def test_a_variation_nested_after_a_variation_second_move_stays_nested() -> None:
    text = "1. e4 e5 (1... c5 2. Nf3 (2. c3 d5 (2... Nf6)) 2... d6) 2. Nf3 *"
    notes = pgntext.read(text, kind="PGN").notes
    (c5,) = notes.steps[1].variations
    (c3,) = c5.steps[1].variations
    assert c3.moves == ["c3", "d5"] and [line.moves for line in c3.steps[1].variations] == [["Nf6"]]
    first, record, again = round_trip(text)
    assert again == first and export(record) == export(text)


# ------------------------------------------------------------------------------------------ issue 24, item 5


def test_variations_nested_a_thousand_deep_are_a_clear_error_at_full_fidelity() -> None:
    deep = "1. e4 " + "(1. d4 e5 " * 1000 + ")" * 1000 + " e5 *"
    with pytest.raises(InvalidRecordError, match=f"nested deeper than {MAX_DEPTH}") as caught:
        plybits.encode("chess", "rank", record=deep)
    assert caught.value.ply == 0
    moves = plybits.encode("chess", "rank", record=deep, fidelity="moves")  # dropped and counted, as any variation
    assert moves.dropped["variations"] == 1


def nested(depth: int, seed: int = 5) -> str:
    """A legal record of variations nested ``depth`` deep, each an alternative to the second move of the line it is in."""
    rng = random.Random(seed)
    while True:
        board = chess.Board()
        first = rng.choice(list(board.legal_moves))
        words = [board.san(first)]
        board.push(first)
        for level in range(depth + 1):  # after the first move of the line at this level
            legal = list(board.legal_moves)
            if len(legal) < 2:
                break
            reply, alternative = rng.sample(legal, 2)
            words.append(board.san(reply))
            if level == depth:
                return " ".join(words) + " )" * depth + " *"
            words += ["(", board.san(alternative)]
            board.push(alternative)


def test_variations_at_the_nesting_limit_are_kept() -> None:
    text = nested(MAX_DEPTH)
    assert text.count("(") == MAX_DEPTH
    first, record, again = round_trip(text)
    assert again == first and export(record) == export(text)


def test_a_nag_of_4301_digits_is_a_clear_error_that_does_not_echo_it() -> None:
    digits = "9" * 4301
    with pytest.raises(InvalidRecordError, match="NAG of 4301 digits is over the limit") as caught:
        plybits.encode("chess", "rank", record=f"1. e4 ${digits} e5 *")
    assert digits[:40] not in str(caught.value)
    moves = plybits.encode("chess", "rank", record=f"1. e4 ${digits} e5 *", fidelity="moves")
    assert moves.dropped["nags"] == 1


def test_the_largest_nag_the_section_codes_is_kept_and_one_more_is_refused() -> None:
    first, record, again = round_trip(f"1. e4 ${MAX_NAG} e5 *")
    assert again == first and f"${MAX_NAG}" in record
    with pytest.raises(InvalidRecordError, match="over the limit"):
        plybits.encode("chess", "rank", record=f"1. e4 ${MAX_NAG + 1} e5 *")


def test_a_number_outside_the_section_range_is_named_by_its_size_not_its_digits() -> None:
    with pytest.raises(LimitExceededError) as caught:
        Number().code(Writer(), 10 ** 4400)
    assert len(str(caught.value)) < 200


# ---------------------------------------------------------------------- the fixed point, python-chess's trees


@st.composite
def games(draw: st.DrawFn) -> chess.pgn.Game:
    """A random legal game with random variations (nested), comments and NAGs, built with python-chess."""
    game = chess.pgn.Game()
    if draw(st.booleans()):
        game.comment = draw(_comments)

    def grow(node: chess.pgn.GameNode, plies: int, depth: int) -> None:
        for _ in range(plies):
            board = node.board()
            legal = list(board.legal_moves)
            if not legal:
                return
            moves = draw(st.lists(st.sampled_from(legal), min_size=1, max_size=4 if depth < 3 else 1, unique=True))
            children = [node.add_variation(move) for move in moves]
            for child in children:
                if draw(st.integers(0, 4)) == 0:
                    child.comment = draw(_comments)
                if draw(st.integers(0, 5)) == 0:
                    child.nags = set(draw(st.lists(st.integers(0, 300), min_size=1, max_size=2)))
            for child in children[1:]:
                if draw(st.booleans()):
                    child.starting_comment = draw(_comments)
                grow(child, draw(st.integers(0, 4)), depth + 1)
            node = children[0]

    grow(game, draw(st.integers(1, 14)), 0)
    return game


_comments = st.text(st.sampled_from("ab [%]:.0 1é"), min_size=1, max_size=12).map(str.strip).filter(bool)


def render(game: chess.pgn.Game, nest: list[bool]) -> str:
    """``game``'s movetext, every move numbered; where ``nest`` says so (taken in turn), alternatives to a move are
    written nested, each inside the one before it after its first move (which python-chess reads as siblings)."""
    turns = iter(nest * 1000)

    def number(board: chess.Board) -> str:
        return f"{board.fullmove_number}{'.' if board.turn else '...'}"

    def line(first: chess.pgn.ChildNode, board: chess.Board, siblings: list[chess.pgn.ChildNode]) -> list[str]:
        words = [f"{{{first.starting_comment}}}"] if first.starting_comment else []
        node, board = first, board.copy()
        while True:
            words += [number(board), board.san(node.move), *(f"${nag}" for nag in sorted(node.nags))]
            words += [f"{{{node.comment}}}"] if node.comment else []
            words += alternatives(board, siblings)
            board.push(node.move)
            if not node.variations:
                return words
            node, siblings = node.variations[0], node.variations[1:]

    def alternatives(board: chess.Board, lines: list[chess.pgn.ChildNode]) -> list[str]:
        if len(lines) > 1 and next(turns):
            return ["(", *line(lines[0], board, lines[1:]), ")"]
        return [word for alternative in lines for word in ("(", *line(alternative, board, []), ")")]

    words = [f"{{{game.comment}}}"] if game.comment else []
    if game.variations:
        words += line(game.variations[0], game.board(), game.variations[1:])
    return " ".join([*words, "*"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(games(), st.lists(st.booleans(), min_size=1, max_size=4), st.sampled_from(["rank", "0x88"]))
def test_record_container_record_container_is_a_fixed_point(game: chess.pgn.Game, nest: list[bool],
                                                           scheme: str) -> None:
    for text in (str(game.accept(chess.pgn.StringExporter(headers=False))), render(game, nest), render(game, [True])):
        try:
            first, record, again = round_trip(text, scheme)
        except PlybitsError as err:  # nothing the generator makes is refused
            raise AssertionError(f"{text}: {err}") from None
        assert again == first, text
        assert export(record) == export(text), text


def test_the_service_answers_deep_nesting_and_a_long_nag_with_a_4xx_naming_them(client) -> None:  # type: ignore[no-untyped-def]
    deep = "1. e4 " + "(1. d4 e5 " * 1000 + ")" * 1000 + " e5 *"
    long_nag = "1. e4 $" + "9" * 4301 + " e5 *"
    for record, reason in ((deep, f"nested deeper than {MAX_DEPTH}"), (long_nag, "NAG of 4301 digits")):
        answer = client.post("/v1/encode", json={"game": "chess", "scheme": "rank", "record": record})
        assert answer.status_code == 422, answer.text
        assert reason in answer.json()["detail"] and "9" * 40 not in answer.text
