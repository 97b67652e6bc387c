"""The feed regime of bench.py: one RSS feed listing N small images (a few hundred bytes each),
catalog-mirror syncing the feed URL against `aria2c -i` and `wget2 -i` on the same URL list,
side by side in the same run, at N = 10,000, 50,000 and 100,000 by default.

The images are tiny so the run is about per-item cost and memory, not bytes. They are written
once (valid PNGs of noise, 8-12 pixels square, every file's bytes distinct) under the work
directory and reused by later runs; each size's feed lists the first N of them. Phases: a cold
mirror into a fresh directory, then a no-op re-sync of it. Wall time, CPU time (user + system)
and peak RSS come from /usr/bin/time; requests and statuses from nginx's access log.
"""
import collections
import hashlib
import os
import random
import statistics
import struct
import sys
import time
import zlib

import floors
import outputs

TOOLS = ["catalog-mirror", "aria2c", "wget2"]
# Every phase linear, and kept so (issue 46): the feed's photos are one album, published whole
# (its pages, the search index, the manifest), so a phase whose CPU grows faster than the
# photos has a term that is not linear in them. For 10x the photos, at most 12x the CPU.
MAX_GROWTH_PER_TENFOLD = 12.0
PHASES = ["cold", "no-op"]
# A tool whose first repetition (both phases) took longer than this is not repeated.
SLOW_SECONDS = 120

NOTES = """How it runs (`python3 Benchmarks/bench.py --regime feed`): the images and feeds are written
once under the work directory (`feed/img/000000.png` ..., `feed/feed-<N>.rss`, `urls-<N>.txt`),
nginx serves them on 127.0.0.1 (bench.py's configuration, HTTP/1.1 keep-alive), and each tool
mirrors N images cold into a fresh directory, then re-syncs it with nothing changed:

- `catalog-mirror sync http://127.0.0.1:18631/feed/feed-<N>.rss --out DIR --quiet` (release
  build, defaults: 8 images in flight, 8 connections per host), then `catalog-mirror sync --out DIR --quiet`
- `aria2c -j 8 -i urls-<N>.txt -d DIR -q --conditional-get=true --allow-overwrite=true
  --auto-file-renaming=false --file-allocation=none --remote-time=true --auto-save-interval=0`
  (8 downloads in flight, one connection each; the same command re-syncs). Without
  `--auto-save-interval=0` aria2c writes, fsyncs and deletes a `.aria2` resume file for every
  download (3 fsyncs per image), which made it 5-10× slower here: that is durability a one-shot
  list download does not need, so it is turned off.
- `wget2 -q --max-threads=8 -N -i urls-<N>.txt -P DIR` (8 threads; `-N` makes the re-sync
  conditional)

aria2c and wget2 are given the list of image URLs; catalog-mirror reads them from the feed
(one more request) and also writes its static site and `manifest.json`. "Images present" counts
the first N images whose exact bytes are somewhere in the output. The wrk floor is N GETs of the
same images (2 threads, 8 connections, each image once), and N conditional GETs (all 304) for the
re-sync. Memory per item: the difference of catalog-mirror's peak RSS between the largest and
the smallest N, over the difference of N.
"""


def png(index):
    """A valid PNG of noise, 8-12 pixels square, distinct for every index."""
    rng = random.Random(index * 104729 + 17)
    side = 8 + index % 5
    raw = b"".join(b"\0" + rng.randbytes(side * 3) for _ in range(side))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b""))


def prepare(root, sizes):
    """Images 0..max(sizes)-1 (written once, kept), a feed and a URL list per size."""
    images = root / "feed" / "img"
    images.mkdir(parents=True, exist_ok=True)
    largest = max(sizes)
    marker = root / "feed" / f".made-{largest}"
    if not marker.exists():
        print(f"  feed: writing {largest} images under {images}", file=sys.stderr)
        for index in range(largest):
            (images / f"{index:06d}.png").write_bytes(png(index))
        marker.touch()
    for n in sizes:
        feed = root / "feed" / f"feed-{n}.rss"
        if not feed.exists():
            with open(feed, "w") as f:
                f.write('<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel>'
                        f"<title>Feed bench, {n} images</title><link>http://127.0.0.1/feed/</link>\n")
                for index in range(n):
                    f.write(f"<item><title>Image {index}</title><enclosure url=\"img/{index:06d}.png\" "
                            f"length=\"{(images / f'{index:06d}.png').stat().st_size}\" type=\"image/png\"/></item>\n")
                f.write("</channel></rss>\n")
        urls = root / f"urls-{n}.txt"
        if not urls.exists():
            urls.write_text("".join(f"http://127.0.0.1:PORT/feed/img/{index:06d}.png\n" for index in range(n)))
    return images


