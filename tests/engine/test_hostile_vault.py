"""An agent that guesses a secret's value learns nothing it can use; values written before
they were secrets do not stay; credentials never sit on the tape. English and Chinese."""

from __future__ import annotations

import base64
import json
from itertools import product
from pathlib import Path

import pytest

from app import Engine, Refused
from app.events import Event
from app.limits import MAX_SECRET_ECHOES
from tests import committed

VALUE = "dbpass-XYZ"
ZH_VALUE = "数据库口令-Xk9#"


def entry(text: str, **more: str) -> dict[str, str]:
    return {"thread": "t", "role": "tool", "text": text, **more}


def guesses() -> list[dict[str, str]]:
    return [entry(f"dbpass-{''.join(g)}") for g in product("WXYZ", repeat=3)]  # 64, one right


@pytest.fixture
def vault(engine: Engine) -> Engine:
    for name in ("A", "B"):
        engine.add_agent(name)
    engine.set_secret("DB_PASSWORD", VALUE)
    engine.set_secret("数据库口令", ZH_VALUE)
    return engine


def _everything_an_agent_reads(engine: Engine, agent: str) -> str:
    tape = [e.text for e in engine.tape(agent, limit=1000)]
    memories = [m.text for m in engine.memories(agent, status="active")]
    return json.dumps([tape, memories], ensure_ascii=False)


def test_guessing_a_value_by_appending_gains_one_bit_then_nothing(vault: Engine) -> None:
    seen: list[Event] = []
    vault.events.subscribe(seen.append, "secret_did_echo")
    vault.append("A", [entry("an ordinary turn")])
    before = _everything_an_agent_reads(vault, "A")
    messages = []
    for _ in range(MAX_SECRET_ECHOES):
        with pytest.raises(Refused) as refused:
            vault.append("A", guesses())
        assert refused.value.code == "secret_value"
        messages.append(refused.value.agent_message)
    # The same answer every time: it names no secret, no entry, no position.
    assert len(set(messages)) == 1
    assert "DB_PASSWORD" not in messages[0] and "XYZ" not in messages[0]
    assert "entry" not in messages[0].split("nothing")[0]
    assert _everything_an_agent_reads(vault, "A") == before  # nothing new to read back
    # Now every write is refused, whatever it holds: no more bits.
    for text in ("dbpass-WWW", "dbpass-XYZ", "an innocent line", "无害的一句话"):
        with pytest.raises(Refused) as blocked:
            vault.append("A", [entry(text)])
        assert blocked.value.code == "writes_blocked"
    with pytest.raises(Refused, match="refused") as blocked:
        vault.remember("A", "The user prefers tabs over spaces.", "preference")
    assert blocked.value.code == "writes_blocked"
    # B was never involved; the owner was told with counts only.
    vault.append("B", [entry("B works as before")])
    assert len(seen) == MAX_SECRET_ECHOES
    audit = vault.audit(action="secret.echo")
    assert [e.counts["echoes"] for e in audit] == [3, 2, 1] and audit[0].counts["blocked"] == 1
    assert VALUE not in repr(audit) and "DB_PASSWORD" not in repr(audit)
    assert vault.agent_stats("A").writes_blocked is True
    # The owner lets it write again.
    assert vault.unblock_agent("A") == MAX_SECRET_ECHOES
    vault.append("A", [entry("back to work")])


def test_the_block_survives_a_restart(home: Path, vault: Engine) -> None:
    for _ in range(MAX_SECRET_ECHOES):
        with pytest.raises(Refused):
            vault.remember("A", f"The database password is {ZH_VALUE}", "project_fact")
    vault.close()
    with Engine.open(home) as again:
        with pytest.raises(Refused) as blocked:
            again.append("A", [entry("hello after the restart")])
        assert blocked.value.code == "writes_blocked"


@pytest.mark.parametrize(
    "variant",
    [VALUE, VALUE.upper(), "dbpass -\n  XYZ", base64.b64encode(VALUE.encode()).decode(), ZH_VALUE],
    ids=["as-is", "upper", "split", "base64", "chinese"],
)
def test_every_form_of_a_value_in_any_field_is_refused(vault: Engine, variant: str) -> None:
    for bad in (
        entry(f"echo {variant} done"),
        entry("fine", thread=variant.replace("\n", " ")),
        {**entry("fine"), "meta": {"cmd": f"psql -p {variant}"}},
    ):
        with pytest.raises(Refused):
            vault.append("B", [entry("first, fine"), bad])
        vault.unblock_agent("B")
    assert vault.tape("B") == []


