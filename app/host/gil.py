"""The GIL switch interval of Tapemind's long-running processes (the host, the desktop app).

CPython hands the GIL to a waiting thread after the switch interval (default 5 ms). In a
process where Python workers run beside a thread that must answer quickly (the host's event
loop, the app's GUI thread), each of that thread's steps can wait that long. Measured: with
8 busy threads the host's loop waited 55 ms (p50) at 5 ms and 6 ms at 1 ms in a pure-Python
test; in the app, scroll steps that started a fetch took 40-130 ms at 5 ms and 30-40 ms at
1 ms. 0.2 and 0.5 ms measured no better for the host, so it stays 1 ms.
"""

from __future__ import annotations

import sys

SWITCH_INTERVAL_S = 0.001


def shorten_switch_interval() -> None:
    """Hand the GIL over at least every SWITCH_INTERVAL_S (a shorter setting is kept)."""
    sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL_S))
