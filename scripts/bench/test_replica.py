"""Unit tests of BENCH_REPLICA=1 (benchlib/replica.py and its wiring in bench.py, config.py and
report.py), without a server or a database: python3 -m unittest discover -s scripts/bench"""

import os
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import bench
from benchlib import config, cpu, replica, report
from benchlib.processes import Failure
from test_benchlib import FakeProc, stat_line, wrk_result

PRIMARY = "postgres://postgres@127.0.0.1:5433/postgres"
REPLICA = "postgres://postgres@127.0.0.1:5434/postgres"


def load(**env):
    base = {"BENCH_ONLY": "", "BENCH_DOC": "", "BENCH_REPLICA": "", "BENCH_BACKENDS": "",
            "BENCH_SECONDS": "", "BENCH_REPLICA_ROUNDS": ""}
    with mock.patch.dict(os.environ, {**base, **env}):
        return config.load()


class ReplicaSettingsTest(unittest.TestCase):
    def test_the_mode_stays_out_of_the_default_run(self):
        full = load()
        self.assertFalse(full.replica)
        self.assertEqual(full.parts, config.PARTS)
        self.assertNotIn(config.REPLICA, config.PARTS)
        self.assertEqual(full.backends, ("sqlite", "postgres"))
        self.assertFalse(load(BENCH_REPLICA="0").replica)

    def test_it_is_a_run_of_its_own_on_postgres(self):
        settings = load(BENCH_REPLICA="1")
        self.assertTrue(settings.replica)
        self.assertEqual((settings.only, settings.parts), ("replica", ("replica",)))
        self.assertFalse(any(settings.runs(part) for part in config.PARTS))
        self.assertEqual(settings.backends, ("postgres",))
        self.assertEqual(load(BENCH_REPLICA="yes", BENCH_BACKENDS=" postgres ").backends,
                         ("postgres",))
        self.assertEqual((settings.replica_rounds, settings.replica_catchup_timeout_s),
                         (2, 600))
        self.assertEqual(load(BENCH_REPLICA="1", BENCH_REPLICA_ROUNDS="4").replica_rounds, 4)

    def test_without_postgres_it_stops_before_building_anything(self):
        for backends in ("sqlite", "sqlite,postgres", "postgres,sqlite"):
            with self.assertRaises(SystemExit) as stopped:
                load(BENCH_REPLICA="1", BENCH_BACKENDS=backends)
            self.assertIn("BENCH_REPLICA=1 needs PostgreSQL", str(stopped.exception))
        with self.assertRaises(SystemExit):
            load(BENCH_REPLICA="1", BENCH_REPLICA_ROUNDS="0")

    def test_not_together_with_bench_only(self):
        with self.assertRaises(SystemExit) as stopped:
            load(BENCH_REPLICA="1", BENCH_ONLY="flat")
        self.assertIn("unset BENCH_ONLY", str(stopped.exception))

    def test_its_report_and_raw_results_keep_clear_of_the_full_runs(self):
        self.assertEqual(load(BENCH_REPLICA="1").doc, config.OUT_DIR / "PERFORMANCE-replica.md")
        self.assertEqual(load(BENCH_REPLICA="1", BENCH_DOC="/tmp/r.md").doc, Path("/tmp/r.md"))
        with self.assertRaises(SystemExit) as stopped:
            load(BENCH_REPLICA="1", BENCH_DOC=str(config.DOC))
        self.assertIn("BENCH_REPLICA=1 writes a partial report", str(stopped.exception))
        self.assertEqual(bench.raw_results_names("replica", "20261201T100000"),
                         ("results-replica-20261201T100000.json", "results-replica-latest.json"))

    def test_reduced_by_its_throughput_settings_not_by_the_latency_ones(self):
        self.assertFalse(config.reduced(load(BENCH_REPLICA="1", BENCH_LATENCY_ROUNDS="1")))
        self.assertTrue(config.reduced(load(BENCH_REPLICA="1", BENCH_SECONDS="2")))
        self.assertEqual(config.knob("replica"), "BENCH_REPLICA=1")
        self.assertEqual(config.knob("flat"), "BENCH_ONLY=flat")


