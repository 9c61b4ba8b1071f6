"""Named pieces of a flat vector: the one declaration the encoder, the space and the docs derive from."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Piece:
    name: str
    shape: tuple[int, ...]
    meaning: str
    low: float = 0.0
    high: float = 1.0

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))


class Layout:
    """An ordered list of pieces with their offsets in the flat vector."""

    def __init__(self, pieces: list[Piece]) -> None:
        self.pieces = tuple(pieces)
        self.offsets: dict[str, int] = {}
        offset = 0
        for piece in self.pieces:
            if piece.name in self.offsets:
                raise ValueError(f"duplicate piece {piece.name!r}")
            self.offsets[piece.name] = offset
            offset += piece.size
        self.size = offset
        self.by_name = {p.name: p for p in self.pieces}

    def slice(self, name: str) -> slice:
        start = self.offsets[name]
        return slice(start, start + self.by_name[name].size)

    def view(self, vector: np.ndarray, name: str) -> np.ndarray:
        """The piece ``name`` of a flat vector, in its declared shape."""
        return vector[self.slice(name)].reshape(self.by_name[name].shape)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        low = np.concatenate([np.full(p.size, p.low, np.float32) for p in self.pieces])
        high = np.concatenate([np.full(p.size, p.high, np.float32) for p in self.pieces])
        return low, high

    def markdown_table(self, start: int = 0) -> str:
        """The index table of the env card (from the piece at offset ``start`` on)."""
        rows = ["| index | name | shape | range | meaning |", "|---|---|---|---|---|"]
        for p in self.pieces:
            first = self.offsets[p.name]
            if first < start:
                continue
            index = f"{first}" if p.size == 1 else f"{first}-{first + p.size - 1}"
            shape = "x".join(map(str, p.shape))
            rows.append(f"| {index} | `{p.name}` | {shape} | {p.low:g}..{p.high:g} | {p.meaning} |")
        return "\n".join(rows)
