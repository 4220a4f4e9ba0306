"""What a benchmark ran on: CPU model, cores, load average and date, printed with its figures so
that a figure names its machine (issue #25)."""

from __future__ import annotations

import os
import platform
from datetime import datetime, timezone


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo (Linux), else what platform knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def load_average() -> str:
    try:
        return " ".join(f"{load:.2f}" for load in os.getloadavg())
    except OSError:
        return "unknown"


def machine_line() -> str:
    """One line: CPU model, cores, load average (1, 5, 15 min) and the UTC date and time."""
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return f"machine: {cpu_model()}, {os.cpu_count()} cores, load average {load_average()}, {now}"
