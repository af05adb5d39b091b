"""Argument types shared by several commands."""

from __future__ import annotations

import argparse


def positive_seconds(text: str) -> float:
    """argparse type for a time limit in seconds: a number greater than 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"a time limit must be more than 0 seconds, not {text}")
    return value
