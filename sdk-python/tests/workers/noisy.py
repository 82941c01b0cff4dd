"""A test worker (implementation role) that writes to stdout every way it can.

In its constructor and in every method (and before ``run`` if ``NOISE_BEFORE_RUN`` is set in
its environment) it writes with ``print``,
``sys.__stdout__``, ``os.write(1, ...)``, C's ``puts`` (through ctypes, as a C extension would)
and a subprocess (``echo``). Every one of these lines must end up on stderr, none in the protocol
stream. Its ``execute`` also reads stdin itself and through ``cat``, both of which must see an
empty stream rather than the requests. The result holds ``out.txt``; the statistics are
``{"noise": true}``.
"""

import ctypes
import os
import subprocess
import sys

import metewand

LIBC = ctypes.CDLL(None)


def noise(where):
    print(f"noise {where}: print")
    sys.__stdout__.write(f"noise {where}: sys.__stdout__\n")
    sys.__stdout__.flush()
    os.write(1, f"noise {where}: os.write\n".encode())
    LIBC.puts(f"noise {where}: puts".encode())
    LIBC.fflush(None)
    subprocess.run(["echo", f"noise {where}: echo"], check=True)
    subprocess.run(f"echo 'noise {where}: shell' >&1", shell=True, check=True)


class Noisy(metewand.Implementation):
    def __init__(self):
        noise("init")

    def prepare(self, dataset, parameters, seed, problem):
        noise("prepare")

    def execute(self, result):
        noise("execute")
        # stdin is /dev/null: neither this process nor its children can read requests.
        print(f"stdin: {sys.stdin.read()!r}")
        cat = subprocess.run(["cat"], stdout=subprocess.PIPE, check=True)
        print(f"cat read: {cat.stdout!r}")
        result.write_text("out.txt", "quiet\n")
        return {"noise": True}

    def reset(self):
        noise("reset")


if __name__ == "__main__":
    if os.environ.get("NOISE_BEFORE_RUN"):
        # Left in print's buffer when stdout is a block-buffered pipe: run() sends it to stderr.
        # (Unbuffered, it would be in the protocol stream before run() could intervene.)
        print("noise before run: buffered print")
    metewand.run(Noisy)
