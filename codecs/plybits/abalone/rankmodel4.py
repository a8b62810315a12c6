"""``abalone/rank`` model 4: model 3's features and opening book under weights all refitted together.

Model 3 kept model 2's weights and fitted only its book's; model 4 fits every one of the same 3,850 weights jointly
(from model 3's, on the same training games, each counted out of the book while its plies are read), so the
weights of model 2's features no longer have to stand in for the book in the opening. The features, the book and
the scorer are model 3's (:class:`~plybits.abalone.rankmodel3.LinearAbaloneModel3`,
:func:`~plybits.abalone.rankmodel3.move_features`); only the data file differs: ``rank_model_v4.json``, fitted by
``tools/train_abalone.py --model 4``, whose book is model 3's.

The weights and the book are part of model 4's format: never change them; a change is a new model.
"""

from __future__ import annotations

from typing import Final

from plybits.abalone.rankmodel3 import LinearAbaloneModel3

MODEL_4: Final[LinearAbaloneModel3] = LinearAbaloneModel3(
    "rank_model_v4.json", 4,
    "log-linear move model 4: model 3's features and opening book, every weight refitted, from MiGs games "
    "(tools/train_abalone.py)",
)
"""Model 4, what ``encode`` writes."""
