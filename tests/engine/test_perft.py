"""Perft-style golden counts: legal plays over all positions of seeded random deals.

Regenerate (only after a deliberate rule change) with ``HAKAM_UPDATE_GOLDEN=1 pytest``.
"""

import json
import os
import random
from pathlib import Path

from hakam.engine.play import DealState, perft
from hakam.engine.simulate import random_deal

GOLDEN = Path(__file__).parent / "golden" / "perft.json"
SEEDS = range(24)


def counts(seed: int) -> dict[str, int]:
    contract, hands, tricks, ekka = random_deal(random.Random(seed))
    state = DealState(hands, contract)
    line = 0
    endgame = 0
    for n, trick in enumerate(tricks, 1):
        if n == 6:
            endgame = perft(state, 12)  # every way to play the last three tricks
        for i, card in enumerate(trick):
            line += len(state.legal_moves())
            state.push(card, ekka=i == 0 and n in ekka)
    start = DealState(hands, contract)
    return {
        "contract": f"{contract.kind}{contract.trump or ''}",
        "line": line,
        "perft4": perft(start, 4),
        "perft5": perft(start, 5),
        "endgame": endgame,
    }


def test_perft_counts_match_the_golden_file():
    got = {str(seed): counts(seed) for seed in SEEDS}
    if os.environ.get("HAKAM_UPDATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
    want = json.loads(GOLDEN.read_text())
    assert got == want
