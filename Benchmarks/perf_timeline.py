#!/usr/bin/env python3
"""Where a run's time goes, in time order: `perf script` samples bucketed by wall-time window
and by the first stage named on each sample's stack (catalog-profile.md, "After (5)").

    perf record -F 1999 -g -o run.data catalog-mirror sync --out DIR --quiet
    perf script -i run.data -F comm,tid,time,ip,sym | swift demangle --simplified > run.txt
    python3 Benchmarks/perf_timeline.py run.txt [--window 0.1] [--stages A,B,...]

Each line: the window's start, its samples (at 1999 Hz, 200 in 0.1 s is one busy core), the
threads seen, and the stages with the most samples. A sample counts for the first stage, in
the order given, found anywhere on its stack; "other" when none is.
"""
import argparse
import collections

STAGES = ("PageStream,JSONReader,FeedStream,Collector,ImageLoader,DiskStorage,StateDatabase,"
          "PipelinedClient,PipelineHandler,RequestWrites,PublishPlan,PhotoGroups,PreviousManifest,"
          "Manifest,PageFingerprints,MirrorPublisher,SearchIndex,HTTPSession,Crawler,MirrorEngine")


def samples(path):
    current = None
    with open(path, errors="replace") as lines:
        for line in lines:
            if not line.strip():
                if current:
                    yield current
                current = None
            elif not line.startswith((" ", "\t")):
                fields = line.split()
                current = {"tid": fields[1], "time": float(fields[2].rstrip(":")), "stack": []}
            elif current is not None:
                parts = line.strip().split(None, 1)
                current["stack"].append(parts[1] if len(parts) > 1 else "?")
    if current:
        yield current


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("script", help="perf script output, demangled")
    parser.add_argument("--window", type=float, default=0.1, help="seconds a line (default 0.1)")
    parser.add_argument("--stages", default=STAGES, help="comma-separated names looked for on each stack")
    arguments = parser.parse_args()
    stages = arguments.stages.split(",")
    all_samples = list(samples(arguments.script))
    if not all_samples:
        raise SystemExit(f"no samples in {arguments.script}")
    start = min(sample["time"] for sample in all_samples)
    counts = collections.defaultdict(collections.Counter)
    threads = collections.defaultdict(set)
    for sample in all_samples:
        window = int((sample["time"] - start) / arguments.window)
        stage = next((name for frame in sample["stack"] for name in stages if name in frame), "other")
        counts[window][stage] += 1
        threads[window].add(sample["tid"])
    for window in sorted(counts):
        total = sum(counts[window].values())
        top = ", ".join(f"{name}:{count}" for name, count in counts[window].most_common(5))
        print(f"{window * arguments.window:5.2f}s n={total:4d} threads={len(threads[window])} {top}")


if __name__ == "__main__":
    main()
