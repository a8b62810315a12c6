"""The record section's adaptive models at their priors (what is usual), copied once and taken back to them after
each section (:func:`section_models`), its flags' contexts, and the state it predicts from
(:mod:`plybits.recordsection`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from plybits import recorddictionary as dictionary
from plybits.game import Position
from plybits.recordcoder import MAX_NUMBER_BITS, Bits, Number, Signed, Text, Tree, byte_tree
from plybits.recordvalues import BYTE_CLASSES, ClassedText, Words


class FinalPosition:
    """The final position's string, worked out only when a tag asks for it (``CurrentPosition``)."""

    def __init__(self, start: Position[Any], moves: Sequence[Any], final: Position[Any] | None) -> None:
        self.start, self.moves, self.final = start, moves, final
        self.text: str | None = None
        self.texts: list[str] | None = None

    def fen(self) -> str:
        if self.text is None:
            if self.final is None:
                self.final = self.start.copy()
                for move in self.moves:
                    self.final.push(move)
            self.text = self.final.fen()
        return self.text

    def sans(self) -> list[str]:
        """The first :data:`MOVES_SUFFIX_PLIES` moves in the game's default notation, without check marks."""
        if self.texts is None:
            position = self.start.copy()
            self.texts = []
            for move in self.moves[:MOVES_SUFFIX_PLIES]:
                self.texts.append(position.move_text(move, None).rstrip("+#"))
                position.push(move)
        return self.texts

    def eco_start(self) -> int:
        """The class of the game's first two plies in :data:`recorddictionary.ECO_STARTS` (version 3's ECO context)."""
        moves = self.moves
        if not moves:
            return 0
        sans = self.texts
        first = sans[0] if sans is not None else self.start.move_text(moves[0], None).rstrip("+#")
        if len(moves) > 1 and first in _TWO_PLY_FIRSTS:  # the second ply is read only where a class names it
            if sans is not None:
                second = sans[1]
            else:
                position = self.start.copy()
                position.push(moves[0])
                second = position.move_text(moves[1], None).rstrip("+#")
            found = _ECO_STARTS.get(first + " " + second, -1)
            if found >= 0:
                return found
        return _ECO_STARTS.get(first, ECO_OTHER_START)

    def moves_text(self, first: int, last: int) -> str | None:
        """Plies ``first`` to ``last`` (0-based, from the start) as chess.com's opening URLs write them
        (``2.Nf3-d6``, ``3...c5-4.Bc4``), or ``None`` if the game has not that many or starts off the first move."""
        sans = self.sans()
        if last >= len(sans) or not self.moves_from_one():
            return None
        words = []
        for ply in range(first, last + 1):
            number = ply // 2 + 1
            if ply % 2 == 0:
                words.append(f"{number}.{sans[ply]}")
            else:
                words.append(f"{number}...{sans[ply]}" if ply == first else sans[ply])
        return "-".join(words)

    def moves_from_one(self) -> bool:
        """Whether the game starts with the first mover's move 1 (a FEN's ``w`` and ``1``)."""
        fields = self.start.fen().split(" ")
        return len(fields) == 6 and fields[1] == "w" and fields[5] == "1"


MOVES_SUFFIX_PLIES: Final = 40
"""The opening plies an opening URL's moves are looked for in (version 2)."""


def moves_suffix(text: str, final: FinalPosition) -> tuple[int, int] | None:
    """The plies ``(first, last)`` of the game that ``text`` ends with after a ``-`` and something before it, the
    smallest ``last`` then the smallest ``first``; ``None`` if it ends with none."""
    if "." not in text:
        return None
    for last in range(MOVES_SUFFIX_PLIES):
        for first in range(last + 1):
            suffix = final.moves_text(first, last)
            if suffix is None:
                return None
            if len(text) > len(suffix) + 1 and text.endswith(suffix) and text[-len(suffix) - 1] == "-":
                return first, last
    return None


