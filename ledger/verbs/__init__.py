"""Friendly per-system verbs (`lock`, `hit`, `endure-harm`, `damage`...) on top of `record`."""

from __future__ import annotations

import importlib

import typer

#: Verb modules, one per system; each has `register(app)`.
MODULES: tuple[str, ...] = ("fates_edge", "ironsworn", "l5r", "ssss")


def register_all(app: typer.Typer) -> None:
    """Add every system's verbs to the app."""
    for name in MODULES:
        importlib.import_module(f"ledger.verbs.{name}").register(app)
