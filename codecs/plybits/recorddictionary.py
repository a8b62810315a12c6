"""The shared dictionary of the record section, versions 1 and 2: what the coder of :mod:`plybits.recordsection`
predicts a record to hold, from public conventions only (the PGN standard's tags, the tags and values
that lichess, chess.com, TWIC and the xiangqi and Abalone records write).

Released versions never change: the section's version byte names the dictionary it was coded with, so a
change here is a new section version. Version 2 is version 1 and the tables marked "version 2" (which a
version-1 section never reads).
"""

from __future__ import annotations

TAG_NAMES: tuple[str, ...] = (
    "Event", "Site", "Date", "Round", "White", "Black", "Result",
    "UTCDate", "UTCTime", "WhiteElo", "BlackElo", "WhiteRatingDiff", "BlackRatingDiff",
    "Variant", "TimeControl", "ECO", "Opening", "Variation", "Termination", "Annotator",
    "WhiteTitle", "BlackTitle", "WhiteFideId", "BlackFideId", "EventDate", "PlyCount",
    "Red", "WhiteTeam", "BlackTeam", "WhiteCountry", "BlackCountry", "EventType", "EventRounds", "EventCountry",
    "Board", "Mode", "Time", "SetUp", "FEN", "Timezone", "ECOUrl", "StartTime", "EndDate", "EndTime", "Link",
    "CurrentPosition", "GameStartTime", "GameEndTime", "GameDuration", "Source", "SourceDate",
    "SourceVersionDate", "Notation", "Plies", "Format", "Game", "Section", "Stage", "SubVariation",
)
"""Known tag names in their usual order (the Seven Tag Roster first, then lichess's, TWIC's, chess.com's,
xiangqi's and Abalone's)."""

SUCCESSORS: dict[str, tuple[str, ...]] = {
    "": ("Event", "Site", "Variant"),
    "Event": ("Site", "Date", "Red"),
    "Site": ("Date",),
    "Date": ("Round", "White", "EventDate"),
    "EventDate": ("Round", "PlyCount"),
    "Round": ("White", "Result"),
    "White": ("Black",),
    "Red": ("Black",),
    "Black": ("Result", "ECO", "Variant"),
    "Result": ("UTCDate", "WhiteElo", "WhiteTitle", "ECO", "CurrentPosition", "TimeControl", "Board", "FEN"),
    "UTCDate": ("UTCTime",),
    "UTCTime": ("WhiteElo",),
    "WhiteElo": ("BlackElo",),
    "BlackElo": ("WhiteRatingDiff", "ECO", "PlyCount", "TimeControl"),
    "WhiteRatingDiff": ("BlackRatingDiff",),
    "BlackRatingDiff": ("Variant", "ECO", "WhiteTitle", "TimeControl"),
    "WhiteTitle": ("BlackTitle",),
    "BlackTitle": ("Variant", "WhiteElo", "TimeControl"),
    "Variant": ("TimeControl", "Result"),
    "TimeControl": ("ECO", "Termination", "StartTime"),
    "ECO": ("Opening", "Termination", "WhiteElo", "PlyCount", "ECOUrl"),
    "Opening": ("Variation", "TimeControl", "Termination"),
    "Variation": ("WhiteFideId", "SubVariation"),
    "WhiteFideId": ("BlackFideId",),
    "BlackFideId": ("EventDate",),
    "Termination": ("Annotator", "StartTime"),
    "CurrentPosition": ("Timezone",),
    "Timezone": ("ECO",),
    "ECOUrl": ("UTCDate",),
    "StartTime": ("EndDate",),
    "EndDate": ("EndTime",),
    "EndTime": ("Link",),
    "FEN": ("SetUp",),
}
"""The names that usually follow a tag (the empty name: the first tag), most likely first: a tag name is
coded by its rank among the unused known names, these first, then the others in :data:`TAG_NAMES` order
from the last one on."""

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
WORDED = "worded"
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
    "Opening": WORDED, "Variation": WORDED, "SubVariation": WORDED,
}
"""How each known tag's value is typed; a tag not named here is :data:`PREFIXED` if it has prefixes below,
else :data:`TEXT`."""

