"""The score sheet out of the program: CSV for spreadsheets, HTML for printing (and PDF).

Both are built from the same scored rows as the window, in the chosen language.
"""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Sequence
from pathlib import Path

from hakam.gui.i18n import Language
from hakam.gui.models import MATCH_TARGET, ScoredDeal

CSV_FIELDS = (
    "deal", "dealer", "contract", "card_points_0", "card_points_1", "game_points_0",
    "game_points_1", "projects", "baloot", "kaboot", "penalty", "winner", "result_0", "result_1",
    "total_0", "total_1", "source",
)  # fmt: skip


def row_cells(row: ScoredDeal, lang: Language) -> dict[str, str]:
    """One sheet row as text, shared by the table view and both exports."""
    e, o = row.entry, row.outcome
    cp = e.card_points
    projects = ""
    if o is not None:
        projects = ", ".join(lang.project(p.to_json(o.sun)) for p in o.projects)
    elif e.projects:
        projects = ", ".join(lang.project(p.to_json()) for p in e.projects)
    baloot = ", ".join(lang.seat(s) for s in (o.baloot if o else e.baloot))
    penalty = ""
    if e.penalty:
        penalty = lang.tr("penalty", rule=lang.rule(str(e.penalty["rule"])))
        penalty += f" ({lang.seat(int(e.penalty['seat']))})"
    return {
        "deal": str(row.number),
        "dealer": lang.seat(e.dealer),
        "contract": lang.contract(e.contract),
        "card_points_0": "" if cp is None or e.void else str(cp[0]),
        "card_points_1": "" if cp is None or e.void else str(cp[1]),
        "game_points_0": "" if o is None else str(o.game_points[0]),
        "game_points_1": "" if o is None else str(o.game_points[1]),
        "projects": projects,
        "baloot": baloot,
        "kaboot": "" if o is None or o.kaboot is None else lang.team(o.kaboot),
        "penalty": penalty,
        "winner": lang.team(row.winner_team) if row.winner_team is not None else "",
        "result_0": str(row.result[0]),
        "result_1": str(row.result[1]),
        "total_0": str(row.match[0]),
        "total_1": str(row.match[1]),
        "source": lang.tr(e.source) + (f" ({lang.tr('provisional')})" if e.provisional else ""),
    }


def to_csv(rows: Sequence[ScoredDeal], lang: Language) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_FIELDS, lineterminator="\n")
    w.writeheader()
    for row in rows:
        w.writerow(row_cells(row, lang))
    return buf.getvalue()


def to_html(
    rows: Sequence[ScoredDeal], lang: Language, title: str = "", for_pdf: bool = False
) -> str:
    """A printable sheet: big numbers, one line per deal, totals and the winner at the bottom.
    ``for_pdf``: for Qt's printing, which lays a table out left to right whatever its ``dir``:
    an Arabic sheet's columns are then given in mirrored order (a browser mirrors them)."""
    t0, t1 = lang.team(0), lang.team(1)
    heads = [
        lang.tr("col_deal"), lang.tr("col_dealer"), lang.tr("col_contract"),
        f"{lang.tr('col_card_points')} {t0}", f"{lang.tr('col_card_points')} {t1}",
        lang.tr("col_projects"), lang.tr("col_baloot"), lang.tr("kaboot"),
        lang.tr("col_winner"), f"{t0}", f"{t1}", f"{lang.tr('col_total')} {t0}",
        f"{lang.tr('col_total')} {t1}",
    ]  # fmt: skip
    keys = (
        "deal", "dealer", "contract", "card_points_0", "card_points_1", "projects", "baloot",
        "kaboot", "winner", "result_0", "result_1", "total_0", "total_1",
    )  # fmt: skip
    # Each column as wide as its longest words need (a header never breaks inside a word).
    widths = (4, 8, 12, 8, 8, 10, 8, 8, 6, 5, 7, 8, 8)
    if lang.rtl and for_pdf:  # the first column on the right, as an Arabic sheet has it
        heads, keys, widths = heads[::-1], keys[::-1], widths[::-1]
    esc = html.escape
    body = []
    for row in rows:
        cells = row_cells(row, lang)
        note = f"<br><small>{esc(cells['penalty'])}</small>" if cells["penalty"] else ""
        tds = [f"<td>{esc(lang.num(cells[k]))}{note if k == 'contract' else ''}</td>"
               for k in keys]  # fmt: skip
        body.append("<tr>" + "".join(tds) + "</tr>")
    decided = next((r for r in rows if r.match_over), None)  # nothing after it counts
    totals = decided.match if decided else rows[-1].match if rows else (0, 0)
    winner = next((r for r in rows if r.match_over), None)
    foot = " &nbsp;·&nbsp; ".join(
        f"{esc(lang.team(t))} {lang.num(totals[t])} / {lang.num(MATCH_TARGET)}" for t in (0, 1)
    )
    if winner is not None and winner.match_winner is not None:
        foot += "<br><b>" + esc(
            lang.tr("match_won", team=lang.team(winner.match_winner), a=winner.match[0],
                    b=winner.match[1])
        ) + "</b>"  # fmt: skip
    direction = "rtl" if lang.rtl else "ltr"
    return f"""<!DOCTYPE html>
<html lang="{lang.code}" dir="{direction}"><head><meta charset="utf-8">
<title>{esc(title or lang.tr("tab_sheet"))}</title>
<style>
body {{ font-family: "DejaVu Sans", "Noto Sans Arabic", sans-serif; font-size: 11pt; }}
table {{ border-collapse: collapse; width: 100%; }}
th, td {{ border: 1px solid #444; padding: 4px 6px; text-align: center; }}
th {{ background: #ddd; }}
tfoot td {{ font-size: 16pt; font-weight: bold; }}
</style></head><body>
<h1>{esc(title or lang.tr("tab_sheet"))}</h1>
<table width="100%"><thead><tr>{
        "".join(f'<th width="{w}%">{esc(h)}</th>' for h, w in zip(heads, widths, strict=True))
    }</tr></thead>
<tbody>
{chr(10).join(body)}
</tbody>
<tfoot><tr><td colspan="{len(keys)}">{foot}</td></tr></tfoot></table>
</body></html>
"""


def write_text(path: str | Path, text: str) -> Path:
    """Write atomically (temp file then rename), so a crash never leaves half a sheet."""
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(p)
    return p
