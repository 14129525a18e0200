"""Unit tests of the harness's pure parts: python3 -m unittest discover -s scripts/bench"""

import json
import os
import re
import sqlite3
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import alternate
import bench
from benchlib import (api, config, cpu, latency, pgbench, plans, report, rounds, soak,
                      sqlite_ceiling, targets, wrk)
from benchlib.processes import Failure


def wrk_result(rps, p50, p99=None):
    return {"rps": rps, "p50_ms": p50, "p90_ms": p50 * 1.5, "p99_ms": p99 or p50 * 2,
            "mean_ms": p50 * 1.1, "requests": int(rps * 10)}


def side(rps, p50s):
    """A flat-with-size side measured in rounds, one p50 per round."""
    return latency.aggregate([wrk_result(rps, p50) for p50 in p50s])


def results(api_me=8000.0, ceiling_me=10000.0, deep_p50=1.0, peak=40.0, soak_growth=0.5,
            changed_p50s=(1.1, 1.2, 1.3)):
    throughput = {
        "me": {"request": "GET /api/v1/me", "body_bytes": 120,
               "api": wrk_result(api_me, 2.0), "ceiling_a": wrk_result(ceiling_me, 1.0)},
        "adjustments": {"request": "POST /api/v1/stock/adjustments", "body_bytes": 200,
                        "api": wrk_result(900.0, 10.0, 150.0),
                        "ceiling_a": wrk_result(9000.0, 1.0)},
    }
    flat = {"deep_rows": 500_000, "deep_walk_s": 12.0,
            "orders_small": side(900, [0.9, 1.0, 1.1]), "orders_big": side(800, [1.2, 1.1, 1.3]),
            "orders_deep": side(800, [deep_p50, deep_p50 + 0.1, deep_p50 - 0.1]),
            "changed_since": {"since": "2026-11-13T10:00:00.000Z", "days": 7, "first_page": {
                "small": {"rows": 20, "has_more": True}, "big": {"rows": 20, "has_more": True}}},
            "orders_changed_small": side(900, [1.0, 1.0, 1.0]),
            "orders_changed_big": side(850, list(changed_p50s)),
            "searches": {
                "common": {"term": "lin", "matches": {"small": 10, "big": 1000},
                           "small": side(500, [2.0, 2.0]), "big": side(100, [7.0, 7.0])},
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
                              "duration_s": 10, "latency_s": 6, "latency_rounds": 3,
                              "workers": 2}},
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
        rows = targets.evaluate(results(api_me=4500.0, deep_p50=1.6, peak=120.0,
                                        soak_growth=5.0))
        self.assertFalse(met(rows, "GET /api/v1/me"))
        self.assertFalse(met(rows, "rows deep"), "1.6 / 1.2 > 1.3")
        self.assertFalse(met(rows, "peak RSS"))
        self.assertFalse(met(rows, "no RSS growth"))

    def test_a_missing_ceiling_is_not_measured_rather_than_met(self):
        data = results()
        del data["backends"]["sqlite"]["throughput"]["me"]["ceiling_a"]
        self.assertIsNone(met(targets.evaluate(data), "GET /api/v1/me"))


class SqliteCeilingTest(unittest.TestCase):
    def test_the_binary_runs_the_pages_statement_at_the_apis_pool_size(self):
        argv = sqlite_ceiling.argv("/bin/ceiling-sqlite", "/tmp/big.db", "orders", "shop_1", 5, 30)
        self.assertEqual(argv[:5], ["/bin/ceiling-sqlite", "--database", "/tmp/big.db",
                                    "--page", "orders"])
        statement = Path(argv[argv.index("--statement") + 1])
        self.assertEqual(statement.name, "orders_page.sql")
        self.assertTrue(statement.is_file(), statement)
        self.assertEqual(argv[argv.index("--connections") + 1], "8")
        self.assertEqual(argv[argv.index("--seconds") + 1], "30")

    def test_its_line_is_read_as_pages_per_second_and_an_empty_page_is_a_failure(self):
        line = ('{"pages": 90000, "seconds": 30, "pages_per_second": 3000.0, '
                '"rows_per_page": 105, "connections": 8}\n')
        result = sqlite_ceiling.parse("products", line)
        self.assertEqual((result.tps, result.rows_per_page), (3000.0, 105))
        with self.assertRaises(Failure):
            sqlite_ceiling.parse("products", line.replace('"rows_per_page": 105',
                                                           '"rows_per_page": 0'))
        with self.assertRaises(Failure):
            sqlite_ceiling.parse("products", "")

    def test_sqlite_pages_are_held_to_their_database(self):
        data = results()
        data["backends"]["sqlite"]["throughput"]["products"] = {
            "request": "GET /api/v1/products?limit=20", "body_bytes": 9000,
            "api": wrk_result(1200.0, 20.0), "ceiling_a": wrk_result(60000.0, 1.0),
            "ceiling_b": {"tps": 2000.0}}
        rows = targets.evaluate(data)
        found = [r for r in rows if "products?limit=20" in r["target"]]
        self.assertEqual(len(found), 1)
        self.assertIn("B (ceiling-sqlite)", found[0]["target"])
        self.assertEqual(found[0]["measured"], "0.60")
        self.assertTrue(found[0]["met"])


class FlatRatioTest(unittest.TestCase):
    def test_the_ratio_is_the_median_of_the_rounds_ratios(self):
        rows = targets.evaluate(results())
        orders = [r for r in rows if r["target"].startswith("orders page p50")][0]
        # Per round 1.2/0.9, 1.1/1.0, 1.3/1.1; each side's median 1.2 / 1.0.
        self.assertEqual(orders["measured"],
                         "1.18 (rounds 1.33, 1.10, 1.18; median p50s 1.20 / 1.00 ms)")
        self.assertTrue(orders["met"])

    def test_one_slow_round_does_not_decide_through_the_sides_medians(self):
        data = results()
        flat = data["backends"]["sqlite"]["flat"]
        # The first round was slow for both sides; the sides' medians (1.5 / 1.1 = 1.36)
        # come from different rounds, the rounds' own ratios are 0.70, 1.36 and 1.10.
        flat["orders_big"] = side(800, [3.0, 1.1, 1.0])
        flat["orders_deep"] = side(800, [2.1, 1.5, 1.1])
        row = [r for r in targets.evaluate(data) if "rows deep" in r["target"]][0]
        self.assertEqual(row["measured"],
                         "1.10 (rounds 0.70, 1.36, 1.10; median p50s 1.50 / 1.10 ms)")
        self.assertTrue(row["met"])

    def test_sides_without_rounds_keep_the_one_run_text(self):
        row = [r for r in targets.evaluate(results()) if "(rare term)" in r["target"]][0]
        self.assertEqual(row["measured"], "1.25 (2.50 / 2.00 ms)")

    def test_one_round_shows_no_spread(self):
        self.assertEqual(targets.round_ratios(side(1, [2.0]), side(1, [1.0])), [2.0])
        data = results()
        flat = data["backends"]["sqlite"]["flat"]
        flat["orders_small"], flat["orders_big"] = side(900, [1.0]), side(800, [1.2])
        row = [r for r in targets.evaluate(data) if r["target"].startswith("orders page p50")][0]
        self.assertEqual(row["measured"], "1.20 (1.20 / 1.00 ms)")


class ThroughputRoundsTest(unittest.TestCase):
    def test_odd_rounds_measure_the_ceiling_first(self):
        calls = []

        def side(name, rates):
            def measure():
                calls.append(name)
                return rates[len([c for c in calls if c == name]) - 1]
            return measure

        measured = rounds.alternate("ceiling_b", (100.0, 200.0),
                                    side("api", [110.0, 120.0]),
                                    side("ceiling", [190.0, 180.0]), 3)
        self.assertEqual(calls, ["ceiling", "api", "api", "ceiling"])
        self.assertEqual(measured, {"ceiling": "ceiling_b", "api": [100.0, 110.0, 120.0],
                                    "reference": [200.0, 190.0, 180.0]})
        self.assertEqual(rounds.alternate("ceiling_a", (1.0, 2.0), None, None, 1),
                         {"ceiling": "ceiling_a", "api": [1.0], "reference": [2.0]},
                         "one round: the first run only, nothing measured again")

    def pages(self, api, reference):
        data = results()
        data["backends"]["sqlite"]["throughput"]["orders"] = {
            "request": "GET /api/v1/orders?limit=20", "body_bytes": 9000,
            "api": wrk_result(api[0], 20.0), "ceiling_a": wrk_result(60000.0, 1.0),
            "ceiling_b": {"tps": reference[0]},
            "ratio_rounds": {"ceiling": "ceiling_b", "api": api, "reference": reference}}
        return data

    def test_the_target_is_the_median_of_the_rounds_ratios(self):
        # The first round's ceiling ran in a slow minute: its ratio alone would be 0.80.
        data = self.pages([4000.0, 3000.0, 3300.0], [5000.0, 7000.0, 6000.0])
        row = [r for r in targets.evaluate(data) if "orders?limit=20" in r["target"]][0]
        self.assertEqual(row["measured"], "0.55 (rounds 0.80, 0.43, 0.55)")
        self.assertTrue(row["met"])
        missed = self.pages([3000.0, 2900.0, 3100.0], [7000.0, 6000.0, 6500.0])
        self.assertFalse(met(targets.evaluate(missed), "orders?limit=20"))

    def test_the_report_shows_the_ratio_that_decides(self):
        data = self.pages([4000.0, 3000.0, 3300.0], [5000.0, 7000.0, 6000.0])
        data["meta"]["settings"]["throughput_rounds"] = 3
        text = report.generated(data)
        self.assertIn("| 5,000 | 0.55 |", text, "ceiling B's first run, the median ratio")
        self.assertIn("in 3 rounds", text)

    def test_rounds_against_another_ceiling_do_not_change_this_ones_ratio(self):
        data = self.pages([4000.0, 3000.0], [5000.0, 7000.0])
        entry = data["backends"]["sqlite"]["throughput"]["orders"]
        self.assertEqual(targets.throughput_ratio(entry, "ceiling_a"), 4000.0 / 60000.0)
        del entry["ratio_rounds"]
        self.assertEqual(targets.throughput_ratio(entry, "ceiling_b"), 0.8)


