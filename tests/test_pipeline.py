"""One pipeline (issue 27): inputs opened and sniffed in one place, no import cycle in app/, the CLI's usage
errors about what an input is."""

from __future__ import annotations

import ast
import bz2
import gzip
import io
import lzma
import subprocess
import sys
from pathlib import Path

import pytest
import zstandard

from app import inputs
from app.cli import main
from plybits.container import read_uvarint, write_uvarint
from plybits.errors import InvalidDataError

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app"


def _app_imports(path: Path) -> set[str]:
    """The app modules ``path`` imports, at any depth of its code (a function's own import counts too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("app."))
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            if node.module == "app":
                found.update(f"app.{a.name}" for a in node.names)
            elif node.module.startswith("app."):
                found.add(node.module)
    return found


def test_app_has_no_import_cycle() -> None:
    """Every import in app/ points one way: the graph of app modules importing app modules has no cycle."""
    graph = {f"app.{p.stem}": _app_imports(p) for p in APP.glob("*.py")}
    graph = {name: {d for d in deps if d in graph and d != name} for name, deps in graph.items()}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(name: str) -> None:
        state[name] = 1
        path.append(name)
        for dep in sorted(graph[name]):
            if state.get(dep) == 1:
                cycle = path[path.index(dep):] + [dep]
                pytest.fail("import cycle in app/: " + " -> ".join(cycle))
            if dep not in state:
                visit(dep)
        path.pop()
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)
    assert graph["app.cli"] and graph["app.dataset"]  # the checker reads imports at all


def test_the_cycle_checker_sees_a_cycle(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    from app import b\n")
    assert _app_imports(tmp_path / "a.py") == {"app.b"}


TEXT = b'[Event "E"]\n\n1. e4 e5 *\n'


@pytest.mark.parametrize("pack", [gzip.compress, bz2.compress, lzma.compress,
                                  lambda d: zstandard.ZstdCompressor().compress(d)])
def test_compressed_inputs_are_told_by_their_magic_whatever_their_name(tmp_path: Path, pack: object) -> None:
    assert callable(pack)
    path = tmp_path / "games.txt"  # no compression suffix
    path.write_bytes(pack(TEXT))
    source, size = inputs.open_input(str(path))
    try:
        assert source.read() == TEXT and size is None
    finally:
        source.close()
    assert inputs.is_compressed(str(path))
    with inputs.open_url(str(path)) as stream:
        assert stream.read() == TEXT


def test_a_plain_input_is_read_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "games.pgn.gz"  # a suffix that lies
    path.write_bytes(TEXT)
    assert not inputs.is_compressed(str(path))
    with inputs.open_url(str(path)) as stream:
        assert stream.read() == TEXT
    source, size = inputs.open_input(str(path))
    source.close()
    assert size == len(TEXT)


def test_sniffing_asks_each_game() -> None:
    assert inputs.sniff("x.ndjson.zst", b"[").format == "ndjson"
    assert inputs.sniff("x", b' \n{"moves": []}').format == "ndjson"
    chess = inputs.sniff("x.pgn", TEXT)
    assert (chess.format, chess.game, chess.because) == ("records", "chess", "its SAN or UCI movetext")
    assert inputs.sniff("x.pgn", b'[Game "Chinese Chess"]\n\n1. e4 e5\n').game == "xiangqi"
    assert inputs.sniff("x.apgn", b"1. a1b2 i5h5\n").game == "abalone"
    assert inputs.sniff("x.txt", b"Ra1 Gb2c3 Yc1\n").game == "entropy"
    assert inputs.sniff("x.txt", b"UEIBAQ\n").format == "auto"


def test_a_xiangqi_pgn_with_a_variation_is_xiangqi() -> None:
    """Variation brackets are not moves: ``(1. c3c4)`` made the movetext unreadable as ICCS, and chess the guess."""
    head = b'[Event "V"]\n\n1. h2e2 (1. c3c4 h9g7) h9g7 2. h0g2 g6g5 3. b2d2 i9i8 {a note} 4. i0h0\n'
    seen = inputs.sniff("v.pgn", head)
    assert (seen.game, seen.because) == ("xiangqi", "its ICCS movetext")


def test_cli_encodes_a_xiangqi_pgn_with_a_variation_as_xiangqi(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "v.pgn"
    path.write_text('[Event "V"]\n\n1. h2e2 (1. c3c4 h9g7) h9g7 2. h0g2 g6g5 *\n')
    assert main(["encode", str(path), "-q"]) == 0
    assert '"game":"xiangqi"' in capsys.readouterr().out


def test_cli_names_the_game_with_its_article(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "g.apgn"
    path.write_text('[Notation "Aba-Pro"]\n\n1. a1b2 i5h5\n')
    assert main(["encode", str(path), "--game", "chess", "-q"]) == 2
    err = capsys.readouterr().err
    assert "looks like an abalone file (its APGN header), not chess" in err


def test_cli_decode_of_a_record_file_says_what_it_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``plybits decode some.pgn`` printed one "'data' is not base64url" line a line of the file; it is one usage
    error now, saying what decode reads."""
    path = tmp_path / "some.pgn"
    path.write_bytes(TEXT * 5)
    assert main(["decode", str(path), "-q"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert "looks like a chess record file" in captured.err and "NDJSON" in captured.err
    assert "base64url" in captured.err and "encode it first" in captured.err


def test_binary_containers_are_read_with_the_container_module_s_varints(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    games = tmp_path / "g.pgn"
    games.write_bytes(TEXT * 3)
    blob = tmp_path / "g.bin"
    assert main(["encode", str(games), "--to", "binary", "-o", str(blob), "-q"]) == 0
    assert main(["decode", str(blob), "-q"]) == 0
    assert capsys.readouterr().out.count('"result"') == 3
    cut = tmp_path / "cut.bin"
    cut.write_bytes(blob.read_bytes()[:-3])
    assert main(["decode", str(cut), "-q"]) == 1
    assert "ends inside a container" in capsys.readouterr().out


def test_read_uvarint_is_the_inverse_of_write_uvarint() -> None:
    for value in (0, 1, 127, 128, 300, 1 << 35):
        data = b"\x01" + write_uvarint(value) + b"\x00"
        assert read_uvarint(data, 1, "n") == (value, len(data) - 1)
        assert read_uvarint(data[:-2], 1, "n") is None or value < 128
    with pytest.raises(InvalidDataError, match="overlong"):
        read_uvarint(b"\x80\x00", 0, "n")
    with pytest.raises(InvalidDataError, match="longer than 10"):
        read_uvarint(b"\xff" * 11, 0, "n")


def test_the_cli_imports_no_dataset_machinery_to_encode() -> None:
    """Reading inputs needs neither pyarrow nor dask: ``plybits encode`` starts without them."""
    code = ("import sys; from app import inputs, cli; "
            "print(any(m.split('.')[0] in ('pyarrow', 'dask', 'distributed') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": f"{ROOT}:{ROOT / 'codecs'}", "PLYBITS_PURE": "1"}).stdout
    assert out.strip() == "False"


def test_a_source_read_in_pieces_gives_the_same_bytes() -> None:
    data = zstandard.ZstdCompressor().compress(TEXT * 1000)
    reader = inputs.ZstdReader(io.BytesIO(data), "mem")
    got = b"".join(iter(lambda: reader.read(777), b""))
    assert got == TEXT * 1000


def test_a_container_header_is_read_without_unpacking_it() -> None:
    """The batch routes a decode line by its header (app.batch.heavy_plies); the decode is the one unpack."""
    import plybits
    from plybits import container, registry

    record = '[Event "E"]\n\n1. e4 {a note} e5 (1... c5) 2. Nf3 *\n'
    for scheme, fidelity in (("0x88", "full"), ("rank", "moves")):
        data = plybits.encode("chess", scheme, record=record, fidelity=fidelity).data
        box = container.unpack(data, max_plies=100)
        assert container.read_header(data) == (box.codec_id, box.plies, len(box.record or b""))
        assert registry.scheme_by_id(box.codec_id).name == scheme
    tagged = plybits.encode("chess", "0x88", moves=["e4"], tags={"White": "A"}, start="standard").data
    tags_only = container.unpack(tagged, max_plies=100).record  # moves fidelity: a section of the tags alone
    assert tags_only and container.read_header(tagged)[1:] == (1, len(tags_only))
    with pytest.raises(InvalidDataError, match="magic"):
        container.read_header(b"XX\x01")
    with pytest.raises(InvalidDataError, match="missing"):
        container.read_header(tagged[:5])
