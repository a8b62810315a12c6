"""The batch core: a stream of NDJSON request lines, or a multi-game file, in; one answer per line or game out.

Plain generators with no HTTP in them, driven alike by the batch endpoints (``app/batch.py``) and by the
``plybits`` command (``app/cli.py``). Every request goes through the single endpoint's pydantic model and
function, and every answer is ``(number, "result", body)`` or ``(number, "error", problem)`` in input order,
numbered by physical line (NDJSON; blank lines get no answer) or by game (multi-game files). A bad line costs
its own answer and nothing else; a failure of the input itself (over the body limit, stalled) ends the stream
with one last problem, numbered as the line it cut.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from app.errors import PROBLEM_BASE, internal_problem, problem_body, problem_of
from app.models import DecodeRequest, EncodeRequest, ValidateRequest
from app.service import decode_body, encode_body, validate_body
from app.settings import Settings
from plybits import registry
from plybits.errors import InvalidRecordError, LimitExceededError, PlybitsError
from plybits.records import seed_scheme
from plybits.streams import TOO_LONG, LongLine, record_lines, split_lines, split_stream

OPS: dict[str, tuple[type[BaseModel], Callable[[Any, Settings], BaseModel], bool]] = {
    "encode": (EncodeRequest, encode_body, True),
    "decode": (DecodeRequest, decode_body, False),
    "validate": (ValidateRequest, validate_body, True),
}
"""Each operation's request model, per-request function, and whether ``None`` fields are left out (as the
single-request endpoints do)."""

MAX_JSON_DEPTH = 100
"""Deepest nesting of arrays and objects read from a line (a request needs two levels): deeper lines are
refused before parsing, so that the answer never depends on how much stack the reader has left."""

Body = dict[str, Any] | bytes
"""An answer's document, or (from a worker process) the same document already written as JSON (UTF-8): one
``bytes`` to send back instead of a tree of objects to pickle and, in the service process, unpickle and write."""
Answer = tuple[int, str, Body]
"""``(line or game number, "result" | "error", body)``."""
GROUP_LINES = 128
"""Most heavy lines answered in one trip to the worker processes (:class:`HeavyGroup`)."""
GROUP_BYTES = 1 << 22
"""Most bytes of heavy lines held for one trip (beyond one line): 4 MiB, however long a line may be."""


class Abandoned(Exception):
    """Raised by a driver's input or output when nobody waits for the answers any more: the batch stops, silently."""


class InputProblem(Exception):
    """The input stream itself failed (stalled, cut): the batch ends with ``problem`` as its last answer."""

    def __init__(self, problem: dict[str, Any]) -> None:
        super().__init__(problem["detail"])
        self.problem = problem


@dataclass(frozen=True)
class Refused:
    """A line refused before it reached a model (not JSON, too long, too deep): its problem document."""

    problem: dict[str, Any]


def invalid_line(detail: str) -> Refused:
    return Refused({"type": PROBLEM_BASE + "invalid-request", "title": "Invalid request", "status": 422,
                    "detail": detail})


def check_target(op: str, game: str | None, scheme: str | None) -> None:
    """Refuse an unknown default game or scheme before any input is read.

    :raises UnknownCodecError: naming the game or scheme.
    """
    if game is not None:
        registry.get_game(game)
        if scheme is not None and op == "encode":
            registry.get_scheme(game, scheme)


def answer(op: str, request: Any, settings: Settings) -> tuple[str, dict[str, Any]]:
    """``("result", body)`` or ``("error", problem)`` for one request object; never raises."""
    model, handler, drop_none = OPS[op]
    try:
        body = model.model_validate(request)
        result = handler(body, settings)
        return "result", result.model_dump(mode="json", exclude_none=drop_none, exclude_unset=not drop_none)
    except Exception as err:  # a bug in a codec must cost one line, not the batch
        return "error", problem_of(err)


