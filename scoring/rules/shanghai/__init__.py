"""Shanghai old-style (上海老式麻将): basic points x 2^fans with the seed's fan list, dealer
double.  See docs/shanghai-old.md."""

from ...fans import check_fan_table
from .. import RuleSet
from .fans import FANS
from .score import FORMS, Options, check_context, evaluate, flower_note, summary

check_fan_table(FANS)

RULESET = RuleSet(
    name="shanghai",
    title="Shanghai old-style (上海老式麻将)",
    unit="点",
    options_type=Options,
    fans=tuple(FANS),
    evaluate=evaluate,
    summary=summary,
    flowers_alike=False,  # a flower of one's own seat is a fan
    forms=FORMS,
    flower_note=flower_note,
    check_context=check_context,
    unscored_flags=("heavenly", "earthly", "human"),
    flowers_replaced_as_kongs=True,
)
