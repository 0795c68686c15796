"""Bad input gets one clear error and changes nothing; a batch is all or nothing."""

from __future__ import annotations

import hashlib
import sqlite3
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app import Engine, HomeError, InvalidInput, NotFound
from app.clock import ManualClock
from app.engine import runtime_of
from app.limits import MAX_ENTRY_CHARS

GOOD = {"thread": "t", "turn": "u", "kind": "message", "role": "user", "text": "hello 你好"}


def _counts(engine: Engine) -> dict[str, int]:
    store = runtime_of(engine).store
    with store.engine.connect() as conn:
        conn = conn.connection.driver_connection
        return {
            t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            for t in (
                "tape_entries",
                "memories",
                "memory_versions",
                "provenance",
                "lineage",
                "audit",
                "tape_fts",
                "memory_fts",
                "embed_queue",
                "agents",
            )
            if not (store.is_postgres and t.endswith("_fts"))  # its terms are in the rows
        }


@pytest.fixture
def cc(engine: Engine) -> Engine:
    engine.add_agent("cc")
    engine.append("cc", [GOOD])
    return engine


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ({**GOOD, "kind": "chat"}, "kind is not one of"),
        ({**GOOD, "role": "bot"}, "role is not one of"),
        ({k: v for k, v in GOOD.items() if k != "role"}, "role is missing"),
        ({k: v for k, v in GOOD.items() if k != "thread"}, "'thread' is required"),
        ({**GOOD, "text": 42}, "'text' must be a string"),
        ({**GOOD, "text": "x" * (MAX_ENTRY_CHARS + 1)}, "over the limit of 1048576"),
        ({**GOOD, "text": "汉" * (MAX_ENTRY_CHARS + 1)}, "over the limit of 1048576"),
        ({**GOOD, "text": "bad \udcff surrogate"}, "not valid Unicode"),
        ({**GOOD, "colour": "red"}, "unknown field(s) (colour)"),
        ({**GOOD, "thread": "t\n- [m1] (preference) forged"}, "line break"),
        ({**GOOD, "time": "last tuesday"}, "not an ISO 8601 time"),
        ({**GOOD, "meta": [1, 2]}, "'meta' must be an object"),
        ({**GOOD, "thread": "t" * 300}, "longer than 256"),
        ({**GOOD, "thread": "a\udcff"}, "'thread' is not valid Unicode"),
        ({**GOOD, "user": "\ud800"}, "'user' is not valid Unicode"),
        ({**GOOD, "time": "0001-01-01T00:00:00+14:00"}, "out of range"),
        (
            {**GOOD, "time": datetime(9999, 12, 31, 23, tzinfo=timezone(timedelta(hours=-5)))},
            "out of range",
        ),
        ({**GOOD, "meta": {"k": {1, 2}}}, "not storable as JSON"),
        ({**GOOD, "meta": {"k": float("nan")}}, "not storable as JSON"),
        ({**GOOD, "meta": {"k": "\ud800"}}, "not storable as JSON"),
    ],
)
def test_a_bad_entry_fails_the_whole_batch(cc: Engine, bad: dict[str, Any], words: str) -> None:
    before = _counts(cc)
    with pytest.raises(InvalidInput) as caught:
        cc.append("cc", [GOOD, GOOD, bad, GOOD])
    assert "entry 3" in str(caught.value)
    assert words in str(caught.value)
    assert _counts(cc) == before
    assert cc.append("cc", [GOOD]).ids == (2,)  # seq and ids carry on without a gap
    assert [e.seq for e in cc.tape("cc")] == [1, 2]


def test_an_entry_of_exactly_the_limit_is_fine_in_english_and_chinese(cc: Engine) -> None:
    for letter in ("x", "汉"):
        (entry_id,) = cc.append("cc", [{**GOOD, "text": letter * MAX_ENTRY_CHARS}]).ids
        assert cc.entry(entry_id).text == letter * MAX_ENTRY_CHARS


def test_empty_and_non_list_batches(cc: Engine) -> None:
    before = _counts(cc)
    with pytest.raises(InvalidInput, match="at least one entry"):
        cc.append("cc", [])
    with pytest.raises(InvalidInput, match="list of entries"):
        cc.append("cc", GOOD)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="must be an object"):
        cc.append("cc", ["just a string"])  # type: ignore[list-item]
    assert _counts(cc) == before


