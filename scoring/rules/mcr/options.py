"""MCR rule options.  Defaults follow current common practice (the choices of the reference
calculators pymahjonggb 1.4.0 and GB-Mahjong). Each `*_1998` switch restores the 1998 text but
`concealed_selfdraw_1998`, which is named in our rule notes (../shared/rules/mcr.md) for the
other practice seed 003 reports: the 1998 text gives 七对 and the other must-be-concealed hands no
不求人, as the default does."""

from __future__ import annotations

from dataclasses import dataclass

from .. import option


@dataclass(frozen=True)
class MCROptions:
    kong_1998: bool = option(
        False, "One exposed + one concealed kong: false = 明暗杠 5 (current practice); true = the 1998 "
               "text, which has no such fan, so 明杠 1 + 暗杠 2 = 3.")
    strict_1998_pairs: bool = option(
        False, "false = seven pairs combine with 字一色, 清幺九, 混幺九, 绿一色, 全大, 全中, 全小, 大于五, "
               "小于五 (current practice); true = the 1998 text, where those fans need sets.")
    concealed_selfdraw_1998: bool = option(
        False, "false = hands that must be concealed (七对, 连七对, 十三幺, 四暗刻, 九莲宝灯, 全不靠, 七星不靠) "
               "self-drawn score 自摸 only (current practice, and the 1998 text); true = they score 不求人, as "
               "some rule sets do (seed 003: 部分規則門清自摸胡牌一律計不求人).")
    knitted_tile_wait: bool = option(
        False, "false = a winning tile that is one of a 组合龙's nine tiles gets no wait fan even when it "
               "could also complete a chow (GB-Mahjong); true = judge the chow alone and add 嵌张/边张 "
               "(pymahjonggb).")
    dead_wait_counts: bool = option(
        False, "false = a tile the hand already holds four times (melds included) is no wait, so a hand "
               "whose other wait is such a tile still scores 边张/嵌张/单钓将 (GB-Mahjong); true = it "
               "counts as a second wait and the wait fan goes (pymahjonggb).")
    minimum: int = option(8, "The winning threshold (八番起和), flowers excluded.")
    base: int = option(8, "Base payment every loser adds (底分).")

    def __post_init__(self) -> None:
        for name in ("minimum", "base"):
            if getattr(self, name) < 0:
                raise ValueError(f"mcr option {name} cannot be negative, got {getattr(self, name)}")
