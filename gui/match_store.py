"""The match on disk: one SQLite file in the user data folder, written after every change.

Each change (add, edit, delete, undo, a warning decided, the deal being set up) is one committed
transaction with ``synchronous=FULL``, so a crash or a closed window loses nothing that was
entered. Undo snapshots live in the same file, so undo still works after a restart.
"""

from __future__ import annotations

import json
import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hakam.gui.models import DealEntry, ScoreSheet

SCHEMA = """
CREATE TABLE IF NOT EXISTS match (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL,
    first_dealer INTEGER NOT NULL,
    draft TEXT
);
CREATE TABLE IF NOT EXISTS deal (
    match_id INTEGER NOT NULL REFERENCES match(id),
    position INTEGER NOT NULL,
    entry TEXT NOT NULL,
    PRIMARY KEY (match_id, position)
);
CREATE TABLE IF NOT EXISTS history (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id INTEGER NOT NULL REFERENCES match(id),
    action TEXT NOT NULL,
    snapshot TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS warning (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    match_id INTEGER NOT NULL REFERENCES match(id),
    deal INTEGER NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'open',
    created TEXT NOT NULL,
    decided TEXT
);
CREATE TABLE IF NOT EXISTS setting (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS table_run (
    match_id INTEGER PRIMARY KEY REFERENCES match(id),
    key TEXT NOT NULL,
    out TEXT NOT NULL,
    state TEXT NOT NULL,
    over INTEGER NOT NULL DEFAULT 0,
    updated TEXT NOT NULL
);
"""


def data_dir() -> Path:
    """``$HAKAM_DATA_DIR``, else ``$XDG_DATA_HOME/hakam``, else ``~/.local/share/hakam``."""
    if os.environ.get("HAKAM_DATA_DIR"):
        return Path(os.environ["HAKAM_DATA_DIR"])
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "hakam"


