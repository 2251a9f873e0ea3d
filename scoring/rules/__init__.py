"""Rule-set registry and the contract every rule set follows.

Adding a rule set = adding one package ``scoring/rules/<name>/`` (plus its tests); nothing in the
core changes.  The registry discovers packages in this folder by name.

Contract for ``scoring/rules/<name>/__init__.py``
-------------------------------------------------
It defines ``RULESET = RuleSet(...)`` with:

- ``name``: the package name (``"mcr"``, ``"sihai"``, ``"shanghai"``), used by ``--rules`` and in
  results as ``"rules"``.
- ``title``: a human title, e.g. ``"Chinese Official (MCR, 国标)"``; the part before `` (`` names
  the rule set in sentences (``plain_title``).
- ``unit``: what the total counts, as a table says it after the number (MCR 番, Sihai 分, Shanghai 点).
- ``options_type``: a *frozen* dataclass whose fields all have defaults (bool, int, float or str).
  Its defaults are the rule set's standard rules; each field's docstring/comment says what it
  switches.  ``RuleSet.make_options`` builds it from a JSON dict and rejects unknown keys, values
  of the wrong type and whole numbers past ``MAX_OPTION_INT`` with ``ScoringError("bad_option")``.
- ``fans``: the tuple of ``scoring.fans.Fan`` records, each defined once with its zh/en names,
  points, exclusions and its predicate ``detect(reading, situation) -> Iterable[Hit]`` (the reading
  is the rule set's own view of a decomposition; ``detect`` is None for a fan the scorer settles).
  ``scoring.fans.check_fan_table`` must accept it (each rule set's package calls it on import).
- ``forms``: the hand forms it accepts, each with its name as messages give it: the shared
  search's forms (``scoring.decompose.FORM_NAMES``, named as there) and any the rule set finds
  itself.  A hand whose only readings are of other forms does not win; ``RuleSet.score`` then lists
  those forms in the result's ``refused_forms`` (the rule set's ``evaluate`` need not).
- optionally ``check_context(context)``: raise ``ScoringError`` for win facts this rule set cannot
  take whatever the tiles (Shanghai: a dealer other than East); checked before any scoring, and by
  the photo reader before it reads a photo.
- optionally ``own_forms`` (form -> its plain name) and ``find_own_forms(hand)``: the forms it finds
  itself and which of them a hand takes, so that the other rule sets can name them when they
  refuse such a hand; and ``accepted_forms(options)``, where an option turns a form off (Sihai's
  provisional 筋不靠), so that such a hand is refused by name too.
- ``evaluate(hand, context, options) -> scoring.result.Result``: score a *validated* hand.  Use
  ``scoring.decompose.decompositions(hand)`` for the readings (none of a form in ``forms`` means the
  result is ``winning=False, reason="not_winning"``), score every decomposition and keep the best (就高),
  fill ``fans`` with provenance (FanScore.groups from the Hits), ``total``, ``minimum_met``
  (the rule set's threshold; ``reason="below_minimum"`` when it fails, ``winning`` still true:
  it means a winning shape), ``flowers`` (count),
  ``payments`` for all four seats (E, S, W, N) summing to zero, and a rule-set specific
  ``breakdown`` dict (JSON-serialisable).  It must not raise on any valid Hand/WinContext; facts
  that contradict the tiles in a way only this rule set cares about raise ``ScoringError``.
- ``flowers_alike``: False when some flower scores by which it is, not only by how many there are.
- ``flower_note(breakdown) -> str``: what the flowers add, from the result's breakdown, for the total
  lines of ``mjlens score`` and ``mjlens photo`` (``+3 fans``; ``flowers_text``).
- ``shortfall(breakdown) -> str``: required where a hand can fall below the minimum: why it does
  not score, in the rule set's own measure, from the result's breakdown (``7 fans without flowers;
  MCR needs 8.``).
- optionally ``evaluate_json(hand, context, options) -> dict``: exactly ``evaluate(...).to_json()``,
  written without building the Result (``scoring.result.fan_json`` / ``result_json`` give the
  forms); ``score_json`` uses it, since every fresh hand it scores would build and then serialise
  the objects.

The core already validated: tile codes, copies, tile count, meld shapes, flowers, winds and the
flags against each other and the tiles (``scoring.hand``).  ``WinContext`` carries ``dealer`` and
``heavenly``/``earthly``/``human`` for rule sets that need them.  ``RuleSet.score`` adds caching:
Hand, WinContext and options are immutable and hashable, so repeated hands cost a dict lookup.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..decompose import FORM_NAMES, decompositions
from ..errors import JSON_KINDS, ScoringError, shown
from ..fans import Fan
from ..hand import Hand, WinContext, check_consistent
from ..result import BELOW_MINIMUM, NOT_WINNING, Result

# The largest whole number an option takes (either way from zero): far beyond any table's stakes
# or thresholds, while every total and payment made from it stays a number Python can print (it
# writes none past 4300 digits).
MAX_OPTION_INT = 1_000_000


@dataclass(frozen=True)
class RuleSet:
    name: str
    title: str
    unit: str  # of the total (see the contract above)
    options_type: type
    fans: tuple[Fan, ...]
    evaluate: Callable[[Hand, WinContext, Any], Result] = field(repr=False)
    # False where a flower scores by which it is (Shanghai's seat flowers); True where only how many
    # there are counts: a photo reader need not know which flower a tile is to score it
    flowers_alike: bool
    forms: dict[str, str]  # the accepted hand forms -> their names in messages (see the contract above)
    flower_note: Callable[[dict], str] = field(repr=False)
    # optional one line explaining `total` from the breakdown, for the CLI table (e.g. Sihai's H and line)
    summary: Callable[[dict], str] | None = field(default=None, repr=False)
    # why a hand below the minimum does not score; None for a rule set without a minimum
    shortfall: Callable[[dict], str] | None = field(default=None, repr=False)
    # optional: evaluate(...).to_json() without the Result objects (see the contract above)
    evaluate_json: Callable[[Hand, WinContext, Any], dict] | None = field(default=None, repr=False)
    # raises ScoringError for win facts the rule set cannot take (see the contract above)
    check_context: Callable[[WinContext], None] | None = field(default=None, repr=False)
    # forms beyond the shared search's, with their plain names, and those a hand's tiles take
    own_forms: dict[str, str] = field(default_factory=dict)
    find_own_forms: Callable[[Hand], Iterable[str]] | None = field(default=None, repr=False)
    # the forms that win under given options, where an option turns one off (default: all of `forms`)
    accepted_forms: Callable[[Any], Collection[str]] | None = field(default=None, repr=False)
    # win flags the rule set has no fan for (MCR has no 天和): the command says so, as a flag given
    # and silently changing nothing reads as a scoring fault
    unscored_flags: tuple[str, ...] = ()
    # whether the tile drawn after a flower counts as a kong's replacement (Shanghai's 杠头开花)
    flowers_replaced_as_kongs: bool = False

    def __post_init__(self) -> None:
        if not dataclasses.is_dataclass(self.options_type) or not self.options_type.__dataclass_params__.frozen:
            raise TypeError(f"{self.name}: options_type must be a frozen dataclass")
        # One cache per rule set; keys are (hand, context, options), all hashable.
        object.__setattr__(self, "_cached", lru_cache(maxsize=16384)(self._score_uncached))
        # the default options, made once (options are frozen, so every call can share them)
        object.__setattr__(self, "_defaults", self.options_type())

    @property
    def plain_title(self) -> str:
        """The title without its bracketed part, for sentences: "Shanghai old-style"."""
        return self.title.partition(" (")[0]

    def refused_forms(self, hand: Hand, options: Any) -> tuple[str, ...]:
        """The winning forms of any rule set that the hand's tiles take and this one does not
        accept under `options`, in form_names() order."""
        found = {d.form for d in decompositions(hand)}
        for find in _form_finders():
            found.update(find(hand))
        accepted = self.forms if self.accepted_forms is None else self.accepted_forms(options)
        return tuple(form for form in form_names() if form in found and form not in accepted)

    def make_options(self, values: dict | Any | None = None) -> Any:
        """Options from None (defaults), an options instance, or a dict of field values."""
        if values is None:
            return self._defaults  # type: ignore[attr-defined]
        if isinstance(values, self.options_type):
            return values
        if not isinstance(values, dict):
            raise ScoringError("bad_option", f"options for {self.name} must be a JSON object")
        known = {f.name: f for f in dataclasses.fields(self.options_type)}
        defaults = self.options_type()
        for key, value in values.items():
            if key not in known:
                raise ScoringError(
                    "bad_option", f"unknown {self.name} option {shown(key)}; known: {', '.join(sorted(known))}"
                )
            expected = type(getattr(defaults, key))
            ok = isinstance(value, expected) and (expected is bool or not isinstance(value, bool))
            if expected is float and isinstance(value, int) and not isinstance(value, bool):
                ok = True
            if not ok:
                raise ScoringError(
                    "bad_option", f"{self.name} option {key!r} takes {JSON_KINDS.get(expected, expected.__name__)}, got {shown(value)}"
                )
            if expected is int and abs(value) > MAX_OPTION_INT:
                raise ScoringError(
                    "bad_option", f"{self.name} option {key!r} takes a whole number up to {MAX_OPTION_INT:,}, "
                                  "got one larger in size"
                )
        try:
            return self.options_type(**values)
        except ValueError as e:  # an options type may check its own values
            raise ScoringError("bad_option", str(e)) from None

    def score(self, hand: Hand, context: WinContext, options: Any = None) -> Result:
        return self._cached(hand, context, self.make_options(options))  # type: ignore[attr-defined]

    def score_uncached(self, hand: Hand, context: WinContext, options: Any = None) -> Result:
        """`score` without the cache, for callers that keep their own."""
        return self._score_uncached(hand, context, self.make_options(options))

    def check(self, hand: Hand, context: WinContext) -> None:
        """The facts checked before scoring: the core's, then the rule set's own."""
        check_consistent(hand, context)
        if self.check_context is not None:
            self.check_context(context)

    def _score_uncached(self, hand: Hand, context: WinContext, options: Any) -> Result:
        self.check(hand, context)
        result = self.evaluate(hand, context, options)
        if result.reason == NOT_WINNING:
            refused = self.refused_forms(hand, options)
            if refused:
                result = dataclasses.replace(result, refused_forms=refused)
        return result

    def score_json_uncached(self, hand: Hand, context: WinContext, options: Any = None) -> dict:
        """`score_uncached(...).to_json()`, through evaluate_json where the rule set has one."""
        options = self.make_options(options)
        if self.evaluate_json is None:
            return self._score_uncached(hand, context, options).to_json(shared=False)  # made here, held nowhere
        self.check(hand, context)
        out = self.evaluate_json(hand, context, options)
        if out["reason"] == NOT_WINNING:
            out["refused_forms"] = list(self.refused_forms(hand, options))
        return out


def refused_forms_text(rules: str, forms: Sequence[str]) -> str:
    """Why shapes the tiles form do not win under `rules`: `seven pairs is not a winning form there
    (only four sets and a pair)`; the CLI and the photo reader both say it."""
    ruleset = get_ruleset(rules)
    names = form_names()
    refused = " and ".join(names[form] for form in forms)
    verb = "is not a winning form" if len(forms) == 1 else "are not winning forms"
    return f"{refused} {verb} there (only {'; '.join(ruleset.forms.values())})"


def why_not_scored(rules: str, reason: str | None, refused_forms: Sequence[str], breakdown: dict) -> str | None:
    """Why a result does not score, as one sentence from its fields (a Result's or its JSON's),
    for every place that shows a score; None when it scores."""
    ruleset = get_ruleset(rules)
    if reason == NOT_WINNING:
        if not refused_forms:
            return "Not a winning hand: the tiles form no complete shape."
        return f"Not a winning hand under {ruleset.plain_title}: {refused_forms_text(rules, refused_forms)}."
    if reason == BELOW_MINIMUM:
        return f"Below the minimum: {ruleset.shortfall(breakdown)}"
    return None


def option(default: Any, doc: str, choices: Sequence[Any] = ()) -> Any:
    """A field of a rule set's options dataclass, with the help text its docs and messages show,
    and for a field that takes only some values, those (the web page offers them to choose)."""
    return field(default=default, metadata={"doc": doc, "choices": tuple(choices)})


@lru_cache(maxsize=None)
def _form_finders() -> tuple[Callable[[Hand], Iterable[str]], ...]:
    """Every rule set's finder of its own forms (see the contract above)."""
    return tuple(r.find_own_forms for r in map(get_ruleset, available_rulesets()) if r.find_own_forms)


