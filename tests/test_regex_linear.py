"""Every compiled regex of laika_host runs in linear time on adversarial input.

The host applies regexes to page text and model text, both hostile: one that backtracks can
freeze the host (the script stripper took 47 s on a 2.5 MB page). This test finds every
`re.Pattern` in the package's module globals (and in the containers and classes there), and
times each on inputs built from the pattern itself: its literal fragments and the prefixes
of a sample match repeated (many unclosed constructs), long runs of each character its
classes accept, and a prefix followed by such a run (one unclosed construct). Each input is
timed at two sizes; the time may grow about as fast as the input, not as its square, and
stays under a generous absolute bound. A regex used on outside text belongs at module level
(compiled once) so that this test sees it.
"""

from __future__ import annotations

import ast
import importlib
import os
import pickle
import pkgutil
import re
import select
import signal
import string
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from re import _constants as sre
from re import _parser as sre_parse
from typing import Any

import pytest

import laika_host

SMALL, LARGE = 4_000, 16_000
QUICK = 0.005
"""A pattern done with the large input within this many seconds needs no closer look."""
MAX_GROWTH = 8.0
"""4x the input: linear time grows about 4x, quadratic 16x."""
MAX_SECONDS = 0.5
"""For 16,000 characters: a linear regex takes a few milliseconds at most."""
MAX_INPUTS = 40 if os.environ.get("LAIKA_FAST_TESTS") else 160
"""Adversarial inputs per pattern; `--fast` tries a spread of 40 of the full run's 160."""
HANG_SECONDS = 60
SUSPECTS = 3
POOL = string.printable + "\u00a0\u00e9\u00df\u2014\u201c\u200b\u4e2d\U0001f600"
_CATEGORIES = {
    sre.CATEGORY_DIGIT: r"\d",
    sre.CATEGORY_NOT_DIGIT: r"\D",
    sre.CATEGORY_SPACE: r"\s",
    sre.CATEGORY_NOT_SPACE: r"\S",
    sre.CATEGORY_WORD: r"\w",
    sre.CATEGORY_NOT_WORD: r"\W",
}
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)


_RE_FUNCTIONS = {"search", "match", "fullmatch", "sub", "subn", "findall", "finditer", "split"}
INLINE_ALLOWED = {
    ("agent/parse.py", r"[.\[]"): "splits pydantic's error paths, never page or model text",
    ("capture/images.py", r"[\\*_#>`\[\]]"): "a character class (linear); capture-md's file",
    ("capture/urls.py", r"/{2,}"): "one repeat (linear); capture-md's and redact's file",
}


def laika_modules() -> Iterator[Any]:
    yield laika_host
    for info in pkgutil.walk_packages(laika_host.__path__, "laika_host."):
        if info.name.rsplit(".", 1)[-1] != "__main__":  # runs the host on import
            yield importlib.import_module(info.name)