def with_defaults(op: str, request: Any, defaults: dict[str, str]) -> Any:
    """``request`` with the batch's default game and scheme where it has none; an encode request without a
    scheme gets its game's seed scheme (the one rule for every batch, endpoint or command)."""
    if not isinstance(request, dict):
        return request
    for key, value in defaults.items():
        if key in OPS[op][0].model_fields:
            request.setdefault(key, value)
    if op == "encode" and "scheme" not in request and isinstance(request.get("game"), str):
        try:
            request["scheme"] = seed_scheme(request["game"])
        except PlybitsError:
            pass  # the unknown game is reported by the verb
    return request


def decode_line(raw: bytes) -> Any:
    """A decode request from a line: ``{"data": ...}``, a bare base64url container, or a line of batch encode
    output (``{"line": n, "result": {"data": ...}}``)."""
    if not raw.lstrip().startswith(b"{"):
        return {"data": raw.strip().decode("ascii", "replace")}
    obj = json.loads(raw)
    if isinstance(obj, dict) and "data" not in obj and "line" in obj:
        if "error" in obj:
            raise InvalidRecordError("this line holds an error, not a container")
        result = obj.get("result")
        if isinstance(result, dict) and "data" in result:
            return {"data": result["data"]}
    return obj


_JSON_SPECIAL = re.compile(rb'[\[\]{}"\\]')


def nests_deeper(raw: bytes, most: int) -> bool:
    """Whether the JSON text ``raw`` nests arrays and objects more than ``most`` deep (brackets inside strings
    do not count); linear in the number of brackets, quotes and backslashes."""
    if raw.count(b"[") + raw.count(b"{") <= most:
        return False
    depth = 0
    in_string = False
    skip = -1
    for match in _JSON_SPECIAL.finditer(raw):
        at = match.start()
        if at == skip:
            continue
        char = raw[at]
        if in_string:
            if char == 0x5C:  # a backslash: the next byte is escaped
                skip = at + 1
            elif char == 0x22:
                in_string = False
        elif char == 0x22:
            in_string = True
        elif char in (0x5B, 0x7B):
            depth += 1
            if depth > most:
                return True
        elif char in (0x5D, 0x7D):
            depth -= 1
    return False


def too_deep() -> Refused:
    """The problem of a line nested deeper than :data:`MAX_JSON_DEPTH`."""
    return invalid_line(f"line is not read: its JSON nests more than {MAX_JSON_DEPTH} levels deep")


def line_request(op: str, raw: bytes, defaults: dict[str, str]) -> Any:
    """The request object of one non-blank NDJSON line, or its :class:`Refused` problem; never raises."""
    try:
        if nests_deeper(raw, MAX_JSON_DEPTH):
            return too_deep()
        obj = decode_line(raw) if op == "decode" else json.loads(raw)
    except RecursionError:
        return too_deep()
    except PlybitsError as err:
        return Refused(problem_body(err))
    except json.JSONDecodeError as err:
        return invalid_line(f"line is not JSON: {err}")
    except UnicodeDecodeError as err:
        return invalid_line(f"line is not UTF-8: {err}")
    except ValueError as err:  # e.g. an integer of more digits than Python converts
        return invalid_line(f"line is not read: {err}")
    except Exception as err:
        return Refused(internal_problem(err))
    return with_defaults(op, obj, defaults)


class Counter:
    """How many lines (or games) the requests generator has numbered so far."""

    def __init__(self) -> None:
        self.seen = 0


def ndjson_requests(op: str, lines: Iterator[bytes | None], defaults: dict[str, str], settings: Settings,
                    counter: Counter) -> Iterator[tuple[int, Any, int]]:
    """``(line number, request object | Refused, bytes of the line)`` for every non-blank NDJSON line; 1-based
    physical numbers."""
    for number, raw in enumerate(lines, 1):
        counter.seen = number
        if number > settings.max_batch_lines:
            yield number, Refused(problem_body(LimitExceededError(
                f"batch has more than {settings.max_batch_lines} lines; line {number} and after are not read"))), 0
            return
        if raw is TOO_LONG:
            yield number, Refused(problem_body(
                LimitExceededError(f"line is longer than the limit of {settings.max_line_bytes} bytes"))), 0
            continue
        if not raw.strip():
            continue
        yield number, line_request(op, raw, defaults), len(raw)