_SPEEDS = ("Blitz", "Rapid", "Bullet", "Classical", "UltraBullet", "Correspondence", "Chess960", "Crazyhouse",
           "Antichess", "Atomic", "Horde", "King of the Hill", "Racing Kings", "Three-check")
_LICHESS_EVENTS = tuple(
    text
    for kind in ("game", "tournament https://lichess.org/tournament/", "swiss https://lichess.org/swiss/")
    for mode in ("Rated", "Casual")
    for speed in _SPEEDS
    for text in (f"{mode} {speed} {kind}",)
)
_TITLES = ("GM", "IM", "FM", "CM", "NM", "WGM", "WIM", "WFM", "WCM", "WNM", "LM", "BOT")

PREFIXES: dict[str, tuple[str, ...]] = {
    "Event": ("", "?", "Live Chess", *_LICHESS_EVENTS, "Let's Play!", "Casual game"),
    "Site": ("https://lichess.org/", "", "?", "Chess.com", "https://www.chess.com/game/live/",
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
"""Per tag: values or value prefixes, the most usual first, coded by index; the rest (an identifier, a number,
text) after them; the longest prefix that a value starts with is the one coded."""

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

WORDS: tuple[str, ...] = tuple(dict.fromkeys("""
Defense Opening Game Variation Attack Gambit Pawn Sicilian Queen's King's Indian French Accepted Declined Line Main Exchange Knight Variations Advance Two Knights Four Italian Ruy Lopez English Caro Kann Scandinavian Modern Classical System Countergambit Scotch Queen Bishop's Slav Pirc London Defence Old Mieses Kotroc Philidor Nimzowitsch Knight's Center Open Closed Alekhine Dutch Vienna Petrov's Russian Other Lines Normal
Defense Defence Opening Game Gambit Attack Variation Variations Accepted Declined System Countergambit Line Lines
Main Other Normal Sicilian French Caro Kann Queen's King's Queen King Pawn Indian English Italian Spanish Ruy Lopez
Scotch Petrov's Petrov Petroff Russian Philidor Pirc Modern Alekhine Scandinavian Nimzo Gr\u00fcnfeld Grunfeld
Gruenfeld Dutch Slav Semi Catalan Benoni Benko Budapest London Colle Trompowsky R\u00e9ti Reti Bird Bird's Vienna
Four Two Three Knights Knight's Knight Bishop's Bishop Najdorf Dragon Accelerated Hyperaccelerated Scheveningen
Taimanov Kan Sveshnikov Alapin Smith Morra Closed Open Exchange Advance Classical Tarrasch Winawer Rubinstein
Steinitz Berlin Marshall Morphy Evans Giuoco Piano Fried Liver Traxler Hungarian Ponziani Latvian Elephant Center
Centre Danish Owen Nimzowitsch Larsen Polish Grob Sokolsky Zukertort Torre Stonewall Leningrad Hedgehog Symmetrical
Reversed Anglo Old New Mieses Kotroc Van't Kruijs Hippopotamus Rat Mikenas Czech Austrian Byrne Fianchetto Bogo
Albin Chigorin Tartakower Panov Botvinnik Karpov Smyslov Schlechter Wing Blackmar Diemer Staunton Kieseritzky Muzio
Salvio Allgaier Cunningham Falkbeer Schliemann Jaenisch Cozio Mason Krause Wormald Rossolimo Moscow Nyezhmetdinov
Keres Richter Rauzer Anti Delayed Quiet Irregular Mengarini's Amar Clemenz Ware Barnes Gedult's Saragossa Dunst Crab
Borg St George Jerome Calabrese Halloween Wayward Bowdler Paulsen Kalashnikov Grand Prix Chekhover Lasker Tal
Benoni Bishop Portuguese Scandinavian Icelandic Lemberger Ryder Bl\u00fcmich Euwe Teichmann Fischer Kasparov
Petrosian Spassky Averbakh Samisch S\u00e4misch Saemisch Four Pawns Knights Rapport Jobava Barry Pseudo Zaitsev
Breyer Chigorin Flohr Zaitsev Worrall Arkhangelsk Archangel Neo Mortimer Cordel Deferred Bongcloud Englund Owen's
Kingside Queenside Hanham Larobok Lion Chameleon Pin Counterattack Counter Double Duras Exchange Fork Trap Fajarowicz
Tennison Polish Orangutan Dzindzi Indian Carr Hungarian Lisitsin Zilbermints Jaenisch Greco Horwitz Kmoch Maroczy
Bind Levenfish Yugoslav Harrington Mar\u00f3czy Spielmann Alatortsev Noteboom Meran Abrahams Chebanenko Tolush
Geller Sozin Velimirovic Fianchetto Modern Gurgenidze Mongoose Nakhmanson Sicilian Kortchnoi Snyder Kupreichik
Frankenstein Dracula Goring Max Lange Schallopp Ulvestad Vinogradov Steinitz Suhle Yankovich Wilkes Barre
""".split()))
"""Common words of chess opening names (the ECO classification's and the servers' own), the most usual first:
an ``Opening`` or ``Variation`` is coded word by word where its words are here, each by its index."""


# ------------------------------------------------------------------------------------------------ version 2

DERIVED: tuple[str, ...] = ("CurrentPosition", "StartTime", "Termination")
"""Version 2: the tags a value derived from the game or the tags before them may give exactly, each coded then as
one symbol (``CurrentPosition``: the final position's FEN without its move counters, as chess.com writes it;
``StartTime``: the ``UTCTime`` tag; ``Termination``: one of :data:`TERMINATIONS`); any other value is coded as
in version 1."""

TERMINATIONS: tuple[str, ...] = (
    "{winner} won by resignation", "{winner} won by checkmate", "{winner} won on time",
    "{winner} won - game abandoned", "Game drawn by agreement", "Game drawn by repetition",
    "Game drawn by stalemate", "Game drawn by insufficient material",
    "Game drawn by timeout vs insufficient material", "Game drawn by 50-move rule",
)
"""Version 2: ``Termination`` values as chess.com writes them, coded by index; ``{winner}`` is the ``White`` tag
when the ``Result`` tag is ``1-0``, the ``Black`` tag when it is ``0-1`` (no value with it otherwise)."""

WORDED_PREFIXED: tuple[str, ...] = ("ECOUrl",)
"""Version 2: the prefixed tags whose rest, when text, is coded as worded text (chess.com's opening URLs are
opening names, their words joined by ``-``)."""


# ------------------------------------------------------------------------------------------------ version 3

PLAYERS: tuple[str, ...] = ("White", "Black", "Red")
"""Version 3: the tags whose values are player names, coded as text whose every byte is predicted by the class of
the one before (a user name's case runs, its digits at the end)."""

SPEEDS: tuple[tuple[str, int], ...] = (
    ("UltraBullet", 1), ("Bullet", 2), ("Blitz", 3), ("Rapid", 4), ("Classical", 5), ("Correspondence", 6),
    ("Live Chess", 7),
)
"""Version 3: the words of an ``Event`` (lichess's speeds, chess.com's live games) that name the context its
``TimeControl`` is coded under (the first that the ``Event`` holds; 0 for none)."""

ECO_STARTS: dict[str, int] = {
    "e4 e5": 1, "e4 c5": 2, "e4 e6": 3, "e4 c6": 4, "e4 d5": 5, "e4 d6": 6, "e4 g6": 6, "e4 Nf6": 7, "e4": 8,
    "d4 d5": 9, "d4 Nf6": 10, "d4": 11, "c4": 12, "Nf3": 13,
}
"""Version 3: the game's first two plies (in SAN; or its first ply alone) by the class its ``ECO`` is coded under,
as the ECO classification groups its codes (1.e4 e5: C20–C99, 1.e4 c5: B20–B99, 1.d4 Nf6: A45–A79 and E, ...);
14 for another first move, 0 for none."""