class ServeArgumentsTest(unittest.TestCase):
    def settings(self):
        return mock.Mock(shop_api=Path("shop-api"), workers=2)

    def dataset(self):
        return mock.Mock(url="postgres://postgres@127.0.0.1:5433/shop_bench_1_big")

    def test_the_primary_alone_has_no_replica_option(self):
        argv = bench.serve_argv(self.settings(), self.dataset(), 4000)
        self.assertEqual(argv[:4], [Path("shop-api"), "--database-url",
                                    "postgres://postgres@127.0.0.1:5433/shop_bench_1_big",
                                    "serve"])
        self.assertIn("127.0.0.1:4000", argv)
        self.assertNotIn("--database-replica-urls", argv)

    def test_reads_on_the_replica_name_the_replicas_database_after_serve(self):
        url = replica.database_url(REPLICA, "shop_bench_1_big")
        self.assertEqual(url, "postgres://postgres@127.0.0.1:5434/shop_bench_1_big")
        argv = bench.serve_argv(self.settings(), self.dataset(), 4000, url)
        self.assertEqual(argv.count("--database-replica-urls"), 1)
        at = argv.index("--database-replica-urls")
        self.assertGreater(at, argv.index("serve"))
        self.assertEqual(argv[at + 1], url)
        self.assertEqual(argv[2], "postgres://postgres@127.0.0.1:5433/shop_bench_1_big",
                         "writes and authentication stay on the primary")


class PairTest(unittest.TestCase):
    def test_up_prints_the_two_urls_on_its_last_line(self):
        self.assertEqual(replica.parse_pair_urls(f"{PRIMARY} {REPLICA}\n"), (PRIMARY, REPLICA))
        self.assertEqual(replica.parse_pair_urls(f"noise\n{PRIMARY} {REPLICA}\n\n"),
                         (PRIMARY, REPLICA))
        for bad in ("", PRIMARY, f"{PRIMARY} {REPLICA} x", "a b"):
            with self.assertRaises(Failure):
                replica.parse_pair_urls(bad)

    def test_up_runs_without_the_lag_on_purpose(self):
        pair = replica.Pair(Path("/tmp/x"))
        with mock.patch.object(pair, "status", return_value="down"), \
                mock.patch.object(replica, "_run", return_value=f"{PRIMARY} {REPLICA}\n") as run, \
                mock.patch("builtins.print"):
            pair.up()
        run.assert_called_once_with(replica.UP, env={"REPLICA_APPLY_DELAY": "0"})
        self.assertEqual((pair.primary_url, pair.replica_url, pair.was_up),
                         (PRIMARY, REPLICA, False))

    def restore(self, was_up, keep=False, started=True, environment=None):
        pair = replica.Pair(Path("/tmp/x"), PRIMARY, REPLICA, was_up=was_up, started=started)
        with mock.patch.object(replica, "_run", return_value="") as run, \
                mock.patch.dict(os.environ, environment or {}):
            if environment is None:
                os.environ.pop("REPLICA_APPLY_DELAY", None)  # restored on leaving
            pair.restore(keep)
        return run

    def test_a_pair_that_was_up_is_kept_with_its_usual_delay(self):
        self.restore(True).assert_called_once_with(replica.UP,
                                                   env={"REPLICA_APPLY_DELAY": "1s"})
        self.restore(True, environment={"REPLICA_APPLY_DELAY": "250ms"}).assert_called_once_with(
            replica.UP, env={"REPLICA_APPLY_DELAY": "250ms"})

    def test_a_pair_the_benchmark_created_is_removed_unless_kept(self):
        self.restore(False).assert_called_once_with(replica.DOWN)
        self.restore(False, keep=True).assert_not_called()
        self.restore(False, started=False).assert_not_called()

    def test_a_failed_restore_is_reported_not_raised(self):
        pair = replica.Pair(Path("/tmp/x"), started=True)
        with mock.patch.object(replica, "_run", side_effect=Failure("down.sh failed")), \
                mock.patch("builtins.print") as printed:
            pair.restore(False)
        self.assertIn("down.sh failed", printed.call_args.args[0])

    def test_the_scripts_exist_and_are_executable(self):
        for script in (replica.UP, replica.DOWN, replica.CTL):
            self.assertTrue(os.access(script, os.X_OK), script)


