"""ask_user's terminal question in a daemon thread: a run cancelled while a person has not answered
(Ctrl-C) ends at once, and an answer or a failure reaches the awaiting action as to_thread's would."""

from __future__ import annotations

import asyncio
import threading

import pytest

from actions.steering import in_daemon_thread


def test_a_question_nobody_answers_does_not_keep_a_cancelled_run_waiting() -> None:
    never = threading.Event()

    async def asking() -> bool:
        return await in_daemon_thread(never.wait)

    async def main() -> None:
        task = asyncio.create_task(asking())
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())  # returns: the blocked thread is a daemon, nobody waits for it
    assert not never.is_set()


def test_an_answer_and_a_failure_reach_the_action() -> None:
    async def main() -> tuple[list[str], str]:
        answered = await in_daemon_thread(lambda questions: [q.upper() for q in questions], ["a", "b"])
        try:
            await in_daemon_thread(lambda: (_ for _ in ()).throw(EOFError("no terminal")))
        except EOFError as exc:
            return answered, str(exc)
        return answered, ""

    assert asyncio.run(main()) == (["A", "B"], "no terminal")
