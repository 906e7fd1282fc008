"""What a benchmark's processes cost, read from ``/proc`` and ``wait4`` (Linux)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path


def _cpu(stat: str) -> float:
    """User plus system CPU seconds in the text of a ``/proc/PID/stat``."""
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds of a running process so far."""
    return _cpu(Path(f"/proc/{pid}/stat").read_text())


def cpu_by_pid(names: set[str]) -> dict[int, tuple[str, float]]:
    """:func:`cpu_seconds` of every process whose name is in ``names``, with its name."""
    found: dict[int, tuple[str, float]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # gone meanwhile
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        if name in names:
            found[int(stat.parent.name)] = (name, _cpu(text))
    return found


def reap(process: subprocess.Popen, timeout: float | None = None) -> float:
    """Wait for a child (``timeout`` seconds at most: then it is killed and
    ``TimeoutError`` raised); the CPU seconds it used in all."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(process.pid, 0 if deadline is None else os.WNOHANG)
        if pid:
            process.returncode = os.waitstatus_to_exitcode(status)
            return usage.ru_utime + usage.ru_stime
        if time.monotonic() > deadline:
            process.kill()
            process.wait()
            raise TimeoutError(f"process {process.pid} still running after {timeout:g} s")
        time.sleep(0.1)


def peak_memory_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")
