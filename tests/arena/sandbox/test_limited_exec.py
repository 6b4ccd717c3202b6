"""arena.sandbox.limited_exec: the process sandbox's launcher sets the limits and
then becomes the bot."""

from __future__ import annotations

import subprocess
import sys

LAUNCH = [sys.executable, "-m", "arena.sandbox.limited_exec"]


def test_limits_apply_to_the_command_it_becomes() -> None:
    shown = subprocess.run(
        [*LAUNCH, "--as", str(1536 * 1024 * 1024), "--cpu", "7", "--nproc", "4000",
         "--nofile", "99", "--", "/bin/sh", "-c", "ulimit -n; ulimit -t; ulimit -v; echo $$"],
        capture_output=True, text=True, check=True)
    nofile, cpu, address_kib, _pid = shown.stdout.split()
    assert (nofile, cpu, address_kib) == ("99", "7", str(1536 * 1024))


def test_a_missing_program_is_a_clear_error() -> None:
    done = subprocess.run([*LAUNCH, "--as", "100000000", "--cpu", "1", "--nproc", "10",
                           "--nofile", "10", "--", "no-such-bot-program"],
                          capture_output=True, text=True)
    assert done.returncode == 127
    assert "cannot run no-such-bot-program" in done.stderr


def test_without_a_command_it_refuses() -> None:
    done = subprocess.run([*LAUNCH, "--as", "1", "--cpu", "1", "--nproc", "1", "--nofile", "1"],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "no command given" in done.stderr
