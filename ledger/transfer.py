"""Moving a whole ledger between stores (a SQLite file, a PostgreSQL database): every encounter
exported and imported with its envelope, so ids, seqs, times and the hash chain carry over."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from ledger.errors import BadInput, BrokenChain
from ledger.service import Imported, Ledger


class Copied(BaseModel, frozen=True):
    """What a copy did: one import result for each encounter of the source."""

    source: str
    target: str
    encounters: tuple[Imported, ...]

    @property
    def appended(self) -> int:
        """Events appended to the target, all encounters together."""
        return sum(e.appended for e in self.encounters)

    @property
    def already_stored(self) -> int:
        """Events the target already held (a copy run again appends nothing)."""
        return sum(e.already_stored for e in self.encounters)


def copy_ledger(source: str | Path, target: str | Path) -> Copied:
    """Copy every encounter of `source` into `target`; events already there are skipped.

    Every source chain is verified first: a ledger that does not verify is not copied at all.
    Each encounter lands atomically (all its events or none); running the copy again after a
    failure completes it.
    """
    with Ledger(source, create=False, readonly=True) as origin:
        broken = [r for r in origin.verify() if not r.ok]
        if broken:
            first = broken[0]
            raise BrokenChain(
                f"{origin.store.name}: encounter {first.encounter!r} does not verify at seq "
                f"{first.bad_seq} ({first.problem}); nothing was copied"
            )
        names = [head.encounter for head in origin.encounters()]
        if not names:
            raise BadInput(f"{origin.store.name} holds no encounter to copy")
        with Ledger(target) as destination:
            results = tuple(
                destination.import_lines(
                    list(origin.export(name)),
                    into=name,
                    source=f"{origin.store.name} encounter {name!r}",
                )
                for name in names
            )
        return Copied(source=origin.store.name, target=destination.store.name, encounters=results)