class MeasureThroughputTest(unittest.TestCase):
    def test_only_a_ratio_with_a_target_is_measured_again_and_against_its_ceiling(self):
        with tempfile.TemporaryDirectory() as folder:
            bodies = {}
            for name in ("me", "product", "orders"):
                bodies[name] = Path(folder) / name
                bodies[name].write_text("{}")
            captured = mock.Mock(shop_id="s", bodies=bodies, variants_file="v",
                                 endpoints={"me": ("GET /api/v1/me", "/me"),
                                            "product": ("GET /api/v1/products/p", "/products/p"),
                                            "orders": ("GET /api/v1/orders?limit=20",
                                                       "/orders?limit=20")})
            settings = mock.Mock(throughput_rounds=3, connections=32)
            dataset = mock.Mock(backend="sqlite", pg_name=None, sqlite_path="db")
            runs = []

            def fake_wrk(load, _settings, what="", warm=True, read_cpu=None):
                side = "API" if ":8080/" in load.url else "A"
                runs.append((f"{side} {load.url.split('/', 3)[3]}", warm))
                return wrk.WrkResult(100, 10.0, 1000.0 + len(runs), 1.0, 1.5, 2.0, 1.1, 3.0,
                                     0, 0, 0)

            def fake_ceiling_b(_binary, _db, name, _shop, _settings, warm=True):
                runs.append((f"B {name}", warm))
                return sqlite_ceiling.CeilingResult("orders_page.sql", 2000.0, 1, 70, 8)

            ceiling = mock.Mock()
            ceiling.memory_mb.return_value = {"peak": 9.0}
            measured = {"memory": {}}
            with mock.patch.object(bench.processes, "start_ceiling",
                                   return_value=(ceiling, 9999)), \
                    mock.patch.object(bench.wrk, "measure", fake_wrk), \
                    mock.patch.object(bench.sqlite_ceiling, "measure", fake_ceiling_b), \
                    mock.patch.object(bench.cpu, "Meter"), mock.patch("builtins.print"):
                bench.measure_throughput(settings, dataset, 8080, "k", captured, measured, 1)
        self.assertEqual(runs, [
            ("API me", True), ("A me", True), ("A me", False), ("API me", False),
            ("API me", False), ("A me", False),
            ("API products/p", True), ("A product", True),
            ("API orders?limit=20", True), ("A orders", True), ("B orders", True),
            ("B orders", False), ("API orders?limit=20", False),
            ("API orders?limit=20", False), ("B orders", False)])
        throughput = measured["throughput"]
        self.assertEqual(throughput["me"]["ratio_rounds"]["ceiling"], "ceiling_a")
        self.assertNotIn("ratio_rounds", throughput["product"])
        self.assertEqual(throughput["orders"]["ratio_rounds"],
                         {"ceiling": "ceiling_b", "api": [1009.0, 1013.0, 1014.0],
                          "reference": [2000.0, 2000.0, 2000.0]})


class FakeApiServer:
    """The orders of one dataset as benchlib.api.Api reads them: its newest order, and
    `changed` orders updated since any `updatedSince`, served 20 a page."""

    def __init__(self, newest_created_at, changed):
        self.newest, self.changed = newest_created_at, changed
        self.keys, self.paths, self.clients = set(), [], []

    def client(self, key):
        self.keys.add(key)
        client = mock.Mock(closed=False)
        client.get_json.side_effect = self.get_json
        client.close.side_effect = lambda: setattr(client, "closed", True)
        self.clients.append(client)
        return client

    def get_json(self, path):
        if path == "/api/v1/orders?limit=1":
            return {"data": [{"id": "o-1", "createdAt": self.newest}],
                    "pageInfo": {"hasMore": True}}
        self.paths.append(path)
        assert "updatedSince=" in path, path
        rows = min(self.changed, 20)
        return {"data": [{"id": f"o-{i}"} for i in range(rows)],
                "pageInfo": {"hasMore": self.changed > 20}}


class ChangedSinceTest(unittest.TestCase):
    """The "orders changed since T" pair (issue 21): T, its first pages, its target."""

    def test_t_is_a_week_before_the_newest_order_written_as_the_api_writes_instants(self):
        self.assertEqual(api.instant_before("2026-11-20T10:00:00.000Z", 7),
                         "2026-11-13T10:00:00.000Z")
        self.assertEqual(api.instant_before("2026-03-03T01:30:00.25+02:00", 7),
                         "2026-02-23T23:30:00.250Z", "across a month, in UTC, milliseconds")
        self.assertEqual(api.instant_before("2026-11-20T10:00:00.123456Z", 0),
                         "2026-11-20T10:00:00.123Z")

    def test_what_is_not_an_instant_stops_the_run(self):
        for text in ("2026-11-20", "2026-11-20T10:00:00", "yesterday", "", None):
            with self.assertRaises(Failure, msg=text):
                api.instant_before(text, 7)

    def test_t_comes_from_the_small_dataset_and_each_side_tells_how_full_its_page_is(self):
        small = FakeApiServer("2026-11-20T10:00:00.000Z", changed=12)
        big = FakeApiServer("2026-11-20T10:00:00.000Z", changed=9600)
        changed = bench.changed_since(small.client("s"), big.client("b"))
        self.assertEqual(changed, {
            "since": "2026-11-13T10:00:00.000Z", "days": bench.CHANGED_DAYS,
            "first_page": {"small": {"rows": 12, "has_more": False},
                           "big": {"rows": 20, "has_more": True}}})
        path = "/api/v1/orders?limit=20&updatedSince=2026-11-13T10%3A00%3A00.000Z"
        self.assertEqual((small.paths, big.paths), ([path], [path]))
        self.assertEqual(bench.CHANGED_DAYS, 7)

    def test_a_shop_without_orders_has_no_t(self):
        empty = mock.Mock()
        empty.get_json.return_value = {"data": [], "pageInfo": {"hasMore": False}}
        with self.assertRaises(Failure):
            bench.pick_changed_since(empty)

    def changed_row(self, data):
        found = [r for r in targets.evaluate(data) if r["target"].startswith("orders changed")]
        self.assertEqual(len(found), 1)
        return found[0]

    def test_the_target_holds_the_big_page_to_one_and_a_half_times_the_small_one(self):
        row = self.changed_row(results(changed_p50s=(1.1, 1.2, 1.3)))
        self.assertEqual(row["target"], "orders changed since T, first page p50: big / small")
        self.assertEqual(row["limit"], "≤ 1.5")
        self.assertEqual(row["measured"],
                         "1.20 (rounds 1.10, 1.20, 1.30; median p50s 1.20 / 1.00 ms)")
        self.assertTrue(row["met"])
        self.assertTrue(self.changed_row(results(changed_p50s=(1.5, 1.5, 1.5)))["met"],
                        "the limit itself is met")
        missed = self.changed_row(results(changed_p50s=(1.4, 1.6, 1.7)))
        self.assertTrue(missed["measured"].startswith("1.60 "))
        self.assertFalse(missed["met"])

    def test_a_side_not_measured_is_not_met_or_missed(self):
        data = results()
        del data["backends"]["sqlite"]["flat"]["orders_changed_big"]
        row = self.changed_row(data)
        self.assertEqual(row["measured"], "not measured")
        self.assertIsNone(row["met"])

    def test_the_report_shows_both_sides_t_and_how_full_each_page_was(self):
        data = results()
        data["backends"]["sqlite"]["flat"]["changed_since"]["first_page"]["small"] = {
            "rows": 1, "has_more": False}
        text = report.generated(data)
        self.assertIn("| orders changed since T, first page, small table | sqlite | 1.00 |", text)
        self.assertIn("| orders changed since T, first page, big table | sqlite | 1.20 |", text)
        self.assertIn("| orders changed since T, first page p50: big / small | sqlite | 1.20 ",
                      text)
        self.assertIn("- sqlite: T = `2026-11-13T10:00:00.000Z`, the small table's newest "
                      "order's `createdAt` minus 7 days; the first page of `updatedSince=T` "
                      "(limit 20) held 1 order (all that matched) on the small table and 20 "
                      "orders (more matched: `hasMore`) on the big one.", text)


