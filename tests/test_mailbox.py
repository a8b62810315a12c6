from plybits.mailbox import OFF, Geometry


def chess_like() -> Geometry:
    return Geometry(8, 8, 2, name=lambda f, r: "abcdefgh"[f] + str(r + 1))


def test_indices_names_and_coordinates_agree():
    g = chess_like()
    assert len(g.squares) == 64
    for index in g.squares:
        assert g.parse(g.name(index)) == index
        assert g.index(*g.coords(index)) == index
    assert g.name(g.squares[0]) == "a1" and g.name(g.squares[-1]) == "h8"


def test_border_cells_are_off_and_a_knight_jump_never_wraps():
    g = chess_like()
    cells = g.empty_cells()
    assert sum(cell == OFF for cell in cells) == g.size - 64
    jumps = [g.offset(df, dr) for df, dr in ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))]
    h1 = g.parse("h1")
    landing = [g.name(h1 + j) for j in jumps if cells[h1 + j] != OFF]
    assert sorted(landing) == ["f2", "g3"]


def test_rays_stop_at_the_edge():
    g = chess_like()
    assert [g.name(i) for i in g.rays(g.parse("a1"), g.offset(1, 1))] == [
        "b2", "c3", "d4", "e5", "f6", "g7", "h8"
    ]


def test_non_rectangular_boards_mark_missing_cells_off():
    hexagon = Geometry(3, 3, 1, name=lambda f, r: f"{r}{f}", exists=lambda f, r: abs(f - r) <= 1)
    assert len(hexagon.squares) == 7
    cells = hexagon.empty_cells()
    assert cells[hexagon.index(2, 0)] == OFF and cells[hexagon.index(1, 1)] is None
