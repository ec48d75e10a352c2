"""Doubling (Hokum): Double, Triple, Quadruple, Gahwa; open or locked; Sun only Double."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from hakam.engine.contract import LEVELS, Contract
from hakam.engine.rules import SAUDI, RuleProfile
from hakam.engine.scoring import sun_double_allowed


class DoublingError(ValueError):
    """A raise that the doubling chain does not allow."""


def raise_contract(
    contract: Contract,
    seat: int,
    call: str,
    locked: bool = False,
    match: Sequence[int] = (0, 0),
    profile: RuleProfile = SAUDI,
) -> Contract:
    """The doubling chain: an opponent doubles, the declarer triples, the same doubler
    quadruples, the declarer says Gahwa; Double and Quadruple are declared open or locked."""
    depth = LEVELS.index(contract.level)
    if depth == len(LEVELS) - 1:
        raise DoublingError("level: Gahwa is the last raise")
    want = LEVELS[depth + 1]
    if depth and len(contract.raised_by) != depth:
        raise DoublingError("raised_by: the earlier raisers are needed to continue the chain")
    if call != want:
        raise DoublingError(f"call: the next raise is {want}, not {call!r}")
    if contract.is_sun:
        if call != "double":
            raise DoublingError("call: Sun may only be doubled")
        if locked:
            raise DoublingError("locked: a Sun is never locked")
        if not sun_double_allowed(contract, match, profile):
            raise DoublingError(
                f"match: Sun may be doubled only when the declarer's team has more than "
                f"{profile.sun_double_limit} and the doublers less"
            )
    if locked and call not in ("double", "quadruple"):
        raise DoublingError(f"locked: {call} is always open")
    on_declarer_side = depth % 2 == 1
    if not on_declarer_side:
        if seat % 2 == contract.declarer_team:
            raise DoublingError(f"seat: {call} is said by an opponent of the declarer")
        if depth == 2 and seat != contract.raised_by[0]:
            raise DoublingError("seat: Quadruple is said by the player who doubled")
    else:
        ok = seat == contract.declarer
        if not profile.raise_by_declarer_only:
            ok = seat % 2 == contract.declarer_team
        if not ok:
            raise DoublingError(f"seat: {call} is answered by the declarer")
    return replace(contract, level=call, raised_by=(*contract.raised_by, seat), locked=locked)
