"""Request and response bodies of the v1 API (SPEC §6)."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

_NOT_TEXT = re.compile(r"[\ud800-\udfff\x00-\x08\x0b\x0c\x0e-\x1f]")
"""A lone surrogate (JSON can escape one; no UTF-8 answer can hold it) or a control character other than tab,
line feed and carriage return: never part of a move, record, tag, position or name."""


def plain_text(value: str) -> str:
    """``value`` unchanged if it holds only characters a record may hold.

    :raises ValueError: naming the first bad character (by code point, never as itself) and where it is.
    """
    if value.isascii() and value.isprintable():  # the usual move or name, at once (called for every move sent)
        return value
    bad = _NOT_TEXT.search(value)
    if bad is not None:
        code = ord(bad.group())
        kind = "a lone surrogate" if code >= 0xD800 else "a control character"
        raise ValueError(f"{kind} (U+{code:04X}) at character {bad.start()}")
    return value


Text = Annotated[str, AfterValidator(plain_text)]
"""Every text field of a request: a string without lone surrogates or control characters (422 otherwise)."""


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CodecInfo(BaseModel):
    game: str
    scheme: str
    description: str
    bits_per_ply: float | None = Field(description="fixed bits per ply, or null when it varies")
    notations: list[str]
    starts: list[str]


class GameStatus(BaseModel):
    """Game state; the extras apply to some games only."""

    status: str = Field(description="chess: ongoing|checkmate|stalemate|insufficient_material|fifty_moves|threefold; "
                        "xiangqi: ongoing|checkmate|stalemate; abalone: ongoing|won; entropy: ongoing|finished")
    winner: str | None = None
    result: str | None = None
    ejected: dict[str, int] | None = Field(None, description="abalone: marbles ejected, by colour")
    scores: list[int] | None = Field(None, description="entropy: each finished round's score")
    round: int | None = Field(None, description="entropy: the round in play (1 or 2)")


class EncodeRequest(_Request):
    game: Text = Field(examples=["chess"])
    scheme: Text = Field(examples=["0x88"])
    moves: list[Text] | None = Field(None, examples=[["e4", "e5", "Nf3"]])
    record: Text | None = Field(None, description="a whole record (PGN, xqbase PGN, APGN, token list)")
    notation: Text | None = Field(None, description="notation of the moves; any of the game's when omitted")
    start: Text | None = Field(None, description="start position: FEN, position string or layout name")
    tags: dict[Text, Text] | None = None
    fidelity: Literal["full", "moves"] | None = Field(
        None, description="full: keep the whole record (tags, comments, clocks, NAGs, variations, result) in the "
        "container's record section; moves: keep the moves and tags, counting what is dropped. Default: full for a "
        "record, moves for a move list")


class EncodeResponse(BaseModel):
    game: str
    scheme: str
    data: str = Field(description="the container, base64url without padding")
    payload: str = Field(description="the move bits as lowercase hex, zero-padded to whole bytes")
    plies: int
    payload_bits: int
    size_bytes: int
    bits_per_ply: float
    final_position: str
    dropped: dict[str, int] | None = Field(None, description="record content a move list cannot carry, counted "
                                           "(fidelity moves only)")
    fidelity: Literal["full", "moves"]


class DecodeRequest(_Request):
    data: Text = Field(description="a container, base64url (padding optional)")
    notation: Text | None = None
    format: Literal["moves", "record"] = Field(
        "moves", description="record: also answer the record's text (PGN for chess and xiangqi, APGN for abalone, "
        "tokens for entropy) with its tags, comments, NAGs, variations and result, moves in `notation`")


class DecodeResponse(BaseModel):
    game: str
    scheme: str
    start: str | None
    moves: list[str]
    tags: dict[str, str]
    plies: int
    final_position: str
    record: str | None = Field(default=None, description="the record's text (format record only)")


class ValidateRequest(_Request):
    game: Text
    moves: list[Text] | None = None
    record: Text | None = None
    notation: Text | None = None
    start: Text | None = None


class MoveError(BaseModel):
    ply: int | None
    move: str | None
    reason: str


class ValidateResponse(BaseModel):
    valid: bool
    plies: int | None = None
    final_position: str | None = None
    status: GameStatus | None = None
    error: MoveError | None = None


class ConvertRequest(_Request):
    game: Text
    moves: list[Text] | None = None
    record: Text | None = None
    from_notation: Text | None = None
    to_notation: Text | None = None
    start: Text | None = None


class ConvertResponse(BaseModel):
    moves: list[str]


class MovesRequest(_Request):
    game: Text
    start: Text | None = None
    moves: list[Text] | None = None
    notation: Text | None = None


class MovesResponse(BaseModel):
    position: str
    legal: list[str]


class Problem(BaseModel):
    """An RFC 9457 problem detail."""

    type: str
    title: str
    status: int
    detail: str
    ply: int | None = None
    move: str | None = None
    errors: list[Any] | None = None
