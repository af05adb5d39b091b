"""One rule for every bench's figures: the median, the p99 by nearest rank, ratios to a floor.

`p99` is by nearest rank (the 297th of 300 sorted calls, the 10th of 10: always a time that was
measured); `median` is `statistics.median` (the mean of the two middle calls for an even count).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


def nearest_rank(sorted_values: Sequence[float], q: float) -> float:
    """The q-quantile (0 < q ≤ 1) of `sorted_values` (ascending, not empty) by nearest rank: the
    value at rank ⌈q·n⌉. Raises IndexError when it is empty."""
    return sorted_values[max(0, math.ceil(q * len(sorted_values)) - 1)]


@dataclass(frozen=True)
class Summary:
    """Timed calls summed up, in milliseconds (`n`: how many)."""

    n: int
    median: float
    p99: float
    mean: float
    min: float
    max: float

    @classmethod
    def of_ms(cls, values_ms: Iterable[float]) -> Summary:
        """The summary of durations in ms. Raises ValueError when there are none."""
        ms = sorted(values_ms)
        if not ms:
            raise ValueError("No timed calls to sum up.")
        return cls(
            n=len(ms),
            median=statistics.median(ms),
            p99=nearest_rank(ms, 0.99),
            mean=statistics.fmean(ms),
            min=ms[0],
            max=ms[-1],
        )

    @classmethod
    def of_seconds(cls, seconds: Iterable[float]) -> Summary:
        """The summary, in ms, of durations in seconds (`time.perf_counter` differences)."""
        return cls.of_ms(s * 1e3 for s in seconds)


def median_ms(seconds: Iterable[float]) -> float:
    """The median of durations in seconds, in ms. Raises statistics.StatisticsError when empty."""
    return statistics.median(seconds) * 1e3


def ratio(value: float, floor: float | None) -> float | None:
    """`value / floor` rounded to 0.01 (the benches' "x floor"); None without a floor
    (None or 0)."""
    return round(value / floor, 2) if floor else None
