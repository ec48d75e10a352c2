"""Engine speed: referee audits of 10,000 random deals, and legal-move generation.

Run: ``.venv/bin/python benchmarks/engine.py`` (one core; targets: < 5 s, >= 1 M calls/min).
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from pathlib import Path

# Run as a script its folder is first on sys.path; keep it off (this file's name is a common one).
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from hakam.engine.play import DealState, duties, legal_mask, legal_plays  # noqa: E402
from hakam.engine.referee import audit_plays  # noqa: E402
from hakam.engine.simulate import random_deal  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    t0 = time.perf_counter()
    deals = [random_deal(rng) for _ in range(args.deals)]
    gen = time.perf_counter() - t0
    print(f"python {platform.python_version()}; generated {len(deals)} deals in {gen:.1f} s")

    t0 = time.perf_counter()
    violations = 0
    for contract, _, tricks, ekka in deals:
        violations += len(audit_plays(contract, tricks, ekka).violations)
    audit = time.perf_counter() - t0
    assert violations == 0, "a random legal deal was ruled illegal"
    print(f"referee audit: {len(deals)} full deals in {audit:.2f} s (target < 5 s)")

    # positions (hand, trick, played) from the first 500 deals, then legal plays on each
    positions = []
    for contract, hands, tricks, ekka in deals[:500]:
        state = DealState(hands, contract)
        played = []
        for n, trick in enumerate(tricks, 1):
            for i, card in enumerate(trick):
                hand = [c for c in hands[state.turn] if state.hands[state.turn] & (1 << c.index)]
                positions.append((hand, trick[:i], contract, list(played), n in ekka))
                state.push(card, ekka=i == 0 and n in ekka)
            played.extend(trick)
    calls = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 3.0:
        for hand, trick, contract, played, ekka in positions:
            legal_plays(hand, trick, contract, played, ekka)
        calls += len(positions)
    api = calls / (time.perf_counter() - t0) * 60
    print(f"legal_plays (Card API): {api / 1e6:.2f} M calls/min (target >= 1 M)")

    ints = [
        (
            sum(1 << c.index for c in hand),
            [c.index for c in trick],
            contract.trump_index,
            contract.locked,
        )
        for hand, trick, contract, _, _ in positions
    ]
    calls = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 3.0:
        for hand, trick, trump, locked in ints:
            legal_mask(hand, duties(trick, trump, locked, False))
        calls += len(ints)
    raw = calls / (time.perf_counter() - t0) * 60
    print(f"legal_mask (int core): {raw / 1e6:.2f} M calls/min")


if __name__ == "__main__":
    main()