class CatchUpTest(unittest.TestCase):
    def test_only_a_wal_location_goes_into_the_query(self):
        sql = replica.replayed_sql("0/3C7E158")
        self.assertIn("pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '0/3C7E158') >= 0", sql)
        for bad in ("", "0/3C7E158'; DROP TABLE x; --", "3C7E158", None):
            with self.assertRaises(Failure):
                replica.replayed_sql(bad)

    def test_a_server_out_of_recovery_is_no_replica(self):
        self.assertTrue(replica.replayed("t|t", REPLICA))
        self.assertFalse(replica.replayed("t|f", REPLICA))
        with self.assertRaises(Failure):
            replica.replayed("f|f", REPLICA)
        with self.assertRaises(Failure):
            replica.replayed("", REPLICA)

    def fake(self, answers):
        asked = []

        def query(url, sql):
            asked.append((url, sql))
            return "1/A0" if url == PRIMARY else answers.pop(0)

        return asked, query

    def test_waits_until_the_replica_has_replayed_the_primarys_position(self):
        now = [0.0]
        asked, query = self.fake(["t|f", "t|f", "t|t"])
        caught = replica.wait_replayed(PRIMARY, REPLICA, 60, query=query,
                                       sleep=lambda s: now.__setitem__(0, now[0] + s),
                                       clock=lambda: now[0])
        self.assertEqual(caught, {"lsn": "1/A0", "seconds": 0.4})
        self.assertEqual(asked[0], (PRIMARY, "SELECT pg_current_wal_lsn()"),
                         "the primary's position is taken once, first")
        self.assertEqual([url for url, _ in asked[1:]], [REPLICA] * 3)

    def test_a_replica_that_does_not_catch_up_stops_the_run(self):
        now = [0.0]
        _, query = self.fake(["t|f"] * 100)
        with self.assertRaises(Failure) as stopped:
            replica.wait_replayed(PRIMARY, REPLICA, 1, query=query,
                                  sleep=lambda s: now.__setitem__(0, now[0] + s),
                                  clock=lambda: now[0])
        self.assertIn("BENCH_REPLICA_CATCHUP_TIMEOUT_SECONDS", str(stopped.exception))


def set_process(proc, pid, ppid, cmdline, utime):
    """FakeProc's process with its parent (field 4 of stat) set."""
    proc.set(pid, cmdline, utime, 0)
    line = stat_line(pid, "postgres", utime, 0).replace(" S 1 ", f" S {ppid} ", 1)
    (proc.root / str(pid) / "stat").write_text(line)


