"""The soak: mixed load for a long time while the server's resident memory is sampled."""

import time

from . import wrk


def _slope_per_minute(samples):
    """Least-squares slope of (seconds, MB) samples, in MB per minute."""
    n = len(samples)
    if n < 2:
        return 0.0
    mean_t = sum(t for t, _ in samples) / n
    mean_m = sum(m for _, m in samples) / n
    var = sum((t - mean_t) ** 2 for t, _ in samples)
    if var == 0:
        return 0.0
    cov = sum((t - mean_t) * (m - mean_m) for t, m in samples)
    return cov / var * 60


def _quarter_means(samples):
    quarter = max(len(samples) // 4, 1)
    first = [m for _, m in samples[:quarter]]
    last = [m for _, m in samples[-quarter:]]
    return sum(first) / len(first), sum(last) / len(last)


def run(server, load, settings):
    threads = min(settings.wrk_threads, settings.connections)
    started = time.monotonic()
    background = wrk.Background(load, settings.soak_s, settings.connections, threads)
    samples = []
    breakdown_start = server.memory_breakdown()
    try:
        next_sample = started
        while background.running():
            now = time.monotonic()
            if now >= next_sample:
                server.check_alive()
                rss_mb = server.memory_mb()["rss"]
                samples.append((round(now - started, 1), round(rss_mb, 2)))
                next_sample += settings.soak_sample_s
            time.sleep(0.2)
        result = background.result()
        breakdown_end = server.memory_breakdown()
    finally:
        background.kill()
    # The first minute (a fifth of a short soak) fills caches and buffers for the mixed load:
    # growth is judged on what follows.
    settle_s = min(60, settings.soak_s / 5)
    settled = [sample for sample in samples if sample[0] >= settle_s] or samples
    first_quarter, last_quarter = _quarter_means(settled)
    rss = [m for _, m in samples]
    print(
        f"  soak {settings.soak_s} s: {result.rps:.1f} req/s, RSS {rss[0]:.1f} -> {rss[-1]:.1f}"
        f" MB (max {max(rss):.1f}), {result.failed()} failed requests",
        flush=True,
    )
    return {
        "seconds": settings.soak_s,
        "load": result.to_json(),
        "failed_requests": result.failed(),
        "rss_start_mb": rss[0],
        "rss_end_mb": rss[-1],
        "rss_max_mb": max(rss),
        "settle_s": settle_s,
        "rss_first_quarter_mb": round(first_quarter, 2),
        "rss_last_quarter_mb": round(last_quarter, 2),
        "slope_mb_per_min": round(_slope_per_minute(settled), 4),
        "breakdown_start": breakdown_start,
        "breakdown_end": breakdown_end,
        "samples": samples,
    }
