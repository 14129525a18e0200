"""Unit tests of the webhooks part (benchlib/webhooks.py): its figures from the receiver's
records, its targets, its settings and where its report goes.
python3 -m unittest discover -s scripts/bench"""

import os
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import bench
from benchlib import config, datasets, report, targets, webhooks
from test_benchlib import results as full_results

NS = 1_000_000  # nanoseconds in a millisecond
# 2026-11-27T10:00:00.000Z in Unix milliseconds
T0 = 1_795_773_600_000


def record(path, webhook_id, timestamp_ms, received_ms, variant="v1", stock=3):
    seconds, millis = divmod(timestamp_ms - T0, 1000)
    return {"path": path, "webhook_id": webhook_id, "type": "stock.updated",
            "timestamp": f"2026-11-27T10:00:{seconds:02d}.{millis:03d}Z",
            "received_ns": received_ms * NS, "variant_id": variant, "stock": stock,
            "status": 204}


def part(p50=12.0, p99=80.0, received=12000, drain_rate=2500.0, drain_received=20000,
         none=(1000.0, 1010.0, 990.0), two=(950.0, 900.0, 980.0), peaks=(60.0, 55.0)):
    return {
        "data": {"variants": 50000, "import_s": 9.0},
        "latency": {"expected": 12000, "received": received, "duplicates": 0, "p50_ms": p50,
                    "p90_ms": p50 * 2, "p99_ms": p99, "max_ms": p99 * 2, "rate": 200,
                    "seconds": 30, "load": {"sent": 6000, "rate": 199.8, "api_p50_ms": 2.0,
                                            "api_p99_ms": 9.0}},
        "throughput": {"two": {"rps": two[0], "p50_ms": 20.0, "p99_ms": 60.0},
                       "none": {"rps": none[0], "p50_ms": 18.0, "p99_ms": 50.0},
                       "ratio_rounds": {"ceiling": "none", "api": list(two),
                                        "reference": list(none)},
                       "drained_after_s": [1.5, 1.2]},
        "drain": {"events": 10000, "expected": 20000, "received": drain_received,
                  "duplicates": 0, "seconds": 20000 / drain_rate, "first_arrival_s": 0.4,
                  "per_second": drain_rate, "first_to_last_per_second": drain_rate * 1.1,
                  "adjusted_s": 6.0, "recover": [{"seconds": 0.3, "answer": {"queued": 10000}},
                                                 {"seconds": 0.3, "answer": {"queued": 10000}}]},
        "memory": {"seconds": 20,
                   "backlog": {"events": 100000, "imports_s": [9.0, 11.0],
                               "peak_mb": peaks[0], "rss_after_mb": 40.0, "pending": 3000,
                               "breakdown": {"rss_mb": 40.0, "anon_mb": 21.0,
                                             "file_mb": 19.0}},
                   "restart": {"peak_mb": peaks[1], "rss_after_mb": 38.0, "pending": 2000}},
        "server_peak_mb": 45.0,
        "sink_requests": 60000,
    }


def webhooks_results(**kwargs):
    data = full_results()
    data["meta"].update(only="webhooks", parts=["webhooks"])
    data["backends"] = {"sqlite": {"seed": {}, "webhooks": part(**kwargs)}}
    return data


def rows_of(data):
    return {r["target"].split(":")[1].split(" at ")[0].strip(): r
            for r in targets.evaluate_webhooks(data)}


