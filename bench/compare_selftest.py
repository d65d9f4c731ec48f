#!/usr/bin/env python3
"""Checks compare.py's tables and ratios on fabricated result rows; nothing is measured.

    python3 bench/compare_selftest.py

The rows imitate `tessera bench --json`, `tessera autoschedule` timings and run.py results for
blur and histeq at 2 threads in two rounds, with some Halide variants from earlier files; the
expected cells were worked out by hand from those numbers.
"""

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402


def timed(impl: str, app: str, schedule: str, round_: int, ms: float, **extra) -> dict:
    return {"impl": impl, "app": app, "schedule": schedule, "threads": 2, "round": round_,
            "width": 6400 if app == "blur" else 4096, "height": 4800 if app == "blur" else 4096,
            "median_ms": ms} | extra


def search(app: str, algorithm: str, round_: int, wall_ms: float, search_ms: float) -> dict:
    return {"impl": "tessera-search", "app": app, "algorithm": algorithm, "threads": 2,
            "round": round_, "wall_ms": wall_ms, "search_ms": search_ms}


def fresh_rows() -> list[dict]:
    """Two rounds; Mullapudi2016 in round 1 only, Li2018 in both (as --halide-every-round)."""
    rows = []
    for app, manual, auto, greedy, halide_manual in (
            ("blur", (10, 12), (10.5, 10.2), (12, 14.4), (10, 10)),
            ("histeq", (20, 20), (16, 18), (30, 30), None)):
        for round_ in (1, 2):
            rows += [timed("tessera", app, "manual", round_, manual[round_ - 1]),
                     timed("tessera", app, "auto", round_, auto[round_ - 1]),
                     timed("tessera", app, "auto-greedy", round_, greedy[round_ - 1])]
            if halide_manual:
                rows.append(timed("halide", app, "manual", round_, halide_manual[round_ - 1]))
    rows += [timed("halide", "blur", "Mullapudi2016", 1, 14, autoschedule_ms=6),
             timed("halide", "blur", "Li2018", 1, 30, autoschedule_ms=1.0),
             timed("halide", "blur", "Li2018", 2, 28, autoschedule_ms=1.2),
             timed("halide", "histeq", "Mullapudi2016", 1, 20, autoschedule_ms=5.4),
             timed("halide", "histeq", "Li2018", 1, 40, autoschedule_ms=1),
             timed("halide", "histeq", "Li2018", 2, 40, autoschedule_ms=1),
             search("blur", "dp", 1, 120, 3.0), search("blur", "dp", 2, 140, 5.0),
             search("blur", "greedy", 1, 100, 1.0),
             {"impl": "tessera-search", "app": "blur", "algorithm": "greedy", "threads": 2,
              "round": 2, "error": "fabricated failure"},
             search("histeq", "dp", 1, 1500, 2.0), search("histeq", "dp", 2, 1100, 2.0)]
    return rows


def earlier_rows(directory: str) -> list[dict]:
    """Adams2019 (blur; histeq failed) from one file whose Tessera and Mullapudi2016 rows must
    be left out, and Halide manual for histeq, at another size, from a second file."""
    adams = os.path.join(directory, "adams.json")
    with open(adams, "w") as f:
        json.dump({"results": [
            timed("halide", "blur", "Adams2019", 1, 7.0, autoschedule_ms=900),
            {"impl": "halide", "app": "histeq", "schedule": "Adams2019", "threads": 2,
             "error": "timed out"},
            timed("halide", "blur", "Mullapudi2016", 1, 1.0, autoschedule_ms=1),
            timed("tessera", "blur", "manual", 1, 1.0)]}, f)
    manual = os.path.join(directory, "manual.json")
    with open(manual, "w") as f:
        json.dump([timed("halide", "histeq", "manual", 3, 25, width=2048)], f)
    return compare.load_halide_results([compare.earlier_results_source(f"Adams2019={adams}"),
                                        compare.earlier_results_source(manual)])


