"""Chinese Official rules (MCR, 国标麻将): 81 fans, 明暗杠 and flowers; see fans.py and options.py."""

from __future__ import annotations

from ...decompose import FORM_NAMES
from ...fans import check_fan_table
from .. import RuleSet
from .fans import FANS
from .options import MCROptions
from .scorer import evaluate, evaluate_json, flower_note, shortfall

check_fan_table(FANS)

RULESET = RuleSet(
    name="mcr",
    title="Chinese Official (MCR, 国标麻将)",
    unit="番",
    options_type=MCROptions,
    fans=tuple(FANS),
    evaluate=evaluate,
    flowers_alike=True,  # each flower is one fan
    forms=dict(FORM_NAMES),  # every form of the shared search
    flower_note=flower_note,
    shortfall=shortfall,
    evaluate_json=evaluate_json,
    unscored_flags=("heavenly", "earthly", "human"),
)