class PairMeterTest(unittest.TestCase):
    def test_the_parent_is_read_past_the_name(self):
        line = stat_line(7, "postgres: x (y)) S 9 9", 1, 1).replace(" S 1 ", " S 42 ", 1)
        self.assertEqual(cpu.stat_parent(line), 42)

    def test_backends_count_to_the_postmaster_they_belong_to(self):
        ticks = cpu.TICKS
        title = "postgres: postgres bench 127.0.0.1({}) idle"
        with tempfile.TemporaryDirectory() as folder:
            proc = FakeProc(folder)
            proc.set(100, "shop-api\0serve\0", 10 * ticks, 0)
            set_process(proc, 200, 10, title.format(1), ticks)  # the primary's
            set_process(proc, 300, 20, title.format(2), ticks)  # the replica's
            set_process(proc, 400, 30, title.format(3), ticks)  # another cluster's: left out
            set_process(proc, 301, 20, "postgres: postgres other 127.0.0.1(4) idle", ticks)
            meter = replica.PairMeter(100, "bench", {"primary": 10, "replica": 20}, proc=folder)
            before = meter.read()
            self.assertEqual(before.backends, {200: ("primary", 1.0), 300: ("replica", 1.0)})
            proc.set(100, "shop-api", 12 * ticks, 0)
            set_process(proc, 200, 10, title.format(1), 2 * ticks)
            set_process(proc, 300, 20, title.format(2), 4 * ticks)
            set_process(proc, 302, 20, title.format(5), ticks)  # appeared: from 0
            spent = meter.read().since(before)
        self.assertEqual(spent, {"api": 2.0, "primary": 1.0, "replica": 4.0})
        self.assertEqual(cpu.per_request(spent, 1000),
                         {"api": 2000.0, "primary": 1000.0, "replica": 4000.0})

    def test_a_gone_server_fails(self):
        with tempfile.TemporaryDirectory() as folder:
            FakeProc(folder)
            with self.assertRaises(Failure):
                replica.PairMeter(100, "bench", {}, proc=folder).read()

    def test_the_postmasters_come_from_their_pid_files(self):
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            for member, pid in (("primary", 10), ("replica", 20)):
                (root / member).mkdir()
                (root / member / "postmaster.pid").write_text(f"{pid}\n/tmp/x\n1700000000\n")
            self.assertEqual(replica.postmaster_pids(root), {"primary": 10, "replica": 20})
            (root / "replica" / "postmaster.pid").unlink()
            with self.assertRaises(Failure) as stopped:
                replica.postmaster_pids(root)
        self.assertIn("the replica of the pair does not run", str(stopped.exception))


class FakeRun:
    def __init__(self, rps, used):
        self.rps, self.used = rps, used

    def to_json(self):
        return {**wrk_result(self.rps, 2.0), "cpu_us_per_request": self.used}


def replica_side(rps_rounds, used):
    return replica.side([FakeRun(rps, used).to_json() for rps in rps_rounds])


def page(request, replica_rps, primary_rps, reached=True):
    on_replica = {"api": 300.0, "primary": 5.0, "replica": 400.0} if reached else \
        {"api": 300.0, "primary": 400.0, "replica": 0.0}
    return {"request": request,
            "replica": replica_side(replica_rps, on_replica),
            "primary": replica_side(primary_rps, {"api": 300.0, "primary": 400.0,
                                                  "replica": 0.0})}


class MeasureTest(unittest.TestCase):
    def test_rounds_alternate_which_server_goes_first(self):
        self.assertEqual(replica.round_targets(0), ("replica", "primary"))
        self.assertEqual(replica.round_targets(1), ("primary", "replica"))
        self.assertEqual(replica.round_targets(2), ("replica", "primary"))

    def test_each_page_runs_on_both_servers_one_right_after_the_other(self):
        calls = []
        rps = {4001: 900.0, 4002: 1000.0}

        def fake_measure(load, settings, what="", read_cpu=None):
            port = int(load.url.split(":")[2].split("/")[0])
            calls.append((load.url.split(str(port))[1], port, read_cpu(), load.key))
            return FakeRun(rps[port], {"api": 1.0, "primary": 2.0, "replica": 3.0})

        settings = mock.Mock(replica_rounds=2)
        meters = {"replica": lambda: "replica-meter", "primary": lambda: "primary-meter"}
        with mock.patch("builtins.print"):
            pages = replica.measure(settings, {"replica": 4001, "primary": 4002}, "k", meters,
                                    measure_run=fake_measure)
        products, orders = "/api/v1/products?limit=20", "/api/v1/orders?limit=20"
        self.assertEqual([(path, port, meter) for path, port, meter, _ in calls], [
            (products, 4001, "replica-meter"), (products, 4002, "primary-meter"),
            (orders, 4001, "replica-meter"), (orders, 4002, "primary-meter"),
            (products, 4002, "primary-meter"), (products, 4001, "replica-meter"),
            (orders, 4002, "primary-meter"), (orders, 4001, "replica-meter")])
        self.assertTrue(all(key == "k" for *_, key in calls))
        self.assertEqual(list(pages), ["products", "orders"])
        entry = pages["products"]
        self.assertEqual(entry["request"], "GET /api/v1/products?limit=20")
        self.assertEqual(len(entry["replica"]["rounds"]), 2)
        self.assertEqual(entry["replica"]["rps"], 900.0)
        self.assertEqual(entry["primary"]["cpu_us_per_request"],
                         {"api": 1.0, "primary": 2.0, "replica": 3.0})
        self.assertAlmostEqual(replica.ratio(entry), 0.9)

    def test_the_ratio_is_the_median_of_the_rounds_ratios(self):
        entry = page("GET /api/v1/products?limit=20", [900, 1200, 950], [1000, 1000, 1000])
        self.assertEqual([round(r, 2) for r in replica.round_ratios(entry)], [0.9, 1.2, 0.95])
        self.assertAlmostEqual(replica.ratio(entry), 0.95)
        self.assertEqual(entry["replica"]["rps"], 950.0, "each side's own median")

    def test_whether_the_reads_reached_the_replica_is_told_by_its_backends_cpu(self):
        self.assertTrue(replica.reached_replica(page("p", [1], [1])))
        self.assertFalse(replica.reached_replica(page("p", [1], [1], reached=False)))
        no_cpu = {"request": "p", "replica": replica.side([wrk_result(1, 1)]),
                  "primary": replica.side([wrk_result(1, 1)])}
        self.assertIsNone(replica.reached_replica(no_cpu))
        self.assertNotIn("cpu_us_per_request", no_cpu["replica"])