class Priors:
    """Every adaptive model of the record section at its priors, which say what is usual: built once per section
    version (:func:`model_priors`), copied by each section's :class:`Models`. From version 3 the priors of
    :data:`recordpriors.PRIORS`, measured on public games, replace the hand-set ones where they were measured."""

    def __init__(self, version: int = 2) -> None:
        self.flags = Bits(64)
        self.count = Number(8)
        self.text = Text(byte_tree(dictionary.byte_weights()))
        self.comment_text = Text(byte_tree(dictionary.byte_weights()))
        self.words = Words(self.text)
        self.tag_name = Number(2)
        self.typed = Bits(16)
        self.small = Number(16)
        self.signed = Signed(16)
        self.rest = Tree(2, 3 * (1 + len(dictionary.PREFIXES)))
        self.prefix = Number(1 + len(dictionary.PREFIXES))
        self.ids = Number()
        self.nag = Tree(8)
        self.skeleton_index = Number(2)
        self.part = Tree(2, 4)
        self.precision = Tree(2, 5)
        self.clock = Signed(32, shared=True)
        self.pace_clock = Signed(32, shared=True)
        self.pace_precision = Tree(2, 25)
        self.emt = Number(13)
        self.eval = Signed(14)
        self.mate = Signed(2)
        self.plies = Number()
        self.size = Number()
        self.player = ClassedText()
        self.elo = Tree(ELO_HIGH_BITS)
        self.result = Tree(2)
        self.control = Tree(5, CONTROL_CONTEXTS)
        self.eco = Tree(3, ECO_CONTEXTS)
        self.eco_number = Tree(7, ECO_CONTEXTS * 5)
        self.hand_set()
        if version >= 3:
            self.measured()

    def hand_set(self) -> None:
        """The priors of versions 1 and 2, set by hand (and the version-2 clocks' measured ones)."""
        flags = self.flags
        for ctx, zero in FLAG_PRIORS:
            flags.prior(ctx, zero)
        for ctx in range(16):
            self.typed.prior(ctx, 60)
        # what follows a prefix: after none, text; after a URL's "/", an identifier; after a whole value, nothing
        for node, zero in ((1, 8), (3, 8), (4 + 1, 8), (4 + 3, 56), (8 + 1, 60), (8 + 2, 60)):
            self.rest.bits.prior(node, zero)
        self.tag_name.unary.prior(MAX_NUMBER_BITS, 56)  # the first successor
        for j, zero in enumerate((8, 8, 16, 40)):  # a tag's text (a name, say) is of 7 to 14 bytes
            self.text.length.unary.prior(j, zero)
        count = self.count  # a step has as many comments as the one before (none: context 0, one: context 1)
        count.unary.prior(0, 60, 4)
        for ctx in (1, 2, 3):
            count.unary.prior(ctx * MAX_NUMBER_BITS, 4, 4)
            count.unary.prior(ctx * MAX_NUMBER_BITS + 1, 60, 4)
            count.mantissa.prior((ctx * MAX_NUMBER_BITS + 1) * 2, 60, 4)
        for ctx in range(32):  # a clock: time spent near the same side's last (its bit length is the context)
            self.clock.sign.prior(ctx, 56)
            last = (ctx & 15) - 1
            for j in range(MAX_NUMBER_BITS):
                self.clock.magnitude.unary.prior(ctx * MAX_NUMBER_BITS + j,
                       32 if last < 0 else 13 if j < last - 1 else 32 if j <= last else 48, 1)
        pace = self.pace_clock  # version 2: the shapes measured on lichess and chess.com games (CLOCK_PRIORS)
        for ctx, (sign, unary) in enumerate(CLOCK_PRIORS):
            pace.sign.prior(ctx, sign, CLOCK_PRIOR_SEEN)
            for j, zero in enumerate(unary):
                pace.magnitude.unary.prior(ctx * MAX_NUMBER_BITS + j, zero, CLOCK_PRIOR_SEEN)
        for index, zero in CLOCK_MANTISSA_PRIORS:
            pace.magnitude.mantissa.prior(index, zero, CLOCK_PRIOR_SEEN)
        for index, zero in PRECISION_PRIORS:
            self.pace_precision.bits.prior(index, zero, PRECISION_PRIOR_SEEN)

    def measured(self) -> None:
        """Version 3's priors: each player name's class trees start as the tags' text tree; then every context that
        :data:`recordpriors.PRIORS` holds starts at its measured probability, as seen as often as it says."""
        from plybits.recordpriors import PRIORS

        self.signed.sign.prior(2, 60)  # a date's year is seldom after YEAR_ORIGIN
        for ctx in range(3, 3 * (1 + len(dictionary.PREFIXES))):  # each tag's rest kinds start as version 2's
            for node in range(1, 4):
                self.rest.bits.state[(ctx << 2) + node] = self.rest.bits.state[((ctx % 3) << 2) + node]
        start = self.text.tree.state
        trees = self.player.trees.bits
        for k in range(BYTE_CLASSES):
            for node in range(256):
                trees.state[(k << 8) + node] = start[node]
        banks = model_banks(self)
        for path, entries in PRIORS.items():
            bits = banks[path]
            for ctx, p, seen in entries:
                bits.set(ctx, p, seen)


