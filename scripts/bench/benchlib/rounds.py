"""A throughput ratio with a target, measured in alternated rounds: the API and its ceiling one
right after the other, the API first in even rounds and the ceiling first in odd ones.

A machine's speed can drift by tens of percent within minutes (docs/PERFORMANCE.md, "A machine
that drifts"): one run of each side let a slow minute on one side decide a target. As the
flat-with-size ratios do (benchlib/latency.py), the ratio that decides is the median of the
rounds' own ratios (benchlib/targets.py)."""


def alternate(ceiling, first, api_rate, ceiling_rate, rounds):
    """`first` is round 0's (API rate, ceiling rate), measured already (API first); the calls
    `api_rate()` and `ceiling_rate()` measure one more run of a side (warmed up already) and
    return its rate. Returns the entry's "ratio_rounds": which ceiling, and each side's rate per
    round, in round order."""
    api, reference = [first[0]], [first[1]]
    for round_ in range(1, rounds):
        if round_ % 2 == 0:
            api.append(api_rate())
            reference.append(ceiling_rate())
        else:
            reference.append(ceiling_rate())
            api.append(api_rate())
    return {"ceiling": ceiling, "api": api, "reference": reference}


def ratios(entry, ceiling):
    """The rounds' API / ceiling ratios of `entry` for `ceiling`, in round order; empty when
    the entry has no rounds for it (one run, or older results)."""
    measured = entry.get("ratio_rounds")
    if not measured or measured["ceiling"] != ceiling:
        return []
    return [a / r for a, r in zip(measured["api"], measured["reference"]) if r]
