"""A model server that dies says how: a SIGILL reads as a crash, not as a model that never answers."""

from __future__ import annotations

import signal
import sys

import pytest

from devtools.hass_process import ManagedProcess, free_port

from ..processes import OUTPUT


@pytest.mark.parametrize(
    ("code", "said"),
    [
        (
            f"import os, signal; os.kill(os.getpid(), {signal.SIGILL.value})",
            "was killed by SIGILL (Illegal instruction)",
        ),
        ("import sys; sys.exit(3)", "exited with code 3"),
    ],
)
def test_a_process_that_dies_says_how(code, said, tmp_path):
    process = ManagedProcess(OUTPUT / "dying-process.log")
    with pytest.raises(RuntimeError, match="exited|killed") as raised:
        process.launch(
            [sys.executable, "-c", code], f"http://127.0.0.1:{free_port()}/", 30, env={}, cwd=tmp_path
        )
    assert said in str(raised.value)
    assert process.exit_description() == said and not process.running
    process.stop()  # nothing left to stop, and no error for it