def model_banks(models: Any) -> dict[str, Bits]:
    """The context banks of a :class:`Priors` (or a :class:`Models`' copies) by path (``"prefix.unary"``, ...)."""
    banks: dict[str, Bits] = {}
    for name in MODEL_NAMES:
        model = getattr(models, name, None)
        if model is None:
            model = getattr(models, f"_{name}_copy", None)
        if model is None:
            continue
        for part, bits in _model_bits(model):
            banks[f"{name}{part}"] = bits
    return banks


def _model_bits(model: Any) -> list[tuple[str, Bits]]:
    if isinstance(model, Bits):
        return [("", model)]
    if isinstance(model, Number):
        return [(".unary", model.unary), (".mantissa", model.mantissa)]
    if isinstance(model, Signed):
        return [(".sign", model.sign), (".magnitude.unary", model.magnitude.unary),
                (".magnitude.mantissa", model.magnitude.mantissa)]
    if isinstance(model, Tree):
        return [("", model.bits)]
    if isinstance(model, Text):
        return [(".length.unary", model.length.unary), (".length.mantissa", model.length.mantissa), (".tree", model.tree)]
    if isinstance(model, ClassedText):
        return [(".length.unary", model.length.unary), (".length.mantissa", model.length.mantissa),
                (".trees", model.trees.bits)]
    if isinstance(model, Words):
        return [(".piece", model.piece.bits), (".index.unary", model.index.unary),
                (".index.mantissa", model.index.mantissa)]
    raise TypeError(f"no banks known for {type(model).__name__}")


MODEL_NAMES = (
    "flags", "count", "text", "comment_text", "words", "tag_name", "typed", "small", "signed", "rest", "prefix",
    "ids", "nag", "skeleton_index", "part", "precision", "clock", "pace_clock", "pace_precision", "emt", "eval",
    "mate", "plies", "size", "player", "elo", "result", "control", "eco", "eco_number",
)
"""Every model of :class:`Priors`, by attribute."""
ELO_HIGH_BITS: Final = 7
"""Version 3 codes an Elo not predicted from the other side's as its high 7 bits (a tree), then its low 5 uniform."""
CONTROL_CONTEXTS: Final = 8
"""Version 3's time controls are coded by index under the speed the ``Event`` tag names (:func:`event_speed`)."""
ECO_OTHER_START: Final = 14
"""The ECO context of a game whose first move :data:`recorddictionary.ECO_STARTS` does not name."""
_ECO_STARTS: Final = dictionary.ECO_STARTS
_TWO_PLY_FIRSTS: Final = frozenset(start.split(" ")[0] for start in _ECO_STARTS if " " in start)
"""The first plies after which :data:`recorddictionary.ECO_STARTS` names two-ply starts (``e4``, ``d4``)."""
ECO_CONTEXTS: Final = 16
"""Version 3's ECO codes are coded under the class of the game's first two plies (:data:`ECO_STARTS`)."""


PRIOR_MODELS: dict[int, Priors] = {}


def model_priors(version: int) -> Priors:
    """The models at the priors of section ``version`` (1 and 2 share theirs), built when first asked for."""
    key = min(version, 3)
    priors = PRIOR_MODELS.get(key)
    if priors is None:
        priors = PRIOR_MODELS[key] = Priors(key)
    return priors


POOL_SIZE = 8
"""Most sets of models kept for reuse per section version (:func:`section_models`)."""
_POOLS: dict[int, list[Models]] = {}


