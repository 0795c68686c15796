"""Sealed blobs and key rotation: what the owner sees when a secret is read back,
damaged, opened with the wrong key, or re-encrypted by ``vault rotate-key``."""

from __future__ import annotations

import base64
from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.vault import (
    BlobTampered,
    MalformedBlob,
    MemoryKeyStore,
    RotationError,
    SealedBlobError,
    UnsupportedBlobVersion,
    WrongKey,
    key_id,
    new_key,
    open_sealed,
    plan_rotation,
    reseal_all,
    resume_rotation,
    rotate_key,
    seal,
)
from app.vault.errors import KeyringUnavailable

KEY = new_key()
OTHER_KEY = new_key()

secret_ids = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=40)
values = st.one_of(
    st.binary(min_size=12, max_size=300),
    st.text(min_size=6, max_size=100).map(lambda t: ("密码-" + t).encode("utf-8")),
)


def _leaks(plaintext: bytes, message: str) -> bool:
    text = message.encode("utf-8", "replace")
    forms = {plaintext, plaintext.hex().encode(), base64.b64encode(plaintext)}
    return any(form in text for form in forms)


@given(secret_id=secret_ids, plaintext=values)
@settings(max_examples=200, deadline=None)
def test_seal_then_open_returns_the_value(secret_id: str, plaintext: bytes) -> None:
    blob = seal(KEY, secret_id, plaintext)
    assert plaintext not in blob
    assert open_sealed(KEY, secret_id, blob) == plaintext


def test_each_write_uses_a_fresh_nonce() -> None:
    first, second = seal(KEY, "github", b"ghp_value"), seal(KEY, "github", b"ghp_value")
    assert first != second
    assert open_sealed(KEY, "github", first) == open_sealed(KEY, "github", second) == b"ghp_value"


def test_blob_layout_is_version_key_id_nonce_body() -> None:
    blob = seal(KEY, "s", b"abcdef")
    assert blob[0] == 1
    assert blob[1:9] == key_id(KEY)
    assert len(blob) == 1 + 8 + 12 + len(b"abcdef") + 16


@given(plaintext=values, data=st.data())
@settings(max_examples=300, deadline=None)
def test_any_altered_byte_is_refused_without_leaking(plaintext: bytes, data: st.DataObject) -> None:
    blob = bytearray(seal(KEY, "aws-prod", plaintext))
    index = data.draw(st.integers(0, len(blob) - 1))
    flip = data.draw(st.integers(1, 255))
    blob[index] ^= flip
    with pytest.raises(SealedBlobError) as caught:
        open_sealed(KEY, "aws-prod", bytes(blob))
    assert not _leaks(plaintext, str(caught.value))
    assert "aws-prod" in str(caught.value)


@given(plaintext=values)
@settings(max_examples=100, deadline=None)
def test_wrong_key_is_named_as_such(plaintext: bytes) -> None:
    blob = seal(KEY, "openai", plaintext)
    with pytest.raises(WrongKey) as caught:
        open_sealed(OTHER_KEY, "openai", blob)
    message = str(caught.value)
    assert key_id(KEY).hex() in message and key_id(OTHER_KEY).hex() in message
    assert not _leaks(plaintext, message)


@given(plaintext=values)
@settings(max_examples=100, deadline=None)
def test_a_blob_moved_to_another_secret_does_not_open(plaintext: bytes) -> None:
    blob = seal(KEY, "slack-bot", plaintext)
    with pytest.raises(BlobTampered) as caught:
        open_sealed(KEY, "github", blob)
    assert not _leaks(plaintext, str(caught.value))


def test_a_header_relabelled_to_another_key_still_fails() -> None:
    blob = bytearray(seal(KEY, "s", b"value-123"))
    blob[1:9] = key_id(OTHER_KEY)  # relabel the header to the other key
    with pytest.raises(BlobTampered):
        open_sealed(OTHER_KEY, "s", bytes(blob))


def test_unknown_version_says_to_upgrade() -> None:
    blob = b"\x02" + seal(KEY, "s", b"value-123")[1:]
    with pytest.raises(UnsupportedBlobVersion, match="upgrade Tapemind"):
        open_sealed(KEY, "s", blob)


# A sealed blob's bytes are random (its nonce): the case is named, so that every test
# process collects the same test ids.
@pytest.mark.parametrize(
    "blob",
    [b"", b"\x01", seal(KEY, "s", b"value-123")[:36]],
    ids=["empty", "version-only", "cut-short"],
)
def test_truncated_blobs_are_malformed(blob: bytes) -> None:
    with pytest.raises(MalformedBlob):
        open_sealed(KEY, "s", blob)


