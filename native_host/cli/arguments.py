"""Argument types shared by several commands."""

from __future__ import annotations

import argparse
import math


def _positive(text: str, what: str) -> float:
    """`text` as a finite number greater than 0; argparse.ArgumentTypeError naming `what` otherwise."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of {what}") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"give a finite number of {what} greater than 0, not {text}")
    return value


def positive_seconds(text: str) -> float:
    """argparse type for a time limit in seconds: a finite number greater than 0."""
    return _positive(text, "seconds")


def positive_ms(text: str) -> float:
    """argparse type for a budget in milliseconds: a finite number greater than 0."""
    return _positive(text, "milliseconds")
