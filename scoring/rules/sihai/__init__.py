"""Sihai standard 3.1 (四海麻将标准版 3.1): 100 fans in 19 categories, the 200 满贯线, win
thresholds by edition and level, and the seed's payment table.  See docs/sihai-3.1.md."""

from ...fans import check_fan_table
from .. import RuleSet
from .fans import FANS
from .score import Options, accepted_forms, evaluate, flower_note, own_forms, shortfall, summary
from .shape import FORMS, SUJI_KNITTED, SUJI_KNITTED_NAME

check_fan_table(FANS)

RULESET = RuleSet(
    name="sihai",
    title="Sihai standard 3.1 (四海麻将标准版 3.1)",
    unit="分",
    options_type=Options,
    fans=tuple(FANS),
    evaluate=evaluate,
    flowers_alike=True,  # flowers are counted, never named
    forms=FORMS,
    flower_note=flower_note,
    summary=summary,
    shortfall=shortfall,
    own_forms={SUJI_KNITTED: SUJI_KNITTED_NAME},
    find_own_forms=own_forms,
    accepted_forms=accepted_forms,
)
