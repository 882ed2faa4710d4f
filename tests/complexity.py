"""One way to check that a cost grows linearly with its input, robust to a busy machine.

A complexity bound compares two input sizes. On two shared cores, wall time, a garbage
collection landing in one run, or one run's allocations have each pushed a linear scan's ratio
past a quadratic-looking bound (CI saw 27x for 8x the input on a linear pass). So: CPU time,
not wall time; the collector paused while timing; the best of several runs; and when the ratio
still looks too high, the whole measurement is repeated, because a genuinely quadratic cost
fails every time while a disturbed linear one does not.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

Prepare = Callable[[int], Callable[[], object]]
"""Given a size, set up fresh state (untimed) and return the action to time."""


def cpu_seconds(prepare: Prepare, size: int, repeat: int = 5) -> float:
    """The best CPU time of `repeat` fresh runs at `size`, the collector paused while timed."""
    best = float("inf")
    for _ in range(repeat):
        action = prepare(size)
        enabled = gc.isenabled()
        gc.collect()
        gc.disable()
        try:
            started = time.process_time()
            action()
            best = min(best, time.process_time() - started)
        finally:
            if enabled:
                gc.enable()
    return best


def growth(prepare: Prepare, small: int, large: int, bound: float, attempts: int = 3) -> float:
    """The lowest large/small time ratio over up to `attempts` measurements, stopping at the
    first under `bound` (a floor of 1 ms on the small side keeps tiny timings meaningful)."""
    prepare(small)()  # warm caches and imports once
    lowest = float("inf")
    for _ in range(attempts):
        ratio = cpu_seconds(prepare, large) / max(cpu_seconds(prepare, small), 1e-3)
        lowest = min(lowest, ratio)
        if lowest < bound:
            break
    return lowest


def assert_linear(prepare: Prepare, small: int, large: int, bound: float) -> None:
    """`large/small` times the input must cost under `bound` times as long."""
    ratio = growth(prepare, small, large, bound)
    assert ratio < bound, f"{large / small:g}x the input cost {ratio:.1f}x the time"
