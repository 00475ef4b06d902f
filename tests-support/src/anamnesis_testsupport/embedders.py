"""A small deterministic embedder for store tests that need vectors but not a model."""

from __future__ import annotations

import math
import random
import re
from collections.abc import Sequence


class BagOfWordsEmbedder:
    """Each word a fixed random direction; a text the normalized sum of its words (texts
    sharing words are near, others far). Records every text it embeds in ``embedded``."""

    def __init__(self, dimensions: int = 32) -> None:
        self.dimensions = dimensions
        self.model_id = f"bag-of-words-{dimensions}"
        self.embedded: list[str] = []

    def _vector(self, text: str) -> list[float]:
        total = [0.0] * self.dimensions
        for word in re.findall(r"\w+", text.lower()):
            rng = random.Random(word)
            for i in range(self.dimensions):
                total[i] += rng.gauss(0, 1)
        norm = math.sqrt(sum(x * x for x in total)) or 1.0
        return [x / norm for x in total]

    def embed_documents(self, texts: Sequence[str]) -> list[Sequence[float]]:
        self.embedded.extend(texts)
        return [self._vector(text) for text in texts]

    def embed_query(self, text: str) -> Sequence[float]:
        return self._vector(text)