def section_models(version: int) -> Models:
    """The models of a section of ``version`` at their priors: a set a section before it gave back
    (:func:`release_models`), else a new one."""
    pool = _POOLS.get(version)
    if pool:
        try:
            return pool.pop()
        except IndexError:  # another thread took the last one
            pass
    return Models(version)


def release_models(models: Models) -> None:
    """Give back the models of a section that ended (not of one that failed: those are dropped), taken back to
    their priors for the next section (only the contexts that adapted: a set is copied once, not per section)."""
    models.restore()
    pool = _POOLS.setdefault(models.version, [])
    if len(pool) < POOL_SIZE:
        pool.append(models)


class Models:
    """Every adaptive model of one section, at its priors when the section starts: a copy of its prior
    (:class:`Priors`), made on its first use (a section of tags only copies none of the comment models), and taken
    back to the priors by :meth:`restore` for the next section."""

    def __init__(self, version: int) -> None:
        self.version = version
        self.priors = model_priors(version)
        self.banks: list[tuple[Bits, Bits]] = []
        """Each copied bank with its prior's (what :meth:`restore` restores)."""
        self._flags_copy: Bits | None = None
        self._count_copy: Number | None = None
        self._text_copy: Text | None = None
        self._comment_text_copy: Text | None = None
        self._words_copy: Words | None = None
        self._tag_name_copy: Number | None = None
        self._typed_copy: Bits | None = None
        self._small_copy: Number | None = None
        self._signed_copy: Signed | None = None
        self._rest_copy: Tree | None = None
        self._prefix_copy: Number | None = None
        self._ids_copy: Number | None = None
        self._nag_copy: Tree | None = None
        self._skeleton_index_copy: Number | None = None
        self._part_copy: Tree | None = None
        self._precision_copy: Tree | None = None
        self._clock_copy: Signed | None = None
        self._pace_clock_copy: Signed | None = None
        self._pace_precision_copy: Tree | None = None
        self._emt_copy: Number | None = None
        self._eval_copy: Signed | None = None
        self._mate_copy: Signed | None = None
        self._plies_copy: Number | None = None
        self._size_copy: Number | None = None
        self._player_copy: ClassedText | None = None
        self._elo_copy: Tree | None = None
        self._result_copy: Tree | None = None
        self._control_copy: Tree | None = None
        self._eco_copy: Tree | None = None
        self._eco_number_copy: Tree | None = None

    def copied(self, model: Any, prior: Any) -> None:
        """Note the banks of ``model``, a copy of ``prior``, for :meth:`restore`."""
        for (_, bits), (_, start) in zip(_model_bits(model), _model_bits(prior)):
            self.banks.append((bits, start))

    def restore(self) -> None:
        """Take every model back to its priors."""
        for bits, start in self.banks:
            if bits.touched_count:
                bits.restore(start)

    @property
    def flags(self) -> Bits:
        model = self._flags_copy
        if model is None:
            model = self._flags_copy = self.priors.flags.copy()
            self.copied(model, self.priors.flags)
        return model

    @property
    def count(self) -> Number:
        model = self._count_copy
        if model is None:
            model = self._count_copy = self.priors.count.copy()
            self.copied(model, self.priors.count)
        return model

    @property
    def text(self) -> Text:
        model = self._text_copy
        if model is None:
            model = self._text_copy = self.priors.text.copy()
            self.copied(model, self.priors.text)
        return model

    @property
    def comment_text(self) -> Text:
        model = self._comment_text_copy
        if model is None:
            model = self._comment_text_copy = self.priors.comment_text.copy()
            self.copied(model, self.priors.comment_text)
        return model

    @property
    def words(self) -> Words:
        model = self._words_copy
        if model is None:
            model = self._words_copy = self.priors.words.copy()
            self.copied(model, self.priors.words)
            model.text = self.text  # a word's bytes are coded with the section's own text model
        return model

    @property
    def tag_name(self) -> Number:
        model = self._tag_name_copy
        if model is None:
            model = self._tag_name_copy = self.priors.tag_name.copy()
            self.copied(model, self.priors.tag_name)
        return model

    @property
    def typed(self) -> Bits:
        model = self._typed_copy
        if model is None:
            model = self._typed_copy = self.priors.typed.copy()
            self.copied(model, self.priors.typed)
        return model

    @property
    def small(self) -> Number:
        model = self._small_copy
        if model is None:
            model = self._small_copy = self.priors.small.copy()
            self.copied(model, self.priors.small)
        return model

    @property
    def signed(self) -> Signed:
        model = self._signed_copy
        if model is None:
            model = self._signed_copy = self.priors.signed.copy()
            self.copied(model, self.priors.signed)
        return model

    @property
    def rest(self) -> Tree:
        model = self._rest_copy
        if model is None:
            model = self._rest_copy = self.priors.rest.copy()
            self.copied(model, self.priors.rest)
        return model

    @property
    def prefix(self) -> Number:
        model = self._prefix_copy
        if model is None:
            model = self._prefix_copy = self.priors.prefix.copy()
            self.copied(model, self.priors.prefix)
        return model

    @property
    def ids(self) -> Number:
        model = self._ids_copy
        if model is None:
            model = self._ids_copy = self.priors.ids.copy()
            self.copied(model, self.priors.ids)
        return model

    @property
    def nag(self) -> Tree:
        model = self._nag_copy
        if model is None:
            model = self._nag_copy = self.priors.nag.copy()
            self.copied(model, self.priors.nag)
        return model

    @property
    def skeleton_index(self) -> Number:
        model = self._skeleton_index_copy
        if model is None:
            model = self._skeleton_index_copy = self.priors.skeleton_index.copy()
            self.copied(model, self.priors.skeleton_index)
        return model

    @property
    def part(self) -> Tree:
        model = self._part_copy
        if model is None:
            model = self._part_copy = self.priors.part.copy()
            self.copied(model, self.priors.part)
        return model

    @property
    def precision(self) -> Tree:
        model = self._precision_copy
        if model is None:
            model = self._precision_copy = self.priors.precision.copy()
            self.copied(model, self.priors.precision)
        return model

    @property
    def clock(self) -> Signed:
        model = self._clock_copy
        if model is None:
            model = self._clock_copy = self.priors.clock.copy()
            self.copied(model, self.priors.clock)
        return model

    @property
    def pace_clock(self) -> Signed:
        model = self._pace_clock_copy
        if model is None:
            model = self._pace_clock_copy = self.priors.pace_clock.copy()
            self.copied(model, self.priors.pace_clock)
        return model

    @property
    def pace_precision(self) -> Tree:
        model = self._pace_precision_copy
        if model is None:
            model = self._pace_precision_copy = self.priors.pace_precision.copy()
            self.copied(model, self.priors.pace_precision)
        return model

    @property
    def emt(self) -> Number:
        model = self._emt_copy
        if model is None:
            model = self._emt_copy = self.priors.emt.copy()
            self.copied(model, self.priors.emt)
        return model

    @property
    def eval(self) -> Signed:
        model = self._eval_copy
        if model is None:
            model = self._eval_copy = self.priors.eval.copy()
            self.copied(model, self.priors.eval)
        return model

    @property
    def mate(self) -> Signed:
        model = self._mate_copy
        if model is None:
            model = self._mate_copy = self.priors.mate.copy()
            self.copied(model, self.priors.mate)
        return model

    @property
    def plies(self) -> Number:
        model = self._plies_copy
        if model is None:
            model = self._plies_copy = self.priors.plies.copy()
            self.copied(model, self.priors.plies)
        return model

    @property
    def size(self) -> Number:
        model = self._size_copy
        if model is None:
            model = self._size_copy = self.priors.size.copy()
            self.copied(model, self.priors.size)
        return model

    @property
    def player(self) -> ClassedText:
        model = self._player_copy
        if model is None:
            model = self._player_copy = self.priors.player.copy()
            self.copied(model, self.priors.player)
        return model

    @property
    def elo(self) -> Tree:
        model = self._elo_copy
        if model is None:
            model = self._elo_copy = self.priors.elo.copy()
            self.copied(model, self.priors.elo)
        return model

    @property
    def result(self) -> Tree:
        model = self._result_copy
        if model is None:
            model = self._result_copy = self.priors.result.copy()
            self.copied(model, self.priors.result)
        return model

    @property
    def control(self) -> Tree:
        model = self._control_copy
        if model is None:
            model = self._control_copy = self.priors.control.copy()
            self.copied(model, self.priors.control)
        return model

    @property
    def eco(self) -> Tree:
        model = self._eco_copy
        if model is None:
            model = self._eco_copy = self.priors.eco.copy()
            self.copied(model, self.priors.eco)
        return model

    @property
    def eco_number(self) -> Tree:
        model = self._eco_number_copy
        if model is None:
            model = self._eco_number_copy = self.priors.eco_number.copy()
            self.copied(model, self.priors.eco_number)
        return model


