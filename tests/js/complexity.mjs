// One way to check that a cost grows linearly with its input, robust to a busy machine (the
// twin of tests/complexity.py): CPU time of this process, not wall time; the best of several
// fresh runs; and when the ratio still looks too high, the whole measurement again, because a
// genuinely quadratic cost fails every time while a disturbed linear one does not.

function cpuMs(action) {
  const before = process.cpuUsage();
  action();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** The best CPU milliseconds of `repeat` fresh runs; `prepare(size)` returns the action. */
export function bestMs(prepare, size, repeat = 5) {
  let best = Infinity;
  for (let run = 0; run < repeat; run += 1) best = Math.min(best, cpuMs(prepare(size)));
  return best;
}

/** The lowest large/small time ratio over up to `attempts` measurements (1 ms floor). */
export function growth(prepare, small, large, bound, attempts = 3) {
  prepare(small)(); // warm up the JIT
  let lowest = Infinity;
  for (let attempt = 0; attempt < attempts && lowest >= bound; attempt += 1) {
    lowest = Math.min(lowest, bestMs(prepare, large) / Math.max(bestMs(prepare, small), 1));
  }
  return lowest;
}
