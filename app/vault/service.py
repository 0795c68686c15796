"""The engine side of the vault: secrets in the database, the key in a key store.

One `VaultService` per open engine (the ``VAULT`` slot of its runtime). It unlocks lazily:
the key store is asked for the key the first time a value is sealed or opened,
and a rotation left half-done by a crash is finished at that moment. Once it knows
the values it installs the runtime's redactor, so tape and memory writes replace
them with ``[secret:NAME]``.

Nothing here logs a value, puts one in an exception, an audit row or an event:
vault errors are re-raised as `VaultProblem` with their own (value-free) message.
"""

from __future__ import annotations

import json
import logging
import secrets as random
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import delete, func, update
from sqlmodel import Session, col, select

from app.db import AccessRequestRow, GrantRow, SecretRow, VaultMetaRow, VaultRotationJournalRow
from app.errors import InvalidInput, VaultKeyNotHere, VaultProblem, VaultStillLocked
from app.events import record
from app.runtime import Runtime, Slot
from app.vault import handover, rows
from app.vault.cipher import KEY_ID_BYTES, key_id, new_key, open_sealed, seal
from app.vault.errors import KeyMissing, VaultError, VaultLocked, WrongPassphrase
from app.vault.keystore import KEYSTORE, KeyStore, choose_keystore
from app.vault.live_redaction import LiveRedactor
from app.vault.passphrase import PassphrasePurpose, write_key_file
from app.vault.reasons import because
from app.vault.records import KeyHandover, SecretInfo, VaultStatus
from app.vault.redact import MIN_VALUE_CHARS
from app.vault.rotation import JOURNAL_SECRET_ID, RotationResult, resume_rotation, rotate_key

log = logging.getLogger(__name__)

# Never exported (app.transfer.jsonl also skips these name prefixes; said here explicitly).