def replica_results(reached=True):
    pages = {"products": page("GET /api/v1/products?limit=20", [2700, 2900], [3000, 3000],
                              reached),
             "orders": page("GET /api/v1/orders?limit=20", [4000, 4400], [4000, 4000])}
    return {
        "meta": {"date": "2026-11-26 10:00 UTC", "reduced": False, "raw_results": "r.json",
                 "load_average_start": "0.1 0.2 0.3", "load_average_end": "2.0 1.5 1.0",
                 "machine": {"cpu": "cpu", "cores": 2, "ram_gib": 24, "kernel": "6", "os": "x"},
                 "versions": {"rustc": "1.95"}, "only": "replica", "parts": ["replica"],
                 "settings": {"connections": 32, "wrk_threads": 2, "warmup_s": 3,
                              "duration_s": 10, "workers": 2, "replica_rounds": 2}},
        "backends": {"postgres": {
            "seed": {"big": {"sizes": {"products": 1, "orders": 2, "clients": 3}, "rows": 6,
                             "seconds": 1.0, "rows_per_s": 6.0}},
            "replica": {"pair": {"primary": PRIMARY, "replica": REPLICA, "apply_delay": "0",
                                 "root": "/tmp/shop-replica", "was_up": False},
                        "database": "shop_bench_1_big", "rounds": 2,
                        "catch_up": {"lsn": "0/3C7E158", "seconds": 2.5}, "pages": pages}}},
    }


class ReplicaReportTest(unittest.TestCase):
    def test_the_report_gives_each_sides_throughput_and_the_ratio(self):
        text = report.generated(replica_results())
        self.assertIn("**Replica run** (`BENCH_REPLICA=1`)", text)
        self.assertIn("| `GET /api/v1/products?limit=20` | 2,800 | 3,000 | **0.93** "
                      "(rounds 0.90, 0.97) | yes |", text)
        self.assertIn("| `GET /api/v1/orders?limit=20` | 4,200 | 4,000 | **1.05** "
                      "(rounds 1.00, 1.10) | yes |", text)
        self.assertIn("| `GET /api/v1/products?limit=20` | reads on the replica | 2,700 / 2,900 "
                      "| 2.00 | 4.00 | 300 | 5 | 400 |", text)
        self.assertIn("--database-replica-urls "
                      "postgres://postgres@127.0.0.1:5434/shop_bench_1_big", text)
        self.assertIn("replayed the primary's WAL up to 0/3C7E158 2.5 s after the seed", text)
        self.assertIn("not a scale-out", text)
        self.assertIn("Load: wrk, 32 connections on 2 threads, 3 s warm-up then 10 s measured "
                      "per run, 2 rounds", text)
        self.assertNotIn("did not reach the replica", text)
        for absent in ("### Targets", "### Throughput", "### Flat with size", "### Memory",
                       "Partial run"):
            self.assertNotIn(absent, text)
        for table in [block for block in text.split("\n\n") if block.startswith("| ")]:
            widths = {line.count("|") for line in table.splitlines()}
            self.assertEqual(len(widths), 1, table)

    def test_reads_that_missed_the_replica_are_called_out(self):
        text = report.generated(replica_results(reached=False))
        self.assertIn("| **0.93** (rounds 0.90, 0.97) | **no** |", text)
        self.assertIn("**The reads did not reach the replica** for "
                      "GET /api/v1/products?limit=20:", text)

    def test_it_is_written_between_the_markers(self):
        with tempfile.TemporaryDirectory() as folder:
            doc = Path(folder) / "PERFORMANCE-replica.md"
            report.write(doc, replica_results())
            text = doc.read_text()
        self.assertIn(report.BEGIN, text)
        self.assertIn("**Replica run**", text.split(report.BEGIN, 1)[1])