class PartialRunTest(unittest.TestCase):
    """BENCH_ONLY=flat: the flat-with-size rounds only, reported as such, never over the
    full run's section of docs/PERFORMANCE.md."""

    def load(self, **env):
        with mock.patch.dict(os.environ, {"BENCH_ONLY": "", "BENCH_DOC": "", **env}):
            return config.load()

    def test_the_knob_keeps_only_the_flat_rounds(self):
        full = self.load()
        self.assertEqual((full.only, full.parts), ("", config.PARTS))
        self.assertTrue(all(full.runs(part) for part in config.PARTS))
        flat = self.load(BENCH_ONLY=" Flat ")
        self.assertEqual((flat.only, flat.parts), ("flat", ("flat",)))
        self.assertTrue(flat.runs("flat"))
        self.assertFalse(any(flat.runs(p) for p in ("throughput", "memory", "plans")))
        self.assertEqual(flat.to_json()["only"], "flat")
        with self.assertRaises(SystemExit):
            self.load(BENCH_ONLY="throughput")

    def test_a_partial_report_never_goes_to_the_full_runs_document(self):
        self.assertEqual(self.load().doc, config.DOC)
        self.assertEqual(self.load(BENCH_DOC="/tmp/full.md").doc, Path("/tmp/full.md"))
        self.assertEqual(self.load(BENCH_ONLY="flat").doc,
                         config.OUT_DIR / "PERFORMANCE-flat.md")
        self.assertEqual(self.load(BENCH_ONLY="flat", BENCH_DOC="/tmp/flat.md").doc,
                         Path("/tmp/flat.md"))
        with self.assertRaises(SystemExit):
            self.load(BENCH_ONLY="flat", BENCH_DOC=str(config.DOC))
        with self.assertRaises(SystemExit, msg="the same file, spelt relative"):
            config.doc_path("flat", os.path.relpath(config.DOC))
        self.assertEqual(config.DOC, config.ROOT / "docs" / "PERFORMANCE.md")
        self.assertTrue(config.DOC.is_file())

    def test_its_raw_results_keep_results_latest_the_full_runs(self):
        self.assertEqual(bench.raw_results_names("", "20261201T100000"),
                         ("results-20261201T100000.json", "results-latest.json"))
        self.assertEqual(bench.raw_results_names("flat", "20261201T100000"),
                         ("results-flat-20261201T100000.json", "results-flat-latest.json"))

    def test_throughputs_seconds_do_not_make_a_flat_run_reduced(self):
        self.assertTrue(config.reduced(self.load(BENCH_SECONDS="2")))
        self.assertFalse(config.reduced(self.load(BENCH_ONLY="flat", BENCH_SECONDS="2")))
        self.assertTrue(config.reduced(self.load(BENCH_ONLY="flat", BENCH_LATENCY_ROUNDS="2")))
        self.assertFalse(config.reduced(self.load()))

    def test_only_the_parts_run_have_an_entry(self):
        flat = self.load(BENCH_ONLY="flat")
        self.assertEqual(bench.new_measured(flat), {"seed": {}, "flat": {"deep_rows": 500_000}})
        self.assertEqual(set(bench.new_measured(self.load())),
                         {"seed", "throughput", "flat", "memory"})

    def test_the_big_server_runs_the_flat_rounds_only(self):
        settings = self.load(BENCH_ONLY="flat")
        server = mock.Mock()
        measured = bench.new_measured(settings)
        with mock.patch.object(bench, "start_api", return_value=(server, 2002)), \
                mock.patch.object(bench, "capture") as capture, \
                mock.patch.object(bench, "measure_throughput") as throughput, \
                mock.patch.object(bench, "measure_memory") as memory, \
                mock.patch.object(bench, "measure_flat_on_big") as flat:
            captured = bench.measure_big(settings, "big", "big-key", "small", "small-key",
                                         measured)
        self.assertIsNone(captured)
        flat.assert_called_once_with(settings, 2002, "big-key", "small", "small-key",
                                     measured["flat"])
        for skipped in (capture, throughput, memory):
            skipped.assert_not_called()
        server.stop.assert_called_once()

    def test_a_flat_run_seeds_both_datasets_and_captures_no_plan(self):
        settings = self.load(BENCH_ONLY="flat")

        def fake_big(_settings, _big, _key, _small, _small_key, measured):
            measured["flat"]["searches"] = {"common": {"term": "lin"}}

        with mock.patch.object(bench.datasets, "create", side_effect=lambda b, size, _s: size), \
                mock.patch.object(bench.datasets, "seed", return_value={"rows": 1}) as seed, \
                mock.patch.object(bench.datasets, "settle", return_value=0.1), \
                mock.patch.object(bench.datasets, "create_key", return_value="k"), \
                mock.patch.object(bench.datasets, "count_search_matches", return_value=3), \
                mock.patch.object(bench.datasets, "drop_all"), \
                mock.patch.object(bench, "measure_big", fake_big), \
                mock.patch.object(bench.plans, "capture") as capture, \
                mock.patch("builtins.print"):
            measured = bench.bench_backend(settings, "sqlite")
        self.assertEqual([c.args[1] for c in seed.call_args_list], ["big", "small"])
        capture.assert_not_called()
        self.assertEqual(set(measured), {"seed", "flat", "settle_s"})
        self.assertEqual(measured["flat"]["searches"]["common"]["matches"],
                         {"small": 3, "big": 3})

    def partial(self):
        data = results()
        data["meta"].update(only="flat", parts=["flat"])
        backend = data["backends"]["sqlite"]
        for part in ("throughput", "memory", "soak", "plans"):
            del backend[part]
        return data

    def test_its_targets_are_the_flat_ones_only(self):
        rows = targets.evaluate(self.partial())
        self.assertEqual(len(rows), 5)
        self.assertTrue(all("p50" in r["target"] for r in rows), rows)
        self.assertEqual(len(targets.evaluate(results())), 9, "2 throughput, 5 flat, 2 memory")

    def test_its_report_says_what_did_not_run_and_shows_no_figure_of_it(self):
        with tempfile.TemporaryDirectory() as folder:
            doc = Path(folder) / "PERFORMANCE-flat.md"
            report.write(doc, self.partial())
            text = doc.read_text()
        self.assertIn("**Partial run** (`BENCH_ONLY=flat`): only the flat-with-size rounds, "
                      "with the seeding they need. Not run, so not measured: throughput with "
                      "ceilings A and B (the reads and the stock adjustments), the API v2 writes' throughput (a product's PATCH, a "
                      "loyalty credit) with ceilings A and B, memory and the soak, the query "
                      "plans;", text)
        for title in ("### Throughput (32 connections)", "### Memory",
                      "### Query plans at scale"):
            self.assertIn(f"{title}\n\n_Not run: a partial run (`BENCH_ONLY=flat`)", text)
        self.assertIn("Load: latency runs (flat with size) 1 connection, 3 rounds", text)
        self.assertNotIn("wrk, 32 connections", text)
        self.assertNotIn("`GET /api/v1/me`", text)
        self.assertNotIn("peak RSS", text)
        self.assertNotIn("SCAN orders", text)
        self.assertIn("| orders changed since T, first page p50: big / small | sqlite |", text)
        self.assertIn("| orders first page, small table | sqlite | 1.00 |", text)

    def test_every_part_has_a_name_in_the_report(self):
        self.assertEqual(set(report.PART_NAMES), set(config.PARTS))
        for parts in config.ONLY.values():
            self.assertLessEqual(set(parts), set(config.PARTS))

    def test_a_full_report_has_no_partial_warning(self):
        text = report.generated(results())
        self.assertNotIn("Partial run", text)
        self.assertNotIn("_Not run", text)
        self.assertIn("Load: wrk, 32 connections on 2 threads", text)


class FakeResult:
    def __init__(self, p50, failed=0):
        self.p50, self.failed_requests = p50, failed

    def failed(self):
        return self.failed_requests

    def to_json(self):
        return wrk_result(1000 / self.p50, self.p50)


