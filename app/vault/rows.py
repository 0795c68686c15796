"""The vault's rows: names, metadata, the change counter and the rotation journal.

Small helpers over the migration-4 tables, shared by the vault service, the
approvals and the reviewer. The tables are private: never exported.
"""

from __future__ import annotations

import json
import re

from sqlalchemy import delete, func
from sqlmodel import Session, select

from app.clock import from_iso
from app.db import SecretRow, VaultMetaRow, VaultRotationJournalRow
from app.errors import InvalidInput, NotFound
from app.limits import MAX_SECRET_NAME_CHARS
from app.models import PERMISSION_MODES
from app.runtime import Runtime
from app.vault.credentials import looks_like_credential
from app.vault.records import SecretInfo

# Never exported: listed in app.db.schema.NOT_EXPORTED.
VAULT_TABLES = ("vault_meta", "secrets", "access_requests", "grants", "vault_rotation_journal")

_NAME = re.compile(rf"^[^\W][\w.\-]{{0,{MAX_SECRET_NAME_CHARS - 1}}}$", re.UNICODE)
MODES = PERMISSION_MODES


def secret_aad(secret_id: str) -> str:
    """What a secret's blob is bound to (its random id, never its name)."""
    return f"secret:{secret_id}"


def meta(rt: Runtime, key: str) -> str | None:
    with rt.read() as s:
        row = s.get(VaultMetaRow, key)
        return row.value if row is not None else None


def set_meta(s: Session, key: str, value: str) -> None:
    s.merge(VaultMetaRow(key=key, value=value))


def bump_generation(s: Session) -> None:
    row = s.get(VaultMetaRow, "generation")
    s.merge(VaultMetaRow(key="generation", value=str(int(row.value) + 1 if row else 1)))


def generation_and_count(rt: Runtime) -> tuple[int, int]:
    with rt.read() as s:
        row = s.get(VaultMetaRow, "generation")
        count = s.exec(select(func.count()).select_from(SecretRow)).one()
        return (int(row.value) if row else 0), int(count)


def journal(rt: Runtime) -> bytes | None:
    with rt.read() as s:
        row = s.get(VaultRotationJournalRow, 1)
        return bytes(row.journal) if row is not None else None


def clear_journal(rt: Runtime) -> None:
    with rt.write() as s:
        s.execute(delete(VaultRotationJournalRow))


def secret_row(s: Session, name: str) -> SecretRow:
    row = s.exec(select(SecretRow).where(SecretRow.name == name)).first()
    if row is None:
        raise NotFound(
            f"No secret named {name!r} in this vault. List them with `tapemind vault list`.",
            for_agents=(
                "No secret by that name in the owner's vault. Check the name with the user, "
                "or ask them to store it; then call request_secret again."
            ),
        )
    return row


def check_name(name: str) -> None:
    if isinstance(name, str) and looks_like_credential(name):
        # Someone typed the value where the name goes: do not echo it back.
        raise InvalidInput(
            "That secret name looks like a credential itself; a name says what the secret "
            "is (e.g. GITHUB_TOKEN) and the value is read from stdin. Nothing was stored."
        )
    if not isinstance(name, str) or not _NAME.match(name):
        raise InvalidInput(
            f"Invalid secret name: use 1-{MAX_SECRET_NAME_CHARS} letters, digits, '_', '.' or "
            "'-', "
            "starting with a letter or digit (e.g. GITHUB_TOKEN; Chinese letters are fine)."
        )


def to_info(row: SecretRow) -> SecretInfo:
    return SecretInfo(
        id=row.id,
        name=row.name,
        tags=tuple(json.loads(row.tags)),
        mode=row.mode,
        created_at=from_iso(row.created_at),
        updated_at=from_iso(row.updated_at),
        key_id=row.key_id,
    )