class FiguresTest(unittest.TestCase):
    def test_instants_are_read_and_written_as_the_api_writes_them(self):
        self.assertEqual(webhooks.instant_ms("2026-11-27T10:00:00.123Z"), T0 + 123)
        self.assertEqual(webhooks.instant_ms("2026-11-27T11:00:00.123+01:00"), T0 + 123)
        self.assertEqual(webhooks.rfc3339_ms((T0 + 45) / 1000), "2026-11-27T10:00:00.045Z")
        with self.assertRaises(ValueError):
            webhooks.instant_ms("2026-11-27T10:00:00")

    def test_percentiles_are_nearest_rank(self):
        values = list(range(1, 101))
        self.assertEqual(webhooks.percentile(values, 0.5), 50)
        self.assertEqual(webhooks.percentile(values, 0.99), 99)
        self.assertEqual(webhooks.percentile([7], 0.99), 7)
        self.assertIsNone(webhooks.percentile([], 0.5))

    def test_latency_is_arrival_minus_the_bodys_timestamp_first_arrival_only(self):
        records = [record("/endpoint-1", "evt_1", T0, T0 + 10),
                   record("/endpoint-2", "evt_1", T0, T0 + 30),
                   record("/endpoint-1", "evt_2", T0 + 500, T0 + 520),
                   # a second arrival of evt_1 at endpoint 1 counts once, at its first
                   record("/endpoint-1", "evt_1", T0, T0 + 9000)]
        summary = webhooks.latency_summary(records, expected=4)
        self.assertEqual((summary["received"], summary["duplicates"]), (3, 1))
        self.assertAlmostEqual(summary["p50_ms"], 20)
        self.assertAlmostEqual(summary["max_ms"], 30)

    def test_the_drain_counts_from_the_first_recover_to_the_last_arrival(self):
        start = T0 * NS
        records = [record("/endpoint-1", f"evt_{i}", T0, T0 + 1000 + i) for i in range(1001)]
        records.append(record("/endpoint-1", "evt_0", T0, T0 + 4000))  # again: not counted
        summary = webhooks.drain_summary(records, start, expected=1001)
        self.assertEqual((summary["received"], summary["duplicates"]), (1001, 1))
        self.assertEqual(summary["seconds"], 2.0)
        self.assertEqual(summary["first_arrival_s"], 1.0)
        self.assertEqual(summary["per_second"], 500.5)
        self.assertEqual(summary["first_to_last_per_second"], 1001.0)
        self.assertIsNone(webhooks.drain_summary([], start, 10)["per_second"])

    def test_the_ratio_is_the_median_of_the_rounds_two_over_none(self):
        measured = part(none=(1000.0, 1000.0, 1000.0), two=(800.0, 950.0, 900.0))["throughput"]
        self.assertAlmostEqual(webhooks.ratio(measured), 0.9)


class TargetsTest(unittest.TestCase):
    def test_every_target_of_the_issue_with_its_limit(self):
        rows = rows_of(webhooks_results())
        self.assertEqual(set(rows), {
            "commit-to-receipt latency p50", "commit-to-receipt latency p99",
            "drain of 10,000 queued events (distinct resources) to 2 endpoints, deliveries/s",
            "adjustments/s with 2 endpoints ÷ with none",
            "peak RSS with 100,000 undelivered events (receiver down)"})
        self.assertEqual([r["limit"] for r in rows.values()],
                         ["≤ 50 ms", "≤ 250 ms", "≥ 2,000 /s", "≥ 0.85", "≤ 100 MB"])
        self.assertTrue(all(r["met"] for r in rows.values()), rows)
        self.assertEqual(rows["adjustments/s with 2 endpoints ÷ with none"]["measured"],
                         "0.95 (rounds 0.95, 0.89, 0.99)")

    def test_misses(self):
        rows = rows_of(webhooks_results(p50=51.0, p99=251.0, drain_rate=1999.0,
                                        two=(800.0, 850.0, 700.0), peaks=(60.0, 101.0)))
        self.assertTrue(all(r["met"] is False for r in rows.values()), rows)
        self.assertIn("101.0 MB (taking them 60.0, restarted on them 101.0)",
                      rows["peak RSS with 100,000 undelivered events (receiver down)"]
                      ["measured"])

    def test_a_delivery_that_never_arrived_fails_latency_and_drain_whatever_the_figures(self):
        rows = rows_of(webhooks_results(received=11999, drain_received=19999))
        self.assertFalse(rows["commit-to-receipt latency p50"]["met"])
        self.assertIn("received 11,999 of 12,000",
                      rows["commit-to-receipt latency p50"]["measured"])
        self.assertFalse(rows["drain of 10,000 queued events (distinct resources) to 2 "
                              "endpoints, deliveries/s"]["met"])

    def test_a_latency_at_less_than_the_asked_rate_is_not_met(self):
        data = webhooks_results()
        latency = data["backends"]["sqlite"]["webhooks"]["latency"]
        latency.update(rate_reached=False)
        latency["load"]["rate"] = 120.4
        row = rows_of(data)["commit-to-receipt latency p50"]
        self.assertFalse(row["met"])
        self.assertIn("adjustments sent at 120/s only", row["measured"])

    def test_the_full_runs_targets_include_them_but_its_section_does_not(self):
        data = full_results()
        self.assertEqual(len(targets.evaluate(data)), 9)
        data["backends"]["sqlite"]["webhooks"] = part()
        self.assertEqual(len(targets.evaluate(data)), 14)
        self.assertEqual(len(targets.evaluate(data, with_webhooks=False)), 9)