class LatencyTest(unittest.TestCase):
    def test_each_figure_is_the_median_of_its_rounds_and_every_round_is_kept(self):
        rounds = [wrk_result(900, 1.0, 3.0), wrk_result(100, 9.0, 20.0),
                  wrk_result(800, 1.2, 2.5)]
        entry = latency.aggregate(rounds)
        self.assertEqual(entry["p50_ms"], 1.2)
        self.assertEqual(entry["p99_ms"], 3.0)
        self.assertEqual(entry["rps"], 800)
        self.assertEqual(entry["p90_ms"], 1.8)
        self.assertEqual(entry["rounds"], rounds)
        self.assertEqual(latency.aggregate(rounds[:2])["p50_ms"], 5.0, "even count: the mean "
                         "of the middle two")
        self.assertEqual(latency.p50_range(entry), (1.0, 9.0))
        self.assertIsNone(latency.p50_range(wrk_result(1, 1.0)))
        self.assertIsNone(latency.p50_range(None))
        with self.assertRaises(ValueError):
            latency.aggregate([])

    def test_odd_rounds_run_the_requests_backwards(self):
        requests = ["small", "big", "deep"]
        self.assertEqual(latency.round_order(requests, 0), ["small", "big", "deep"])
        self.assertEqual(latency.round_order(requests, 1), ["deep", "big", "small"])
        self.assertEqual(latency.round_order(requests, 2), ["small", "big", "deep"])
        self.assertEqual(requests, ["small", "big", "deep"], "the list itself is left alone")

    def run_rounds(self, rounds, measure=None):
        requests = [latency.Request((name,), wrk.Load(f"http://x/{name}", "k"), name)
                    for name in ("orders_small", "orders_big", "orders_deep")]
        settings = mock.Mock(latency_rounds=rounds, warmup_s=1)
        calls = []

        def warm_up(load, _settings, connections, threads):
            calls.append(("warm", load.url.rsplit("/", 1)[1], connections, threads))

        def fake_measure(load, _settings, connections, threads, what, warm):
            name = load.url.rsplit("/", 1)[1]
            calls.append(("measure", name, connections, threads, warm))
            p50 = {"orders_small": 1.0, "orders_big": 1.1, "orders_deep": 1.2}[name]
            return FakeResult(p50 + 0.01 * len(calls))

        with mock.patch("builtins.print"):
            sides = latency.run(requests, settings, warm_up=warm_up,
                                measure=measure or fake_measure)
        return calls, sides

    def test_each_request_is_warmed_up_once_then_measured_in_alternating_rounds(self):
        calls, sides = self.run_rounds(3)
        self.assertEqual(calls[:3], [("warm", "orders_small", 1, 1), ("warm", "orders_big", 1, 1),
                                     ("warm", "orders_deep", 1, 1)])
        measured = [c[1] for c in calls[3:]]
        self.assertEqual(measured, ["orders_small", "orders_big", "orders_deep",
                                    "orders_deep", "orders_big", "orders_small",
                                    "orders_small", "orders_big", "orders_deep"])
        self.assertTrue(all(c[0] == "measure" and c[2:] == (1, 1, False) for c in calls[3:]))
        small = sides[("orders_small",)]
        # Calls 4, 9 and 10 of the fake measure: 1.04, 1.09, 1.10.
        self.assertEqual([r["p50_ms"] for r in small["rounds"]], [1.04, 1.09, 1.1])
        self.assertEqual(small["p50_ms"], 1.09)

    def test_a_failed_request_in_any_round_stops_the_run(self):
        count = []

        def failing(load, settings, connections, threads, what, warm):
            count.append(load)
            if len(count) == 5:
                raise Failure("1 error responses")
            return FakeResult(1.0)

        with self.assertRaises(Failure):
            self.run_rounds(2, measure=failing)

    def test_the_measured_run_refuses_failed_requests_without_its_warm_up(self):
        settings = mock.Mock(warmup_s=3, latency_s=6, connections=32, wrk_threads=2)
        failed = wrk.WrkResult(100, 6.0, 16.7, 1.0, 1.5, 2.0, 1.1, 3.0, 1, 0, 0)
        with mock.patch.object(wrk, "run", return_value=failed) as run:
            with self.assertRaises(Failure):
                wrk.measure(wrk.Load("http://x/", "k"), settings, connections=1, threads=1,
                            warm=False)
        run.assert_called_once_with(mock.ANY, 6, 1, 1)

    def test_the_round_puts_small_before_big_in_each_ratio(self):
        flat = {"searches": {"common": {"term": "lin"}, "rare": {"term": "ref 1"}},
                "changed_since": {"since": "2026-11-13T10:00:00.000Z"}}
        requests = bench.latency_requests((1001, "small-key"), (2002, "big-key"), flat,
                                          "c+1", 500_000)
        self.assertEqual([r.slot for r in requests], [
            ("orders_small",), ("orders_big",), ("orders_deep",),
            ("orders_changed_small",), ("orders_changed_big",),
            ("searches", "common", "small"), ("searches", "common", "big"),
            ("searches", "rare", "small"), ("searches", "rare", "big")])
        self.assertEqual([r.load.url.split("/")[2] for r in requests],
                         ["127.0.0.1:1001", "127.0.0.1:2002", "127.0.0.1:2002",
                          "127.0.0.1:1001", "127.0.0.1:2002",
                          "127.0.0.1:1001", "127.0.0.1:2002", "127.0.0.1:1001",
                          "127.0.0.1:2002"])
        self.assertEqual([r.load.key for r in requests[:2]], ["small-key", "big-key"])
        self.assertTrue(requests[2].load.url.endswith("/orders?limit=20&cursor=c%2B1"))
        changed = "/api/v1/orders?limit=20&updatedSince=2026-11-13T10%3A00%3A00.000Z"
        self.assertEqual([r.load.url for r in requests[3:5]],
                         [f"http://127.0.0.1:1001{changed}", f"http://127.0.0.1:2002{changed}"])
        self.assertEqual([r.load.key for r in requests[3:5]], ["small-key", "big-key"])
        self.assertTrue(requests[8].load.url.endswith("/products?limit=20&q=ref%201"))
        without_cursor = bench.latency_requests((1, "s"), (2, "b"), flat, None, 500_000)
        self.assertNotIn(("orders_deep",), [r.slot for r in without_cursor])

    def test_the_small_server_runs_only_for_the_rounds_and_its_sides_land_in_flat(self):
        server = mock.Mock()
        flat = {"deep_rows": 1000}
        measured = []

        def fake_run(requests, _settings):
            measured.extend(r.slot for r in requests)
            server.stop.assert_not_called()
            return {r.slot: {"p50_ms": 1.0} for r in requests}

        settings = mock.Mock(latency_rounds=2, latency_s=2, deep_rows=1000)
        servers = {1001: FakeApiServer("2026-11-20T10:00:00.000Z", changed=95),
                   2002: FakeApiServer("2026-11-20T10:00:00.000Z", changed=9600)}
        with mock.patch.object(bench, "start_api", return_value=(server, 1001)), \
                mock.patch.object(bench, "Api", lambda port, key: servers[port].client(key)), \
                mock.patch.object(bench, "pick_search_terms", return_value={"common": "lin"}), \
                mock.patch.object(latency, "run", fake_run), mock.patch("builtins.print"):
            bench.measure_flat(settings, "small-dataset", "small-key", (2002, "big-key"), None,
                               flat)
        server.stop.assert_called_once()
        self.assertEqual(measured, [("orders_small",), ("orders_big",),
                                    ("orders_changed_small",), ("orders_changed_big",),
                                    ("searches", "common", "small"),
                                    ("searches", "common", "big")])
        page = {"rows": 20, "has_more": True}
        self.assertEqual(flat, {"deep_rows": 1000, "orders_small": {"p50_ms": 1.0},
                                "orders_big": {"p50_ms": 1.0}, "orders_deep": None,
                                "orders_changed_small": {"p50_ms": 1.0},
                                "orders_changed_big": {"p50_ms": 1.0},
                                "changed_since": {"since": "2026-11-13T10:00:00.000Z", "days": 7,
                                                  "first_page": {"small": page, "big": page}},
                                "searches": {"common": {"term": "lin", "small": {"p50_ms": 1.0},
                                                        "big": {"p50_ms": 1.0}}}})
        self.assertEqual(servers[1001].keys, {"small-key"})
        self.assertEqual(servers[2002].keys, {"big-key"})
        self.assertEqual(servers[2002].paths, [
            "/api/v1/orders?limit=20&updatedSince=2026-11-13T10%3A00%3A00.000Z"],
            "T comes from the small dataset; the big one is asked for its first page only")
        self.assertTrue(all(c.closed for s in servers.values() for c in s.clients))

    def test_sides_are_placed_where_targets_and_report_read_them(self):
        flat = {"searches": {"common": {"term": "lin"}}}
        latency.place(flat, ("orders_big",), {"p50_ms": 1.0})
        latency.place(flat, ("searches", "common", "small"), {"p50_ms": 2.0})
        self.assertEqual(flat, {"orders_big": {"p50_ms": 1.0},
                                "searches": {"common": {"term": "lin",
                                                        "small": {"p50_ms": 2.0}}}})


