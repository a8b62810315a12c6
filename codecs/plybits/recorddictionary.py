"""The shared dictionary of the record section, version 1: what the coder of :mod:`plybits.recordsection`
predicts a record to hold, from public conventions only (the PGN standard's tags, the tags and values
that lichess, chess.com, TWIC and the xiangqi and Abalone records write).

Released versions never change: the section's version byte names the dictionary it was coded with, so a
change here is a new section version.
"""

from __future__ import annotations

TAG_NAMES: tuple[str, ...] = (
    "Event", "Site", "Date", "Round", "White", "Black", "Red", "Result",
    "UTCDate", "UTCTime", "WhiteElo", "BlackElo", "WhiteRatingDiff", "BlackRatingDiff",
    "WhiteTitle", "BlackTitle", "WhiteFideId", "BlackFideId", "WhiteTeam", "BlackTeam",
    "WhiteCountry", "BlackCountry", "Variant", "TimeControl", "ECO", "Opening", "Variation", "Termination",
    "Annotator", "PlyCount", "Plies", "EventDate", "EventType", "EventRounds", "EventCountry", "Board",
    "Mode", "Time", "SetUp", "FEN", "Timezone", "ECOUrl", "StartTime", "EndDate", "EndTime", "Link",
    "CurrentPosition", "GameStartTime", "GameEndTime", "GameDuration", "Source", "SourceDate",
    "SourceVersionDate", "Notation", "Format", "Game", "Section", "Stage",
)
"""Known tag names in their usual order (the Seven Tag Roster first, then lichess's, chess.com's, TWIC's,
xiangqi's and Abalone's): a tag name is coded by how many unused known names it skips from the last."""

DATE = "date"
TIME = "time"
ELO = "elo"
RATING_DIFF = "diff"
TIME_CONTROL = "timecontrol"
ECO = "eco"
RESULT = "result"
FINAL_FEN = "final-fen"
PLY_COUNT = "ply-count"
PREFIXED = "prefixed"
TEXT = "text"

TAG_KINDS: dict[str, str] = {
    "Date": DATE, "UTCDate": DATE, "EventDate": DATE, "EndDate": DATE, "SourceDate": DATE,
    "SourceVersionDate": DATE,
    "UTCTime": TIME, "Time": TIME, "StartTime": TIME, "EndTime": TIME, "GameStartTime": TIME, "GameEndTime": TIME,
    "WhiteElo": ELO, "BlackElo": ELO,
    "WhiteRatingDiff": RATING_DIFF, "BlackRatingDiff": RATING_DIFF,
    "TimeControl": TIME_CONTROL,
    "ECO": ECO,
    "Result": RESULT,
    "CurrentPosition": FINAL_FEN,
    "PlyCount": PLY_COUNT, "Plies": PLY_COUNT,
}
"""How each known tag's value is typed; a tag not named here is :data:`PREFIXED` if it has prefixes below,
else :data:`TEXT`."""

_SPEEDS = ("UltraBullet", "Bullet", "Blitz", "Rapid", "Classical", "Correspondence", "Chess960", "Crazyhouse",
           "Antichess", "Atomic", "Horde", "King of the Hill", "Racing Kings", "Three-check")
_LICHESS_EVENTS = tuple(
    text
    for mode in ("Rated", "Casual")
    for speed in _SPEEDS
    for text in (f"{mode} {speed} game", f"{mode} {speed} tournament https://lichess.org/tournament/",
                 f"{mode} {speed} swiss https://lichess.org/swiss/")
)
_TITLES = ("GM", "IM", "FM", "CM", "NM", "WGM", "WIM", "WFM", "WCM", "WNM", "LM", "BOT")