def patterns_in(value: Any, depth: int = 0) -> Iterator[re.Pattern[Any]]:
    if isinstance(value, re.Pattern):
        yield value
    elif depth < 3 and isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from patterns_in(item, depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for item in value.values():
            yield from patterns_in(item, depth + 1)


def all_patterns() -> dict[str, tuple[str, re.Pattern[Any]]]:
    """`module:name` -> (module, pattern), for each distinct pattern (first place found)."""
    found: dict[str, tuple[str, re.Pattern[Any]]] = {}
    seen: set[tuple[Any, int]] = set()
    for module in laika_modules():
        for name, value in sorted(vars(module).items()):
            places = [(name, value)]
            if isinstance(value, type) and value.__module__ == module.__name__:
                places += [(f"{name}.{key}", item) for key, item in vars(value).items()]
            for place, item in places:
                for index, pattern in enumerate(patterns_in(item)):
                    key = (pattern.pattern, pattern.flags)
                    if key not in seen:
                        seen.add(key)
                        label = place if index == 0 else f"{place}[{index}]"
                        found[f"{module.__name__}:{label}"] = (module.__name__, pattern)
    return found


# --- inputs built from a pattern ------------------------------------------------------------


class Inputs:
    """The pieces of a pattern that adversarial inputs are made of."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.flags = pattern.flags
        self.chars: list[str] = []  # characters some part of the pattern accepts (or refuses)
        self.refused: list[str] = []
        self.fragments: list[str] = []  # literal runs and sample matches of its parts
        self.groups: dict[int, str] = {}
        tree = sre_parse.parse(pattern.pattern, pattern.flags)
        self.samples = [self.sample(list(tree), repeat) for repeat in (1, 2)]

    def sample(self, items: list[tuple[Any, Any]], repeat: int) -> str:
        """A string matching `items` (repeats taken `repeat` times where allowed); records
        the characters and fragments met on the way."""
        out: list[str] = []
        literal: list[str] = []
        for op, value in items:
            piece = self.piece(op, value, repeat)
            if op is sre.LITERAL:
                literal.append(piece)
                continue
            if len(literal) > 1:
                self.fragments.append("".join(literal))
            out.extend(literal)
            literal = []
            out.append(piece)
        if len(literal) > 1:
            self.fragments.append("".join(literal))
        out.extend(literal)
        return "".join(out)

    def piece(self, op: Any, value: Any, repeat: int) -> str:
        if op is sre.LITERAL:
            return chr(value)
        if op in (sre.NOT_LITERAL, sre.ANY, sre.IN):
            return self.char_class(op, value)
        if op is sre.BRANCH:
            options = [self.sample(list(option), repeat) for option in value[1]]
            self.fragments.extend(options)
            return options[0]
        if op is sre.SUBPATTERN:
            text = self.sample(list(value[3]), repeat)
            if value[0]:
                self.groups[value[0]] = text
            self.fragments.append(text)
            return text
        if op in _REPEATS:
            low, high, body = value
            text = self.sample(list(body), repeat)
            self.fragments.append(text)
            return text * max(low, min(repeat, high))
        if op is sre.ATOMIC_GROUP:
            return self.sample(list(value), repeat)
        if op is sre.GROUPREF:
            return self.groups.get(value, "")
        if op is sre.GROUPREF_EXISTS:
            return self.sample(list(value[1]), repeat)
        return ""  # AT, ASSERT, ASSERT_NOT: no characters

    def char_class(self, op: Any, value: Any) -> str:
        if op is sre.ANY:
            accepted = [c for c in POOL if c != "\n" or self.flags & re.DOTALL]
        else:
            test = re.compile(class_source(op, value), self.flags & ~re.VERBOSE)
            accepted = [c for c in POOL if test.fullmatch(c)]
            refused = [c for c in POOL if not test.fullmatch(c)]
            self.chars.extend(refused[:1])
            self.refused.extend(refused[:1])
        picks = {c for kind in (str.isalpha, str.isdigit, str.isspace) for c in accepted if kind(c)}
        others = [c for c in accepted if not (c.isalnum() or c.isspace())]
        chosen = sorted(picks, key=accepted.index)[:3] + others[:2]
        self.chars.extend(chosen)
        return chosen[0] if chosen else ""

    def recipes(self) -> list[Recipe]:
        """The adversarial inputs, as recipes for any size, most telling first."""
        samples = [sample for sample in dict.fromkeys(self.samples) if sample]
        chars = list(dict.fromkeys(c for c in self.chars if c))[:6]
        ends = list(dict.fromkeys(["", " ", "\x00", *self.refused[-1:]]))
        made: list[Recipe] = []
        for sample in samples:  # many unclosed constructs: prefixes of a match, repeated
            cuts = range(1, len(sample) + 1)
            made += [("repeat", sample[:cut], "", "") for cut in _spread(cuts, 12)]
        fragments = dict.fromkeys(f for f in self.fragments if f)
        made += [("repeat", fragment, "", "") for fragment in _spread(list(fragments), 16)]
        made += [("run", "", c, "") for c in chars]  # long runs the classes accept (or refuse)
        for sample in samples[:1]:  # one unclosed construct, a long run, and what ends it
            for cut in _spread(range(1, len(sample) + 1), 4):
                made += [("run", sample[:cut], c, end) for c in chars for end in ends]
        return _spread(list(dict.fromkeys(made))[:160], MAX_INPUTS)


Recipe = tuple[str, str, str, str]


def make(recipe: Recipe, size: int) -> str:
    kind, piece, run, end = recipe
    if kind == "repeat":
        return piece * max(1, size // len(piece))
    return piece + run * max(1, size - len(piece) - len(end)) + end


def _spread(items: Any, count: int) -> list[Any]:
    """At most `count` of `items`, evenly spread (first and last included)."""
    items = list(items)
    if len(items) <= count:
        return items
    step = (len(items) - 1) / (count - 1)
    return list(dict.fromkeys(items[round(i * step)] for i in range(count)))


def class_source(op: Any, value: Any) -> str:
    """A one-character pattern equivalent to a NOT_LITERAL or IN node."""
    if op is sre.NOT_LITERAL:
        return f"[^{re.escape(chr(value))}]"
    parts = []
    negate = ""
    for kind, item in value:
        if kind is sre.NEGATE:
            negate = "^"
        elif kind is sre.LITERAL:
            parts.append(re.escape(chr(item)))
        elif kind is sre.RANGE:
            parts.append(f"{re.escape(chr(item[0]))}-{re.escape(chr(item[1]))}")
        elif kind is sre.CATEGORY:
            parts.append(_CATEGORIES[item])
    return f"[{negate}{''.join(parts)}]"


def anchored_uses() -> set[str]:
    """Names of patterns the package only ever calls `.match` or `.fullmatch` on (one attempt
    at the start), from its source; any other use, or none seen, means searching."""
    methods: dict[str, set[str]] = {}
    for path in Path(laika_host.__file__).parent.rglob("*.py"):
        for name, method in _METHOD_CALL.findall(path.read_text(encoding="utf-8")):
            methods.setdefault(name, set()).add(method)
    return {name for name, used in methods.items() if used <= {"match", "fullmatch"}}


_METHOD_CALL = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\.(\w+)\(")
ANCHORED = anchored_uses()


def run(pattern: re.Pattern[Any], text: Any, anchored: bool) -> float:
    """Seconds for what the package does with the pattern: a scan of every position
    (`finditer`) and a `fullmatch`, or for an anchored pattern `match` and `fullmatch`."""
    # CPU time, not wall time: other processes on these cores must not fail a complexity bound
    started = time.process_time()
    if anchored:
        pattern.match(text)
    else:
        for _ in pattern.finditer(text):
            pass
    pattern.fullmatch(text)
    return time.process_time() - started


def slowest_growth(pattern: re.Pattern[Any], anchored: bool) -> tuple[float, float, str]:
    """(time at LARGE, its growth from SMALL, the input's start) of the worst input. Every
    input runs once at LARGE; the slowest few are timed again at SMALL (and, when they grow
    too fast, at 4 x LARGE: a real super-linear input grows too fast twice in a row)."""
    encode = isinstance(pattern.pattern, bytes)

    def sized(recipe: Recipe, size: int) -> Any:
        text = make(recipe, size)
        return text.encode("latin-1", "ignore") if encode else text

    timed = []
    for recipe in Inputs(pattern).recipes():
        took = run(pattern, sized(recipe, LARGE), anchored)
        if took > MAX_SECONDS:
            return took, float("inf"), make(recipe, 40)
        timed.append((took, recipe))
    worst = (0.0, 1.0, "")
    for first, recipe in sorted(timed, reverse=True)[:SUSPECTS]:
        if first < QUICK:
            break
        took = min(first, run(pattern, sized(recipe, LARGE), anchored))
        grew = took / max(min(run(pattern, sized(recipe, SMALL), anchored) for _ in range(2)), 1e-6)
        if grew > MAX_GROWTH:  # noise, or super-linear? once more, larger
            further = run(pattern, sized(recipe, 4 * LARGE), anchored)
            grew, took = min(grew, further / took), max(took, further / 4)
        worst = max(worst, (took, grew, make(recipe, 40)))
        if took > MAX_SECONDS or grew > MAX_GROWTH:
            return worst
    return worst


def in_child(audit: Callable[[], tuple[float, float, str]]) -> tuple[float, float, str]:
    """Run `audit` in a forked child, so that a regex that backtracks exponentially fails
    the test after HANG_SECONDS instead of hanging it (a regex call cannot be interrupted)."""
    if not hasattr(os, "fork"):
        return audit()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report and leave at once, whatever happens
        try:
            os.write(write, pickle.dumps(audit()))
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as answer:
        ready, _, _ = select.select([answer], [], [], HANG_SECONDS)
        if not ready:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return float("inf"), float("inf"), f"(no answer in {HANG_SECONDS} s)"
        data = answer.read()
    os.waitpid(pid, 0)
    result: tuple[float, float, str] = pickle.loads(data)
    return result


PATTERNS = all_patterns()


def inline_patterns() -> list[tuple[str, str]]:
    """(file, pattern) of each `re.search("...", text)`-style call with a literal pattern:
    compiled on the fly, it would escape this audit."""
    root = Path(laika_host.__file__).parent
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "re"
                and node.func.attr in _RE_FUNCTIONS
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                found.append((path.relative_to(root).as_posix(), str(node.args[0].value)))
    return found


def test_no_regex_literal_is_applied_inline() -> None:
    inline = [place for place in inline_patterns() if place not in INLINE_ALLOWED]
    assert inline == [], "compile these once at module level, so that the audit times them"


def test_the_audit_finds_the_patterns_that_read_pages_and_models() -> None:
    modules = {module for module, _ in PATTERNS.values()}
    assert len(PATTERNS) >= 80
    for expected in (
        "laika_host.capture.limits",
        "laika_host.capture.signals",
        "laika_host.capture.text",
        "laika_host.agent.parse",
        "laika_host.render._commonmark",
        "laika_host.protocol._base",
        "laika_host.redact._formats",
        "laika_host.redact._text",
        "laika_host.redact._urls",
        "laika_host.redact._values",
    ):
        assert expected in modules, f"no pattern found in {expected}"


@pytest.mark.parametrize("label", list(PATTERNS))
def test_regex_runs_in_linear_time(label: str) -> None:
    _, pattern = PATTERNS[label]
    anchored = label.rsplit(":", 1)[1] in ANCHORED
    took, grew, start = in_child(lambda: slowest_growth(pattern, anchored))
    where = f"{label} = {pattern.pattern!r} on input starting {start!r}"
    assert took <= MAX_SECONDS, f"{where}: {took:.3f} s for {LARGE:,} characters"
    assert grew <= MAX_GROWTH, f"{where}: {grew:.1f}x the time of {SMALL:,} characters"