@lru_cache(maxsize=None)
def form_names() -> dict[str, str]:
    """Every winning form of every rule set -> its plain name: the shared search's, then each rule
    set's own."""
    names = dict(FORM_NAMES)
    for ruleset in map(get_ruleset, available_rulesets()):
        names.update(ruleset.own_forms)
    return names


def available_rulesets() -> list[str]:
    """Names of the rule-set packages in this folder."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg)


def get_ruleset(name: str) -> RuleSet:
    if not isinstance(name, str):  # before the cache, which cannot take an unhashable name
        raise ScoringError("unknown_rules", f"a rule set is named by a string ({', '.join(available_rulesets())}), "
                                            f"got {shown(name)}")
    return _ruleset(name)


@lru_cache(maxsize=None)
def _ruleset(name: str) -> RuleSet:
    if name not in available_rulesets():
        raise ScoringError(
            "unknown_rules", f"unknown rule set {shown(name)}; available: {', '.join(available_rulesets())}"
        )
    return importlib.import_module(f"{__name__}.{name}").RULESET


def flowers_text(rules: str, flowers: int, breakdown: dict) -> str:
    """`3 flowers, +3 fans`: how many flowers and what they add, in the rule set's measure."""
    return f"{counted(flowers, 'flower')}, {get_ruleset(rules).flower_note(breakdown)}"


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`n` things in words: 1 flower, 3 flowers (1 meld box, 2 meld boxes: `plural` given)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"
