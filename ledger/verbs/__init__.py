"""Friendly per-system verbs (`lock`, `hit`, `endure-harm`, `damage`...) on top of `record`.

One module a system, each with a module-level `typer.Typer` of its verbs, which the system's
description names (`System.verbs`); the CLI adds a system's verbs when a command line needs them.
"""
