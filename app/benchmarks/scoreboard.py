"""One scoreboard of recall against BM25: every retrieval benchmark there is data for.

LoCoMo (evidence recall@5/@10, overall and per category), LongMemEval_S (turn and
session recall per question type) and the bilingual memory set (recall@1/@5 and MRR per
language), each against a plain BM25 over the same texts in the same run. A row of the
board is one slice of one benchmark (e.g. "LongMemEval temporal-reasoning"); a change to
recall must not make any row worse, nor put any below BM25.

`--against` an earlier board (its `--json`) adds the change of each figure.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.benchmarks import locomo, longmemeval, retrieval
from app.benchmarks.machine import machine, machine_line
from app.errors import InvalidInput

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path("shared") / "memory-benchmarks"
LOCOMO_FILE = SHARED / "locomo" / "locomo-dev5.json"
LONGMEMEVAL_FILE = SHARED / "longmemeval" / "longmemeval-s-dev89.json.gz"


def shared_default(relative: Path) -> Path | None:
    """`relative` beside the checkout or beside one of its parents (worktrees), if there."""
    for folder in (ROOT, *ROOT.parents):
        if (folder / relative).is_file():
            return folder / relative
    return None


@dataclass(frozen=True)
class Row:
    """One slice of one benchmark: its figures for the product and for BM25."""

    bench: str
    slice: str
    questions: int
    tapemind: dict[str, float]
    bm25: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {
            "bench": self.bench,
            "slice": self.slice,
            "questions": self.questions,
            "tapemind": self.tapemind,
            "baseline_bm25": self.bm25,
        }


def locomo_rows(report: dict[str, Any]) -> list[Row]:
    rows = [Row("locomo", "all", report["questions"], report["overall"], report["baseline_bm25"])]
    for c in report["by_category"].values():
        rows.append(Row("locomo", c["name"], c["questions"], _figures(c), c["baseline_bm25"]))
    return rows


def longmemeval_rows(report: dict[str, Any]) -> list[Row]:
    rows = [
        Row("longmemeval", "all", report["questions"], report["overall"], report["baseline_bm25"])
    ]
    for name, t in report["by_type"].items():
        rows.append(Row("longmemeval", name, t["questions"], _figures(t), t["baseline_bm25"]))
    return rows


def retrieval_rows(report: dict[str, Any], mode: str) -> list[Row]:
    m = report["modes"].get(mode) or {}
    if not m.get("available"):
        return []
    base = report["baseline_bm25"]
    langs = m["by_language"]
    n = sum(r["questions"] for r in langs.values())
    rows = [Row("bilingual", "all", n, m["overall"], base["overall"])]
    for lang, r in langs.items():
        rows.append(Row("bilingual", lang, r["questions"], _figures(r), base["by_language"][lang]))
    return rows


def _figures(row: dict[str, Any]) -> dict[str, float]:
    return {k: v for k, v in row.items() if isinstance(v, float)}


def run(
    *,
    locomo_data: str | Path | None = None,
    longmemeval_data: str | Path | None = None,
    retrieval_dir: str | Path | None = None,
    mode: str = "hybrid",
    limit: int | None = None,
    keep_homes: str | Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run each benchmark whose data is found; the board (rows) and each full report.
    `limit`: the first N LoCoMo conversations and LongMemEval questions (a quick look,
    not comparable figures). `keep_homes`: build each benchmark's home in a folder of
    its own there and keep it (later runs ask again without ingesting or embedding)."""
    say = progress or (lambda _m: None)
    homes = Path(keep_homes) if keep_homes else None
    locomo_path = Path(locomo_data) if locomo_data else shared_default(LOCOMO_FILE)
    lme_path = Path(longmemeval_data) if longmemeval_data else shared_default(LONGMEMEVAL_FILE)
    reports: dict[str, Any] = {}
    rows: list[Row] = []
    skipped: list[str] = []
    if locomo_path is not None and locomo_path.is_file():
        say(f"LoCoMo: {locomo_path}")
        home = homes / "locomo" if homes else None
        rep = locomo.run(locomo_path, mode=mode, limit_conversations=limit, home=home)
        reports["locomo"] = rep
        rows += locomo_rows(rep)
    else:
        skipped.append(f"LoCoMo: no data (looked for {LOCOMO_FILE}; give --locomo FILE)")
    if lme_path is not None and lme_path.is_file():
        say(f"LongMemEval: {lme_path}")
        home = homes / "longmemeval" if homes else None
        rep = longmemeval.run(lme_path, mode=mode, limit=limit, home=home, progress=say)
        reports["longmemeval"] = rep
        rows += longmemeval_rows(rep)
    else:
        skipped.append(
            f"LongMemEval: no data (looked for {LONGMEMEVAL_FILE}; give --longmemeval FILE)"
        )
    say("bilingual set")
    rep = retrieval.run(retrieval_dir, modes=[mode])
    reports["bilingual"] = rep
    rows += retrieval_rows(rep, mode)
    return {
        "bench": "recall",
        "mode": mode,
        "limit": limit,
        "rows": [r.to_dict() for r in rows],
        "skipped": skipped,
        "reports": reports,
        "machine": machine(),
    }