class VaultService:
    """Secrets of one home. Thread-safe; created by `for_runtime`."""

    def __init__(self, rt: Runtime, home_id: str) -> None:
        self._rt = rt
        self._home_id = home_id
        self._lock = threading.RLock()
        self._key: bytes | None = None
        self._keystore: KeyStore | None = rt.services.get(KEYSTORE)
        self.passphrase_provider: Callable[[PassphrasePurpose], str | None] | None = None
        self._quiet = threading.local()
        self.lock = self._lock
        self.redactor = LiveRedactor(self)

    # -- key store and key -------------------------------------------------------

    def keystore(self) -> KeyStore:
        """The injected key store, else the OS keyring, else a passphrase file."""
        with self._lock:
            if self._keystore is None:
                recorded = rows.meta(self._rt, "keystore_kind")
                try:
                    self._keystore = choose_keystore(
                        self._rt.home,
                        self._home_id,
                        passphrase_provider=self._provide_passphrase,
                        recorded_kind=recorded if recorded in ("keyring", "passphrase") else None,  # type: ignore[arg-type]
                    )
                except VaultError as exc:
                    raise _problem(exc) from None
            return self._keystore

    def _provide_passphrase(self, purpose: PassphrasePurpose) -> str | None:
        if getattr(self._quiet, "on", False) or self.passphrase_provider is None:
            return None
        return self.passphrase_provider(purpose)

    def key(self) -> bytes:
        """The unlocked vault key (finishing an interrupted rotation first).

        Raises VaultProblem: no key, a locked keyring, a wrong passphrase or key.
        """
        with self._lock:
            recorded = rows.meta(self._rt, "key_id")
            if self._key is not None and key_id(self._key).hex() == recorded:
                return self._key
            store = self.keystore()
            try:
                journal = self._journal()
                if journal is not None:
                    resume_rotation(store, journal)
                    self.clear_journal()
                key = store.load_key()
            except VaultError as exc:
                raise _problem(exc, needs=recorded) from None
            if recorded is not None and key_id(key).hex() != recorded:
                raise self._not_this_key(store, key, recorded)
            self._key = key
            return key

    def _key_for_writing(self) -> bytes:
        """The key, created on first use when the vault is empty."""
        with self._lock:
            store = self.keystore()
            with self._rt.read() as s:
                count = s.exec(select(func.count()).select_from(SecretRow)).one()
            if count == 0 and self._journal() is None:
                try:
                    fresh = not store.has_key()
                    if fresh:
                        key = new_key()
                        store.store_key(key)
                except VaultError as exc:
                    raise _problem(exc) from None
                if fresh:
                    # An empty vault whose key is lost gets a new one; hosts holding the
                    # old key are then told to import the new one.
                    replaced = rows.meta(self._rt, "key_id")
                    with self._rt.write() as s:
                        if replaced is not None:
                            rows.set_meta(s, handover.FORMER_KEY_IDS, with_former(s, replaced))
                        rows.set_meta(s, "keystore_kind", store.kind)
                        rows.set_meta(s, "key_id", key_id(key).hex())
                        record(
                            s,
                            self._rt.now_iso(),
                            "vault.create",
                            agent=None,
                            actor="owner",
                            ids=[key_id(key).hex()],
                        )
                    self._key = key
                    return key
                if rows.meta(self._rt, "key_id") is None:
                    # A key already in the store and no secrets yet: adopt it.
                    key = self.key()
                    with self._rt.write() as s:
                        rows.set_meta(s, "keystore_kind", store.kind)
                        rows.set_meta(s, "key_id", key_id(key).hex())
                    return key
            return self.key()

    # -- secrets -----------------------------------------------------------------

    def set(self, name: str, value: str, tags: Sequence[str] = ()) -> SecretInfo:
        """Seal `value` as secret `name` (new, or replacing its value)."""
        rows.check_name(name)
        if not isinstance(value, str) or not value.strip():
            raise InvalidInput(f"The value of secret {name!r} is empty; nothing was stored.")
        if len(value) < MIN_VALUE_CHARS:
            raise InvalidInput(
                f"The value of secret {name!r} is shorter than {MIN_VALUE_CHARS} characters: "
                "so short a value cannot be kept out of the tape. Nothing was stored."
            )
        clean_tags = tuple(dict.fromkeys(t.strip() for t in tags if t.strip()))
        key = self._key_for_writing()
        now = self._rt.now_iso()
        with self._rt.write() as s:
            row = s.exec(select(SecretRow).where(SecretRow.name == name)).first()
            created = row is None
            if row is None:
                row = SecretRow(
                    id=random.token_hex(16),
                    name=name,
                    tags=json.dumps(list(clean_tags), ensure_ascii=False),
                    created_at=now,
                    updated_at=now,
                    blob=b"",
                    key_id="",
                )
            elif clean_tags:
                row.tags = json.dumps(list(clean_tags), ensure_ascii=False)
            row.blob = seal(key, rows.secret_aad(row.id), value.encode("utf-8"))
            row.key_id = key_id(key).hex()
            row.updated_at = now
            s.add(row)
            rows.bump_generation(s)
            record(
                s,
                now,
                "secret.set",
                agent=None,
                actor="owner",
                ids=[row.id, name],
                counts={"created": int(created)},
            )
            info = rows.to_info(row)
        self.redactor.refresh(force=True)
        return info

    def list(self) -> list[SecretInfo]:
        with self._rt.read() as s:
            return [
                rows.to_info(r) for r in s.exec(select(SecretRow).order_by(col(SecretRow.name)))
            ]

    def info(self, name: str) -> SecretInfo:
        with self._rt.read() as s:
            return rows.to_info(self.row(s, name))

    def row(self, s: Session, name: str) -> SecretRow:
        return rows.secret_row(s, name)

    def open_row(self, row: SecretRow, key: bytes | None = None) -> str:
        """Decrypt one row. Raises VaultProblem (tampered, wrong key), never a value."""
        try:
            plain = open_sealed(key or self.key(), rows.secret_aad(row.id), row.blob)
        except VaultError as exc:
            raise VaultProblem(
                f"Secret {row.name!r} cannot be opened: {exc}. Nothing was changed; set it "
                "again with `tapemind vault set` if its stored value is damaged."
            ) from None
        return plain.decode("utf-8")

    def value(self, name: str) -> str:
        """A value for the engine's own use (the reviewer's API key); not audited."""
        key = self.key()
        with self._rt.read() as s:
            return self.open_row(self.row(s, name), key)

    def reveal(self, name: str) -> str:
        """The value, for the owner (audited as secret.reveal)."""
        key = self.key()
        with self._rt.write() as s:
            row = self.row(s, name)
            value = self.open_row(row, key)
            record(
                s,
                self._rt.now_iso(),
                "secret.reveal",
                agent=None,
                actor="owner",
                ids=[row.id, name],
            )
        return value

    def set_mode(self, name: str, mode: str | None) -> SecretInfo:
        """Override the agents' permission mode for this secret (None: theirs)."""
        if mode is not None and mode not in rows.MODES:
            raise InvalidInput(
                f"mode must be one of {', '.join(rows.MODES)} (or none), not {mode!r}."
            )
        with self._rt.write() as s:
            row = self.row(s, name)
            row.mode = mode
            s.add(row)
            record(
                s,
                self._rt.now_iso(),
                "secret.configure",
                agent=None,
                actor="owner",
                ids=[row.id, name],
            )
            return rows.to_info(row)

    def remove(self, name: str) -> SecretInfo:
        """Delete a secret; its grants go with it, its pending requests are denied."""
        now = self._rt.now_iso()
        removed = because("secret_removed")
        with self._rt.write() as s:
            row = self.row(s, name)
            info = rows.to_info(row)
            s.execute(
                update(AccessRequestRow)
                .where(
                    col(AccessRequestRow.secret_id) == row.id,
                    col(AccessRequestRow.status) == "pending",
                )
                .values(
                    status="denied",
                    decided_by="owner",
                    decision_reason=removed.text,
                    reason_code=removed.code,
                    decided_at=now,
                )
            )
            s.execute(delete(GrantRow).where(col(GrantRow.secret_id) == row.id))
            s.delete(row)
            rows.bump_generation(s)
            record(s, now, "secret.remove", agent=None, actor="owner", ids=[info.id, name])
        self.redactor.refresh(force=True)
        return info

    def status(self) -> VaultStatus:
        """Where the key lives and what the vault holds; never unlocks."""
        store = self.keystore()
        with self._rt.read() as s:
            count = s.exec(select(func.count()).select_from(SecretRow)).one()
            pending = s.exec(
                select(func.count())
                .select_from(AccessRequestRow)
                .where(AccessRequestRow.status == "pending")
            ).one()
            grants = s.exec(
                select(func.count()).select_from(GrantRow).where(col(GrantRow.revoked_at).is_(None))
            ).one()
        return VaultStatus(
            keystore=store.kind,  # this host's: on a shared database each host keeps its own
            where=store.describe(),
            secrets=count,
            pending_requests=pending,
            active_grants=grants,
            key_id=rows.meta(self._rt, "key_id"),
            rotation_pending=self._journal() is not None,
        )

    # -- handing the key to another host (see handover) ------------------------------

    def export_key(self, path: Path, passphrase: str, *, force: bool = False) -> KeyHandover:
        """Write the vault key to `path`, wrapped under `passphrase` (audited)."""
        if path.exists() and not force:
            raise InvalidInput(
                f"{path} already exists; nothing was written. Choose another file, or add "
                "--force to replace it."
            )
        key = self.key()
        try:
            write_key_file(path, key, passphrase)
        except VaultError as exc:
            raise _problem(exc) from None
        except OSError as exc:
            raise InvalidInput(
                f"Cannot write {path} ({exc.strerror or type(exc).__name__}); nothing was written."
            ) from None
        found = key_id(key).hex()
        with self._rt.write() as s:
            record(
                s, self._rt.now_iso(), "vault.export_key", agent=None, actor="owner", ids=[found]
            )
        return KeyHandover(key_id=found, file=str(path), where=str(path))

    def import_key(self, path: Path, passphrase: str) -> KeyHandover:
        """Store the key exported to `path` in this host's key store, if it is this
        vault's current key (audited); refused otherwise, with nothing changed."""
        with self._lock:
            recorded = rows.meta(self._rt, "key_id")
            if recorded is None:
                raise InvalidInput(
                    "This home's vault has no key yet, so there is nothing to import it "
                    "for; the first `tapemind vault set` creates one. Nothing was changed."
                )
            try:
                key = handover.read_exported_key(path, passphrase)
                former = handover.former_key_ids(rows.meta(self._rt, handover.FORMER_KEY_IDS))
                handover.check_belongs(key, recorded, former, path)
            except VaultError as exc:
                raise _problem(exc) from None
            store = self._store_for_import()
            try:
                held = store.load_key() if store.has_key() else None
            except VaultError:
                held = None  # unreadable or locked: replaced below, or refused by the store
            stored = held != key
            if stored:
                try:
                    store.store_key(key)
                except VaultError as exc:
                    raise _problem(exc) from None
            self._keystore, self._key = store, key
            with self._rt.write() as s:
                record(
                    s,
                    self._rt.now_iso(),
                    "vault.import_key",
                    agent=None,
                    actor="owner",
                    ids=[recorded],
                    counts={"stored": int(stored)},
                )
        self.redactor.refresh(force=True)
        return KeyHandover(key_id=recorded, file=str(path), where=store.describe(), stored=stored)

    def _store_for_import(self) -> KeyStore:
        """This host's own key store: the injected one, else its own key file, else its
        OS keyring, else a new key file. The kind recorded in the database is the kind
        the first host used, and says nothing about this one."""
        injected = self._rt.services.get(KEYSTORE)
        if injected is not None:
            return injected
        try:
            return choose_keystore(
                self._rt.home, self._home_id, passphrase_provider=self._provide_passphrase
            )
        except VaultError as exc:
            raise _problem(exc) from None

    def _not_this_key(self, store: KeyStore, key: bytes, recorded: str) -> VaultProblem:
        former = handover.former_key_ids(rows.meta(self._rt, handover.FORMER_KEY_IDS))
        held = key_id(key).hex()
        said = handover.stale_key_message(store.describe(), held, recorded, former)
        return _not_here(said[:1].upper() + said[1:])

    # -- rotation ----------------------------------------------------------------

    def rotate(self) -> RotationResult:
        """Re-encrypt every secret under a new key; a crash is finished on next unlock."""
        with self._lock:
            old_id = key_id(self.key()).hex()  # finishes an interrupted rotation, checks the key
            with self._rt.read() as s:
                blobs = {rows.secret_aad(r.id): r.blob for r in s.exec(select(SecretRow))}

            def commit(resealed: Mapping[str, bytes], journal: bytes) -> None:
                new_id = journal[:8].hex()
                now = self._rt.now_iso()
                with self._rt.write() as s:
                    for aad, blob in resealed.items():
                        s.execute(
                            update(SecretRow)
                            .where(col(SecretRow.id) == aad.removeprefix("secret:"))
                            .values(blob=blob, key_id=new_id)
                        )
                    s.merge(VaultRotationJournalRow(id=1, journal=journal, created_at=now))
                    # Other hosts still hold the replaced key: they are told to import
                    # the new one, not that theirs belongs to another vault.
                    rows.set_meta(s, handover.FORMER_KEY_IDS, with_former(s, old_id))
                    rows.set_meta(s, "key_id", new_id)
                    rows.bump_generation(s)
                    record(
                        s,
                        now,
                        "vault.rotate",
                        agent=None,
                        actor="owner",
                        ids=[new_id],
                        counts={"secrets": len(resealed)},
                    )

            try:
                result = rotate_key(self.keystore(), blobs, commit, self.clear_journal)
            except VaultError as exc:
                raise _problem(exc) from None
            finally:
                self._key = None  # reload: the store holds the new key (or will)
            return result

    def clear_journal(self) -> None:
        rows.clear_journal(self._rt)

    def _journal(self) -> bytes | None:
        return rows.journal(self._rt)

    # -- redaction (see live_redaction) ---------------------------------------------

    def redact(self, text: str) -> str:
        """Replace known values with ``[secret:NAME]`` (the runtime's redactor)."""
        return self.redactor.redact(text)

    def ensure_redacts(self) -> None:
        """Make sure every current value is redacted (called before a value leaves)."""
        self.redactor.refresh(force=True)

    @contextmanager
    def quietly(self) -> Iterator[None]:
        """Within: the passphrase is never asked for (redaction runs inside other
        writes; it may use an unlocked key or the keyring, never a prompt)."""
        before = getattr(self._quiet, "on", False)
        self._quiet.on = True
        try:
            yield
        finally:
            self._quiet.on = before

    def peek_key(self) -> bytes:
        """The key for reading, writing nothing: redaction runs inside other
        transactions, so it must not finish a rotation (that writes) from there."""
        recorded = rows.meta(self._rt, "key_id")
        if self._key is not None and key_id(self._key).hex() == recorded:
            return self._key
        try:
            current = self.keystore().load_key()
            journal = self._journal()
            if journal is not None and key_id(current).hex() != recorded:
                carried, sealed = journal[:KEY_ID_BYTES], journal[KEY_ID_BYTES:]
                fresh = open_sealed(current, JOURNAL_SECRET_ID, sealed)
                if key_id(fresh) == carried:
                    current = fresh
        except VaultError as exc:
            raise _problem(exc) from None
        if recorded is not None and key_id(current).hex() != recorded:
            raise self._not_this_key(self.keystore(), current, recorded)
        return current

    def all_values(self) -> dict[str, str]:
        """Every value that opens, by name (damaged blobs are left out)."""
        key = self.peek_key()
        with self._rt.read() as s:
            stored = list(s.exec(select(SecretRow)))
        values: dict[str, str] = {}
        for row in stored:
            try:
                values[row.name] = self.open_row(row, key)
            except VaultProblem:
                continue  # a damaged blob has no value to redact; reading it says why
        return values

    def generation_and_count(self) -> tuple[int, int]:
        """The vault's change counter (bumped by set, rm, rotate) and its size."""
        return rows.generation_and_count(self._rt)

    # -- bookkeeping ---------------------------------------------------------------

    def meta_json(self, key: str) -> dict[str, Any] | None:
        raw = rows.meta(self._rt, key)
        return dict(json.loads(raw)) if raw else None

    def set_meta_json(self, key: str, value: Mapping[str, Any], *, action: str) -> None:
        with self._rt.write() as s:
            rows.set_meta(s, key, json.dumps(dict(value), ensure_ascii=False, sort_keys=True))
            record(s, self._rt.now_iso(), action, agent=None, actor="owner")

    def close(self) -> None:
        with self._lock:
            self._key = None
            self.redactor.forget()