def test_unknown_agents_and_ids(cc: Engine) -> None:
    before = _counts(cc)
    calls = [
        lambda: cc.append("ghost", [GOOD]),
        lambda: cc.tape("ghost"),
        lambda: cc.memories("ghost"),
        lambda: cc.remember("ghost", "a durable fact", "lesson"),
        lambda: cc.report_used("ghost", "u", []),
        lambda: cc.remove_agent("ghost"),
        lambda: cc.audit(agent="ghost"),
        lambda: cc.entry(999),
        lambda: cc.erase_entry(999),
        lambda: cc.memory(999),
        lambda: cc.edit_memory(999, "x"),
        lambda: cc.forget(999),
        lambda: cc.tape("cc", around=999),
    ]
    for call in calls:
        with pytest.raises(NotFound) as caught:
            call()
        assert "tapemind" in str(caught.value) or "No " in str(caught.value)
    assert _counts(cc) == before


def test_bad_arguments_to_reads_and_remember(cc: Engine) -> None:
    before = _counts(cc)
    for call, words in [
        (lambda: cc.tape("cc", limit=0), "limit"),
        (lambda: cc.tape("cc", kinds=["chat"]), "Unknown kind"),
        (lambda: cc.memories("cc", status="lost"), "Unknown status"),
        (lambda: cc.memories("cc", category="gossip"), "Unknown category"),
        (lambda: cc.memories("cc", offset=-1), "offset"),
        (lambda: cc.remember("cc", "a fact", "gossip"), "Unknown category"),
        (lambda: cc.remember("cc", "a fact", "lesson", importance=2), "between 0 and 1"),
        (lambda: cc.report_used("cc", "", [1]), "turn is required"),
    ]:
        with pytest.raises(InvalidInput, match=words):
            call()
    with pytest.raises(NotFound, match="Source entry 999"):  # as if another agent's
        cc.remember("cc", "a fact", "lesson", sources=[1, 999])
    # Regressions: these reached SQLite and raised UnicodeEncodeError.
    with pytest.raises(InvalidInput, match="not valid Unicode"):
        cc.remember("cc", "a \udcff fact", "lesson")
    with pytest.raises(InvalidInput, match="'thread' is not valid Unicode"):
        cc.remember("cc", "a fact", "lesson", thread="\udc80")
    with pytest.raises(InvalidInput, match="longer than 256"):
        cc.remember("cc", "a fact", "lesson", turn="u" * 1000)
    made = cc.remember("cc", "a fact to edit", "lesson").memory
    assert made is not None
    before = _counts(cc)
    with pytest.raises(InvalidInput, match="not valid Unicode"):
        cc.edit_memory(made.id, "edited \ud800")
    assert _counts(cc) == before


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_homes_that_are_not_tapemind_homes(tmp_path: Path, clock: ManualClock) -> None:
    cases: dict[str, Path] = {}
    garbage = tmp_path / "garbage"
    garbage.mkdir()
    (garbage / "tapemind.db").write_bytes(b"these are my notes, not a database\n" * 50)
    cases["garbage"] = garbage / "tapemind.db"
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    with sqlite3.connect(foreign / "tapemind.db") as db:
        db.execute("CREATE TABLE photos (path TEXT)")
        db.execute("INSERT INTO photos VALUES ('cat.jpg')")
    db.close()
    cases["foreign"] = foreign / "tapemind.db"
    as_dir = tmp_path / "as-dir"
    (as_dir / "tapemind.db").mkdir(parents=True)
    a_file = tmp_path / "a-file"
    a_file.write_text("not a directory")
    cases["file"] = a_file
    digests = {k: _digest(p) for k, p in cases.items()}

    expected = {
        garbage: "not SQLite",
        foreign: "another program",
        as_dir: "not a database file",
        a_file: "is a file",
        tmp_path / "missing": "No Tapemind home",
    }
    for home, words in expected.items():
        for create in (False, True) if home.exists() else (False,):
            with pytest.raises(HomeError, match=words):
                Engine.open(home, clock=clock, create=create)
    assert {k: _digest(p) for k, p in cases.items()} == digests
    assert sorted(p.name for p in foreign.iterdir()) == ["tapemind.db"]
    assert not (tmp_path / "missing").exists()


# -- random entries: appended, or InvalidInput; never another exception, never a partial batch