def test_reseal_all_moves_every_secret_to_the_new_key() -> None:
    blobs = {
        "github": seal(KEY, "github", b"ghp_1"),
        "数据库": seal(KEY, "数据库", "口令".encode()),
    }
    resealed = reseal_all(KEY, OTHER_KEY, blobs)
    assert open_sealed(OTHER_KEY, "github", resealed["github"]) == b"ghp_1"
    assert open_sealed(OTHER_KEY, "数据库", resealed["数据库"]) == "口令".encode()
    with pytest.raises(WrongKey):
        open_sealed(KEY, "github", resealed["github"])


def test_reseal_all_is_all_or_nothing() -> None:
    blobs = {
        "good": seal(KEY, "good", b"value-good"),
        "bad": seal(OTHER_KEY, "bad", b"value-bad"),
        "swapped": seal(KEY, "good", b"value-swapped"),
    }
    before = dict(blobs)
    with pytest.raises(RotationError) as caught:
        reseal_all(KEY, new_key(), blobs)
    message = str(caught.value)
    assert "'bad' (WrongKey)" in message and "'swapped' (BlobTampered)" in message
    assert "nothing was changed" in message and "value-" not in message
    assert blobs == before


# -- rotate-key with a store that commits in one transaction ----------------------


class FakeStore:
    """The secrets table and the journal, committed together (as SQLite would)."""

    def __init__(self, blobs: dict[str, bytes]) -> None:
        self.blobs = dict(blobs)
        self.journal: bytes | None = None
        self.fail_commit = False

    def commit(self, resealed: Mapping[str, bytes], journal: bytes) -> None:
        if self.fail_commit:
            raise OSError("disk full")
        self.blobs = dict(resealed)
        self.journal = journal

    def clear_journal(self) -> None:
        self.journal = None


class RefusingKeyStore(MemoryKeyStore):
    """A key store whose write fails once (keyring dropped off the bus mid-rotation)."""

    refuse = True

    def store_key(self, key: bytes) -> None:
        if self.refuse:
            self.refuse = False
            raise KeyringUnavailable("the OS keyring failed to write the vault key")
        super().store_key(key)


def _store() -> FakeStore:
    return FakeStore({name: seal(KEY, name, f"value of {name}".encode()) for name in ("a", "b")})


def test_rotate_key_re_encrypts_everything_and_replaces_the_key() -> None:
    keystore, store = MemoryKeyStore(KEY), _store()
    result = rotate_key(keystore, store.blobs, store.commit, store.clear_journal)
    assert result.secrets == 2 and result.old_key_id == key_id(KEY).hex()
    fresh = keystore.load_key()
    assert fresh != KEY and result.new_key_id == key_id(fresh).hex()
    assert open_sealed(fresh, "a", store.blobs["a"]) == b"value of a"
    assert store.journal is None


def test_rotate_key_failing_commit_changes_nothing() -> None:
    keystore, store = MemoryKeyStore(KEY), _store()
    before = dict(store.blobs)
    store.fail_commit = True
    with pytest.raises(OSError):
        rotate_key(keystore, store.blobs, store.commit, store.clear_journal)
    assert keystore.load_key() == KEY and store.blobs == before


def test_rotation_interrupted_after_commit_is_finished_by_resume() -> None:
    keystore, store = RefusingKeyStore(KEY), _store()
    with pytest.raises(RotationError, match="unlock the vault again to finish") as caught:
        rotate_key(keystore, store.blobs, store.commit, store.clear_journal)
    # The line says why in words, not with the error's class name.
    assert "(the OS keyring failed to write the vault key)" in str(caught.value)
    assert "KeyringUnavailable" not in str(caught.value)
    assert keystore.load_key() == KEY and store.journal is not None
    with pytest.raises(WrongKey):  # the blobs are already under the new key
        open_sealed(KEY, "a", store.blobs["a"])

    assert resume_rotation(keystore, store.journal) is True
    assert open_sealed(keystore.load_key(), "b", store.blobs["b"]) == b"value of b"
    # Crash after the key was stored but before the journal was cleared:
    assert resume_rotation(keystore, store.journal) is False


def test_a_journal_from_another_vault_is_refused() -> None:
    journal = plan_rotation(OTHER_KEY, {}).journal
    with pytest.raises(RotationError, match="neither wrote it"):
        resume_rotation(MemoryKeyStore(KEY), journal)
