"""Board pictures: every game's start renders to valid SVG with the right pieces; /v1/render and /v1/replay."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from plybits import registry, svg
from plybits.errors import InvalidMoveError, PlybitsError, UnsupportedError

NS = "{http://www.w3.org/2000/svg}"

START_PIECES = {
    # Hand-counted: 16 + 16 chessmen; 16 + 16 xiangqi pieces; 14 + 14 marbles in each Abalone layout; no chip yet.
    ("chess", None): 32,
    ("xiangqi", None): 32,
    ("abalone", None): 28,
    ("abalone", "belgian-daisy"): 28,
    ("abalone", "german-daisy"): 28,
    ("entropy", None): 0,
}


def parse(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == NS + "svg"
    return root


def tagged(root: ET.Element, cls: str) -> list[ET.Element]:
    """Elements whose class list holds ``cls``."""
    return [e for e in root.iter() if cls in (e.get("class") or "").split()]


def pieces(root: ET.Element) -> dict[str, str]:
    """cell name -> symbol of every piece element."""
    found = tagged(root, "piece")
    cells = {e.get("data-cell"): e.get("data-symbol") for e in found}
    assert len(cells) == len(found), "two pieces on one cell"
    return cells


def registered() -> list[str]:
    return [game.name for game in registry.games()]


@pytest.mark.parametrize("game", ["chess", "xiangqi", "abalone", "entropy"])
def test_every_start_renders_to_svg_with_its_pieces(game):
    if game not in registered():
        pytest.skip(f"game {game!r} is not registered in this build yet")
    for (name, start), count in START_PIECES.items():
        if name != game:
            continue
        root = parse(svg.render(game, start))
        assert len(pieces(root)) == count, (game, start)
        assert root.get("viewBox")


def test_every_registered_game_has_a_drawing():
    for game in registry.games():
        root = parse(svg.render(game.name, None))
        assert len(tagged(root, "piece")) == len(game.position(None).occupied())


def test_chess_pieces_match_python_chess():
    chess = pytest.importorskip("chess")
    board = chess.Board()
    for san in "e4 e5 Nf3 Nc6 Bb5 a6 Bxc6 dxc6 O-O f6 d4 exd4 Nxd4 c5 Nb3 Qxd1 Rxd1".split():
        board.push_san(san)
    cells = pieces(parse(svg.render("chess", board.fen())))
    expected = {chess.square_name(sq): piece.symbol() for sq, piece in board.piece_map().items()}
    assert cells == expected


def test_xiangqi_pieces_have_their_chinese_names():
    if "xiangqi" not in registered():
        pytest.skip("game 'xiangqi' is not registered in this build yet")
    root = parse(svg.render("xiangqi", None))
    names = {}
    for piece in tagged(root, "piece"):
        names.setdefault(piece.get("data-symbol"), set()).add("".join(piece.itertext()))
    assert names == {
        "R": {"車"}, "N": {"馬"}, "B": {"相"}, "A": {"仕"}, "K": {"帥"}, "C": {"炮"}, "P": {"兵"},
        "r": {"車"}, "n": {"馬"}, "b": {"象"}, "a": {"士"}, "k": {"將"}, "c": {"砲"}, "p": {"卒"},
    }
    assert pieces(root)["e0"] == "K" and pieces(root)["h7"] == "c"  # ICCS: rank 0 on red's side
    text = "".join(root.itertext())
    assert "楚" in text and "界" in text  # the river


def test_xiangqi_lines_leave_the_river_open_and_cross_the_palaces():
    if "xiangqi" not in registered():
        pytest.skip("game 'xiangqi' is not registered in this build yet")
    root = parse(svg.render("xiangqi", None))
    lines = [e for e in tagged(root, "lines")[0] if e.tag == NS + "line"]
    horizontal = [e for e in lines if e.get("y1") == e.get("y2")]
    vertical = [e for e in lines if e.get("x1") == e.get("x2")]
    diagonal = [e for e in lines if e.get("x1") != e.get("x2") and e.get("y1") != e.get("y2")]
    assert len(horizontal) == 10  # one per rank
    assert len(vertical) == 2 + 7 * 2  # the edge files whole, the inner ones cut at the river
    assert len(diagonal) == 4  # two crosses, one per palace


def test_abalone_draws_61_cells_and_the_ejected_counts():
    if "abalone" not in registered():
        pytest.skip("game 'abalone' is not registered in this build yet")
    # Hand-made: 11 white marbles on the board and 3 ejected, 13 black and 1 ejected.
    root = parse(svg.render("abalone", "ww3/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbb1 b 1 3 5"))
    counts = {e.get("data-colour"): int(e.get("data-count")) for e in root.iter() if e.get("data-count")}
    assert counts == {"black": 1, "white": 3}
    assert len(tagged(root, "cell")) == 61
    marbles = pieces(root)
    assert sorted(marbles.values()).count("w") == 11 and sorted(marbles.values()).count("b") == 13
    assert marbles["i5"] == "w" and "i7" not in marbles and marbles["a4"] == "b" and "a5" not in marbles


def test_entropy_draws_chips_and_each_rounds_score():
    if "entropy" not in registered():
        pytest.skip("game 'entropy' is not registered in this build yet")
    position = registry.get_game("entropy").position(None)
    # Round 1 by hand: row k all of colour k, every chip left where placed. Each row is a one-colour
    # line of 7: windows of length n (8 - n of them) all score, 2*6 + 3*5 + 4*4 + 5*3 + 6*2 + 7*1 = 77;
    # every column holds 7 different colours and scores 0. The round scores 7 * 77 = 539.
    for rank in range(7):
        for file in range(7):
            position.push(position.parse_move(f"{'RGOBYWK'[rank]}{'abcdefg'[file]}{rank + 1}"))
    root = parse(svg.render("entropy", position.fen()))
    text = " ".join(t for e in tagged(root, "scores") for t in e.itertext())
    assert "round 1: 539" in text and "round 2: —" in text
    assert pieces(parse(svg.render("entropy", "7/7/7/3R3/7/7/G6 1 3 -"))) == {"d4": "R", "a1": "G"}


def test_last_move_flip_and_size():
    text = svg.render("chess", None, last="e2e4", flip=True, size=240)
    root = parse(text)
    assert root.get("width") == "240" and root.get("height") == "240"
    assert len(tagged(root, "last")) == 2
    plain = parse(svg.render("chess", None))
    assert plain.get("width") is None and plain.get("viewBox") == root.get("viewBox")
    # flipped: the white king (e1) is drawn where black's king (e8) stands unflipped
    def king(r: ET.Element, symbol: str) -> tuple[str | None, str | None]:
        e = next(p for p in tagged(r, "piece") if p.get("data-symbol") == symbol)
        return e.get("x"), e.get("y")

    assert king(root, "K")[1] == king(plain, "k")[1]


def test_bad_input_raises_library_errors():
    with pytest.raises(InvalidMoveError):
        svg.render("chess", None, last="z9z8")
    with pytest.raises(InvalidMoveError):
        svg.render("chess", None, last="--")
    with pytest.raises(UnsupportedError):
        svg.render("chess", None, size=10_000)
    with pytest.raises(PlybitsError):
        svg.render("chess", "not a fen")
    with pytest.raises(PlybitsError):
        svg.render("go", None)


def test_text_is_escaped():
    d = svg.Drawing(10, 10, title='<a & "b">')
    d.text(1, 1, "<&>", class_="x'y")
    root = parse(d.to_string())
    assert root.find(NS + "title").text == '<a & "b">'
    assert root.find(NS + "text").text == "<&>" and root.find(NS + "text").get("class") == "x'y"


def test_render_endpoint(client):
    response = client.get("/v1/render", params={"game": "chess", "last": "e2e4", "size": 300})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    assert len(tagged(parse(response.text), "piece")) == 32
    for params in ({"game": "chess", "position": "8/8/8"}, {"game": "nope"}, {"game": "chess", "size": 3},
                   {"game": "chess", "last": "q0"}):
        bad = client.get("/v1/render", params=params)
        assert bad.status_code == 422, params
        assert bad.headers["content-type"] == "application/problem+json"


def test_replay_endpoint_gives_every_position_and_stops_at_a_bad_ply(client):
    chess = pytest.importorskip("chess")
    body = client.post("/v1/replay", json={"game": "chess", "record": "1. e4 e5 2. Nf3 Nc6 3. O-O"}).json()
    assert body["error"]["ply"] == 4 and body["error"]["move"] == "O-O"
    board = chess.Board()
    for san, position, last in zip(["e4", "e5", "Nf3", "Nc6"], body["positions"], body["last"], strict=True):
        move = board.push_san(san)
        assert position == board.fen() and last == move.uci()
    null = client.post("/v1/replay", json={"game": "chess", "moves": ["e4", "--", "d4"]}).json()
    assert null["last"] == ["e2e4", "", "d2d4"]
    after_null = client.get("/v1/render", params={"game": "chess", "position": null["positions"][1], "last": ""})
    assert after_null.status_code == 200
    good = client.post("/v1/replay", json={"game": "chess", "moves": ["f3", "e5", "g4", "Qh4"]}).json()
    assert good["status"]["status"] == "checkmate" and good["moves"] == ["f3", "e5", "g4", "Qh4#"]


def test_playground_page_and_static_files(client):
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "/static/playground.js" in page.text and "http" not in page.text.replace("http://www.w3.org", "")
    assert client.get("/static/playground.js").status_code == 200
    assert client.get("/static/samples.json").json()["chess"]
    assert client.get("/static/nothing.js").status_code == 404


def test_samples_are_valid_games(client):
    samples = client.get("/static/samples.json").json()
    games = registered()
    for game, listed in samples.items():
        if game not in games:
            continue
        for sample in listed:
            body = client.post("/v1/validate", json={"game": game, "record": sample["record"]}).json()
            assert body["valid"] or "illegal" in sample["name"].lower(), (game, sample["name"], body)