class SettingsTest(unittest.TestCase):
    def load(self, quick=False, **env):
        with mock.patch.dict(os.environ, {"BENCH_ONLY": "", "BENCH_DOC": "", **env}):
            return config.load(quick=quick)

    def test_the_knob_runs_the_webhooks_part_alone_without_the_big_datasets(self):
        settings = self.load(BENCH_ONLY="webhooks")
        self.assertEqual(settings.parts, ("webhooks",))
        self.assertFalse(settings.runs_datasets())
        self.assertTrue(self.load().runs("webhooks"))
        self.assertTrue(self.load().runs_datasets())
        self.assertEqual(bench.new_measured(settings), {"seed": {}})
        self.assertEqual((settings.webhook_drain_events, settings.webhook_backlog_events,
                          settings.webhook_rate, settings.webhook_latency_s,
                          settings.webhook_variants),
                         (10_000, 100_000, 200, 30, 20_000))

    def test_a_full_run_can_leave_it_out_and_comparisons_do_by_default(self):
        self.assertNotIn("webhooks", self.load(BENCH_WEBHOOKS="0").parts)
        self.assertEqual(self.load(BENCH_WEBHOOKS="0").parts, config.DATASET_PARTS)
        self.assertEqual(self.load(BENCH_ONLY="webhooks", BENCH_WEBHOOKS="0").parts,
                         ("webhooks",))

    def test_its_report_goes_to_its_section_of_the_document_unless_reduced(self):
        self.assertEqual(self.load(BENCH_ONLY="webhooks").doc, config.DOC)
        self.assertFalse(config.reduced(self.load(BENCH_ONLY="webhooks")))
        self.assertEqual(self.load(BENCH_ONLY="webhooks", BENCH_DOC="/tmp/w.md").doc,
                         Path("/tmp/w.md"))
        for reduced in ({"BENCH_WEBHOOK_DRAIN_EVENTS": "1000"},
                        {"BENCH_WEBHOOK_BACKLOG_EVENTS": "5000"},
                        {"BENCH_SECONDS": "3"}):
            settings = self.load(BENCH_ONLY="webhooks", **reduced)
            self.assertTrue(config.reduced(settings), reduced)
            self.assertEqual(settings.doc, config.OUT_DIR / "PERFORMANCE-webhooks.md")
        quick = self.load(quick=True, BENCH_ONLY="webhooks")
        self.assertEqual(quick.doc, config.OUT_DIR / "PERFORMANCE-webhooks.md")
        self.assertEqual(quick.webhook_drain_events, 1_000)
        self.assertFalse(config.reduced(self.load(BENCH_ONLY="webhooks",
                                                  BENCH_BIG_ORDERS="10")),
                         "the big dataset's size does not matter to it")

    def test_a_webhooks_run_seeds_nothing_but_its_own_dataset(self):
        settings = self.load(BENCH_ONLY="webhooks")
        with mock.patch.object(bench.datasets, "create") as create, \
                mock.patch.object(bench.datasets, "drop_all") as drop_all, \
                mock.patch.object(bench.webhooks, "run", return_value={"x": 1}) as run, \
                mock.patch("builtins.print"):
            measured = bench.bench_backend(settings, "postgres")
        create.assert_not_called()
        run.assert_called_once_with(settings, "postgres", bench.serve_argv)
        drop_all.assert_called_once()
        self.assertEqual(measured, {"seed": {}, "webhooks": {"x": 1}})


