"""MCR rule options.  Defaults follow current common practice (the choices of the reference
calculators pymahjonggb 1.4.0 and GB-Mahjong); each switch names the 1998 text it restores."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MCROptions:
    # One exposed + one concealed kong: 明暗杠 5 (current practice).  True: the 1998 text, which has
    # no such fan, so the hand scores 明杠 1 + 暗杠 2 = 3.
    kong_1998: bool = False
    # Seven pairs combine with 字一色, 清幺九, 混幺九, 绿一色, 全大, 全中, 全小, 大于五, 小于五
    # (current practice).  True: the 1998 text, where those fans need sets, so a seven-pairs hand
    # cannot score them.
    strict_1998_pairs: bool = False
    # Hands that must be concealed (七对, 连七对, 十三幺, 四暗刻, 九莲宝灯, 全不靠, 七星不靠) score only
    # 自摸 when self-drawn (current practice).  True: they score 不求人 like any concealed self-draw.
    concealed_selfdraw_1998: bool = False
    # A winning tile that is one of the nine tiles of a 组合龙 gets no wait fan, even when it could
    # also complete a chow (GB-Mahjong; the 1998 rule that a tile read outside a wait shape scores no
    # wait).  True: judge the wait by the chow alone, as pymahjonggb does (adds 嵌张/边张).
    knitted_tile_wait: bool = False
    # The winning threshold (八番起和), flowers excluded.
    minimum: int = 8
    # Base payment every loser adds (底分).
    base: int = 8

    def __post_init__(self) -> None:
        if self.minimum < 0 or self.base < 0:
            raise ValueError("minimum and base are not negative")