def record_requests(op: str, lines: Iterator[str | LongLine], game: str, defaults: dict[str, str],
                    settings: Settings, counter: Counter) -> Iterator[tuple[int, Any, int]]:
    """``(game number, request object | Refused, characters of the record)`` for every record of a multi-game
    file, its ``lines`` as :func:`~plybits.streams.record_lines` gives them; 1-based."""
    for number, record in enumerate(split_stream(game, lines, max_chars=settings.max_line_bytes, ended=True), 1):
        counter.seen = number
        if number > settings.max_games:
            yield number, Refused(problem_body(LimitExceededError(
                f"file holds more than {settings.max_games} games; game {number} and after are not read"))), 0
            return
        if isinstance(record, PlybitsError):
            yield number, Refused(problem_body(record)), 0
            continue
        yield number, with_defaults(op, {"game": game, "record": record}, defaults), len(record)


def answer_each(op: str, requests: list[Any], settings: Settings) -> tuple[list[tuple[str, Body]], dict[str, int]]:
    """:func:`answer` of each request, in order, each body written as JSON (:func:`body_json`): a group of heavy
    lines, in a worker process, whose answers then cross back as one ``bytes`` each. With them, the plies the
    answers encoded or decoded, by game, for the service process to count (a worker's own metrics are never
    scraped)."""
    answered: list[tuple[str, Body]] = []
    plies: dict[str, int] = {}
    for request in requests:
        key, value = answer(op, request, settings)
        if key == "result" and op in ("encode", "decode"):
            plies[value["game"]] = plies.get(value["game"], 0) + value["plies"]
        answered.append((key, body_json(value)))
    return answered, plies


class HeavyGroup:
    """The heavy lines of a batch read and not answered yet (:func:`answers`), answered together by one call of
    ``answer_all`` (the batch endpoints: one trip to the worker processes for several lines instead of a trip each).

    The group is answered when it is full (``most_lines`` lines; or plies beyond one request's ``max_plies``, so
    that it keeps to the time limit of one request; or lines of more than ``most_bytes`` together, so that the
    requests held stay small however long each line may be), before any other line is answered, at the end of the
    input, and, by whatever feeds the batch its input, before waiting for more (:meth:`drain`): a line never waits
    for lines after it. A trip has a fixed cost in the service process (thread hand-overs, the pool's queues and
    pipes): the more lines it carries, the less of it each line pays.
    """

    def __init__(self, op: str, settings: Settings, plies_of: Callable[[str, Any], int | None],
                 answer_all: Callable[[str, list[Any], Settings], Sequence[tuple[str, Body]]],
                 most_lines: int = GROUP_LINES, most_bytes: int = GROUP_BYTES) -> None:
        """``plies_of(op, request)``: a bound on a heavy request's plies, ``None`` for a request that is not heavy."""
        self.op, self.settings, self.plies_of, self.answer_all = op, settings, plies_of, answer_all
        self.most_lines, self.most_bytes = most_lines, most_bytes
        self.numbers: list[int] = []
        self.requests: list[Any] = []
        self.plies = 0
        self.size = 0

    def add(self, number: int, request: Any, size: int = 0) -> list[Answer] | None:
        """Take ``request`` (read from a line of ``size`` bytes) if it is heavy, and give the answers of the lines the
        group had to answer first (it was full), else ``[]``; ``None`` for a request that is not heavy (not taken)."""
        plies = self.plies_of(self.op, request)
        if plies is None:
            return None
        full = self.plies + plies > self.settings.max_plies or self.size + size > self.most_bytes
        done = self.drain() if self.numbers and full else []
        self.numbers.append(number)
        self.requests.append(request)
        self.plies += plies
        self.size += size
        if len(self.numbers) >= self.most_lines:
            done += self.drain()
        return done

    def drain(self) -> list[Answer]:
        """The answers of every line of the group, in order; the group is then empty."""
        if not self.numbers:
            return []
        numbers, requests = self.numbers, self.requests
        self.numbers, self.requests, self.plies, self.size = [], [], 0, 0
        answered = self.answer_all(self.op, requests, self.settings)
        return [(number, key, value) for number, (key, value) in zip(numbers, answered, strict=True)]


