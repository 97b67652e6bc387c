"""The readers regime of bench.py: what reading one document of N photos costs, for every kind
of document catalog-mirror reads, at N = 10,000 and 100,000 by default, side by side with an RSS
feed of the same items in the same run.

Each document lists the same N photos (a display image and its thumbnail, a title, a price where
the format has a place for one). catalog-mirror syncs it with every image excluded
(`--exclude '**'`), so nothing is downloaded: the time is the reader's and the validation
chain's, plus the process's start-up and the one request for the document. The run ends with
exit 3 ("nothing to mirror"), as it must, and its one line says how many image URLs it found,
which must be the document's.
"""
import collections
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

import outputs

FORMATS = ["rss", "atom", "html", "script", "sitemap", "json-feed", "json-listing"]
LABELS = {
    "rss": "RSS 2.0 (`enclosure` + `media:thumbnail`)",
    "atom": "Atom 1.0 (`link rel=enclosure` + `media:thumbnail`)",
    "html": "HTML page (`<a href><img src></a>`)",
    "script": "script data (`<script>var photos = [...]`)",
    "sitemap": "image sitemap (`image:loc`)",
    "json-feed": "JSON Feed 1.1 (`image` + `attachments`)",
    "json-listing": "JSON listing (`url`, `thumbnail`, `title`, `price`)",
}
# Image URLs per photo in each format (the sitemap has no thumbnail).
URLS_PER_PHOTO = {name: 1 if name == "sitemap" else 2 for name in FORMATS}
SUFFIX = {"rss": "rss", "atom": "atom", "html": "html", "script": "html", "sitemap": "xml", "json-feed": "json",
          "json-listing": "json"}
# Targets (issue 28): CPU growth for 10× the photos (linear, with room for caches), a JSON
# listing's CPU against the RSS feed's, an HTML page's memory a photo.
MAX_GROWTH = 12.0
MAX_LISTING_OVER_RSS = 1.5
MAX_HTML_KB_A_PHOTO = 2.0

NOTES = """How it runs (`python3 Benchmarks/bench.py --regime readers`): `readers_regime.py` writes each
document once under the work directory (`readers/site/<format>-<N>.<ext>`), nginx serves them on
127.0.0.1 (bench.py's configuration), and for each repetition, format and size (every size of
a format back to back, formats alternating within a repetition, so a slow moment of the
machine falls on the pair it measures and on all formats alike):

    catalog-mirror sync http://127.0.0.1:18631/readers/<format>-<N>.<ext> --out DIR --exclude '**' --quiet --report R

CPU is user + system time from `/usr/bin/time`, start-up and the document's request included
(about 0.05 s). "× RSS" is the format's CPU over the RSS feed's at the same N; "growth" is the
median over the repetitions of the CPU at the largest N over the CPU at the smallest in the
same repetition (the two run back to back). "keys" is the number of image URLs the run's
exit-3 line says it found (every one `excluded`): the document's image URLs, each once.
"""


def photo(i):
    return {"url": f"img/p{i:06d}.jpg", "thumb": f"thumbs/p{i:06d}.jpg", "title": f"Photo number {i}",
            "price": f"{10 + i % 90}.{i % 100:02d}"}