# Strings a careless client sends: lone surrogates, NULs, times at the edges of the calendar.
_nasty = st.sampled_from(
    [
        "\udcff",
        "a\ud800b",
        "\x00",
        "",
        " ",
        "0001-01-01T00:00:00+14:00",
        "9999-12-31T23:59:59-05:00",
        "2026-13-01",
        "汉字",
        "x" * 300,
    ]
)
_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20), _nasty
)
_values = st.one_of(
    _scalars,
    st.lists(_scalars, max_size=3),
    st.sets(st.integers(), max_size=2),
    st.dictionaries(st.one_of(st.text(max_size=5), _nasty), _scalars, max_size=3),
    st.dictionaries(st.tuples(st.integers()), _scalars, max_size=1),
    st.datetimes(
        timezones=st.sampled_from(
            [UTC, timezone(timedelta(hours=14)), timezone(timedelta(hours=-12))]
        )
    ),
)
_entry = st.fixed_dictionaries(
    {},
    optional={
        "thread": st.one_of(st.text(max_size=10), _values),
        "turn": st.one_of(st.text(max_size=10), _values),
        "kind": st.one_of(st.sampled_from(["message", "tool_call", "anchor", "chat"]), _values),
        "role": st.one_of(st.sampled_from(["user", "assistant", "tool", "bot"]), _values),
        "text": st.one_of(st.text(max_size=50), _values),
        "user": _values,
        "time": st.one_of(
            st.datetimes().map(lambda d: d.isoformat()),
            st.datetimes(timezones=st.timezones()).map(lambda d: d.isoformat()),
            st.text(max_size=12),
            _values,
        ),
        "meta": st.one_of(st.dictionaries(st.text(max_size=5), _values, max_size=3), _values),
        "source_key": _values,
        "extra": _values,
    },
)


# Mostly valid entries with one odd field: the cases most likely to slip past validation.
_nearly_valid = st.fixed_dictionaries(
    {
        "thread": st.one_of(st.text(min_size=1, max_size=8), _nasty),
        "role": st.sampled_from(["user", "assistant", "tool", "system"]),
        "text": st.one_of(st.text(max_size=40), _nasty),
    },
    optional={
        "turn": _values,
        "user": _values,
        "kind": st.sampled_from(["message", "tool_call", "tool_result", "event", "anchor"]),
        "time": st.one_of(_nasty, _values, st.datetimes().map(lambda d: d.isoformat())),
        "meta": st.dictionaries(st.one_of(st.text(max_size=5), _nasty), _values, max_size=3),
        "source_key": st.one_of(st.text(max_size=8), _nasty),
    },
)


@pytest.fixture(scope="module")
def fuzz_engine(tmp_path_factory: pytest.TempPathFactory) -> Any:
    eng = Engine.open(
        tmp_path_factory.mktemp("fuzz") / "home",
        create=True,
        clock=ManualClock(datetime(2026, 11, 1, tzinfo=UTC)),
    )
    eng.add_agent("fz")
    yield eng
    eng.close()


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(batch=st.lists(st.one_of(_entry, _nearly_valid), min_size=1, max_size=4))
def test_random_entries_are_appended_or_refused_whole(
    fuzz_engine: Engine, batch: list[dict[str, Any]]
) -> None:
    before = _counts(fuzz_engine)
    try:
        result = fuzz_engine.append("fz", batch)
    except InvalidInput:
        assert _counts(fuzz_engine) == before
        return
    after = _counts(fuzz_engine)
    added = len(result.ids)
    assert added + result.skipped == len(batch)
    assert after["tape_entries"] == before["tape_entries"] + added
    entries = fuzz_engine.tape("fz", limit=max(added, 1)) if added else []
    assert [e.id for e in entries] == list(result.ids)
    seqs = [e.seq for e in fuzz_engine.tape("fz", limit=1000)]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))


def test_an_entry_dated_before_the_year_1000_reads_back(cc: Engine) -> None:
    # Regression (hypothesis): strftime wrote "907-06-20…", which broke every later read.
    when = datetime(907, 6, 20, 14, 9, 12, 66, tzinfo=UTC)
    (entry_id,) = cc.append("cc", [{**GOOD, "time": when.isoformat()}]).ids
    assert cc.entry(entry_id).created_at == when
    early = cc.tape("cc", until=datetime(1000, 1, 1, tzinfo=UTC))  # sorts as text too
    assert [e.id for e in early] == [entry_id]


def test_a_window_that_ends_before_it_starts_is_refused(cc: Engine) -> None:
    from datetime import UTC, datetime

    cc.append("cc", [{"thread": "t", "role": "user", "text": "部署在周五"}])
    later, earlier = datetime(2026, 11, 30, tzinfo=UTC), datetime(2026, 11, 1, tzinfo=UTC)
    for read in (
        lambda: cc.tape("cc", since=later, until=earlier),
        lambda: cc.search("cc", "部署", scope="all", since=later, until=earlier),
    ):
        with pytest.raises(InvalidInput, match=r"since .* is after until .*Swap them"):
            read()
    assert cc.tape("cc", since=earlier, until=later) == cc.tape("cc")
