"""Output for people, as a terminal shows it: run under a real pseudo-terminal of a given
width, the tables fit it, nothing is cut, colours follow NO_COLOR; piped, rows are plain."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from ledger import Ledger
from tests import paths

ROOT = paths.ROOT
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
LONG_NOTE = "the ogre roars and the bridge gives way under the weight of three horses"


def on_terminal(
    args: list[str],
    columns: int,
    env: dict[str, str] | None = None,
    python: list[str] | None = None,
    code: int = 0,
) -> str:
    """What `python -m ledger ARGS` (or `python PYTHON... ARGS`) writes to a pseudo-terminal
    `columns` wide, ending with exit code `code`."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    environ = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "NO_COLOR")}
    environ.update({"TERM": "xterm-256color", "PYTHONPATH": str(ROOT), **(env or {})})
    process = subprocess.Popen(
        [sys.executable, *(python or ["-m", "ledger"]), *args],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=environ,
        close_fds=True,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the program ended
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert process.wait(timeout=60) == code
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


@pytest.fixture
def noted(db: Path) -> Path:
    with Ledger(db) as book:
        book.open("ford", "ssss", title="Bandits at the ford")
        book.join("ford", "Bandit", "adversary", {"level": 2})
        book.record("ford", {"type": "note", "text": LONG_NOTE})
    return db


def test_a_log_on_a_60_column_terminal_fits_and_keeps_every_word(noted: Path) -> None:
    out = ANSI.sub("", on_terminal(["--db", str(noted), "log", "ford"], 60))
    lines = out.splitlines()
    # A table would have to cut the timestamps at 60 columns: the log shows a block an event.
    assert lines[0] == "seq 1" and max(len(line) for line in lines) <= 60
    words = " ".join(line.strip("│ ") for line in lines)
    for word in LONG_NOTE.split():
        assert word in words.split(), word


def test_a_wide_terminal_gets_one_line_a_row(noted: Path) -> None:
    out = ANSI.sub("", on_terminal(["--db", str(noted), "log", "ford"], 200))
    assert any(LONG_NOTE in line for line in out.splitlines())


COLOUR = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:3[0-9]|9[0-7]|38;[0-9;]+)m")


def test_no_color_turns_colour_off_on_a_terminal(noted: Path) -> None:
    coloured = on_terminal(["--help"], 100)
    plain = on_terminal(["--help"], 100, {"NO_COLOR": "1"})
    assert COLOUR.search(coloured)
    assert not COLOUR.search(plain)
    assert ANSI.sub("", coloured) == ANSI.sub("", plain)


def test_plain_gives_tab_separated_rows_even_on_a_terminal(noted: Path) -> None:
    out = on_terminal(["tracks", "ford", "--plain", "--db", str(noted)], 100)
    assert out == (
        "ford (ssss) at seq 3\n"
        "adversary\tstatus\tlevel\tslots\tpenalties\ttags\n"
        "Bandit\tactive\t2\tT1:0/3 T2:0/3\t0\t-\n"
    )


def test_piped_output_has_no_box_drawing(noted: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ledger", "--db", str(noted), "log", "ford"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=True,
    )
    assert not re.search("[┏│━└]", done.stdout)
    assert done.stdout.splitlines()[3].split("\t")[2:] == ["note", f"text={LONG_NOTE}"]


def test_a_reader_that_stops_early_ends_the_command_quietly_with_0() -> None:
    example = ROOT / "examples" / "fates-edge-ambush.jsonl"
    done = subprocess.run(
        f"{sys.executable} -m ledger replay {example} | head -1; exit ${{PIPESTATUS[0]}}",
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("seq 1: encounter 'fates-edge-ambush' opens")


def exit_with_the_pipe_closed(*args: str) -> tuple[int, str]:
    """The exit code and stderr of `encounter ARGS` whose reader closed the pipe before the
    command wrote anything (so that its first write fails)."""
    child = subprocess.Popen(
        [sys.executable, "-m", "ledger", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()
    with child.stderr:
        error = child.stderr.read().decode()
    return child.wait(timeout=60), error


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["replay", "fates-edge-ambush.jsonl"], 0),
        (["audit", "fates-edge-ambush.jsonl"], 1),  # its audit has errors
        (["audit", "ssss-bandits.jsonl"], 0),
        (["audit", "fates-edge-ambush.jsonl", "--json"], 1),
    ],
)
def test_a_closed_pipe_keeps_the_exit_code_the_command_had_found(
    args: list[str], code: int
) -> None:
    example = str(ROOT / "examples" / args[1])
    assert exit_with_the_pipe_closed(args[0], example, *args[2:]) == (code, "")


@pytest.mark.parametrize(
    ("head", "code"), [(None, 0), ("0" * 16, 1)], ids=["its-head", "another-head"]
)
@pytest.mark.parametrize("json_", [[], ["--json"]], ids=["text", "json"])
def test_a_closed_pipe_keeps_verify_failing_on_a_head_it_does_not_end_at(
    tmp_path: Path, head: str | None, code: int, json_: list[str]
) -> None:
    db = str(tmp_path / "e.db")
    example = str(ROOT / "examples" / "ssss-bandits.jsonl")
    assert exit_with_the_pipe_closed("--db", db, "import", example)[0] == 0
    published = ["--head", head] if head else []
    assert exit_with_the_pipe_closed("--db", db, "verify", *published, *json_) == (code, "")


def large_file(tmp_path: Path, events: int = 4000) -> Path:
    """An export big enough for a progress bar (over 512 KiB)."""
    lines = ['{"type": "encounter.opened", "system": "ssss", "title": "A long night"}']
    text = "the watch is quiet; " * 8
    lines += [json.dumps({"type": "note", "text": f"{i}: {text}"}) for i in range(events)]
    file = tmp_path / "long.jsonl"
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return file


def test_a_large_import_shows_a_progress_bar_on_a_terminal_only(tmp_path: Path) -> None:
    file = large_file(tmp_path)
    db = tmp_path / "e.db"
    out = ANSI.sub("", on_terminal(["--db", str(db), "import", str(file)], 100))
    assert "Importing" in out and "━" in out
    done = "Imported 4001 events into 'long' (0 already stored); head seq 4001."
    assert out.rstrip().endswith(done)
    piped = subprocess.run(
        [sys.executable, "-m", "ledger", "--db", str(tmp_path / "p.db"), "import", str(file)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=True,
    )
    assert (piped.stderr, "Importing" in piped.stdout) == ("", False)
    as_json = on_terminal(["--db", str(tmp_path / "j.db"), "import", str(file), "--json"], 100)
    assert "Importing" not in as_json and json.loads(as_json)["appended"] == 4001


def test_verify_and_audit_of_a_large_encounter_show_a_bar_on_a_terminal(tmp_path: Path) -> None:
    db = tmp_path / "e.db"
    with Ledger(db) as book:
        book.import_lines(large_file(tmp_path, 5000).read_text().splitlines(), into="long")
    verified = ANSI.sub("", on_terminal(["--db", str(db), "verify"], 100))
    assert "Verifying 1 encounter" in verified and "long: 5001 events, chain ok" in verified
    audited = ANSI.sub("", on_terminal(["--db", str(db), "audit", "long"], 100))
    assert "Auditing long (5,001 events)" in audited and "long: no findings." in audited
