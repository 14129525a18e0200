"""Unit tests of the harness's pure parts: python3 -m unittest discover -s scripts/bench"""

import os
import sqlite3
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from benchlib import config, plans, report, soak, targets


def wrk_result(rps, p50, p99=None):
    return {"rps": rps, "p50_ms": p50, "p99_ms": p99 or p50 * 2, "requests": int(rps * 10)}


def results(api_me=8000.0, ceiling_me=10000.0, deep_p50=1.0, peak=40.0, soak_growth=0.5):
    throughput = {
        "me": {"request": "GET /api/v1/me", "body_bytes": 120,
               "api": wrk_result(api_me, 2.0), "ceiling_a": wrk_result(ceiling_me, 1.0)},
        "adjustments": {"request": "POST /api/v1/stock/adjustments", "body_bytes": 200,
                        "api": wrk_result(900.0, 10.0, 150.0),
                        "ceiling_a": wrk_result(9000.0, 1.0)},
    }
    flat = {"deep_rows": 500_000, "deep_walk_s": 12.0,
            "orders_small": wrk_result(900, 1.0), "orders_big": wrk_result(800, 1.2),
            "orders_deep": wrk_result(800, deep_p50),
            "searches": {
                "common": {"term": "lin", "matches": {"small": 10, "big": 1000},
                           "small": wrk_result(500, 2.0), "big": wrk_result(100, 7.0)},
                "rare": {"term": "ref-1", "matches": {"small": 1, "big": 1},
                         "small": wrk_result(500, 2.0), "big": wrk_result(400, 2.5)},
            }}
    memory = {"peak_mb_benchmark": peak - 1, "peak_mb_total": peak, "ceiling_peak_mb": 9.0}
    soaked = {"seconds": 600, "failed_requests": 0, "rss_start_mb": 30.0, "rss_end_mb": 31.0,
              "rss_max_mb": 31.5, "rss_first_quarter_mb": 30.0,
              "rss_last_quarter_mb": 30.0 + soak_growth, "slope_mb_per_min": 0.01,
              "load": wrk_result(3000, 5.0),
              "breakdown_start": {"rss_mb": 30.0, "anon_mb": 20.0, "file_mb": 9.0,
                                  "shmem_mb": 1.0, "threads": 12},
              "breakdown_end": {"rss_mb": 31.0, "anon_mb": 21.0, "file_mb": 9.0,
                                "shmem_mb": 1.0, "threads": 12}}
    return {
        "meta": {"date": "2026-11-21 10:00 UTC", "reduced": False, "raw_results": "r.json",
                 "load_average_start": "0.1 0.2 0.3", "load_average_end": "2.0 1.5 1.0",
                 "machine": {"cpu": "cpu", "cores": 2, "ram_gib": 24, "kernel": "6", "os": "x"},
                 "versions": {"rustc": "1.95"},
                 "settings": {"connections": 32, "wrk_threads": 2, "warmup_s": 3,
                              "duration_s": 10, "latency_s": 10, "workers": 2}},
        "backends": {"sqlite": {
            "seed": {"big": {"sizes": {"products": 1, "orders": 2, "clients": 3}, "rows": 6,
                             "seconds": 1.0, "rows_per_s": 6.0}},
            "throughput": throughput, "flat": flat, "memory": memory, "soak": soaked,
            "plans": [{"file": "scripts/bench/sql/sqlite/explain.sql", "text": "SCAN orders"}],
        }},
    }


def met(rows, fragment):
    found = [r for r in rows if fragment in r["target"]]
    assert len(found) == 1, (fragment, rows)
    return found[0]["met"]


class TargetsTest(unittest.TestCase):
    def test_ratios_against_their_limits(self):
        rows = targets.evaluate(results(api_me=8000.0, ceiling_me=10000.0))
        self.assertTrue(met(rows, "GET /api/v1/me"))
        self.assertTrue(met(rows, "rows deep"))
        self.assertFalse(met(rows, "(common term)"), "7.0 / 2.0 = 3.5 > 3")
        self.assertTrue(met(rows, "(rare term)"))
        self.assertFalse(met(rows, "p99 < 10 × p50"), "150 / 10 = 15")
        self.assertTrue(met(rows, "peak RSS"))
        self.assertTrue(met(rows, "no RSS growth"))

    def test_misses_are_reported_as_misses(self):
        rows = targets.evaluate(results(api_me=7000.0, deep_p50=1.6, peak=120.0,
                                        soak_growth=5.0))
        self.assertFalse(met(rows, "GET /api/v1/me"))
        self.assertFalse(met(rows, "rows deep"), "1.6 / 1.2 > 1.3")
        self.assertFalse(met(rows, "peak RSS"))
        self.assertFalse(met(rows, "no RSS growth"))

    def test_a_missing_ceiling_is_not_measured_rather_than_met(self):
        data = results()
        del data["backends"]["sqlite"]["throughput"]["me"]["ceiling_a"]
        self.assertIsNone(met(targets.evaluate(data), "GET /api/v1/me"))