class BenchReplicaTest(unittest.TestCase):
    def test_seeds_on_the_primary_waits_for_the_replica_then_measures(self):
        settings = load(BENCH_REPLICA="1")
        pair = replica.Pair(Path("/tmp/shop-replica"), PRIMARY, REPLICA, started=True)
        big = mock.Mock(url="postgres://postgres@127.0.0.1:5433/shop_bench_1_big",
                        pg_name="shop_bench_1_big")
        order = []
        with mock.patch.object(bench.datasets, "create", return_value=big) as create, \
                mock.patch.object(bench.datasets, "seed",
                                  side_effect=lambda *a: order.append("seed") or {"rows": 1}), \
                mock.patch.object(bench.datasets, "create_key", return_value="k"), \
                mock.patch.object(bench.datasets, "settle", return_value=0.1), \
                mock.patch.object(bench.datasets, "psql") as psql, \
                mock.patch.object(bench.datasets, "drop_all") as drop_all, \
                mock.patch.object(bench.replica, "wait_replayed",
                                  side_effect=lambda *a: order.append(("wait", a))
                                  or {"lsn": "0/1", "seconds": 0.5}), \
                mock.patch.object(bench, "measure_replica",
                                  side_effect=lambda *a: order.append("measure")
                                  or {"products": "p"}) as measure, \
                mock.patch("builtins.print"):
            measured = bench.bench_replica(settings, pair)
        create.assert_called_once_with("postgres", "big", settings)
        self.assertEqual(order, ["seed", ("wait", (
            big.url, "postgres://postgres@127.0.0.1:5434/shop_bench_1_big", 600)), "measure"])
        psql.assert_called_once_with("postgres://postgres@127.0.0.1:5434/shop_bench_1_big",
                                     "CHECKPOINT")
        measure.assert_called_once_with(settings, pair, big, "k")
        drop_all.assert_called_once()
        self.assertEqual(measured["replica"]["pages"], {"products": "p"})
        self.assertEqual(measured["replica"]["catch_up"], {"lsn": "0/1", "seconds": 0.5})
        self.assertEqual(set(measured), {"seed", "settle_s", "replica"})

    def test_the_servers_must_answer_the_same_rows(self):
        answers = {4001: [{"id": "p-1"}], 4002: [{"id": "p-1"}]}

        def api(port, _key):
            client = mock.Mock()
            client.get_json.side_effect = lambda path: {"data": answers[port],
                                                        "pageInfo": {"syncedAt": port}}
            return client

        with mock.patch.object(bench, "Api", api):
            bench.same_first_pages({"replica": 4001, "primary": 4002}, "k")
            answers[4001] = []
            with self.assertRaises(Failure):
                bench.same_first_pages({"replica": 4001, "primary": 4002}, "k")
            answers[4002] = []
            with self.assertRaises(Failure, msg="an empty page measures nothing"):
                bench.same_first_pages({"replica": 4001, "primary": 4002}, "k")


if __name__ == "__main__":
    unittest.main()