def for_runtime(rt: Runtime, home_id: str) -> VaultService:
    """The runtime's vault service, created (and its redactor installed) on first use."""
    service = rt.services.get(VAULT)
    if service is None:
        service = VaultService(rt, home_id)
        rt.services.put(VAULT, service)
        rt.redactor = service.redact
    return service


VAULT: Slot[VaultService] = Slot("vault")


def _problem(exc: VaultError, *, needs: str | None = None) -> VaultProblem:
    # The vault's own messages carry no value or key (see app.vault.errors).
    said = str(exc).rstrip(".")
    message = (said[:1].upper() + said[1:] + ".") if said else "The vault cannot be opened."
    if isinstance(exc, KeyMissing):
        sealed = f" This home's secrets are sealed under vault key {needs}." if needs else ""
        return _not_here(f"{message}{sealed} If the key is elsewhere, {handover.HOW_TO_HAND_OVER}.")
    if isinstance(exc, VaultLocked) and not isinstance(exc, WrongPassphrase):
        return VaultStillLocked(
            message,
            for_agents="The owner's vault is locked: ask the user to unlock it, then call "
            "request_secret again.",
        )
    return VaultProblem(message)


def _not_here(message: str) -> VaultKeyNotHere:
    return VaultKeyNotHere(
        message,
        for_agents="The Tapemind host serving you does not have the owner's vault key, so "
        "no secret can be read here. Ask the user to hand the key to this host (the vault's "
        "export-key where the key is, then import-key here), then call request_secret again.",
    )


def with_former(s: Session, replaced: str) -> str:
    """The `former_key_ids` meta value with `replaced` added, read in session `s`."""
    row = s.get(VaultMetaRow, handover.FORMER_KEY_IDS)
    return handover.with_former(row.value if row is not None else None, replaced)
