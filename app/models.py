"""Request and response bodies of the v1 API (SPEC §6)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


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
    game: str = Field(examples=["chess"])
    scheme: str = Field(examples=["0x88"])
    moves: list[str] | None = Field(None, examples=[["e4", "e5", "Nf3"]])
    record: str | None = Field(None, description="a whole record (PGN, xqbase PGN, APGN, token list)")
    notation: str | None = Field(None, description="notation of the moves; any of the game's when omitted")
    start: str | None = Field(None, description="start position: FEN, position string or layout name")
    tags: dict[str, str] | None = None


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
    dropped: dict[str, int] | None = Field(None, description="record content a move list cannot carry, counted")


class DecodeRequest(_Request):
    data: str = Field(description="a container, base64url (padding optional)")
    notation: str | None = None


class DecodeResponse(BaseModel):
    game: str
    scheme: str
    start: str | None
    moves: list[str]
    tags: dict[str, str]
    plies: int
    final_position: str


class ValidateRequest(_Request):
    game: str
    moves: list[str] | None = None
    record: str | None = None
    notation: str | None = None
    start: str | None = None


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
    game: str
    moves: list[str] | None = None
    record: str | None = None
    from_notation: str | None = None
    to_notation: str | None = None
    start: str | None = None


class ConvertResponse(BaseModel):
    moves: list[str]


class MovesRequest(_Request):
    game: str
    start: str | None = None
    moves: list[str] | None = None
    notation: str | None = None


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
