"""The demo home's vault: fake secrets, a reviewed read and one prompt for the owner."""

from __future__ import annotations

from pathlib import Path

import pytest

from app import Engine
from app.demo.seed import load_data, seed


def test_demo_seeds_secrets_and_a_pending_prompt(home: Path) -> None:
    counts = seed(home)
    assert counts["secrets"] == 3 and counts["access_requests"] == 2
    with Engine.open(home) as eng:
        names = {s.name for s in eng.secrets()}
        assert names == {s["name"] for s in load_data()["secrets"]}
        [prompt] = eng.access_requests(status="pending")
        assert (prompt.agent, prompt.secret) == ("claude-code", "INKSTONE_STAGING_DB_PASSWORD")
        [reviewed] = eng.access_requests(status="allowed")
        assert reviewed.agent == "deepchat" and reviewed.decided_by == "reviewer"
        # Every demo value is a fake one, and each opens.
        for spec in load_data()["secrets"]:
            assert spec["value"].startswith("demo-")
            assert eng.reveal_secret(spec["name"]) == spec["value"]


def test_demo_without_a_keyring_skips_secrets_instead_of_prompting(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from keyring.backends import fail

    monkeypatch.setattr("keyring.core._keyring_backend", fail.Keyring())
    counts = seed(home)
    assert counts["secrets"] == 0 and counts["secrets_skipped"] == 3
    assert "TAPEMIND_VAULT_PASSPHRASE is not set" in counts["secrets_skipped_why"]
    assert counts["memories"] > 0
    with Engine.open(home) as eng:
        assert eng.secrets() == [] and eng.access_requests() == []
    assert not (home / "vault-key.json").exists()


def test_demo_with_a_passphrase_the_vault_refuses_says_the_vaults_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from keyring.backends import fail

    monkeypatch.setattr("keyring.core._keyring_backend", fail.Keyring())
    monkeypatch.setenv("TAPEMIND_VAULT_PASSPHRASE", "short")
    counts = seed(tmp_path / "home")
    assert counts["secrets_skipped"] == 3
    assert "needs at least 8 characters" in counts["secrets_skipped_why"]
