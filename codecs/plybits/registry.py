"""The codecs this build knows, keyed by game name and by (game, scheme); the service lists and dispatches from here.

Games are found one way: :data:`GAME_PACKAGES` lists the game packages, and importing a package registers its
game and every scheme of it (see docs/architecture.md).
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any, TypeAlias

from plybits.errors import UnknownCodecError
from plybits.game import Game, Scheme

AnyGame: TypeAlias = Game[Any]
"""A game of any position class: what the registry hands out by name."""
AnyScheme: TypeAlias = Scheme[Any, Any]
"""A scheme of any game: what the registry hands out by name or codec id."""

GAME_PACKAGES = ("plybits.chess", "plybits.xiangqi", "plybits.abalone", "plybits.entropy")
"""The game packages, in listing order; each, if present, registers its game and its schemes when imported."""

_games: dict[str, AnyGame] = {}
_schemes: dict[tuple[str, str], AnyScheme] = {}
_by_id: dict[int, AnyScheme] = {}
_loaded = False


def register(game: AnyGame, *schemes: AnyScheme) -> None:
    """Make a game known by its name, and its schemes as :func:`register_scheme` does (what a game package's
    ``__init__`` does, once).

    :raises ValueError: if the game, a scheme or a codec id is known already, or a scheme is of another game
        (nothing is registered then).
    """
    if game.name in _games:
        raise ValueError(f"game {game.name!r} registered twice")
    for n, scheme in enumerate(schemes):
        if scheme.game != game.name:
            raise ValueError(f"scheme {scheme.name!r} is of game {scheme.game!r}, not {game.name!r}")
        _check_new(scheme, schemes[:n])
    _games[game.name] = game
    for scheme in schemes:
        register_scheme(scheme)


def register_scheme(scheme: AnyScheme) -> None:
    """Make a scheme known by (game, name) and by its container codec id.

    :raises ValueError: if its name or codec id is taken.
    """
    _check_new(scheme)
    _schemes[scheme.game, scheme.name] = scheme
    _by_id[scheme.codec_id] = scheme


def _check_new(scheme: AnyScheme, also: tuple[AnyScheme, ...] = ()) -> None:
    """Refuse a scheme whose (game, name) or codec id is registered already or taken by one of ``also``."""
    key = (scheme.game, scheme.name)
    if key in _schemes or key in [(s.game, s.name) for s in also]:
        raise ValueError(f"scheme {key!r} registered twice")
    taken = {**{s.codec_id: s for s in also}, **_by_id}
    if scheme.codec_id in taken:
        raise ValueError(f"codec id 0x{scheme.codec_id:02x} of {key!r} already used by {taken[scheme.codec_id]!r}")


def unregister_game(name: str) -> None:
    """Forget the game ``name`` and its schemes (for a game registered by a test or a plug-in, undone)."""
    _games.pop(name, None)
    for key in [key for key in _schemes if key[0] == name]:
        del _by_id[_schemes.pop(key).codec_id]


def _load() -> None:
    global _loaded
    if _loaded:
        return
    # A package that fails to import raises here, and again on the next call: never a half-loaded registry.
    for package in GAME_PACKAGES:
        if importlib.util.find_spec(package) is None:
            continue
        importlib.import_module(package)
    _loaded = True


def _game_order(name: str) -> int:
    """Games list in GAME_PACKAGES order, whatever order their modules happened to be imported in."""
    packages = [p.rsplit(".", 1)[1] for p in GAME_PACKAGES]
    return packages.index(name) if name in packages else len(packages)


def games() -> list[AnyGame]:
    """Every registered game, in a fixed order."""
    _load()
    return sorted(_games.values(), key=lambda g: _game_order(g.name))


def schemes() -> list[AnyScheme]:
    """Every registered scheme, grouped by game."""
    _load()
    return sorted(_schemes.values(), key=lambda s: (_game_order(s.game), s.codec_id))


def get_game(name: str) -> AnyGame:
    """The game called ``name``.

    :raises UnknownCodecError: if there is none.
    """
    _load()
    try:
        return _games[name]
    except KeyError:
        known = ", ".join(g.name for g in games())
        raise UnknownCodecError(f"unknown game {name!r}; known: {known}") from None


def get_scheme(game: str, name: str) -> AnyScheme:
    """The scheme ``name`` of ``game``.

    :raises UnknownCodecError: if there is none.
    """
    get_game(game)
    try:
        return _schemes[game, name]
    except KeyError:
        known = ", ".join(s for g, s in _schemes if g == game)
        raise UnknownCodecError(f"unknown scheme {name!r} for {game}; known: {known}") from None


def scheme_by_id(codec_id: int) -> AnyScheme:
    """The scheme a container's codec byte names.

    :raises UnknownCodecError: if no scheme has that id.
    """
    _load()
    try:
        return _by_id[codec_id]
    except KeyError:
        raise UnknownCodecError(f"unknown codec id 0x{codec_id:02x}") from None