def command(tool, phase, binary, port, n, root, out):
    if tool.startswith("catalog-mirror"):
        if phase == "cold":
            return [binary, "sync", f"http://127.0.0.1:{port}/feed/feed-{n}.rss", "--out", str(out), "--quiet"]
        return [binary, "sync", "--out", str(out), "--quiet"]
    urls = root / f"urls-{n}.port.txt"
    if tool == "aria2c":
        # --auto-save-interval=0: no resume file per download (aria2c otherwise writes, fsyncs and
        # deletes a .aria2 control file for each one: 3 fsyncs per item, 20 ms per file on this VM).
        return ["aria2c", "-j", "8", "-i", str(urls), "-d", str(out), "-q", "--auto-file-renaming=false",
                "--allow-overwrite=true", "--conditional-get=true", "--file-allocation=none", "--remote-time=true",
                "--auto-save-interval=0"]
    if tool == "wget2":
        return ["wget2", "-q", "--max-threads=8", "-N", "-i", str(urls), "-P", str(out)]
    raise ValueError(tool)


def present(out, expected):
    found = set()
    for directory, dirs, names in os.walk(out):
        dirs[:] = [d for d in dirs if d != ".catalog-mirror"]
        for name in names:
            if name.endswith(".png"):
                with open(os.path.join(directory, name), "rb") as f:
                    found.add(hashlib.sha256(f.read()).digest())
    return len(found & expected)


BASELINE = "catalog-mirror (baseline)"


def run(binary, base, reps, sizes, nginx_class, timed, port, tools=None, baseline=None):
    """Generate (once), serve and mirror the feed at each size; return (samples, facts).

    `tools` limits the tools timed (default: all of TOOLS); `baseline` is a second catalog-mirror
    binary (another revision) timed beside the first, rep by rep, as "catalog-mirror (baseline)".
    """
    chosen = [tool for tool in TOOLS if not tools or tool in tools]
    if baseline:
        chosen.insert(chosen.index("catalog-mirror") + 1 if "catalog-mirror" in chosen else 0, BASELINE)
    binaries = {"catalog-mirror": binary, BASELINE: baseline}
    work = base / "feed"
    root = work / "site"
    images = prepare(root, sizes)
    samples = collections.defaultdict(list)
    facts = {}
    nginx = nginx_class(work, root)
    try:
        for n in sizes:
            (root / f"urls-{n}.port.txt").write_text((root / f"urls-{n}.txt").read_text().replace("PORT", str(port)))
            files = [images / f"{index:06d}.png" for index in range(n)]
            expected = {hashlib.sha256(p.read_bytes()).digest() for p in files}
            facts[n] = {"bytes": sum(p.stat().st_size for p in files),
                        "feed bytes": (root / "feed" / f"feed-{n}.rss").stat().st_size}
            outputs.set_aside(work / "out")
            slow = set()
            for rep in range(reps):
                for tool in chosen:
                    if tool in slow:
                        continue
                    out = work / "out" / f"{n}-{tool.replace(' ', '-').strip('()')}-{rep}"
                    out.mkdir(parents=True)
                    started = time.time()
                    for phase in PHASES:
                        os.sync()
                        load = os.getloadavg()[0]
                        mark = nginx.mark()
                        wall, cpu, rss, status = timed(command(tool, phase, binaries.get(tool), port, n, root, out))
                        with open(nginx.log, "rb") as f:
                            f.seek(mark)
                            statuses = collections.Counter(line.split()[1] for line in f.read().decode().splitlines())
                        count = present(out, expected)
                        samples[(n, tool, phase)].append(
                            {"wall": wall, "cpu": cpu, "rss": rss, "exit": status, "load": load, "present": count,
                             "requests": sum(statuses.values()), "200": statuses["200"], "304": statuses["304"]})
                        print(f"  feed n={n} rep={rep + 1} {tool:14} {phase:6} {wall:7.2f}s cpu {cpu:6.2f}s "
                              f"rss {rss:6.1f}MB req {sum(statuses.values())} 200 {statuses['200']} "
                              f"304 {statuses['304']} images {count}/{n} exit {status} load {load:.2f}",
                              file=sys.stderr)
                    if time.time() - started > SLOW_SECONDS:
                        slow.add(tool)
            facts[n]["floor"] = floors.measure(files, "/feed/img/", f"http://127.0.0.1:{port}/", work, reps)
            outputs.set_aside(work / "out")
    finally:
        nginx.stop()
    return samples, facts


def growth(samples, small, large, tool, phase):
    """The median over repetitions of (CPU at `large`) / (CPU at `small`), rep by rep."""
    pairs = zip(samples[(large, tool, phase)], samples[(small, tool, phase)])
    return statistics.median(big["cpu"] / max(little["cpu"], 1e-9) for big, little in pairs)


def growth_failures(samples, sizes):
    """Each phase of catalog-mirror whose CPU grew more than 12x for 10x the photos (scaled to
    the sizes run), as one line each; empty when every phase is linear enough."""
    small, large = min(sizes), max(sizes)
    if large < 2 * small:
        return []
    allowed = MAX_GROWTH_PER_TENFOLD * (large / small) / 10
    failures = []
    for phase in PHASES:
        if samples.get((small, "catalog-mirror", phase)) and samples.get((large, "catalog-mirror", phase)):
            grew = growth(samples, small, large, "catalog-mirror", phase)
            if grew > allowed:
                failures.append(f"{phase}: CPU grew {grew:.1f}x for {large / small:g}x the photos "
                                f"(at most {allowed:.1f}x)")
    return failures