class CompareTables(unittest.TestCase):
    def setUp(self):
        with tempfile.TemporaryDirectory() as directory:
            self.earlier = earlier_rows(directory)
        self.results = self.earlier + fresh_rows()

    def test_earlier_files_keep_only_the_chosen_halide_rows_without_a_round(self):
        self.assertEqual([(r["app"], r["schedule"], r["from_file"]) for r in self.earlier],
                         [("blur", "Adams2019", "adams.json"),
                          ("histeq", "Adams2019", "adams.json"),
                          ("histeq", "manual", "manual.json")])
        self.assertTrue(all(r["round"] is compare.FROM_FILE for r in self.earlier))

    def test_ratios_pair_within_rounds_and_a_file_with_every_round(self):
        self.assertEqual(compare.paired_ratios({1: 2.0, 2: 3.0}, {1: 4.0}), [0.5])
        self.assertEqual(sorted(compare.paired_ratios({1: 2.0, 2: 3.0}, {None: 4.0})),
                         [0.5, 0.75])
        self.assertEqual(compare.paired_ratios({None: 2.0}, {None: 4.0}), [0.5])
        self.assertEqual(compare.paired_ratios({1: 2.0}, {}), [])

    def test_the_fastest_halide_autoscheduler_that_ran_is_the_best(self):
        rounds = compare.times_by_round(self.results)
        self.assertEqual(compare.best_halide_autoscheduler(rounds, "blur", 2), "Adams2019")
        self.assertEqual(compare.best_halide_autoscheduler(rounds, "histeq", 2), "Mullapudi2016")
        self.assertIsNone(compare.best_halide_autoscheduler(rounds, "harris", 2))

    def test_autoschedule_table_rows_and_summary(self):
        text = compare.autoschedule_ratio_table(self.results, ["blur", "histeq"], [2])
        self.assertIn("| blur | 2 | 11.00 | 10.35 | 13.20 | 7.00† Adams2019 | 0.95 (0.85–1.05)"
                      " | 1.20 (1.20–1.20) | 1.48 (1.46–1.50)† |", text)
        self.assertIn("| histeq | 2 | 20.00 | 17.00 | 30.00 | 20.00 Mullapudi2016"
                      " | 0.85 (0.80–0.90) | 1.50 (1.50–1.50) | 0.80 |", text)
        self.assertIn("- 2 thread(s), auto / manual: geometric mean 0.90 over 2 apps"
                      " (bar ≤ 1.05), 0 app(s) above 1.0", text)
        self.assertIn("- 2 thread(s), auto-greedy / manual: geometric mean 1.34 over 2 apps"
                      " (bar ≤ 1.30), 2 app(s) above 1.0", text)
        self.assertIn("- 2 thread(s), auto / best Halide autoscheduler: geometric mean 1.09"
                      " over 2 apps (bar ≤ 0.80), 1 app(s) above 1.0", text)

    def test_search_time_table(self):
        text = compare.search_time_table(self.results, ["blur", "histeq"], [2])
        self.assertIn("| blur | 2 | 130 (4.0) | 100 (1.0) | 6 | 900† | 1 |", text)
        self.assertIn("| histeq | 2 | 1300 (2.0) | failed | 5 | failed | 1 |", text)
        self.assertIn("slowest `tessera autoschedule` (whole command, any round): 1500 ms,"
                      " histeq dp 2T (bar ≤ 1000 ms)", text)

    def test_halide_manual_table_marks_and_notes_earlier_files(self):
        text = compare.table(self.results, ["blur", "histeq"], [2], ["manual"],
                             ["manual", "Adams2019"])
        self.assertIn("| blur | 2 | 11.00 | 10.00 | 7.00† | 1.10 (1.00–1.20) |", text)
        self.assertIn("| histeq | 2 | 20.00 | 25.00† | failed | 0.80 (0.80–0.80)† |", text)
        self.assertIn("- † manual from manual.json: histeq 2T", text)
        self.assertIn("- histeq manual 2T from manual.json ran 2048 x 4096, Tessera 4096 x 4096",
                      text)

    def test_autoschedule_table_needs_tessera_manual_auto_and_auto_greedy(self):
        args = compare.parse_args(["--autoschedule-table"])
        self.assertEqual(args.tessera_schedules, ["manual", "auto", "auto-greedy"])
        self.assertEqual(compare.parse_args([]).tessera_schedules, ["manual", "root"])
        with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
            compare.parse_args(["--autoschedule-table", "--tessera-schedules", "manual,auto"])


if __name__ == "__main__":
    unittest.main()