def exports_dir() -> Path:
    """Where exports go by default: ``$HAKAM_EXPORT_DIR``, else ``~/Documents/Hakam`` (made when
    first used), never the folder Hakam happened to be started from."""
    if os.environ.get("HAKAM_EXPORT_DIR"):
        return Path(os.environ["HAKAM_EXPORT_DIR"])
    return Path.home() / "Documents" / "Hakam"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class MatchStore:
    """All matches in one file; the newest match is the one the window opens."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else data_dir() / "matches.sqlite3"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(SCHEMA)
        self._db.commit()

    def close(self) -> None:
        self._db.close()

    # --- matches ---------------------------------------------------------------------

    def new_match(self, first_dealer: int = 0) -> int:
        with self._db:
            cur = self._db.execute(
                "INSERT INTO match (created, first_dealer) VALUES (?, ?)", (_now(), first_dealer)
            )
        return int(cur.lastrowid or 0)

    def latest_match(self) -> int | None:
        row = self._db.execute("SELECT max(id) FROM match").fetchone()
        return None if row[0] is None else int(row[0])

    def load(self, match_id: int) -> ScoreSheet:
        row = self._db.execute("SELECT first_dealer FROM match WHERE id=?", (match_id,)).fetchone()
        if row is None:
            raise KeyError(f"match {match_id} not found")
        deals = [
            DealEntry.from_json(json.loads(text))
            for (text,) in self._db.execute(
                "SELECT entry FROM deal WHERE match_id=? ORDER BY position", (match_id,)
            )
        ]
        return ScoreSheet(int(row[0]), deals)

    def save(self, match_id: int, sheet: ScoreSheet, action: str, before: ScoreSheet) -> None:
        """Write the whole sheet and the undo snapshot of ``before`` in one transaction."""
        with self._db:
            self._write_with_history(match_id, sheet, action, before)

    def _write_with_history(
        self, match_id: int, sheet: ScoreSheet, action: str, before: ScoreSheet
    ) -> None:
        """The sheet, and ``before`` as the snapshot undo goes back to (inside a transaction)."""
        snapshot = json.dumps(
            {"first_dealer": before.first_dealer, "deals": [d.to_json() for d in before.deals]}
        )
        self._write(match_id, sheet)
        self._db.execute(
            "INSERT INTO history (match_id, action, snapshot, at) VALUES (?, ?, ?, ?)",
            (match_id, action, snapshot, _now()),
        )

    def _write(self, match_id: int, sheet: ScoreSheet) -> None:
        self._db.execute(
            "UPDATE match SET first_dealer=? WHERE id=?", (sheet.first_dealer, match_id)
        )
        self._db.execute("DELETE FROM deal WHERE match_id=?", (match_id,))
        self._db.executemany(
            "INSERT INTO deal (match_id, position, entry) VALUES (?, ?, ?)",
            [
                (match_id, i, json.dumps(d.to_json(), ensure_ascii=False))
                for i, d in enumerate(sheet.deals)
            ],
        )

    def last_action(self, match_id: int) -> str | None:
        row = self._db.execute(
            "SELECT action FROM history WHERE match_id=? ORDER BY id DESC LIMIT 1", (match_id,)
        ).fetchone()
        return None if row is None else str(row[0])

    def undo(self, match_id: int) -> ScoreSheet | None:
        """Restore the sheet as it was before the last change; None when there is nothing."""
        row = self._db.execute(
            "SELECT id, snapshot FROM history WHERE match_id=? ORDER BY id DESC LIMIT 1",
            (match_id,),
        ).fetchone()
        if row is None:
            return None
        data = json.loads(row[1])
        sheet = ScoreSheet(
            int(data["first_dealer"]), [DealEntry.from_json(d) for d in data["deals"]]
        )
        with self._db:
            self._write(match_id, sheet)
            self._db.execute("DELETE FROM history WHERE id=?", (row[0],))
        return sheet

    # --- table mode: the camera's match ------------------------------------------------

    def table_run(self, key: str) -> tuple[int, str, dict[str, Any]] | None:
        """The newest match the camera was refereeing for ``key`` (its source and set-up) and
        had not finished: ``(match_id, out folder, state)``, to go on with it after a crash."""
        row = self._db.execute(
            "SELECT match_id, out, state FROM table_run WHERE key=? AND over=0 "
            "ORDER BY match_id DESC LIMIT 1",
            (key,),
        ).fetchone()
        return None if row is None else (int(row[0]), str(row[1]), json.loads(row[2]))

    def table_runs(self) -> list[tuple[str, int, dict[str, Any]]]:
        """Every match the camera was refereeing and had not finished: ``(key, match_id,
        state)``, newest first (the start screen offers to go on with one)."""
        rows = self._db.execute(
            "SELECT key, match_id, state FROM table_run WHERE over=0 ORDER BY match_id DESC"
        ).fetchall()
        return [(str(k), int(m), json.loads(st)) for k, m, st in rows]

    def save_table_run(
        self,
        match_id: int,
        key: str,
        out: str,
        state: dict[str, Any],
        sheet: ScoreSheet | None = None,
    ) -> None:
        """The camera's match state after an event, and the sheet when a deal was scored on
        it (with its undo snapshot), in one transaction: a crash keeps both or neither."""
        with self._db:
            if sheet is not None:
                before = self.load(match_id)
                if before.deals != sheet.deals:
                    self._write_with_history(match_id, sheet, "camera", before)
            self._db.execute(
                "INSERT INTO table_run (match_id, key, out, state, over, updated) "
                "VALUES (?,?,?,?,?,?) ON CONFLICT(match_id) DO UPDATE SET state=excluded.state, "
                "over=excluded.over, updated=excluded.updated",
                (match_id, key, out, json.dumps(state, ensure_ascii=False),
                 int(bool(state.get("over"))), _now()),
            )  # fmt: skip

    # --- the deal being set up -----------------------------------------------------------

    def save_draft(self, match_id: int, draft: dict[str, Any] | None) -> None:
        text = None if draft is None else json.dumps(draft, ensure_ascii=False)
        with self._db:
            self._db.execute("UPDATE match SET draft=? WHERE id=?", (text, match_id))

    def load_draft(self, match_id: int) -> dict[str, Any] | None:
        row = self._db.execute("SELECT draft FROM match WHERE id=?", (match_id,)).fetchone()
        return None if row is None or row[0] is None else json.loads(row[0])

    # --- warnings -----------------------------------------------------------------------

    def add_warning(self, match_id: int, deal: int, kind: str, data: dict[str, Any]) -> int:
        with self._db:
            cur = self._db.execute(
                "INSERT INTO warning (match_id, deal, kind, data, created) VALUES (?, ?, ?, ?, ?)",
                (match_id, deal, kind, json.dumps(data, ensure_ascii=False), _now()),
            )
        return int(cur.lastrowid or 0)

    def decide_warning(self, warning_id: int, status: str, extra: dict[str, Any] | None = None):
        """Record how a warning was decided: accepted, dismissed, confirmed (what a suspected
        ruling rests on, by a person: proven, the table still to decide), corrected, eliminated,
        deduced (named by the rules), read_unsurely (the rules and an unsure read), same_result
        (one of ways with one result), fewest_broken (no way keeps every rule: the one breaking
        the fewest, as an unsure read named it), read_sparsely (read surely too seldom for the
        vote), renamed (its card seen again), exchanged (with a
        card not read) or withdrawn (a correction showed the ruling wrong)."""
        with self._db:
            if extra:
                row = self._db.execute(
                    "SELECT data FROM warning WHERE id=?", (warning_id,)
                ).fetchone()
                data = {**json.loads(row[0]), **extra}
                self._db.execute(
                    "UPDATE warning SET data=? WHERE id=?",
                    (json.dumps(data, ensure_ascii=False), warning_id),
                )
            self._db.execute(
                "UPDATE warning SET status=?, decided=? WHERE id=?", (status, _now(), warning_id)
            )

    def warnings(self, match_id: int) -> list[dict[str, Any]]:
        rows = self._db.execute(
            "SELECT id, deal, kind, data, status FROM warning WHERE match_id=? ORDER BY id",
            (match_id,),
        )
        return [
            {"id": i, "deal": d, "kind": k, "data": json.loads(t), "status": s}
            for i, d, k, t, s in rows
        ]

    # --- settings -----------------------------------------------------------------------

    def setting(self, key: str, default: str | None = None) -> str | None:
        row = self._db.execute("SELECT value FROM setting WHERE key=?", (key,)).fetchone()
        return default if row is None else str(row[0])

    def set_setting(self, key: str, value: str) -> None:
        with self._db:
            self._db.execute(
                "INSERT INTO setting (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                (key, value),
            )
