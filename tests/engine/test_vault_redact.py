"""Redaction of known secret values, and spotting credentials the vault does not know,
in English and Chinese text."""

from __future__ import annotations

import base64
import dataclasses
import json
import re
from urllib.parse import quote, quote_plus

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.vault import Redactor, looks_like_credential
from app.vault.credentials import find_credentials

GITHUB = "ghp_R4nd0mV4lu3ExampleExample1234567890"
DB = "数据库口令-Xk9#mP2q"


def test_known_values_are_replaced_in_english_and_chinese_text() -> None:
    redactor = Redactor({"github": GITHUB, "db": DB})
    english = f"I exported GITHUB_TOKEN={GITHUB} and ran the deploy."
    chinese = f"我用了密码{DB}登录数据库，然后又用 {GITHUB} 推送了代码。"
    assert redactor.redact(english) == "I exported GITHUB_TOKEN=[secret:github] and ran the deploy."
    assert (
        redactor.redact(chinese)
        == "我用了密码[secret:db]登录数据库，然后又用 [secret:github] 推送了代码。"
    )


def _lower_escapes(text: str) -> str:
    return re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), text)


@pytest.mark.parametrize(
    "encode",
    [
        lambda v: base64.b64encode(v.encode()).decode(),
        lambda v: base64.b64encode(v.encode()).decode().rstrip("="),
        lambda v: base64.urlsafe_b64encode(v.encode()).decode(),
        lambda v: quote(v, safe=""),
        lambda v: _lower_escapes(quote_plus(v)),
        lambda v: _lower_escapes(quote(v, safe="")),
        lambda v: json.dumps(v)[1:-1],
    ],
    ids=[
        "base64",
        "base64-unpadded",
        "urlsafe-base64",
        "url",
        "url-plus-lower",
        "url-lower",
        "json",
    ],
)
def test_simple_encodings_are_replaced(encode: object) -> None:
    encoded = encode(DB)  # type: ignore[operator]
    assert encoded != DB
    result = Redactor({"db": DB}).scan(f"header: {encoded}; 结束")
    assert result.text == "header: [secret:db]; 结束"
    assert result.names == frozenset({"db"})


def test_a_longer_secret_containing_a_shorter_one_is_replaced_whole() -> None:
    redactor = Redactor({"short": "abcd1234", "long": "abcd1234-extended"})
    assert redactor.redact("x abcd1234-extended y abcd1234") == "x [secret:long] y [secret:short]"


def test_scan_reports_only_names_found() -> None:
    result = Redactor({"github": GITHUB, "db": DB}).scan("nothing secret here 没有秘密")
    assert result.text == "nothing secret here 没有秘密" and result.names == frozenset()


def test_too_short_values_are_listed_not_redacted() -> None:
    redactor = Redactor({"pin": "123", "github": GITHUB})
    assert redactor.unprotected == ("pin",)
    assert redactor.redact("room 123") == "room 123"


def test_an_empty_redactor_changes_nothing() -> None:
    assert Redactor({}).redact("密码：abc") == "密码：abc"


value_chars = st.sampled_from("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789密钥令牌口数据库")
filler_chars = st.sampled_from("abcdefg xyz，。的是在了 \n")


@given(
    value=st.text(value_chars, min_size=8, max_size=40),
    parts=st.lists(st.text(filler_chars | value_chars, max_size=30), min_size=1, max_size=5),
)
@settings(max_examples=300, deadline=None)
def test_no_value_survives_redaction(value: str, parts: list[str]) -> None:
    text = value.join(parts) + value
    result = Redactor({"api_key": value}).scan(text)
    assert value not in result.text
    assert base64.b64encode(value.encode()).decode() not in result.text
    assert "[secret:api_key]" in result.text and result.names == {"api_key"}


# -- unknown credentials ------------------------------------------------------------