class ReportTest(unittest.TestCase):
    def document(self):
        return (f"# Perf\n{report.BEGIN}\nthe last full run\n{report.END}\n"
                f"## Webhooks\n{report.WEBHOOKS_BEGIN}\nold webhooks\n{report.WEBHOOKS_END}\n"
                "## Notes\nkept\n")

    def test_a_webhooks_run_rewrites_its_section_only(self):
        with tempfile.TemporaryDirectory() as folder:
            doc = Path(folder) / "PERFORMANCE.md"
            doc.write_text(self.document())
            report.write(doc, webhooks_results())
            text = doc.read_text()
        self.assertIn("the last full run", text)
        self.assertNotIn("old webhooks", text)
        self.assertTrue(text.endswith("## Notes\nkept\n"))
        self.assertIn("(`BENCH_ONLY=webhooks`)", text)
        self.assertIn("| webhooks: commit-to-receipt latency p50 at 200 adjustments/s to 2 "
                      "endpoints | sqlite | 12.0 ms (of 12,000 deliveries) | ≤ 50 ms | yes |",
                      text)
        self.assertIn("| sqlite | 200 for 30 s | 6,000 at 199.8/s | 12,000 of 12,000 |", text)
        self.assertIn("| sqlite | 1,000, 1,010, 990 | 950, 900, 980 | 0.95 |", text)
        self.assertIn("| sqlite | 100,000 (9, 11 s) | 60.0 | 40.0: 21.0 + 19.0 | 3,000 | 55.0 | "
                      "38.0 | 2,000 |", text)

    def test_a_full_run_writes_both_sections_and_keeps_webhooks_out_of_the_main_one(self):
        data = full_results()
        data["backends"]["sqlite"]["webhooks"] = part()
        with tempfile.TemporaryDirectory() as folder:
            doc = Path(folder) / "PERFORMANCE.md"
            doc.write_text(self.document())
            report.write(doc, data)
            text = doc.read_text()
        main = text.split(report.BEGIN)[1].split(report.END)[0]
        own = text.split(report.WEBHOOKS_BEGIN)[1].split(report.WEBHOOKS_END)[0]
        self.assertNotIn("the last full run", main)
        self.assertNotIn("webhooks:", main)
        self.assertNotIn("Partial run", main)
        self.assertIn("(a full run)", own)
        self.assertIn("webhooks: peak RSS with 100,000 undelivered events", own)

    def test_a_run_without_the_part_leaves_its_section_alone(self):
        with tempfile.TemporaryDirectory() as folder:
            doc = Path(folder) / "PERFORMANCE.md"
            doc.write_text(self.document())
            report.write(doc, full_results())
            text = doc.read_text()
        self.assertIn("old webhooks", text)
        self.assertNotIn("the last full run", text)

    def test_a_flat_runs_warning_does_not_name_the_part_reported_elsewhere(self):
        data = full_results()
        data["meta"].update(only="flat", parts=["flat"])
        self.assertNotIn("webhooks", report.generated(data))


class CatalogueTest(unittest.TestCase):
    def test_two_tracked_variants_a_product_and_each_import_moves_every_stock(self):
        first, ids = webhooks.catalogue(5)
        again, same = webhooks.catalogue(5, stock_offset=2)
        self.assertEqual(ids, same)
        self.assertEqual(len(ids), len(set(ids)))
        self.assertEqual([len(p["variants"]) for p in first["products"]], [2, 2, 1])
        self.assertTrue(all(p["trackStock"] for p in first["products"]))
        stocks = [v["stock"] for p in first["products"] for v in p["variants"]]
        moved = [v["stock"] for p in again["products"] for v in p["variants"]]
        self.assertEqual([b - a for a, b in zip(stocks, moved)], [2] * 5)

    def test_enough_imports_for_the_backlog(self):
        self.assertEqual(webhooks.imports_for(100_000, 50_000), 2)
        self.assertEqual(webhooks.imports_for(100_001, 50_000), 3)
        self.assertEqual(webhooks.imports_for(5_000, 50_000), 1)