def read_board(path: str | Path) -> dict[str, Any]:
    """An earlier board (`bench recall --json`), to compare against."""
    try:
        board = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InvalidInput(f"Cannot read the board {str(path)!r}: {exc}.") from None
    if not isinstance(board, dict) or not isinstance(board.get("rows"), list):
        raise InvalidInput(f"{path} is not a `tapemind bench recall --json` board.")
    return board


def _cell(ours: float, bm25: float, before: float | None) -> str:
    mark = "!" if ours < bm25 else " "
    text = f"{100 * ours:5.1f}{mark}{100 * bm25:5.1f}"
    if before is not None:
        text += f" {100 * (ours - before):+5.1f}"
    return text


def render(report: dict[str, Any], against: dict[str, Any] | None = None) -> str:
    """The board: each figure as "tapemind BM25" ("!" between them where the product is
    below BM25), and its change against an earlier board when one is given."""
    old = {(r["bench"], r["slice"]): r["tapemind"] for r in (against or {}).get("rows", [])}
    lines = [machine_line(report["machine"]), f"recall scoreboard, mode {report['mode']}"]
    if report.get("limit"):
        lines.append(f"(--limit {report['limit']}: a quick look, not comparable figures)")
    lines.append("each cell: tapemind, BM25 in the same run ('!' = below BM25)")
    if against is not None:
        lines.append("last column of each cell: change of tapemind against the earlier board")
    bench: str | None = None
    for r in report["rows"]:
        keys = list(r["tapemind"])
        if r["bench"] != bench:
            bench = r["bench"]
            width = 18 if against is not None else 12
            head = "".join(f"{_short(k):>{width}}" for k in keys)
            lines.append(f"{bench:<30}{'n':>5}{head}")
        before = old.get((r["bench"], r["slice"]), {})
        cells = "".join(
            f"{_cell(r['tapemind'][k], r['baseline_bm25'].get(k, 0.0), before.get(k)):>{width}}"
            if against is not None
            else f"{_cell(r['tapemind'][k], r['baseline_bm25'].get(k, 0.0), None):>{width}}"
            for k in keys
        )
        lines.append(f"  {r['slice']:<28}{r['questions']:>5}{cells}")
    lines.extend(report.get("skipped", []))
    below = [f"{r['bench']} {r['slice']}" for r in report["rows"] if _below(r)]
    lines.append("below BM25: " + (", ".join(below) if below else "nothing"))
    if against is not None:
        worse = regressions(report, against)
        lines.append("worse than the earlier board: " + ("; ".join(worse) if worse else "nothing"))
    return "\n".join(lines)


def _below(row: dict[str, Any]) -> bool:
    return any(v < row["baseline_bm25"].get(k, 0.0) for k, v in row["tapemind"].items())


def _short(key: str) -> str:
    return (
        key.replace("turn_recall_", "turn ")
        .replace("session_recall_", "sess ")
        .replace("recall@", "R@")
        .replace("mrr", "MRR")
    )


def regressions(report: dict[str, Any], against: dict[str, Any]) -> Sequence[str]:
    """The figures lower than in the earlier board (bench, slice, measure: before -> now)."""
    old = {(r["bench"], r["slice"]): r["tapemind"] for r in against.get("rows", [])}
    out = []
    for r in report["rows"]:
        for k, v in r["tapemind"].items():
            b = old.get((r["bench"], r["slice"]), {}).get(k)
            if b is not None and v < b - 1e-9:
                out.append(f"{r['bench']} {r['slice']} {k}: {100 * b:.1f} -> {100 * v:.1f}")
    return out