POSITIVES = [
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow...", "PEM private key"),
    ("这是私钥：\n-----BEGIN OPENSSH PRIVATE KEY-----", "PEM private key"),
    ("key id AKIAIOSFODNN7EXAMPLE in us-east-1", "AWS access key"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AWS secret key"),
    ("ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123", "Anthropic API key"),
    ("用这个 key：sk-proj-abcdefghijklmnopqrstuvwxyz012345 调用接口", "OpenAI-style API key"),
    ("token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB", "GitHub token"),
    ("github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "GitHub token"),
    ("slack bot xoxb-123456789012-1234567890123-abcdefghij", "Slack token"),
    (
        "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0"
        ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "JWT",
    ),
    ("DB_PASSWORD=Tr0ub4dor&3", "password"),
    ("password: hunter2!", "password"),
    ("my password is hunter2", "password"),
    ("数据库密码：Xk9#mP2q", "password"),
    ("服务器的密码是 abc12345，别告诉别人", "password"),
    ("口令为Passw0rd", "password"),
    ("新令牌: a8f3K2pQ9xZ", "password"),
    ("the upload key is Zq8Kp3LmN7vX2wR9tY4uB6cD1eF5gH0jT", "high-entropy token"),
    ("上传密钥在这 Zq8Kp3LmN7vX2wR9tY4uB6cD1eF5gH0jT 里", "high-entropy token"),
]


@pytest.mark.parametrize(("text", "kind"), POSITIVES)
def test_credentials_are_spotted_with_their_kind(text: str, kind: str) -> None:
    assert looks_like_credential(text) == kind


NEGATIVES = [
    "The user prefers dark mode and replies in Chinese.",
    "Fixed in commit 3f2a9c1b7d4e5f60718293a4b5c6d7e8f9012345 (see PR #12).",
    "已在提交 3f2a9c1 和 8e6d2b40f1c9a7e3d5b2c8f0a1e4d7b9c3f6a2e5 中修复。",
    "sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "request id 123e4567-e89b-12d3-a456-426614174000 failed",
    "The password is correct and the token expires tomorrow.",
    "Remember: password reset emails go to the owner.",
    "password: <your password here>",
    "DB_PASSWORD=${DB_PASSWORD}",
    "GITHUB_TOKEN=[secret:github] was used for the push",  # already redacted
    "密码：[secret:db]",
    "set token=xxxxxxxx in the example config",
    "用户的密码是自己在注册时设置的，不要问。",
    "密码是什么？请在设置里修改。",
    "密码：请向管理员索取",
    "AbstractSingletonProxyFactoryBean2Impl is a class name",
    "see src/app/vault/keystore.py and /home/User1/Projects/App2/src/Main3/Config4.py",
    "https://github.com/owner/Repo2/blob/main/src/File9.py#L120",
    "用户偏好：深色主题，中文界面，快捷键 Ctrl+K，时区 Asia/Shanghai。",
    "Use sk- prefixed keys only in the vault, never in memories.",
    "version 2.3.0 released on 2026-11-30 with 1,234 tests",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_ordinary_text_is_not_flagged(text: str) -> None:
    assert looks_like_credential(text) is None


@given(
    st.text(
        st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF)
        | st.sampled_from("，。、：；！？ "),
        max_size=200,
    )
)
@settings(max_examples=200, deadline=None)
def test_chinese_prose_is_never_flagged(text: str) -> None:
    assert looks_like_credential(text) is None


@given(st.lists(st.text("0123456789abcdef", min_size=7, max_size=64), max_size=6))
@settings(max_examples=200, deadline=None)
def test_hex_ids_such_as_commit_hashes_are_never_flagged(hashes: list[str]) -> None:
    assert looks_like_credential("commits: " + ", ".join(hashes)) is None


def test_hits_give_positions_never_text() -> None:
    text = "a: AKIAIOSFODNN7EXAMPLE，b: xoxb-123456789012-abcdefghij"
    hits = find_credentials(text)
    assert [hit.kind for hit in hits] == ["AWS access key", "Slack token"]
    assert text[hits[0].start : hits[0].end] == "AKIAIOSFODNN7EXAMPLE"
    assert {field.name for field in dataclasses.fields(hits[0])} == {"kind", "start", "end"}


def test_specific_kind_wins_over_the_password_label() -> None:
    assert looks_like_credential("api_key = sk-proj-abcdefghijklmnopqrstuvwxyz012345") == (
        "OpenAI-style API key"
    )
