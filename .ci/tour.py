"""Run the README's tour against an installed `encounter` (not the checkout): the first
command's reads of the shipped example, then every block of `encounter` commands, each in a
fresh directory that holds only the examples the wheel installed.

    python .ci/tour.py VENV      (VENV: a virtualenv with the wheel installed)
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def blocks(text: str) -> list[list[list[str]]]:
    """The first command's `encounter` parts, then each block that opens an encounter."""
    fences = re.findall(r"^```(\w*)\n(.*?)^```$", text, re.S | re.M)
    first = [
        shlex.split(part.strip())
        for part in fences[0][1].split("&&")
        if part.strip().startswith(".venv/bin/encounter ")
    ]
    found = [[["encounter", *words[1:]] for words in first]]
    for _, body in fences:
        if body.startswith("encounter new "):
            commands = []
            for line in body.splitlines():
                for part in line.split("#")[0].split("&&"):
                    if part.strip():
                        commands.append(shlex.split(part))
            found.append(commands)
    return found


def main() -> None:
    venv = Path(sys.argv[1])
    encounter = venv / "bin" / "encounter"
    shipped = venv / "share" / "encounter-ledger" / "examples"
    ran = 0
    for block in blocks(README.read_text(encoding="utf-8")):
        with tempfile.TemporaryDirectory() as where:
            shutil.copytree(shipped, Path(where) / "examples")
            for words in block:
                assert words[0] == "encounter", words
                done = subprocess.run(
                    [str(encounter), *words[1:]],
                    cwd=where,
                    capture_output=True,
                    text=True,
                    check=False,
                )
                if done.returncode != 0:
                    sys.exit(f"tour: {shlex.join(words)} exited {done.returncode}: {done.stderr}")
                ran += 1
    version = subprocess.run([str(encounter), "--version"], capture_output=True, text=True)
    print(f"tour: {ran} README commands ran against the installed {version.stdout.strip()}")


if __name__ == "__main__":
    main()