class PgbenchTest(unittest.TestCase):
    def test_ceiling_b_connects_without_tls_like_the_api(self):
        self.assertEqual(pgbench.plaintext("postgres://postgres@127.0.0.1:5432/db"),
                         "postgres://postgres@127.0.0.1:5432/db?sslmode=disable")
        self.assertEqual(
            pgbench.plaintext("postgres://u:p@h/db?sslmode=prefer&application_name=x"),
            "postgres://u:p@h/db?application_name=x&sslmode=disable")


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
        self.assertIn("| orders first page, small table | sqlite | 1.00 | 0.90-1.10 | 2.00 | 900 |",
                      text)
        self.assertIn("| products q='ref-1' (rare), big table | sqlite | 2.50 | – | 5.00 | 400 |",
                      text)
        self.assertIn("1 connection, 3 rounds of 6 s per request after one 3 s warm-up each",
                      text)
        self.assertIn("in alternating order", text)
        self.assertIn("| 1.18 (rounds 1.33, 1.10, 1.18; median p50s 1.20 / 1.00 ms) |", text)

    def test_a_missing_doc_is_created_with_its_markers(self):
        with tempfile.TemporaryDirectory() as folder:
            doc = Path(folder) / "docs" / "PERFORMANCE.md"
            report.write(doc, results())
            text = doc.read_text()
        self.assertEqual(text.count(report.BEGIN), 1)
        self.assertEqual(text.count(report.END), 1)
        self.assertIn("### Targets", text)

    def test_throughput_shows_cpu_per_request_or_a_dash(self):
        data = results()
        throughput = data["backends"]["sqlite"]["throughput"]
        throughput["me"]["api"]["cpu_us_per_request"] = {"api": 85.44}
        throughput["product"] = {
            "request": "GET /api/v1/products/{id}", "body_bytes": 1500,
            "api": {**wrk_result(5000.0, 3.0),
                    "cpu_us_per_request": {"api": 140.6, "postgres": 1234.4}},
            "ceiling_a": wrk_result(20000.0, 1.0)}
        table = report._throughput(data)
        header = table.splitlines()[0]
        self.assertTrue(header.endswith("| ÷ B | API CPU µs/req | PostgreSQL CPU µs/req |"),
                        header)
        rows = {line.split(" | ")[0]: line for line in table.splitlines()[2:]}
        self.assertTrue(rows["| `GET /api/v1/me`"].endswith("| – | – | 85 | – |"))
        self.assertTrue(rows["| `GET /api/v1/products/{id}`"].endswith(
            "| 20,000 | 0.25 | – | – | 141 | 1,234 |"))
        self.assertTrue(rows["| `POST /api/v1/stock/adjustments`"].endswith("| – | – |"),
                        "no reading: a dash in both columns")
        self.assertTrue(all(line.count("|") == header.count("|")
                            for line in table.splitlines()))


STAT_TAIL = ("S 1 1234 1234 0 -1 4194560 1520 0 0 0 {utime} {stime} 0 0 20 0 1 0 4242 "
             "223342592 3000 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0")


def stat_line(pid, name, utime, stime):
    return f"{pid} ({name}) " + STAT_TAIL.format(utime=utime, stime=stime) + "\n"


class FakeProc:
    """A /proc of a few processes: {pid: (name, cmdline, utime ticks, stime ticks)}."""

    def __init__(self, folder):
        self.root = Path(folder)
        (self.root / "self").mkdir()  # not a pid: skipped

    def set(self, pid, cmdline, utime, stime, name="x"):
        folder = self.root / str(pid)
        folder.mkdir(exist_ok=True)
        (folder / "stat").write_text(stat_line(pid, name, utime, stime))
        (folder / "cmdline").write_bytes(cmdline.encode())

    def remove(self, pid):
        for file in (self.root / str(pid)).iterdir():
            file.unlink()
        (self.root / str(pid)).rmdir()


