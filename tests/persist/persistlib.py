"""tests/persist/persistlib.py -- what the kill tests of tests/persist/
share: the vlad under test and its environment, and killing a run once it
has saved (imported by crash.py, autosave.py, read-real.py; not a test)
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.environ.get("srcdir", "."), "tests",
                                "repl"))
import vlpty                                        # noqa: E402,F401

VLAD = vlpty.VLAD
SCALE = vlpty.SCALE


def env():
    """The environment of a run: the library path of an uninstalled vlad,
    the default checkpoint-*j strategy."""
    e = dict(os.environ)
    e.update(vlpty.VLAD_ENV)
    e.pop("VLAD_CHECKPOINT", None)
    return e


def kill_after_save(p, saved, delay):
    """Kill p (SIGKILL) 'delay' seconds after the file 'saved' appears;
    True if it was killed, False if it ended first (or was killed after
    its program ended, its file already removed)."""
    deadline = time.monotonic() + 60 * SCALE
    while not os.path.exists(saved) and p.poll() is None:
        if time.monotonic() > deadline:
            p.kill()
            raise SystemExit("FAIL: no autosave file after 60 s")
        time.sleep(0.002)
    time.sleep(delay)
    killed = p.poll() is None
    if killed:
        p.kill()
    p.wait()
    # a kill that came after the program ended -- its file removed, the
    # process on its way out (a loaded machine widens that moment) --
    # found a run that ended: what it wrote is whole, there is nothing
    # to resume
    return killed and p.returncode != 0 and os.path.exists(saved)
