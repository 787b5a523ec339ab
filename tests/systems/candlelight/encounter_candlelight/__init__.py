"""Candlelight: each combatant holds a few candles; a blow snuffs them; in the dark, you lose.

A tiny invented rule system, packaged on its own to show what a rule system for the encounter
ledger is: a description (`system`), its events, its fold and audit, its verb and its chart.
"""
