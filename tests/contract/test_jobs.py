"""One contract for the jobs' queue (the `Jobs` port): arq on Redis and the
memory queue keep a job once per job id, with its arguments and its delay.

The arq variant shares the session's Redis with the tests' workers: its jobs
go to a queue of their own, which no worker takes."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from arq.connections import ArqRedis
from arq.jobs import Job, JobStatus
from redis.asyncio import ConnectionPool

from services.app.ports.jobs import Jobs
from services.infra.memory_jobs import MemoryJobs
from services.infra.scheduler import Scheduler


class JobsContract:
    async def queued(self, jobs: Any, job_id: str) -> tuple[str, tuple, float] | None:
        """(job, args, due epoch s) of a queued job id; None when it is not queued."""
        raise NotImplementedError

    async def test_a_job_is_queued_with_its_arguments_and_its_delay(self, jobs: Any) -> None:
        job_id = f"contract:{uuid.uuid4().hex}"
        before = time.time()
        await jobs.enqueue("move_deadline", "game", 12, 1, job_id=job_id, delay_s=30)
        found = await self.queued(jobs, job_id)
        assert found is not None
        name, args, due = found
        assert (name, tuple(args)) == ("move_deadline", ("game", 12, 1))
        assert before + 29 <= due <= time.time() + 31

    async def test_a_job_id_still_queued_is_not_queued_again(self, jobs: Any) -> None:
        job_id = f"contract:{uuid.uuid4().hex}"
        await jobs.enqueue("record_table", "first", job_id=job_id, delay_s=60)
        await jobs.enqueue("record_table", "second", job_id=job_id)
        found = await self.queued(jobs, job_id)
        assert found is not None and tuple(found[1]) == ("first",)
        other = f"contract:{uuid.uuid4().hex}"
        await jobs.enqueue("record_table", "other", job_id=other, delay_s=60)
        assert await self.queued(jobs, other) is not None
        assert await self.queued(jobs, f"contract:{uuid.uuid4().hex}") is None


@pytest.mark.asyncio(loop_scope="session")
class TestMemoryJobs(JobsContract):
    @pytest.fixture
    def jobs(self) -> MemoryJobs:
        return MemoryJobs()

    async def queued(self, jobs: Any, job_id: str) -> tuple[str, tuple, float] | None:
        job = jobs.queued.get(job_id)
        return None if job is None else (job.job, job.args, job.due_s)

    async def test_due_jobs_are_taken_once_in_due_order(self, jobs: MemoryJobs) -> None:
        await jobs.enqueue("b", job_id="b", delay_s=2)
        await jobs.enqueue("a", job_id="a", delay_s=1)
        await jobs.enqueue("c", job_id="c", delay_s=60)
        assert [j.job for j in jobs.take_due(time.time() + 5)] == ["a", "b"]
        assert jobs.take_due(time.time() + 5) == [] and list(jobs.queued) == ["c"]


@pytest.mark.asyncio(loop_scope="session")
class TestArqJobs(JobsContract):
    @pytest_asyncio.fixture(loop_scope="session")
    async def jobs(self, redis_url: str) -> AsyncIterator[Scheduler]:
        queue = f"contract:queue:{uuid.uuid4().hex}"
        scheduler = Scheduler(ArqRedis(ConnectionPool.from_url(redis_url), default_queue_name=queue), queue=queue)
        yield scheduler
        await scheduler.arq.delete(queue)
        await scheduler.close()

    async def queued(self, jobs: Any, job_id: str) -> tuple[str, tuple, float] | None:
        job = Job(job_id, jobs.arq, _queue_name=jobs.queue)
        if await job.status() != JobStatus.deferred and await job.status() != JobStatus.queued:
            return None
        info = await job.info()
        assert info is not None
        return info.function, info.args, info.score / 1000 if info.score else time.time()


def test_both_queues_fit_the_port() -> None:
    adapters: list[Jobs] = [MemoryJobs(), Scheduler(ArqRedis(ConnectionPool.from_url("redis://localhost")))]
    assert len(adapters) == 2
