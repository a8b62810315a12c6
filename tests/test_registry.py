import pytest

from plybits import registry
from plybits.errors import UnknownCodecError

# The codec table of docs/format.md: released ids never change.
CODEC_IDS = {
    ("chess", "0x88"): 0x01, ("chess", "rank"): 0x02,
    ("xiangqi", "xq10"): 0x11, ("xiangqi", "rank"): 0x12,
    ("abalone", "abapro"): 0x21, ("abalone", "rank"): 0x22,
    ("entropy", "e13"): 0x31, ("entropy", "rank"): 0x32,
}


def test_every_game_and_scheme_is_registered_with_its_documented_id():
    assert {(s.game, s.name): s.codec_id for s in registry.schemes()} == CODEC_IDS
    assert [g.name for g in registry.games()] == ["chess", "xiangqi", "abalone", "entropy"]


def test_lookups_by_name_and_id_agree():
    for (game, name), codec_id in CODEC_IDS.items():
        assert registry.scheme_by_id(codec_id) is registry.get_scheme(game, name)


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda: registry.get_game("go"), "unknown game 'go'; known: chess, xiangqi"),
        (lambda: registry.get_scheme("chess", "xq10"), "unknown scheme 'xq10' for chess; known: 0x88, rank"),
        (lambda: registry.scheme_by_id(0x7F), "unknown codec id 0x7f"),
    ],
)
def test_unknown_names_and_ids_are_named_with_what_is_known(call, message):
    with pytest.raises(UnknownCodecError, match=message.replace("(", r"\(")):
        call()


def test_a_scheme_cannot_take_a_used_id_or_name():
    chess_0x88 = registry.get_scheme("chess", "0x88")
    with pytest.raises(ValueError, match="registered twice"):
        registry.register_scheme(chess_0x88)
    with pytest.raises(ValueError, match="registered twice"):
        registry.register(registry.get_game("chess"))


def test_register_takes_a_game_and_its_schemes_whole_or_not_at_all():
    """A refused scheme leaves nothing half-registered: neither the game nor the schemes before it."""
    chess, chess_0x88 = registry.get_game("chess"), registry.get_scheme("chess", "0x88")

    class Other(type(chess)):
        name = "other-chess"

    with pytest.raises(ValueError, match="is of game 'chess', not 'other-chess'"):
        registry.register(Other(), chess_0x88)
    assert "other-chess" not in [g.name for g in registry.games()]


def test_listing_order_does_not_depend_on_import_order():
    import subprocess
    import sys

    script = "import plybits.entropy, plybits.abalone; from plybits import registry; " \
             "print(','.join(g.name for g in registry.games()))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "chess,xiangqi,abalone,entropy"


def test_games_and_schemes_declare_what_the_service_asks_of_them():
    """The seed scheme, the heavy schemes and the drawing are declared on the classes, not found by name."""
    from plybits.records import seed_scheme

    assert {g.name: seed_scheme(g.name) for g in registry.games()} == {
        "chess": "0x88", "xiangqi": "xq10", "abalone": "abapro", "entropy": "e13"}
    assert {(s.game, s.name) for s in registry.schemes() if s.heavy} == {
        ("chess", "rank"), ("xiangqi", "rank"), ("abalone", "rank"), ("entropy", "rank")}
    for game in registry.games():
        drawing = game.renderer
        assert drawing is not None and drawing.LAST_NOTATION in game.notations


def test_decode_takes_the_container_a_peek_already_checked():
    import plybits
    from plybits.records import peek, unpack

    data = plybits.encode("chess", "0x88", moves=["e4", "e5", "Nf3"], tags={"Event": "x"}).data
    box = unpack(data)
    assert peek(box) == peek(data) == ("chess", "0x88", 3)
    assert plybits.decode(box, notation="uci") == plybits.decode(data, notation="uci")
    assert plybits.decode(box).moves == ["e4", "e5", "Nf3"]