# the flags and counts are Final: compiled code reads them as constants, not as a module's attribute each time
F_MORE_TAGS: Final = 0
F_DATE_SAME: Final = 1
F_COMMON_TC: Final = 3
F_RESULT_SAME: Final = 4
F_LINE_COMMENT: Final = 5
F_STEPS: Final = 6  # +1 in a variation
F_EVAL_MATE: Final = 8  # +1 after a mate
F_EVAL_SHORT: Final = 10  # +1 when the last one was short
F_NAGS: Final = 12  # +0..7: the swing of the step's evaluation
F_NAG_BIG: Final = 20
F_VARIATIONS: Final = 21
F_EVAL_PART: Final = 22
F_DATE_UNKNOWN_YEAR: Final = 23
F_NAME_OTHER: Final = 24
F_ID_NOT_8: Final = 25
"""Whether an identifier (after a prefix) is not of 8 characters, as lichess's game and tournament ids are."""
F_DERIVED: Final = 26  # +0..2: the index in recorddictionary.DERIVED (version 2)
"""Whether a tag of :data:`recorddictionary.DERIVED` is the value derived for it (version 2)."""
F_TC_BARE: Final = 29
"""Whether a time control is written without its increment (``600`` for ``600+0``, as chess.com writes it; version 2)."""
F_MOVES_SUFFIX: Final = 30
"""Whether a worded rest ends with moves of the game (version 2)."""
F_USER_NAME: Final = 31
"""Whether a player's name is a user name, coded by the player-name model (version 3)."""
FLAG_PRIORS = ((F_MORE_TAGS, 4), (F_DATE_SAME, 8), (F_COMMON_TC, 56), (F_RESULT_SAME, 60), (F_LINE_COMMENT, 60),
                (F_NAGS, 60), (F_NAG_BIG, 62), (F_VARIATIONS, 62), (F_EVAL_MATE, 60), (F_EVAL_MATE + 1, 8),
                (F_DATE_UNKNOWN_YEAR, 60), (F_NAME_OTHER, 60), (F_ID_NOT_8, 56),
                (F_DERIVED, 8), (F_DERIVED + 1, 8))