def test_an_agent_given_the_secret_stores_its_name(vault: Engine) -> None:
    vault.set_secret_mode("DB_PASSWORD", "auto")
    granted = vault.request_secret("A", "DB_PASSWORD", "run the migration on staging")
    assert granted.status == "allowed" and granted.value == VALUE
    vault.append("A", [entry(f"psql -p {VALUE.lower()} ok")])
    assert vault.tape("A")[-1].text == "psql -p [secret:DB_PASSWORD] ok"
    # Still refused for the secret it was not given, and for B.
    with pytest.raises(Refused):
        vault.append("A", [entry(f"and {ZH_VALUE}")])
    with pytest.raises(Refused):
        vault.append("B", [entry(f"psql -p {VALUE}")])


def test_the_owner_writing_to_a_tape_names_no_secret_the_agent_was_not_given(
    vault: Engine,
) -> None:
    vault.append("A", [entry(f"imported: {VALUE} and {ZH_VALUE}")], actor="owner")
    assert vault.tape("A")[-1].text == "imported: [secret] and [secret]"
    assert vault.agent_stats("A").secret_echoes == 0


def test_values_written_before_vault_set_are_taken_out_everywhere(
    engine: Engine, home: Path, tmp_path: Path
) -> None:
    engine.add_agent("A")
    secret = "Zq8-staging-口令-42"
    engine.append(
        "A",
        [
            entry(f"the staging login is now {secret}"),
            entry(f"again {secret.upper()} and split {secret[:6]} {secret[6:]}"),
            {**entry("meta holds it"), "meta": {"argv": ["login", secret]}},
        ],
    )
    made = engine.remember("A", f"The staging login uses {secret}.", "project_fact")
    assert made.memory is not None
    engine.context("A", query=f"what is {secret}")
    info = engine.set_secret("STAGING", secret)
    assert (info.redacted_entries, info.redacted_memories) == (4, 1)  # + the remember call
    assert info.redacted_other == 1  # the recall record's query
    texts = [e.text for e in engine.tape("A")]
    assert all("[secret]" in t for t in texts[:2]) and secret not in " ".join(texts)
    assert "Zq8" not in json.dumps([e.meta for e in engine.tape("A")])
    assert engine.memory(made.memory.id).memory.text == "The staging login uses [secret]."
    # Nothing to find by its words, nothing in the file or the export.
    assert engine.search("A", "Zq8", mode="fulltext", scope="all").hits == ()
    engine.export(tmp_path / "out.jsonl")
    assert "Zq8" not in (tmp_path / "out.jsonl").read_text(encoding="utf-8")
    assert b"Zq8" not in committed.raw(engine)
    assert "口令-42".encode() not in committed.raw(engine)


def test_a_value_the_vault_takes_out_leaves_other_text_alone(engine: Engine) -> None:
    engine.add_agent("A")
    engine.append("A", [entry("nothing secret here, 这里没有秘密")])
    info = engine.set_secret("OTHER", "an-unused-value-9")
    assert (info.redacted_entries, info.redacted_memories, info.redacted_other) == (0, 0, 0)
    assert engine.tape("A")[0].text == "nothing secret here, 这里没有秘密"


CREDENTIALS = [
    ("use sk-proj-abcdefghijklmnopqrstuvwxyz012345 for the API", "OpenAI-style API key"),
    ("令牌是 ghp_abcdefghijklmnopqrstuvwxyz0123456789AB，别外传", "GitHub token"),
    ("DB_PASSWORD=Tr0ub4dor&3 in .env", "password"),
    ("数据库密码：Xk9#mP2q", "password"),
]


@pytest.mark.parametrize(("text", "kind"), CREDENTIALS)
def test_the_tape_keeps_no_obvious_credential(engine: Engine, text: str, kind: str) -> None:
    engine.add_agent("A")
    (entry_id,) = engine.append("A", [entry(text)]).ids
    stored = engine.entry(entry_id).text
    assert f"[credential: {kind}]" in stored
    for secretish in ("abcdefghijklmnop", "Tr0ub4dor", "Xk9#mP2q"):
        assert secretish not in stored
    # Labels are kept for the kind of text they are: ids, even random ones.
    assert ("DB_PASSWORD=" in stored) == ("DB_PASSWORD=" in text)


def test_the_owner_can_keep_credentials_on_one_agents_tape(engine: Engine, home: Path) -> None:
    engine.add_agent("A")
    engine.add_agent("B")
    engine.configure_agent("A", redact_credentials=False)
    text = CREDENTIALS[0][0]
    engine.append("A", [entry(text)])
    engine.append("B", [entry(text)])
    assert engine.tape("A")[0].text == text
    assert "[credential:" in engine.tape("B")[0].text
    stored = dict(committed.rows(engine, "SELECT agent_id, content FROM tape_entries"))
    assert list(stored.values()).count(text) == 1