def answers(op: str, chunks: Iterable[bytes], settings: Settings, *, game: str | None = None,
            scheme: str | None = None, notation: str | None = None, records: bool = False,
            group: HeavyGroup | None = None, options: dict[str, str] | None = None) -> Iterator[Answer]:
    """Every answer of a batch, in order, read lazily from ``chunks`` (a byte stream cut anywhere).

    ``records``: the input is a multi-game file of ``game`` (else NDJSON lines). ``game``, ``scheme`` and
    ``notation`` are the defaults of requests without them. An error raised by ``chunks`` (a
    :class:`PlybitsError` such as a body over its limit, or an :class:`InputProblem`) ends the stream with its
    problem as a last answer. ``options`` are more defaults (``fidelity`` of encode, ``format`` of decode) of
    requests without them. Each request is answered by :func:`answer` where it is read, but those that ``group``
    takes (the batch endpoints' heavy lines, answered in the worker processes), which it answers in groups.
    """
    defaults = {k: v for k, v in (("game", game), ("scheme", scheme), ("notation", notation)) if v is not None}
    defaults.update(options or {})
    counter = Counter()
    requests: Iterator[tuple[int, Any, int]]
    if records:
        if game is None:
            raise ValueError("a multi-game file needs its game")
        requests = record_requests(op, record_lines(chunks, settings.max_line_bytes), game, defaults, settings,
                                   counter)
    else:
        requests = ndjson_requests(op, split_lines(chunks, settings.max_line_bytes), defaults, settings, counter)
    while True:
        last: Answer | None = None
        try:
            item: tuple[int, Any, int] | None = next(requests)
        except StopIteration:
            item = None
        except Abandoned:
            raise
        except InputProblem as err:
            item, last = None, (counter.seen + 1, "error", err.problem)
        except PlybitsError as err:  # e.g. the body went over its size limit while streaming
            item, last = None, (counter.seen + 1, "error", problem_body(err))
        except Exception as err:  # a bug in reading or splitting: say so on a last line, never cut silently
            item, last = None, (counter.seen + 1, "error", internal_problem(err))
        if item is None:
            if group is not None:
                yield from group.drain()
            if last is not None:
                yield last
            return
        number, request, size = item
        if group is not None:
            done = None if isinstance(request, Refused) else group.add(number, request, size)
            if done is not None:
                yield from done
                continue
            yield from group.drain()
        if isinstance(request, Refused):
            yield number, "error", request.problem
        else:
            yield number, *answer(op, request, settings)


def body_json(value: Body) -> bytes:
    """An answer's body as compact JSON in UTF-8 (``bytes`` are taken as written already).

    A lone surrogate (read from a valid ``\\ud800`` escape and echoed back) is written as the same escape.
    """
    if isinstance(value, bytes):
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "backslashreplace")


def document(value: Body) -> dict[str, Any]:
    """An answer's body as a document (read back from its JSON if it came written)."""
    if isinstance(value, bytes):
        loaded: dict[str, Any] = json.loads(value)
        return loaded
    return value


def line_json(number: int, key: str, value: Body) -> bytes:
    """One output line: ``{"line": n, "result"|"error": ...}`` and its newline, as UTF-8: the bytes of
    ``json.dumps({"line": n, key: value})`` written compact, whether ``value`` comes as a document or as its JSON."""
    return b'{"line":%d,"%s":%s}\n' % (number, key.encode("ascii"), body_json(value))
