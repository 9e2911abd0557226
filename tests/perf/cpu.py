"""CPU per request of the processes a benchmark drives, from /proc (user + system time): the
server, the gateway, the PostgreSQL cluster (every backend, including those that exited) and the
load generator (the benchmark's children, and the benchmark itself when it sends the load)."""
import os
import resource

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """User + system CPU of a process so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def postgres_cpu_seconds(data_dir):
    """CPU of the cluster in data_dir: its postmaster, its live processes, and those that exited."""
    with open(os.path.join(data_dir, "postmaster.pid")) as f:
        postmaster = f.readline().strip()
    with open(f"/proc/{postmaster}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    total = sum(int(x) for x in fields[11:15]) / TICK  # utime, stime, cutime, cstime
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if fields[1] == postmaster:
                total += (int(fields[11]) + int(fields[12])) / TICK
        except OSError:
            continue
    return total


def load_cpu_seconds():
    """CPU of this process and its waited-for children (the load generator, pgbench)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def steal_seconds():
    """Time the hypervisor ran something else while this machine's CPUs had work, summed over the
    CPUs (/proc/stat's steal): a request in flight then waits whatever the service does."""
    with open("/proc/stat") as f:
        fields = f.readline().split()
    return int(fields[8]) / TICK


class CpuWindow:
    """CPU of server, gateway, PostgreSQL and load generator between start() and per_request()."""

    def __init__(self, server_pid, gateway_pid, pg_data):
        self.server_pid, self.gateway_pid, self.pg_data = server_pid, gateway_pid, pg_data
        self.started = None

    def _sample(self):
        return {"server": cpu_seconds(self.server_pid), "gateway": cpu_seconds(self.gateway_pid),
                "postgres": postgres_cpu_seconds(self.pg_data), "loadgen": load_cpu_seconds()}

    def start(self):
        self.started = self._sample()
        return self

    def seconds(self):
        """CPU seconds of each process since start()."""
        now = self._sample()
        return {name: now[name] - self.started[name] for name in now}

    def per_request(self, requests):
        """Microseconds of CPU per request of each process since start()."""
        return {name: used * 1e6 / max(requests, 1) for name, used in self.seconds().items()}