class CpuTest(unittest.TestCase):
    def test_utime_and_stime_are_read_past_a_name_with_spaces_and_parentheses(self):
        line = stat_line(1234, "postgres: x (y)) S 9 9", 250, 50)
        self.assertEqual(cpu.stat_ticks(line), 300)
        self.assertEqual(cpu.stat_ticks(stat_line(1, "shop-api", 7, 3)), 10)

    def test_backends_of_the_database_only(self):
        title = "postgres: 15/main: postgres shop_bench_1_big 127.0.0.1(40000) idle"
        self.assertTrue(cpu.is_backend_of(title + "\0\0\0", "shop_bench_1_big"))
        self.assertTrue(cpu.is_backend_of("postgres: u db 127.0.0.1(1) SELECT", "db"))
        self.assertFalse(cpu.is_backend_of(title, "shop_bench_1_small"))
        self.assertFalse(cpu.is_backend_of(title, "shop_bench_1_bi"), "a whole word")
        self.assertFalse(cpu.is_backend_of("psql\0shop_bench_1_big\0", "shop_bench_1_big"))
        self.assertFalse(cpu.is_backend_of("/usr/lib/postgresql/15/bin/postgres\0-D\0x\0",
                                           "x"))

    def test_a_run_counts_the_api_and_its_backends_new_ones_from_zero(self):
        ticks = cpu.TICKS
        with tempfile.TemporaryDirectory() as folder:
            proc = FakeProc(folder)
            proc.set(100, "target/release/shop-api\0serve\0", 10 * ticks, 2 * ticks)
            proc.set(200, "postgres: 15/main: postgres bench 127.0.0.1(1) idle", ticks, 0,
                     name="postgres: 15/main: postgres bench 127.0.0.1(1) idle")
            proc.set(201, "postgres: 15/main: postgres other 127.0.0.1(2) idle", ticks, 0)
            proc.set(202, "postgres: 15/main: postgres bench 127.0.0.1(3) idle", ticks, 0)
            meter = cpu.Meter(100, "bench", proc=folder)
            before = meter.read()
            self.assertEqual(before.backends, {200: 1.0, 202: 1.0})
            proc.set(100, "shop-api", 13 * ticks, 3 * ticks)  # +4 s
            proc.set(200, "postgres: 15/main: postgres bench 127.0.0.1(1) idle",
                     2 * ticks, ticks)  # +2 s
            proc.set(201, "postgres: 15/main: postgres other 127.0.0.1(2) idle",
                     9 * ticks, 0)  # another database: not counted
            proc.remove(202)  # gone: its time is gone with it
            proc.set(203, "postgres: 15/main: postgres bench 127.0.0.1(4) idle",
                     ticks // 2, 0)  # appeared: +0.5 s
            spent = meter.read().since(before)
        self.assertAlmostEqual(spent["api"], 4.0)
        self.assertAlmostEqual(spent["postgres"], 2.5)
        self.assertEqual(cpu.per_request(spent, 1000), {"api": 4000.0, "postgres": 2500.0})
        self.assertIsNone(cpu.per_request(spent, 0))

    def test_sqlite_reads_only_the_api_and_a_gone_server_fails(self):
        with tempfile.TemporaryDirectory() as folder:
            proc = FakeProc(folder)
            proc.set(100, "shop-api", 5, 5)
            reading = cpu.Meter(100, "", proc=folder).read()
            self.assertIsNone(reading.backends)
            self.assertEqual(list(cpu.Reading(reading.api + 1.0).since(reading)), ["api"])
            with self.assertRaises(Failure):
                cpu.Meter(999, "", proc=folder).read()

    def test_the_measured_run_is_read_before_and_after_but_not_its_warm_up(self):
        settings = mock.Mock(warmup_s=3, duration_s=10, connections=32, wrk_threads=2)
        events = []
        done = wrk.WrkResult(2000, 10.0, 200.0, 1.0, 1.5, 2.0, 1.1, 3.0, 0, 0, 0)
        readings = iter([cpu.Reading(1.0, {7: 5.0}), cpu.Reading(1.5, {7: 5.2, 8: 0.1})])

        def fake_run(load, seconds, connections, threads):
            events.append(("run", seconds))
            return done

        def read():
            events.append("read")
            return next(readings)

        with mock.patch.object(wrk, "run", fake_run), mock.patch("builtins.print"):
            result = wrk.measure(wrk.Load("http://x/", "k"), settings, read_cpu=read)
        self.assertEqual(events, [("run", 3), "read", ("run", 10), "read"])
        self.assertEqual(result.to_json()["cpu_us_per_request"],
                         {"api": 250.0, "postgres": 150.0})
        with mock.patch.object(wrk, "run", return_value=wrk.WrkResult(
                1, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0, 0, 0)), mock.patch("builtins.print"):
            plain = wrk.measure(wrk.Load("http://x/", "k"), settings, warm=False)
        self.assertNotIn("cpu_us_per_request", plain.to_json(), "no reading, no figure")


class EndpointsTest(unittest.TestCase):
    def test_names_are_ceiling_paths_and_lists_come_before_their_reads_by_id(self):
        names = list(bench.ENDPOINTS)
        self.assertEqual(names, ["me", "products", "product", "orders", "order", "adjustments",
                                 "product_patch", "loyalty_credit"])
        for name in names:
            self.assertRegex(name, r"^[A-Za-z0-9_-]+$", "crates/bench/src/fixed_body.rs")
        for read, listing in bench.BY_ID.items():
            self.assertLess(names.index(listing), names.index(read))
        for name in pgbench.SCRIPTS:
            self.assertIn(name, bench.ENDPOINTS)
            self.assertTrue(pgbench.script_path(name).is_file(), name)

    def test_reads_by_id_ask_for_the_first_row_of_the_first_page(self):
        paths = bench.endpoint_paths({"products": ["bench-p0000000", "bench-p0000001"],
                                      "orders": ["a/b c"]})
        self.assertEqual(paths["product"],
                         ("GET /api/v1/products/{id}", "/api/v1/products/bench-p0000000"))
        self.assertEqual(paths["order"], ("GET /api/v1/orders/{id}", "/api/v1/orders/a%2Fb%20c"))
        self.assertEqual(paths["products"], bench.ENDPOINTS["products"])
        with self.assertRaises(Failure):
            bench.endpoint_paths({"products": [], "orders": ["x"]})

    def test_capture_takes_the_ids_from_the_captured_pages(self):
        api = mock.Mock()
        pages = {
            "/api/v1/me": {"shop": {"id": "shop-1"}},
            "/api/v1/products?limit=20": {"data": [{"id": "p-1"}, {"id": "p-2"}]},
            "/api/v1/products/p-1": {"data": {"id": "p-1"}},
            "/api/v1/orders?limit=20": {"data": [{"id": "o-9"}]},
            "/api/v1/orders/o-9": {"data": {"id": "o-9"}},
        }
        api.get.side_effect = lambda path: json.dumps(pages[path]).encode()
        api.post_adjustment.return_value = b'{"data":{}}'
        reads = [name for name in bench.ENDPOINTS if name not in bench.writes.WRITES]
        with tempfile.TemporaryDirectory() as folder, \
                mock.patch.object(bench, "OUT", Path(folder)), \
                mock.patch.object(bench, "tracked_variants", return_value=["v-1", "v-2"]):
            captured = bench.capture(api, "postgres", "pfx", names=reads)
            self.assertEqual(json.loads(captured.bodies["order"].read_bytes()),
                             {"data": {"id": "o-9"}})
        self.assertEqual([c.args[0] for c in api.get.call_args_list],
                         ["/api/v1/me", "/api/v1/products?limit=20", "/api/v1/products/p-1",
                          "/api/v1/orders?limit=20", "/api/v1/orders/o-9"])
        api.post_adjustment.assert_called_once_with("v-1")
        self.assertEqual(list(captured.bodies), reads)
        self.assertEqual(list(captured.endpoints), reads)
        self.assertEqual(captured.shop_id, "shop-1")
        self.assertEqual(captured.first_page_ids, {"products": ["p-1", "p-2"],
                                                   "orders": ["o-9"]})
        self.assertEqual(captured.endpoints["product"][1], "/api/v1/products/p-1")
        self.assertEqual(captured.by_id("order"), "o-9")

        self.assertEqual(bench.pgbench_variables(captured, "products"), {"shop_id": "shop-1"})
        self.assertEqual(bench.pgbench_variables(captured, "orders"), {"shop_id": "shop-1"})
        self.assertEqual(bench.pgbench_variables(captured, "product"),
                         {"shop_id": "shop-1", "product_id": "p-1"})
        self.assertEqual(bench.pgbench_variables(captured, "order"),
                         {"shop_id": "shop-1", "order_id": "o-9"})
        self.assertEqual(bench.pgbench_variables(captured, "adjustments"),
                         {"shop_id": "shop-1", "slug": "bench", "key_prefix": "pfx"})
        self.assertEqual(captured.adjustment_events, {}, "no dataset, no event read")

    def test_capture_on_postgres_keeps_the_adjustments_two_event_bodies(self):
        api = mock.Mock()
        api.get_json.return_value = {"shop": {"id": "shop-1"}}
        api.post_adjustment.return_value = b'{"data":{"variantId":"v-1","productId":"p-1"}}'
        dataset = mock.Mock(backend="postgres")
        with tempfile.TemporaryDirectory() as folder, \
                mock.patch.object(bench, "OUT", Path(folder)), \
                mock.patch.object(bench, "tracked_variants", return_value=["v-1", "v-2"]), \
                mock.patch.object(bench.writes, "event_body",
                                  side_effect=lambda _d, _s, resource: f"body of {resource}") \
                as event_body, \
                mock.patch.object(bench.writes, "prepare_pgbench"):
            captured = bench.capture(api, "postgres", "pfx", dataset, 32, ["adjustments"])
            self.assertEqual(bench.pgbench_variables(captured, "adjustments"),
                             {"shop_id": "shop-1", "slug": "bench", "key_prefix": "pfx",
                              "stock_event_body": "body of stock:v-1",
                              "product_event_body": "body of product:p-1"})
        self.assertEqual([c.args for c in event_body.call_args_list],
                         [(dataset, "shop-1", "stock:v-1"), (dataset, "shop-1", "product:p-1")])
        api.post_adjustment.assert_called_once_with("v-1")
        with tempfile.TemporaryDirectory() as folder, \
                mock.patch.object(bench, "OUT", Path(folder)), \
                mock.patch.object(bench, "tracked_variants", return_value=["v-1"]), \
                mock.patch.object(bench.writes, "event_body") as event_body, \
                mock.patch.object(bench.writes, "prepare_pgbench"):
            captured = bench.capture(api, "sqlite", "pfx", mock.Mock(backend="sqlite"), 32,
                                     ["adjustments"])
        event_body.assert_not_called()  # SQLite's ceilings have no adjustment script
        self.assertEqual(captured.adjustment_events, {})

    def test_each_pgbench_script_is_given_the_variables_it_uses(self):
        with tempfile.TemporaryDirectory() as folder:
            files = {}
            for name in ("ids", "body"):
                files[name] = Path(folder) / name
                files[name].write_text("a\nb\n" if name == "ids" else '{"id":"evt_1"}')
            writes_ = {name: files["ids"] for name in bench.writes.WRITES}
            bodies = {name: files["body"] for name in bench.writes.WRITES}
            adjustment_events = {"stock_event_body": files["body"],
                                 "product_event_body": files["body"]}
            captured = bench.Captured("s", {}, Path("v"), {"products": ["p"], "orders": ["o"]},
                                      "k", {}, writes_, bodies, adjustment_events)
            for name in pgbench.SCRIPTS:
                text = pgbench.script_path(name).read_text()
                code = "\n".join(line for line in text.splitlines()
                                 if not line.startswith("--"))
                used = set(re.findall(r"(?<!:):([a-z_]+)", code))
                used -= set(re.findall(r"^\\set (\w+)", code, re.M))
                given = set(bench.pgbench_variables(captured, name))
                if name == "adjustments" or name in bench.writes.WRITES:
                    # The rest: pgbench's client_id, the first statement's columns (its
                    # `AS name`s) and what the RETURNINGs give (\gset, with its prefix).
                    made = set(re.findall(r"\bAS ([a-z_]+)", code)) | {"client_id", "seq",
                                                                      "points", "stock"}
                    made |= {prefix + "seq"
                             for prefix in re.findall(r"\\gset (\w+)", code)}
                    self.assertLessEqual(given - {"turn"}, used, name)
                    self.assertLessEqual(used, given | made, name)
                else:
                    self.assertEqual(used, given, name)
            self.assertEqual(set(bench.pgbench_variables(captured, "adjustments")),
                             {"shop_id", "slug", "key_prefix", "stock_event_body",
                              "product_event_body"})
            self.assertEqual(bench.pgbench_variables(captured, "loyalty_credit", clients=32),
                             {"shop_id": "s", "key_prefix": "k", "event_body": '{"id":"evt_1"}',
                              "clients": 32, "targets": 2, "turn": 0})


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

    def test_terms_become_like_patterns_and_suffix_index_ranges(self):
        self.assertEqual(plans._like("50%_a\\b"), "%50\\%\\_a\\\\b%")
        self.assertEqual(plans._index_range("trs-00"), ("trs-00", "trs-01"))
        self.assertEqual(plans._index_range("3760000000017 and more"),
                         ("3760000000017 an", "3760000000017 ao"))


class ConfigTest(unittest.TestCase):
    def test_environment_overrides_and_the_deep_page_fits_the_table(self):
        env = {"BENCH_BIG_ORDERS": "3_000", "BENCH_SECONDS": "4", "BENCH_BACKENDS": "sqlite"}
        with mock.patch.dict(os.environ, env):
            settings = config.load()
        self.assertEqual(settings.big.orders, 3000)
        self.assertEqual(settings.duration_s, 4)
        self.assertEqual(settings.latency_s, 5, "not BENCH_SECONDS any more")
        self.assertEqual(settings.latency_rounds, 5)
        self.assertEqual(settings.backends, ("sqlite",))
        self.assertEqual(settings.deep_rows, 1500)

    def test_latency_rounds_and_seconds(self):
        with mock.patch.dict(os.environ, {"BENCH_LATENCY_ROUNDS": "5",
                                          "BENCH_LATENCY_SECONDS": "8"}):
            settings = config.load()
        self.assertEqual((settings.latency_rounds, settings.latency_s), (5, 8))
        with mock.patch.dict(os.environ, {"BENCH_LATENCY_ROUNDS": "", "BENCH_SECONDS": ""}):
            quick = config.load(quick=True)
        self.assertEqual((quick.latency_rounds, quick.latency_s), (2, 2))
        with mock.patch.dict(os.environ, {"BENCH_LATENCY_ROUNDS": "0"}):
            with self.assertRaises(SystemExit):
                config.load()

    def test_passwords_stay_out_of_the_report(self):
        self.assertEqual(config.redact_password("postgres://u:secret@h:5432/db"),
                         "postgres://u:***@h:5432/db")


class AlternateTest(unittest.TestCase):
    """scripts/bench/alternate.py: the earlier commit's runs against this checkout's."""

    def row(self, rows, fragment):
        found = [r for r in rows if fragment in r["target"]]
        self.assertEqual(len(found), 1, fragment)
        return found[0]

    def test_a_change_within_the_rounds_spread_is_not_worse(self):
        # The deep page's rounds are p50 ± 0.1 over 1.2: a ratio spread of about 0.17.
        rows = alternate.compare([results(deep_p50=1.0)], [results(deep_p50=1.1)])
        deep = self.row(rows, "rows deep")
        self.assertGreater(deep["loss"], 0)
        self.assertFalse(deep["worse"])

    def test_a_loss_beyond_the_spread_is_worse_whichever_way_the_figure_improves(self):
        lower = alternate.compare([results(deep_p50=1.0)], [results(deep_p50=1.6)])
        self.assertTrue(self.row(lower, "rows deep")["worse"])
        # A throughput ratio improves upwards: less req/s against the same ceiling is a loss.
        higher = alternate.compare([results(api_me=8000.0)], [results(api_me=5000.0)])
        self.assertTrue(self.row(higher, "GET /api/v1/me")["worse"])
        better = alternate.compare([results(api_me=5000.0)], [results(api_me=8000.0)])
        self.assertFalse(self.row(better, "GET /api/v1/me")["worse"])

    def test_a_figure_measured_once_a_run_is_held_to_the_spread_between_runs(self):
        base = [results(peak=40.0), results(peak=44.0)]
        self.assertFalse(self.row(alternate.compare(base, [results(peak=45.0)]),
                                  "peak RSS")["worse"])
        self.assertTrue(self.row(alternate.compare(base, [results(peak=50.0)]),
                                 "peak RSS")["worse"])


if __name__ == "__main__":
    unittest.main()


class WritesTest(unittest.TestCase):
    """The API v2 writes of the throughput step (issue 35): BENCH_ONLY=writes, their targets,
    loads, ceilings and targets."""

    def load(self, **env):
        with mock.patch.dict(os.environ, {"BENCH_ONLY": "", "BENCH_DOC": "",
                                          "BENCH_WRITES": "", **env}):
            return config.load()

    def test_the_knob_keeps_the_writes_on_the_small_dataset_and_reports_elsewhere(self):
        settings = self.load(BENCH_ONLY="writes")
        self.assertEqual(settings.parts, ("writes",))
        self.assertTrue(settings.runs_throughput_step())
        self.assertTrue(settings.runs_datasets())
        self.assertFalse(settings.runs_big_dataset())
        self.assertFalse(settings.runs("throughput"))
        self.assertEqual(settings.doc, config.OUT_DIR / "PERFORMANCE-writes.md")
        self.assertEqual(self.load(BENCH_ONLY="writes", BENCH_DOC="/tmp/w.md").doc,
                         Path("/tmp/w.md"))
        with self.assertRaises(SystemExit):
            self.load(BENCH_ONLY="writes", BENCH_DOC=str(config.DOC))
        self.assertFalse(config.reduced(settings), "the small dataset is its design")
        self.assertTrue(config.reduced(self.load(BENCH_ONLY="writes", BENCH_SECONDS="3")))
        self.assertTrue(config.reduced(self.load(BENCH_ONLY="writes",
                                                 BENCH_SMALL_PRODUCTS="100")))
        self.assertEqual(set(bench.new_measured(settings)), {"seed", "throughput"})

    def test_a_full_run_measures_them_unless_bench_writes_is_0(self):
        full = self.load()
        self.assertIn("writes", full.parts)
        self.assertTrue(full.runs_big_dataset())
        self.assertEqual(bench.measured_endpoints(full), list(bench.ENDPOINTS))
        without = self.load(BENCH_WRITES="0")
        self.assertNotIn("writes", without.parts)
        self.assertEqual(bench.measured_endpoints(without),
                         ["me", "products", "product", "orders", "order", "adjustments"])
        self.assertEqual(bench.measured_endpoints(self.load(BENCH_ONLY="writes")),
                         ["product_patch", "loyalty_credit"])
        flat = self.load(BENCH_ONLY="flat")
        self.assertEqual(bench.measured_endpoints(flat), [])

    def test_a_writes_run_seeds_the_small_dataset_alone(self):
        settings = self.load(BENCH_ONLY="writes")
        calls = []

        def fake_big(_settings, dataset, key, small, small_key, _measured):
            calls.append((dataset, key, small, small_key))
            return mock.Mock(shop_id="shop-1")

        with mock.patch.object(bench.datasets, "create", side_effect=lambda b, size, _s: size), \
                mock.patch.object(bench.datasets, "seed", return_value={"rows": 1}) as seed, \
                mock.patch.object(bench.datasets, "settle", return_value=0.1), \
                mock.patch.object(bench.datasets, "create_key", return_value="k"), \
                mock.patch.object(bench.datasets, "drop_all"), \
                mock.patch.object(bench, "measure_big", fake_big), \
                mock.patch.object(bench.plans, "capture") as plans_capture, \
                mock.patch("builtins.print"):
            measured = bench.bench_backend(settings, "postgres")
        self.assertEqual([c.args[1:] for c in seed.call_args_list],
                         [("small", settings.small)])
        self.assertEqual(calls, [("small", "k", None, None)])
        plans_capture.assert_not_called()
        self.assertEqual(measured["shop_id"], "shop-1")
        self.assertEqual(set(measured["seed"]), {"small"})

    def test_targets_are_split_evenly_between_pgbenchs_clients(self):
        self.assertEqual(bench.writes.usable(5000, 32), 2048)
        self.assertEqual(bench.writes.usable(141, 32), 128)
        self.assertEqual(bench.writes.usable(14, 32), 14, "fewer than the clients: all")
        sql = bench.writes.pgbench_targets_sql({"product": ["p-1", "p'2"], "client": ["c-1"]})
        self.assertIn("CREATE TABLE bench_write_targets (kind text, k int, id text NOT NULL, "
                      "PRIMARY KEY (kind, k))", sql)
        self.assertTrue(sql.endswith("VALUES ('product', 0, 'p-1'), ('product', 1, 'p''2'), "
                                     "('client', 0, 'c-1')"), sql)

    def test_the_shaped_products_are_found_on_sqlite(self):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "t.db"
            db = sqlite3.connect(path)
            db.executescript("""
                CREATE TABLE products (id TEXT, shop_id TEXT, ean TEXT, sku TEXT,
                    compare_at_price_cents INTEGER, category_id TEXT, brand_id TEXT);
                CREATE TABLE variants (id TEXT, shop_id TEXT, product_id TEXT, sku TEXT,
                    barcode TEXT, swatch_color TEXT, low_stock_threshold INTEGER);
                CREATE TABLE clients (id TEXT, shop_id TEXT);
                INSERT INTO products VALUES ('p3', 's', 'e', 'k', NULL, 'c', 'b'),
                    ('p1', 's', 'e', 'k', NULL, 'c', 'b'), ('p2', 's', 'e', 'k', NULL, 'c', 'b'),
                    ('p4', 's', 'e', 'k', 500, 'c', 'b'), ('p5', 't', 'e', 'k', NULL, 'c', 'b');
                INSERT INTO variants VALUES ('p1-v0', 's', 'p1', 'k', 'e', '#fff', 2),
                    ('p2-v0', 's', 'p2', 'k', 'e', '#fff', 2), ('p2-v1', 's', 'p2', 'k', 'e', '#000', 2),
                    ('p3-v0', 's', 'p3', 'k', 'e', '#fff', 2), ('p4-v0', 's', 'p4', 'k', 'e', '#fff', 2),
                    ('p5-v0', 't', 'p5', 'k', 'e', '#fff', 2);
                INSERT INTO clients VALUES ('c2', 's'), ('c1', 's'), ('c9', 't');
            """)
            db.commit()
            db.close()
            dataset = mock.Mock(backend="sqlite", sqlite_path=str(path), size="small")
            self.assertEqual(bench.writes.targets(dataset, "s", "product", 32), ["p1", "p3"])
            self.assertEqual(bench.writes.targets(dataset, "s", "client", 32), ["c1", "c2"])
            with self.assertRaises(Failure):
                bench.writes.targets(dataset, "nobody", "product", 32)

    def test_each_write_is_sent_to_its_targets_on_the_api_and_to_its_body_on_ceiling_a(self):
        captured = mock.Mock(variants_file=Path("v.txt"),
                             write_ids={"product_patch": Path("p.txt"),
                                        "loyalty_credit": Path("c.txt")})
        api, ceiling = bench.loads("product_patch", "/api/v2/products/{id}", 8080, 9090, "k",
                                   captured)
        self.assertEqual((api.mode, api.ids_file, api.path_template),
                         ("patch", "p.txt", "/api/v2/products/{id}"))
        self.assertEqual(api.url, "http://127.0.0.1:8080/api/v2/")
        self.assertEqual((ceiling.url, ceiling.path_template, ceiling.mode),
                         ("http://127.0.0.1:9090/product_patch", "/product_patch", "patch"))
        api, _ = bench.loads("loyalty_credit", "/api/v2/clients/{id}/loyalty/adjustments",
                             8080, 9090, "k", captured)
        self.assertEqual((api.mode, api.ids_file), ("credit", "c.txt"))
        api, ceiling = bench.loads("adjustments", "/api/v1/stock/adjustments", 8080, 9090,
                                   "k", captured)
        self.assertEqual((api.mode, api.variants_file, ceiling.post_path),
                         ("post", "v.txt", "/adjustments"))
        argv, env = wrk._command(wrk.Load("u", "k", mode="patch", ids_file="p.txt",
                                          path_template="/api/v2/products/{id}"), 10, 32, 2)
        self.assertEqual((env["BENCH_MODE"], env["BENCH_IDS_FILE"], env["BENCH_PATH_TEMPLATE"],
                          env["BENCH_WRK_THREADS"]),
                         ("patch", "p.txt", "/api/v2/products/{id}", "2"))
        lua = config.LUA_SCRIPT.read_text()
        for mode in ("patch", "credit"):
            self.assertIn(f'mode == "{mode}"', lua)

    def test_capture_writes_once_to_each_writes_first_target(self):
        api = mock.Mock()
        api.get_json.return_value = {"shop": {"id": "shop-1"}}
        dataset = mock.Mock(backend="sqlite")
        with tempfile.TemporaryDirectory() as folder, \
                mock.patch.object(bench, "OUT", Path(folder)), \
                mock.patch.object(bench.writes, "targets",
                                  side_effect=lambda _d, _s, kind, _c: [f"{kind}-1", f"{kind}-2"]), \
                mock.patch.object(bench.writes, "capture_request",
                                  return_value=("/x", b'{"data":{}}')) as request, \
                mock.patch.object(bench.writes, "event_body",
                                  side_effect=lambda _d, _s, resource: f"body of {resource}"), \
                mock.patch.object(bench.writes, "prepare_pgbench") as prepare:
            captured = bench.capture(api, "sqlite", "pfx", dataset, 32,
                                     ["product_patch", "loyalty_credit"])
            self.assertEqual(captured.write_ids["product_patch"].read_text(),
                             "product-1\nproduct-2\n")
            self.assertEqual(captured.event_bodies["loyalty_credit"].read_text(),
                             "body of client:client-1")
            self.assertEqual(captured.targets("loyalty_credit"), 2)
        self.assertEqual(captured.shop_id, "shop-1")
        self.assertEqual([c.args[1:] for c in request.call_args_list],
                         [("product_patch", "product-1"), ("loyalty_credit", "client-1")])
        prepare.assert_called_once_with(dataset, {"product": ["product-1", "product-2"],
                                                  "client": ["client-1", "client-2"]})
        self.assertEqual(list(captured.endpoints), ["product_patch", "loyalty_credit"])
        api.post_adjustment.assert_not_called()
        api.get.assert_not_called()

    def test_sqlite_runs_the_write_script_on_the_targets(self):
        argv = sqlite_ceiling.write_argv("bin", "db", "loyalty_credit", "s", Path("c.txt"),
                                         {"key_prefix": "pfx", "event_body": Path("e.json")},
                                         3, 10)
        self.assertEqual(argv[:5], ["bin", "--database", "db", "--write",
                                    str(sqlite_ceiling.write_script_path("loyalty_credit"))])
        self.assertIn("--value", argv)
        self.assertIn("key_prefix=pfx", argv)
        self.assertIn("event_body=@e.json", argv)
        self.assertEqual(argv[argv.index("--connections") + 1], "8")
        result = sqlite_ceiling.parse_write(
            "loyalty_credit", 'noise\n{"transactions": 900, "seconds": 10, '
            '"transactions_per_second": 90.0, "statements": 8, "targets": 992, '
            '"connections": 8}\n')
        self.assertEqual((result.tps, result.statements), (90.0, 8))
        with self.assertRaises(Failure):
            sqlite_ceiling.parse_write("loyalty_credit", '{"transactions": 0}')
        for name in sqlite_ceiling.WRITES:
            self.assertTrue(sqlite_ceiling.write_script_path(name).is_file(), name)

    def write_results(self, api_rps=800.0, ceiling_tps=1000.0, p99=20.0):
        data = results()
        data["meta"].update(only="writes", parts=["writes"])
        backend = data["backends"]["sqlite"]
        for part in ("flat", "memory", "soak", "plans"):
            del backend[part]
        backend["seed"] = {"small": backend["seed"]["big"]}
        entry = {"request": "PATCH /api/v2/products/{id}", "body_bytes": 900,
                 "api": wrk_result(api_rps, 4.0, p99), "ceiling_a": wrk_result(9000.0, 1.0),
                 "ceiling_b": {"tps": ceiling_tps},
                 "ratio_rounds": {"ceiling": "ceiling_b",
                                  "api": [api_rps, api_rps - 100, api_rps + 100],
                                  "reference": [ceiling_tps, 1000.0, 1000.0]}}
        backend["throughput"] = {"product_patch": entry}
        data["backends"]["postgres"] = json.loads(json.dumps(backend))
        return data

    def test_each_write_is_held_to_half_its_database_and_a_tail_of_ten_p50s(self):
        rows = targets.evaluate(self.write_results())
        self.assertEqual([(r["backend"], r["limit"]) for r in rows],
                         [("sqlite", "≥ 0.5"), ("sqlite", "< 10"),
                          ("postgres", "≥ 0.5"), ("postgres", "< 10")])
        ratio = rows[0]
        self.assertEqual(ratio["target"],
                         "PATCH /api/v2/products/{id}: req/s ≥ 0.5 × ceiling B (ceiling-sqlite)")
        self.assertEqual(ratio["measured"], "0.80 (rounds 0.80, 0.70, 0.90)")
        self.assertTrue(ratio["met"])
        self.assertIn("ceiling B (pgbench)", rows[2]["target"])
        self.assertEqual(rows[1]["measured"],
                         "800 writes/s, p99/p50 = 5.0 (p50 4.00 ms, p99 20.00 ms)")
        self.assertTrue(rows[1]["met"])
        missed = targets.evaluate(self.write_results(api_rps=300.0, p99=41.0))
        self.assertEqual([r["met"] for r in missed], [False, False, False, False])

    def test_a_writes_report_says_it_ran_on_the_small_dataset_and_shows_their_throughput(self):
        text = report.generated(self.write_results())
        self.assertIn("**Partial run** (`BENCH_ONLY=writes`): only the API v2 writes' "
                      "throughput (a product's PATCH, a loyalty credit) with ceilings A and B, "
                      "with the seeding they need, on the small dataset alone", text)
        self.assertIn("### Throughput (32 connections)\n\n| request |", text)
        self.assertIn("| `PATCH /api/v2/products/{id}` | sqlite | 800 |", text)
        self.assertIn("Load: wrk, 32 connections on 2 threads", text)
        self.assertIn("### Memory\n\n_Not run: a partial run (`BENCH_ONLY=writes`)", text)
        self.assertIn("| sqlite | small |", text)
