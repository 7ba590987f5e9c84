"""EASY backfilling whose backfill candidates are tried shortest wall time first (a batch policy)."""

import math


class EasySJF:
    """EASY backfilling; the jobs behind the head are tried shortest wall time first."""

    name = "easy-sjf"

    def reset(self, sim):
        self.queue = []  # the waiting jobs

    def job_failed(self, sim, job, node):
        sim.requeue(job)  # back in the queue, with restart priority 3
        self.queue.append(job)

    def start(self, sim, job):
        sim.start(job, sim.lowest_free(sim.procs[job]))
        self.queue.remove(job)

    def decide(self, sim, instant):
        self.queue += instant.submitted
        self.queue.sort(key=lambda j: (-sim.priority[j], sim.release[j], j))
        while self.queue and sim.procs[self.queue[0]] <= sim.free_count():
            self.start(sim, self.queue[0])  # first come, first served while the head fits
        if not self.queue:
            return
        # the head waits: when will enough nodes be free for it (running jobs end by their wall time)?
        need, free, shadow = sim.procs[self.queue[0]], sim.free_count(), math.inf
        ends = sorted((sim.start_time[j] + sim.wall[j], sim.procs[j]) for j in sim.running)
        for k, (end, procs) in enumerate(ends):
            free += procs
            if free >= need and (k + 1 == len(ends) or ends[k + 1][0] > end):
                shadow = end  # the head's start; free - need nodes are left over then
                break
        extra = free - need if shadow < math.inf else 0
        for j in sorted(self.queue[1:], key=lambda j: (sim.wall[j], j)):  # shortest first
            fits_now = sim.procs[j] <= sim.free_count()
            ends_in_time = sim.now + sim.wall[j] <= shadow
            if fits_now and (ends_in_time or sim.procs[j] <= extra):
                self.start(sim, j)  # never delays the head
                if not ends_in_time:
                    extra -= sim.procs[j]