class StatisticsTest(unittest.TestCase):
    def test_an_imported_postgresql_catalogue_is_analyzed_and_sqlite_left_as_production_has_it(self):
        settings = mock.Mock(pg_admin_url="postgres://postgres@127.0.0.1:5432/postgres")
        pg = datasets.Dataset("postgres", "webhooks", "postgres://…/shop_wh", pg_name="shop_wh")
        lite = datasets.Dataset("sqlite", "webhooks", "sqlite://x.db", sqlite_path="x.db")
        with mock.patch.object(datasets, "psql") as psql:
            datasets.gather_statistics(settings, pg)
            datasets.gather_statistics(settings, lite)
        psql.assert_called_once_with("postgres://postgres@127.0.0.1:5432/shop_wh",
                                     "ANALYZE products, variants")


class ThroughputTest(unittest.TestCase):
    def test_each_run_lasts_until_the_queue_it_left_is_empty(self):
        settings = config.load()
        calls = []

        class Result:
            def __init__(self, rps):
                self.rps, self.requests, self.seconds = rps, rps * 10, 10.0

            def to_json(self):
                return {"rps": self.rps}

        rates = iter([900.0, 1000.0, 1000.0, 950.0, 940.0, 1000.0])

        def measure(_load, _settings, what, warm):
            calls.append(("measure", what.strip(), warm))
            return Result(next(rates))

        def empty(_dataset):
            # The queue takes a second to empty after a run with endpoints, none otherwise.
            last = calls[-1]
            calls.append(("empty",))
            return 1.0 if last == ("measure", "adjustments, 2 endpoints", False) else 0.0

        with mock.patch.object(webhooks, "set_enabled",
                               side_effect=lambda _api, _ids, on: calls.append(("set", on))), \
                mock.patch.object(webhooks, "wait_for_empty_queue", side_effect=empty), \
                mock.patch.object(webhooks.wrk, "warm_up",
                                  side_effect=lambda *_a: calls.append(("warm",))), \
                mock.patch.object(webhooks.wrk, "measure", side_effect=measure), \
                mock.patch.object(webhooks, "Api"), mock.patch("builtins.print"):
            measured = webhooks.measure_throughput(settings, "ds", 1, "k", ["e1", "e2"], "v")
        self.assertEqual(calls[:10], [
            ("set", True), ("warm",), ("empty",), ("measure", "adjustments, 2 endpoints", False),
            ("empty",),
            ("set", False), ("warm",), ("empty",), ("measure", "adjustments, no endpoint", False),
            ("empty",),
        ])
        # round 1 (odd): no endpoint first, round 2: endpoints first
        measures = [c[1] for c in calls if c[0] == "measure"]
        self.assertEqual(measures, ["adjustments, 2 endpoints", "adjustments, no endpoint",
                                    "adjustments, no endpoint", "adjustments, 2 endpoints",
                                    "adjustments, 2 endpoints", "adjustments, no endpoint"])
        # 9,000 adjustments whose deliveries ended a second after wrk's 10 s: 818.2/s, not 900.
        self.assertEqual(measured["ratio_rounds"],
                         {"ceiling": "none", "api": [818.2, 863.6, 854.5],
                          "reference": [1000.0, 1000.0, 1000.0]})
        self.assertEqual(measured["drained_after_s"], [1.0, 1.0, 1.0])
        self.assertAlmostEqual(webhooks.ratio(measured), 0.8545)

    def test_sqlite_counts_the_events_its_workers_have_not_queued_yet(self):
        import sqlite3
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            path = f"{folder}/shop.db"
            with sqlite3.connect(path) as db:
                db.executescript(
                    "CREATE TABLE webhook_deliveries (status TEXT);"
                    "CREATE TABLE webhook_events (seq INTEGER, receivers TEXT);"
                    "CREATE TABLE webhook_fan_out (id INTEGER, through_seq INTEGER);"
                    "INSERT INTO webhook_fan_out VALUES (1, 2);"
                    "INSERT INTO webhook_deliveries VALUES ('succeeded'), ('pending');"
                    "INSERT INTO webhook_events VALUES (1, 'e1'), (2, 'e1'), (3, NULL),"
                    " (4, 'e1,e2');")
            dataset = mock.Mock(backend="sqlite", sqlite_path=path)
            # one delivery queued, and event 4 past the cursor (3 has no receiver)
            self.assertEqual(webhooks.pending(dataset), 2)


if __name__ == "__main__":
    unittest.main()
