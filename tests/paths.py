"""Where the tests find the project's files, whichever folder a test module is in."""

from __future__ import annotations

from pathlib import Path
from typing import Final

#: The project's root (a checkout, or an unpacked sdist).
ROOT: Final = Path(__file__).resolve().parent.parent
#: The shipped examples.
EXAMPLES: Final = ROOT / "examples"
#: Ledger files and streams written by earlier versions (kept forever).
FIXTURES: Final = ROOT / "tests" / "fixtures"