class ReportTest(unittest.TestCase):
    def test_rewrites_only_between_the_markers(self):
        with tempfile.TemporaryDirectory() as folder:
            doc = Path(folder) / "PERFORMANCE.md"
            doc.write_text(f"# Intro\nkept\n{report.BEGIN}\nold figures\n{report.END}\n"
                           "## Analysis\nalso kept\n")
            report.write(doc, results())
            text = doc.read_text()
        self.assertTrue(text.startswith("# Intro\nkept\n"))
        self.assertTrue(text.endswith("## Analysis\nalso kept\n"))
        self.assertNotIn("old figures", text)
        self.assertIn("| `GET /api/v1/me` | sqlite | 8,000 |", text)
        self.assertIn("SCAN orders", text)
        self.assertIn("| sqlite | 30.0 → 31.0 | 20.0 → 21.0 |", text)

    def test_a_missing_doc_is_created_with_its_markers(self):
        with tempfile.TemporaryDirectory() as folder:
            doc = Path(folder) / "docs" / "PERFORMANCE.md"
            report.write(doc, results())
            text = doc.read_text()
        self.assertEqual(text.count(report.BEGIN), 1)
        self.assertEqual(text.count(report.END), 1)
        self.assertIn("### Targets", text)


class SoakTest(unittest.TestCase):
    def test_slope_is_in_mb_per_minute(self):
        samples = [(t, 30 + t / 60) for t in range(0, 600, 5)]
        self.assertAlmostEqual(soak._slope_per_minute(samples), 1.0)
        self.assertEqual(soak._slope_per_minute([(0, 30)]), 0.0)


class PlansTest(unittest.TestCase):
    EXPLAIN = (
        "-- the plans\n-- param shop_id = shop-bench\n-- param lim = 21\n\n"
        "-- name: first_page\nEXPLAIN QUERY PLAN SELECT id FROM t\n"
        "WHERE shop = :shop_id LIMIT :lim;\n\n"
        "-- name: second\nEXPLAIN QUERY PLAN SELECT 1;\n"
    )

    def test_defaults_and_sections_are_read_from_the_file(self):
        self.assertEqual(plans._defaults(self.EXPLAIN), {"shop_id": "shop-bench", "lim": 21})
        self.assertEqual(
            plans._sections(self.EXPLAIN),
            [("first_page", "EXPLAIN QUERY PLAN SELECT id FROM t\nWHERE shop = :shop_id LIMIT :lim"),
             ("second", "EXPLAIN QUERY PLAN SELECT 1")],
        )

    def test_sqlite_plans_bind_the_given_parameters_over_the_defaults(self):
        with tempfile.TemporaryDirectory() as folder:
            db_path = Path(folder) / "t.db"
            with sqlite3.connect(db_path) as db:
                db.execute("CREATE TABLE t (id TEXT PRIMARY KEY, shop TEXT)")
                db.execute("CREATE INDEX t_shop ON t (shop)")
            explain = Path(folder) / "explain.sql"
            explain.write_text(self.EXPLAIN)
            text = plans.sqlite(db_path, explain, {"shop_id": "other"})
        self.assertIn("== first_page\nSEARCH t USING INDEX t_shop (shop=?)", text)
        self.assertIn("== second\n", text)

    def test_plan_rows_become_an_indented_tree(self):
        rows = [(2, 0, 0, "SEARCH orders USING INDEX x"), (5, 2, 0, "LIST SUBQUERY"),
                (9, 0, 0, "USE TEMP B-TREE FOR ORDER BY")]
        self.assertEqual(plans._render_plan(rows),
                         "SEARCH orders USING INDEX x\n  LIST SUBQUERY\n"
                         "USE TEMP B-TREE FOR ORDER BY")

    def test_terms_become_like_patterns_and_fts_phrases(self):
        self.assertEqual(plans._like("50%_a\\b"), "%50\\%\\_a\\\\b%")
        self.assertEqual(plans._phrase('say "hi"'), '"say ""hi"""')


class ConfigTest(unittest.TestCase):
    def test_environment_overrides_and_the_deep_page_fits_the_table(self):
        env = {"BENCH_BIG_ORDERS": "3_000", "BENCH_SECONDS": "4", "BENCH_BACKENDS": "sqlite"}
        with mock.patch.dict(os.environ, env):
            settings = config.load()
        self.assertEqual(settings.big.orders, 3000)
        self.assertEqual(settings.duration_s, 4)
        self.assertEqual(settings.latency_s, 4)
        self.assertEqual(settings.backends, ("sqlite",))
        self.assertEqual(settings.deep_rows, 1500)

    def test_passwords_stay_out_of_the_report(self):
        self.assertEqual(config.redact_password("postgres://u:secret@h:5432/db"),
                         "postgres://u:***@h:5432/db")


if __name__ == "__main__":
    unittest.main()
