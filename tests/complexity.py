"""One way to check that a cost grows linearly with its input, robust to a busy machine.

A complexity bound compares two input sizes. On two shared cores, wall time, a garbage
collection landing in one run, or one run's allocations have each pushed a linear scan's ratio
past a quadratic-looking bound (CI saw 27x for 8x the input on a linear pass). So: CPU time,
not wall time; the collector paused while timing; the best of several runs; and when the ratio
still looks too high, the whole measurement is repeated, because a genuinely quadratic cost
fails every time while a disturbed linear one does not.

Where the cost is Python code, a count of its calls needs no such care: `assert_linear_calls`
counts every Python-level call (generator resumptions included), which no other process can
disturb. It misses work done inside one C call (a regex, an XPath, a string search over a
growing text), which only the CPU time shows.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable
from types import FrameType

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


def python_calls(action: Callable[[], object]) -> int:
    """How many Python-level calls `action` makes (each resumption of a generator counts)."""
    count = 0

    def profile(_frame: FrameType, event: str, _arg: object) -> None:
        nonlocal count
        if event == "call":
            count += 1

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        action()
    finally:
        sys.setprofile(previous)
    return count


def assert_linear_calls(prepare: Prepare, small: int, large: int, bound: float) -> None:
    """`large/small` times the input must make under `bound` times as many Python calls
    (counted after one warm-up run, so that caches filled once do not count)."""
    prepare(small)()
    counts = [python_calls(prepare(size)) for size in (small, large)]
    ratio = counts[1] / max(counts[0], 1)
    assert ratio < bound, f"{large / small:g}x the input made {ratio:.1f}x the calls {counts}"
