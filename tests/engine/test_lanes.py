"""Recall lanes (app/recall/lanes.py): at most two recalls at once, the rest wait; nothing is
lost or mixed up when many agents recall together."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from app import Engine
from app.recall.lanes import Lanes


def test_no_more_than_the_lanes_run_at_once_and_every_caller_gets_through() -> None:
    lanes = Lanes(2)
    inside = 0
    most = 0
    count = threading.Lock()
    release = threading.Event()
    entered = threading.Semaphore(0)

    def recall() -> str:
        nonlocal inside, most
        with lanes():
            with count:
                inside += 1
                most = max(most, inside)
            entered.release()
            release.wait(10)
            with count:
                inside -= 1
        return "done"

    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(recall) for _ in range(8)]
        # Two get in; the third does not until one of them leaves.
        assert entered.acquire(timeout=10) and entered.acquire(timeout=10)
        assert not entered.acquire(timeout=0.3)
        assert inside == 2
        release.set()
        assert [f.result(timeout=10) for f in futures] == ["done"] * 8
    assert most == 2


def test_a_recall_inside_a_recall_does_not_wait_for_itself() -> None:
    lanes = Lanes(1)
    with lanes(), lanes():
        pass  # would deadlock if the inner call waited for the one lane


def test_eight_agents_recalling_at_once_each_get_their_own_answer(engine: Engine) -> None:
    facts = {f"a{i}": f"Agent a{i} deploys project-{i} on Fridays / 周五部署 {i}" for i in range(8)}
    for agent, fact in facts.items():
        engine.add_agent(agent)
        engine.remember(agent, fact, "project_fact")
    alone = {a: engine.search(a, "deploys 周五").hits[0].text for a in facts}

    def both(agent: str) -> tuple[str, str]:
        block = engine.context(agent, query="deploys 周五部署")
        return block.text, engine.search(agent, "deploys 周五").hits[0].text

    callers = list(facts) * 3
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(both, callers))
    for agent, (text, hit) in zip(callers, answers, strict=True):
        assert facts[agent] in text and hit == alone[agent] == facts[agent]
        assert all(facts[other] not in text for other in facts if other != agent)