def growth_check(samples, sizes):
    """The lines of the report that say how each phase's CPU grew from the smallest N to the
    largest, against the target (`MAX_GROWTH_PER_TENFOLD`)."""
    small, large = min(sizes), max(sizes)
    if large < 2 * small:
        return []
    allowed = MAX_GROWTH_PER_TENFOLD * (large / small) / 10
    lines = ["", f"CPU growth from N = {small:,} to N = {large:,} ({large / small:g}x the photos, one album; "
             f"target: at most {allowed:.1f}x, 12x for 10x):", ""]
    for phase in PHASES:
        for tool in dict.fromkeys(tool for (_, tool, _) in samples):
            if samples.get((small, tool, phase)) and samples.get((large, tool, phase)):
                lines.append(f"- {tool}, {phase}: {growth(samples, small, large, tool, phase):.1f}x")
    failures = growth_failures(samples, sizes)
    lines += ["", "Growth target: " + ("met." if not failures else "NOT MET: " + "; ".join(failures) + ".")]
    return lines


def report(samples, facts, sizes, reps):
    TOOLS = list(dict.fromkeys(tool for (_, tool, _) in samples))

    def med(n, tool, phase, field):
        return statistics.median(row[field] for row in samples[(n, tool, phase)])

    lines = [f"### One RSS feed of N small images (median of up to {reps} runs; a tool whose first run "
             f"took over {SLOW_SECONDS} s ran once)", "",
             "| N | tool | phase | runs | wall s | CPU s | peak RSS MB | requests | 200 | 304 | images present | exit "
             "| catalog-mirror is × faster | ÷ wrk |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for n in sizes:
        floor = facts[n]["floor"]
        for phase in PHASES:
            ours = med(n, "catalog-mirror", phase, "wall") if samples.get((n, "catalog-mirror", phase)) else None
            wrk_seconds = floor["get" if phase == "cold" else "304"][1]
            for tool in TOOLS:
                if not samples.get((n, tool, phase)):
                    continue
                wall = med(n, tool, phase, "wall")
                ratio = f"{wall / ours:.2f}" if ours and tool != "catalog-mirror" else "—"
                lines.append(
                    f"| {n:,} | {tool} | {phase} | {len(samples[(n, tool, phase)])} | {wall:.2f} | "
                    f"{med(n, tool, phase, 'cpu'):.2f} | {med(n, tool, phase, 'rss'):.1f} | "
                    f"{med(n, tool, phase, 'requests'):.0f} | {med(n, tool, phase, '200'):.0f} | "
                    f"{med(n, tool, phase, '304'):.0f} | {med(n, tool, phase, 'present'):.0f}/{n} | "
                    f"{med(n, tool, phase, 'exit'):.0f} | {ratio} | {wall / wrk_seconds if wrk_seconds else 0:.1f} |")
    lines += ["", "Sizes and floors (wrk: 2 threads, 8 connections, each image once):", "",
              "| N | image bytes | feed MB | wrk N GETs s | requests/s | wrk N conditional GETs (304) s | requests/s |",
              "|---|---|---|---|---|---|---|"]
    for n in sizes:
        floor = facts[n]["floor"]
        lines.append(f"| {n:,} | {facts[n]['bytes'] / 1e6:.1f} MB ({facts[n]['bytes'] / n:.0f} B each) | "
                     f"{facts[n]['feed bytes'] / 1e6:.1f} | {floor['get'][1]:.2f} | {floor['get'][2]:.0f} | "
                     f"{floor['304'][1]:.2f} | {floor['304'][2]:.0f} |")
    if len(sizes) > 1:
        small, large = min(sizes), max(sizes)
        lines += [""]
        for phase in PHASES:
            for tool in TOOLS:
                if samples.get((small, tool, phase)) and samples.get((large, tool, phase)):
                    growth = (med(large, tool, phase, "rss") - med(small, tool, phase, "rss")) * 1024 * 1024 / (large - small)
                    lines.append(f"- {tool}, {phase}: peak RSS {med(small, tool, phase, 'rss'):.1f} MB at N = {small:,}, "
                                 f"{med(large, tool, phase, 'rss'):.1f} MB at N = {large:,}: "
                                 f"{growth:,.0f} bytes per item (RSS at {large:,} − RSS at {small:,}) / {large - small:,}.")
    lines += growth_check(samples, sizes)
    lines += ["", "Every run (load = 1-minute load average just before it):", "",
              "| N | tool | phase | rep | wall s | CPU s | peak RSS MB | load |", "|---|---|---|---|---|---|---|---|"]
    for n in sizes:
        for tool in TOOLS:
            for phase in PHASES:
                for rep, row in enumerate(samples.get((n, tool, phase), [])):
                    lines.append(f"| {n:,} | {tool} | {phase} | {rep + 1} | {row['wall']:.2f} | {row['cpu']:.2f} | "
                                 f"{row['rss']:.1f} | {row['load']:.2f} |")
    return "\n".join(lines) + "\n"