"""The flags whose first probability of a 0 is not one half: (flag, 64ths)."""


def next_pace(pace: int, spent: int) -> int:
    """A side's pace after it spent ``spent`` ms on a move: three tenths of it and seven of the pace before."""
    return spent if pace < 0 else (spent * 3 + pace * 7) // 10


def pace_context(state: State, side: int) -> int:
    """The context of a version-2 clock after ``side``'s first: 1 + the bit length of the seconds of
    (3 × its pace + the other side's latest spend) / 4, at most 15."""
    seconds = (state.pace[side] * 3 + state.last_spent[1 - side]) // 4000
    return 1 + min(seconds.bit_length(), 14)


class State:
    """What the coder predicts from: the tags, the clocks and evaluations so far, the skeletons seen."""

    def __init__(self, final: FinalPosition, plies: int, version: int) -> None:
        self.final = final
        self.plies = plies
        self.version = version
        """The section's version (what a version-2 section codes that version 1 does not, it codes only then)."""
        self.tags: dict[str, str] = {}
        self.last_date: str | None = None
        self.base_ms: int | None = None
        self.increment_ms = 0
        self.clock: list[int | None] = [None, None]
        self.spent = [0, 0]
        self.pace = [-1, -1]
        """Each side's pace (version 2): the time it spends a move in ms, an average leaning on its latest moves
        (:func:`next_pace`); -1 before its first."""
        self.last_spent = [0, 0]
        """Each side's latest time spent in ms (version 2)."""
        self.emt = [0, 0]
        self.precision = 4
        self.precision_before = 4
        """The fraction digits of the clock before the last (4: none; version 2)."""
        self.eval_mate = False
        self.eval_value = 0
        self.eval_swing = 0
        self.eval_short = 0
        self.step_swing = -1
        """The change of the evaluation in the comments of the step being coded (-1: none)."""
        self.skeletons: list[tuple[str | int, ...]] = list(dictionary.SKELETONS)

    def nag_context(self) -> int:
        """The flag telling whether a step has NAGs: by how far its evaluation moved (none, or its bit length / 2)."""
        swing = self.step_swing
        return F_NAGS + (0 if swing < 0 else 1 + min(swing.bit_length() // 2, 6))


CLOCK_PRIORS: tuple[tuple[int, tuple[int, ...]], ...] = (
    (56, (54, 57, 20, 7, 6, 4, 34, 28)),
    (63, (21, 54, 53, 50, 46, 47)),
    (63, (9, 45, 50, 55, 52, 62)),
    (63, (4, 32, 44, 51, 57, 59)),
    (63, (2, 19, 34, 45, 54, 57, 61)),
    (63, (1, 11, 24, 37, 48, 57, 61)),
    (63, (1, 7, 15, 27, 40, 53, 58)),
    (63, (4, 10, 9, 18, 29, 37, 47, 45)),
    (63, (9, 16, 16, 13, 10, 23, 42)),
    (56, ()), (56, ()), (56, ()), (56, ()), (56, ()), (56, ()),  # contexts seen too seldom
    (30, (1, 1, 1, 1, 1, 1, 1, 1, 4, 5, 5, 8, 10, 15, 19, 31, 54)),
    (55, (1, 14, 12, 30, 41, 45, 45, 43)),
    (63, (1, 5, 6, 27, 36, 36, 40, 52, 50)),
    (63, (1, 3, 6, 23, 32, 35, 42, 50, 60)),
    (63, (1, 1, 2, 13, 25, 32, 41, 51, 58, 60)),
    (63, (1, 1, 1, 6, 16, 24, 37, 48, 57, 59, 49)),
    (63, (1, 1, 1, 3, 9, 17, 29, 43, 55, 59, 59)),
    (63, (1, 1, 1, 2, 6, 11, 22, 36, 51, 59, 63)),
    (63, (1, 1, 1, 1, 4, 8, 18, 30, 44, 58)),
    (56, ()), (56, ()), (56, ()), (56, ()), (56, ()), (56, ()), (56, ()), (56, ()),  # contexts seen too seldom
)
"""Per version-2 clock context (:func:`pace_context`, +16 for clocks with fractions of a second): the
64ths of a 0 of its sign (the clock ran down) and of each unary bit of the time spent (a 0 ends its bit
length), as measured by ``python -m bench.clock_priors`` on one lichess and one chess.com file."""
CLOCK_MANTISSA_PRIORS: tuple[tuple[int, int], ...] = (
    (2, 38), (4, 40), (5, 37), (6, 34), (7, 34), (8, 39), (9, 36), (10, 37), (11, 35), (12, 38), (13, 36), (14, 42),
    (15, 37), (16, 47), (17, 40), (18, 53), (19, 45), (20, 54), (21, 54), (22, 42), (23, 26), (26, 51), (27, 36),
    (28, 27), (29, 40), (30, 30), (31, 37),
)
"""The 64ths of a 0 of the first two bits below a time spent's leading one (the index in the shared
contexts of its ``Number``, of its bit length and depth)."""

CLOCK_PRIOR_SEEN = 16
"""As how many observations a version-2 clock's prior counts."""

PRECISION_PRIORS: tuple[tuple[int, int], ...] = (
    (1, 63), (2, 63), (5, 63), (6, 6), (17, 63), (18, 37), (21, 63), (22, 6), (25, 63), (26, 6), (37, 63), (38, 9),
    (97, 63), (98, 55),
)
"""The version-2 fraction digits' tree (group: 5 × the last clock's digits + the one's before, 4 for none):
(context, 64ths of a 0), measured by ``python -m bench.clock_priors``."""

PRECISION_PRIOR_SEEN = 8
"""As how many observations a version-2 fraction digits' prior counts."""