def write(path, n, kind):
    """The document of `kind` listing photos 0..n-1."""
    with open(path, "w", encoding="utf-8") as f:
        if kind == "rss":
            f.write('<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0" '
                    'xmlns:media="http://search.yahoo.com/mrss/"><channel><title>Readers</title>'
                    '<link>http://127.0.0.1/readers/</link>\n')
            for i in range(n):
                p = photo(i)
                f.write(f'<item><title>{p["title"]}</title><enclosure url="{p["url"]}" type="image/jpeg" '
                        f'length="1000"/><media:thumbnail url="{p["thumb"]}"/></item>\n')
            f.write("</channel></rss>\n")
        elif kind == "atom":
            f.write('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom" '
                    'xmlns:media="http://search.yahoo.com/mrss/"><title>Readers</title><id>urn:readers</id>'
                    '<updated>2026-11-26T00:00:00Z</updated>\n')
            for i in range(n):
                p = photo(i)
                f.write(f'<entry><title>{p["title"]}</title><id>urn:p{i}</id><updated>2026-11-26T00:00:00Z</updated>'
                        f'<link rel="enclosure" href="{p["url"]}" type="image/jpeg" length="1000"/>'
                        f'<media:thumbnail url="{p["thumb"]}"/></entry>\n')
            f.write("</feed>\n")
        elif kind == "html":
            f.write("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Readers</title></head><body>\n")
            for i in range(n):
                p = photo(i)
                f.write(f'<a href="{p["url"]}"><img src="{p["thumb"]}" alt="{p["title"]}"></a>\n')
            f.write("</body></html>\n")
        elif kind == "script":
            f.write("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Readers</title></head><body>\n"
                    "<div id=\"gallery\"></div><script>\nvar photos = [\n")
            for i in range(n):
                p = photo(i)
                f.write(f'  {{url: "{p["url"]}", thumbnail: "{p["thumb"]}", title: "{p["title"]}", '
                        f'price: "{p["price"]}"}},\n')
            f.write("];\nshow(document.getElementById('gallery'), photos);\n</script></body></html>\n")
        elif kind == "sitemap":
            f.write('<?xml version="1.0" encoding="utf-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
                    'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n')
            for i in range(n):
                p = photo(i)
                f.write(f'<url><loc>http://127.0.0.1/readers/p{i:06d}.html</loc><image:image>'
                        f'<image:loc>{p["url"]}</image:loc><image:title>{p["title"]}</image:title>'
                        f'</image:image></url>\n')
            f.write("</urlset>\n")
        elif kind == "json-feed":
            items = [{"id": f"p{i}", "title": photo(i)["title"], "image": photo(i)["thumb"],
                      "attachments": [{"url": photo(i)["url"], "mime_type": "image/jpeg"}]} for i in range(n)]
            json.dump({"version": "https://jsonfeed.org/version/1.1", "title": "Readers", "items": items}, f, indent=1)
        elif kind == "json-listing":
            records = [{"url": photo(i)["url"], "thumbnail": photo(i)["thumb"], "title": photo(i)["title"],
                        "price": photo(i)["price"]} for i in range(n)]
            json.dump(records, f, indent=1)
        else:
            raise ValueError(kind)


def prepare(root, sizes):
    (root / "readers").mkdir(parents=True, exist_ok=True)
    for n in sizes:
        for kind in FORMATS:
            path = root / "readers" / f"{kind}-{n}.{SUFFIX[kind]}"
            if not path.exists():
                write(path, n, kind)


def timed_with_stderr(command):
    """Wall s, CPU s, peak RSS MB, exit status and standard error of `command` (/usr/bin/time)."""
    with tempfile.NamedTemporaryFile("r", prefix="readers-time-", suffix=".txt") as timing:
        result = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", timing.name, *command],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall, user, system, rss = timing.read().split()[-4:]
    return float(wall), float(user) + float(system), int(rss) / 1024, result.returncode, result.stderr


def run(binary, base, reps, sizes, nginx_class, timed, port):
    """Write (once), serve and read every document at each size; return (samples, facts)."""
    work = base / "readers"
    root = work / "site"
    prepare(root, sizes)
    samples = collections.defaultdict(list)
    facts = {(n, kind): (root / "readers" / f"{kind}-{n}.{SUFFIX[kind]}").stat().st_size
             for n in sizes for kind in FORMATS}
    nginx = nginx_class(work, root)
    try:
        # Each repetition reads every format at every size back to back, so a size's run and
        # the next size's run of the same format meet the same moment of the machine: growth is
        # the median of these pairs' ratios, as farm-bench pairs its commands.
        for rep in range(reps):
            for kind in FORMATS:
                for n in sizes:
                    out = work / "out" / f"{kind}-{n}-{rep}"
                    url = f"http://127.0.0.1:{port}/readers/{kind}-{n}.{SUFFIX[kind]}"
                    load = os.getloadavg()[0]
                    wall, cpu, rss, status, said = timed_with_stderr(
                        [binary, "sync", url, "--out", str(out), "--exclude", "**", "--quiet"])
                    found = re.search(r"none of the ([0-9,]+) image URLs", said)
                    keys = int(found.group(1).replace(",", "")) if found else -1
                    outputs.set_aside(out)
                    samples[(n, kind)].append({"wall": wall, "cpu": cpu, "rss": rss, "exit": status, "keys": keys,
                                               "load": load})
                    print(f"  readers n={n} rep={rep + 1} {kind:13} cpu {cpu:6.2f}s wall {wall:6.2f}s "
                          f"rss {rss:6.1f}MB keys {keys} exit {status} load {load:.2f}", file=sys.stderr)
    finally:
        nginx.stop()
    return samples, facts


