"""Command-line argument types shared by run.py and selftest.py."""

import argparse


def csv_list(allowed, convert=str):
    """An argparse type: a comma-separated list of items, each in `allowed` (None: any)."""
    def parse(text: str) -> list:
        items = [convert(item) for item in text.split(",") if item]
        unknown = [item for item in items if allowed is not None and item not in allowed]
        if unknown:
            raise argparse.ArgumentTypeError(
                f"unknown {', '.join(map(str, unknown))}; known: {', '.join(allowed)}")
        return items
    return parse
