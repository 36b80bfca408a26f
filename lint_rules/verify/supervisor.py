"""Runs one test command for ``attnlint verify`` and makes sure nothing it
started outlives verify.

usage: python -I supervisor.py COMMAND [ARGS...]   (stdin: a pipe from verify)

The command runs in a session (and process group) of its own, so that it and
every process it starts can be signalled at once. The supervisor watches
verify through its stdin: when that pipe closes without verify asking, verify
is gone (even killed with SIGKILL, which it cannot catch), and the
supervisor stops the command's whole group: SIGTERM, then SIGKILL after a
grace period. It does the same on SIGTERM from verify (a timeout, Ctrl-C),
and after the command exits it kills what the command left running. It
exits with the command's status (128 + N for a signal N).

It is a script run by path with ``-I`` (no current folder, no user site, no
``PYTHON*`` variables on its own path), importing only the standard library:
nothing of the project under test, nor of attnlint, runs in it.
"""

import os
import signal
import subprocess
import sys
import threading

GRACE_SECONDS = 5.0


def _signal_group(group: int, signum: int) -> None:
    try:
        os.killpg(group, signum)
    except (ProcessLookupError, PermissionError):
        pass


def main() -> int:
    command = sys.argv[1:]
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # verify decides
    try:
        child = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, start_new_session=True
        )
    except OSError as error:
        sys.stderr.write(f"attnlint verify: cannot run {command[0]!r}: {error}\n")
        return 127
    group = child.pid  # the leader of its own session and group
    stop_code: list[int] = []

    def stop(code: int) -> None:
        """TERM the command's group now, KILL it after the grace period; the
        main thread, waiting for the command, then exits with ``code``."""
        if stop_code:
            return
        stop_code.append(code)
        _signal_group(group, signal.SIGTERM)
        timer = threading.Timer(GRACE_SECONDS, _signal_group, (group, signal.SIGKILL))
        timer.daemon = True
        timer.start()

    def watch_verify() -> None:
        try:
            while os.read(0, 4096):
                pass
        except OSError:
            pass
        stop(128 + signal.SIGKILL)  # verify is gone, however it went

    signal.signal(signal.SIGTERM, lambda signum, frame: stop(128 + signum))
    threading.Thread(target=watch_verify, daemon=True).start()
    # Waited for here, not by Popen.wait: a signal handler may run meanwhile.
    _, status = os.waitpid(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    # Whatever the command left running in its group goes too.
    _signal_group(group, signal.SIGKILL)
    if stop_code:
        return stop_code[0]
    code = child.returncode
    return 128 - code if code < 0 else code


if __name__ == "__main__":
    sys.exit(main())