def report(samples, facts, sizes, reps):
    def med(n, kind, field):
        return statistics.median(row[field] for row in samples[(n, kind)])

    small, large = min(sizes), max(sizes)
    lines = [f"### One document of N photos, every image excluded (median of {reps} runs)", "",
             "| format | " + " | ".join(f"CPU s, N = {n:,}" for n in sizes) + f" | growth {small:,} → {large:,} "
             f"| × RSS at {large:,} | peak RSS MB at {large:,} | KB a photo | keys at {large:,} | exit |",
             "|---|" + "---|" * len(sizes) + "---|---|---|---|---|---|"]
    failures = []
    for kind in FORMATS:
        growth = statistics.median(big["cpu"] / max(little["cpu"], 1e-9)
                                   for big, little in zip(samples[(large, kind)], samples[(small, kind)]))
        ratio = med(large, kind, "cpu") / max(med(large, "rss", "cpu"), 1e-9)
        rss = med(large, kind, "rss")
        per_photo = (rss - med(small, kind, "rss")) * 1024 / (large - small)
        keys = med(large, kind, "keys")
        expected = large * URLS_PER_PHOTO[kind]
        lines.append(f"| {LABELS[kind]} | " + " | ".join(f"{med(n, kind, 'cpu'):.2f}" for n in sizes)
                     + f" | {growth:.1f}× | {ratio:.2f} | {rss:.1f} | {per_photo:.2f} | {keys:,.0f} "
                     f"| {med(large, kind, 'exit'):.0f} |")
        if growth > MAX_GROWTH:
            failures.append(f"{kind}: CPU grew {growth:.1f}× for {large // small}× the photos (target ≤ {MAX_GROWTH:g}×)")
        if kind == "json-listing" and ratio > MAX_LISTING_OVER_RSS:
            failures.append(f"json-listing: {ratio:.2f}× the RSS feed's CPU (target ≤ {MAX_LISTING_OVER_RSS:g}×)")
        if kind == "html" and per_photo > MAX_HTML_KB_A_PHOTO:
            failures.append(f"html: {per_photo:.2f} KB of peak memory a photo (target ≤ {MAX_HTML_KB_A_PHOTO:g})")
        if keys != expected:
            failures.append(f"{kind}: {keys:,.0f} keys at N = {large:,}, expected {expected:,}")
    lines += ["", "Document sizes:", "", "| format | " + " | ".join(f"N = {n:,}" for n in sizes) + " |",
              "|---|" + "---|" * len(sizes)]
    for kind in FORMATS:
        lines.append(f"| {kind} | " + " | ".join(f"{facts[(n, kind)] / 1e6:.1f} MB" for n in sizes) + " |")
    lines += ["", "KB a photo: (peak RSS at the largest N − peak RSS at the smallest) / the difference in photos.", ""]
    lines += ["Targets: " + ("all met (growth ≤ 12× for every format, JSON listing ≤ 1.5× RSS, HTML ≤ 2 KB a photo, "
                             "every key found)." if not failures
                             else "not met: " + "; ".join(failures) + "."), ""]
    lines += ["Every run (load = 1-minute load average just before it):", "",
              "| N | format | rep | CPU s | wall s | peak RSS MB | keys | exit | load |",
              "|---|---|---|---|---|---|---|---|---|"]
    for n in sizes:
        for kind in FORMATS:
            for rep, row in enumerate(samples[(n, kind)]):
                lines.append(f"| {n:,} | {kind} | {rep + 1} | {row['cpu']:.2f} | {row['wall']:.2f} | {row['rss']:.1f} "
                             f"| {row['keys']} | {row['exit']} | {row['load']:.2f} |")
    return "\n".join(lines) + "\n"