PREFIXES: dict[str, tuple[str, ...]] = {
    "Event": ("", "?", "Live Chess", "Let's Play!", "Casual game", *_LICHESS_EVENTS),
    "Site": ("", "?", "https://lichess.org/", "Chess.com", "https://www.chess.com/game/live/",
             "https://www.chess.com/game/daily/", "lichess.org", "Internet"),
    "Round": ("", "?", "-"),
    "Link": ("", "https://www.chess.com/game/live/", "https://www.chess.com/game/daily/",
             "https://www.chess.com/analysis/game/live/"),
    "ECOUrl": ("", "https://www.chess.com/openings/"),
    "Termination": ("", "Normal", "Time forfeit", "Abandoned", "Rules infraction", "Unterminated",
                    "Insufficient material", "Stalemate", "Emergency", "Death", "Adjudication"),
    "Variant": ("", "Standard", "Chess960", "From Position", "Crazyhouse", "Antichess", "Atomic", "Horde",
                "King of the Hill", "Racing Kings", "Three-check", "fischerandom"),
    "WhiteTitle": ("", *_TITLES),
    "BlackTitle": ("", *_TITLES),
    "Mode": ("", "ICS", "OTB", "EM"),
    "SetUp": ("", "0", "1"),
    "Timezone": ("", "UTC"),
    "Annotator": ("", "lichess.org"),
}
"""Per tag: values or value prefixes coded by index, the rest (an identifier, a number, text) after them;
the longest prefix that a value starts with is the one coded."""

TIME_CONTROLS: tuple[str, ...] = (
    "15+0", "30+0", "60+0", "60+1", "120+1", "180+0", "180+1", "180+2", "300+0", "300+2", "300+3", "300+5",
    "600+0", "600+5", "900+0", "900+10", "1200+0", "1500+10", "1800+0", "1800+20", "2700+15", "3600+0",
    "5400+30",
)
"""Time controls of the common server presets (seconds + increment), coded by index."""

RESULTS: tuple[str, ...] = ("1-0", "0-1", "1/2-1/2", "*")
"""Result tokens (and ``Result`` tag values) coded by index."""

CLK = 1
EMT = 2
EVAL = 3
COMMANDS: dict[str, int] = {"clk": CLK, "emt": EMT, "eval": EVAL}
"""The comment commands coded as numbers (when writing the number back gives their exact text)."""

SKELETONS: tuple[tuple[str | int, ...], ...] = (
    (" ", CLK, " "),
    (" ", EVAL, " ", CLK, " "),
    (CLK,),
    (" ", CLK, " ", EMT, " "),
    (" ", EMT, " "),
    (" ", EVAL, " "),
)
"""Comment skeletons (literal text and commands) the cache starts with, most likely first: lichess's
``{ [%clk 0:01:00] }`` and ``{ [%eval 0.17] [%clk 0:01:00] }``, chess.com's ``{[%clk 0:02:59.9]}``."""

_LETTERS = "etaoinshrdlcumwfgypbvkjxqz"
_LETTER_WEIGHTS = (127, 91, 82, 75, 70, 67, 63, 61, 60, 43, 40, 28, 28, 24, 24, 22, 20, 20, 19, 15, 10, 8, 2, 2, 1, 1)


def byte_weights() -> list[int]:
    """A prior over the bytes of text (English letter frequencies, capitals, digits, punctuation), in
    integer weights: where the adaptive character model of a section starts."""
    weights = [1] * 256
    for byte in range(0x20, 0x7F):
        weights[byte] = 4
    for byte in range(0x80, 0x100):
        weights[byte] = 2
    for letter, weight in zip(_LETTERS, _LETTER_WEIGHTS):
        weights[ord(letter)] = 10 * weight
        weights[ord(letter.upper())] = 3 * weight + 10
    for digit in "0123456789":
        weights[ord(digit)] = 120
    for char, weight in ((" ", 900), ("_", 60), ("-", 60), (".", 60), (",", 40), (":", 30), ("'", 20),
                         ("(", 15), (")", 15), ("/", 20), ("!", 10), ("?", 10), ("\n", 20)):
        weights[ord(char)] = weight
    return weights
