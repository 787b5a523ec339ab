"""A throwaway PostgreSQL cluster for the tests and the benchmark: initdb in a temporary folder,
listening on a unix socket there only, stopped (and the folder removed) when done.

`.ci/run` starts one with `python -m tests.pgcluster start DIR` (which prints the URL to export
as `ENCOUNTER_TEST_PG`) and stops it with `python -m tests.pgcluster stop DIR`; the tests start
their own when that variable is unset and the server binaries are on the machine.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

#: Where Debian and Ubuntu put the server binaries (initdb is not on PATH there).
_BIN_GLOBS = ("/usr/lib/postgresql/*/bin", "/usr/local/pgsql/bin")
#: initdb refuses to run as root: the cluster then belongs to this user.
_SERVER_USER = "postgres"


def binaries() -> Path | None:
    """The folder holding `initdb` and `pg_ctl`, or None when PostgreSQL is not installed."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    for pattern in _BIN_GLOBS:
        for folder in sorted(glob.glob(pattern), reverse=True):
            if (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
                return Path(folder)
    return None


def _as_server_user(args: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return args
    return ["runuser", "-u", _SERVER_USER, "--", *args]


def start(folder: Path, durable: bool = False) -> str:
    """Start a cluster in `folder` (empty; as root, one the `postgres` user can reach, such as
    a `tempfile.mkdtemp()` of its own) and return its `postgresql://` URL.

    Without `durable` the cluster skips fsync (a test cluster is thrown away; the tests are about
    behaviour). The benchmark passes `durable=True` to compare with SQLite's synchronous=FULL.
    """
    bin_dir = binaries()
    if bin_dir is None:
        raise RuntimeError("PostgreSQL is not installed (no initdb found)")
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "data"
    if os.geteuid() == 0:
        shutil.chown(folder, _SERVER_USER)
    env = {**os.environ, "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}
    subprocess.run(
        _as_server_user(
            [
                str(bin_dir / "initdb"),
                *("-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8"),
                *("--no-sync", "--no-instructions"),
            ]
        ),
        check=True,
        capture_output=True,
        env=env,
    )
    settings = f"-c listen_addresses='' -c unix_socket_directories='{folder}'"
    settings += " -c max_connections=200"
    if not durable:
        settings += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    done = subprocess.run(
        _as_server_user(
            [
                str(bin_dir / "pg_ctl"),
                *("-D", str(data), "-l", str(folder / "server.log")),
                *("-o", settings, "-w", "-t", "60", "start"),
            ]
        ),
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        log = (folder / "server.log").read_text(errors="replace")[-2000:]
        raise RuntimeError(f"pg_ctl start failed: {done.stderr.strip()}\n{log}")
    return f"postgresql://postgres@/postgres?host={folder}"


def stop(folder: Path) -> None:
    """Stop the cluster in `folder` and remove the folder."""
    bin_dir = binaries()
    data = folder / "data"
    if bin_dir is not None and (data / "postmaster.pid").exists():
        subprocess.run(
            _as_server_user([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]),
            capture_output=True,
            check=False,
        )
    shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str]) -> int:
    """`start DIR [--durable]` prints the URL; `stop DIR` stops the cluster and removes DIR."""
    if len(argv) < 2 or argv[0] not in {"start", "stop"}:
        print("usage: python -m tests.pgcluster start|stop DIR [--durable]", file=sys.stderr)
        return 2
    folder = Path(argv[1])
    if argv[0] == "stop":
        stop(folder)
        return 0
    try:
        print(start(folder, durable="--durable" in argv[2:]))
    except (RuntimeError, subprocess.CalledProcessError, OSError) as exc:
        detail = getattr(exc, "stderr", b"") or b""
        text = detail.decode(errors="replace") if isinstance(detail, bytes) else str(detail)
        print(f"cannot start PostgreSQL: {exc} {text}".strip(), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
