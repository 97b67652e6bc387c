"""The site-crawl regime of bench.py: a cold mirror of a generated site of A album pages × P photos
(make_site.py), catalog-mirror against `wget2 --mirror`, side by side in the same run.

Both tools start at the site's index and must fetch the same set: every page (the index and the
A albums) and both renditions of every photo (the thumbnail `<img>` and the original it links to).
Each repetition gets a fresh output directory, the two tools alternate which goes first, and
`sync` runs before every timed run so nobody pays for the previous tool's write-back. Outputs are
deleted only when the whole benchmark is done (outputs.py: on this VM's ext4, creating files right
after deleting thousands charges the next run with someone else's deletions).
"""
import collections
import hashlib
import os
import pathlib
import statistics
import subprocess
import sys

import outputs

HERE = pathlib.Path(__file__).resolve().parent
TOOLS = ["catalog-mirror", "wget2"]

NOTES = """How it runs (`python3 Benchmarks/bench.py --regime site`): `make_site.py` writes the site,
nginx serves it on 127.0.0.1 (bench.py's configuration), and each repetition mirrors it cold into
a fresh directory with

- `catalog-mirror sync http://127.0.0.1:18631/site/ --out DIR --quiet` (release build, defaults:
  8 pages and 8 images in flight, `--max-pages 2000`, `--max-depth 20`, directory scope)
- `wget2 --mirror --no-parent --page-requisites --max-threads=8 -q -nH -P DIR http://127.0.0.1:18631/site/`

the two alternating which goes first, `sync` before each. Wall time, CPU time (user + system)
and peak RSS come from `/usr/bin/time`; requests, pages, originals, thumbnails and other statuses
from nginx's access log for that run; "site images present" counts the site's JPEGs whose exact
bytes are somewhere in the tool's output (every file's bytes are distinct). Both tools also ask
for /robots.txt (a 404, the "not 200" column). "Files written" differ by design: wget2 copies the
site's 1,001 pages; catalog-mirror writes its own static site (album pages and its own index,
paginated as its template does) and `manifest.json`, and keeps its state under `.catalog-mirror/`
(not counted).
"""


def command(tool, binary, url, out):
    if tool == "catalog-mirror":
        # Defaults only: 8 pages and 8 images in flight, --max-pages 2000, --max-depth 20.
        return [binary, "sync", url, "--out", str(out), "--quiet"]
    # wget2 1.99: --no-parent is the negation of --parent; -p adds each page's <img>.
    return ["wget2", "--mirror", "--no-parent", "--page-requisites", "--max-threads=8", "-q", "-nH",
            "-P", str(out), url]


def log_counts(lines):
    """Requests, body bytes, pages, originals and thumbnails served (200), and other statuses."""
    counts = collections.Counter()
    for line in lines:
        _, status, body, uri = line.split()[:4]
        counts["requests"] += 1
        counts["body"] += int(body)
        if status != "200":
            counts["not 200"] += 1
        elif uri.endswith((".html", "/")):
            counts["pages"] += 1
        elif "/thumbs/" in uri:
            counts["thumbs"] += 1
        elif uri.endswith(".jpg"):
            counts["originals"] += 1
    return counts


def output_counts(out, expected):
    """Files written (the tool's own state excluded), of which HTML and JPEG, and how many of the
    site's images are there byte for byte."""
    files = html = jpeg = 0
    found = set()
    for root, dirs, names in os.walk(out):
        dirs[:] = [d for d in dirs if d != ".catalog-mirror"]
        for name in names:
            files += 1
            html += name.endswith(".html")
            if name.endswith((".jpg", ".jpeg")):
                jpeg += 1
                with open(os.path.join(root, name), "rb") as f:
                    found.add(hashlib.sha256(f.read()).digest())
    return files, html, jpeg, len(found & expected)


def run(binary, base, reps, albums, photos, nginx_class, timed, port):
    """Generate, serve and mirror the site; return (samples, site facts)."""
    work = base / f"site-{albums}x{photos}"
    outputs.set_aside(work / "out")
    work.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, str(HERE / "make_site.py"), str(work), "--albums", str(albums),
                    "--photos", str(photos)], check=True)
    site_root = work / "site"
    images = list(site_root.glob("albums/*/*.jpg")) + list(site_root.glob("albums/*/thumbs/*.jpg"))
    expected = {hashlib.sha256(p.read_bytes()).digest() for p in images}
    facts = {"pages": albums + 1, "images": len(images),
             "image MB": sum(p.stat().st_size for p in images) / 1e6,
             "html MB": sum(p.stat().st_size for p in site_root.rglob("*.html")) / 1e6}
    # nginx serves work/ so the start URL is /site/ and --no-parent / directory scope mean the same.
    nginx = nginx_class(work, work)
    url = f"http://127.0.0.1:{port}/site/"
    samples = collections.defaultdict(list)
    try:
        for rep in range(reps):
            for tool in (TOOLS if rep % 2 == 0 else TOOLS[::-1]):
                out = work / "out" / f"{tool}-{rep}"
                out.mkdir(parents=True)
                os.sync()
                load = os.getloadavg()[0]
                mark = nginx.mark()
                wall, cpu, rss, status = timed(command(tool, binary, url, out))
                with open(nginx.log, "rb") as f:
                    f.seek(mark)
                    served = log_counts(f.read().decode().splitlines())
                files, html, jpeg, current = output_counts(out, expected)
                row = {"wall": wall, "cpu": cpu, "rss": rss, "exit": status, "load": load, "files": files,
                       "html": html, "jpeg": jpeg, "current": current, **served}
                samples[tool].append(row)
                print(f"  site rep={rep + 1} {tool:14} {wall:7.2f}s cpu {cpu:6.2f}s rss {rss:6.1f}MB "
                      f"req {served['requests']} pages {served['pages']} originals {served['originals']} "
                      f"thumbs {served['thumbs']} not-200 {served['not 200']} files {files} "
                      f"images {current}/{len(expected)} exit {status} load {load:.2f}", file=sys.stderr)
    finally:
        nginx.stop()
        outputs.set_aside(work / "out")
    return samples, facts


def report(samples, facts, albums, photos, reps):
    def med(tool, field):
        return statistics.median(row[field] for row in samples[tool])

    n = facts["images"]
    lines = [f"### Site crawl: {albums:,} album pages × {photos} photos × 2 renditions (cold mirror, median of {reps} runs)",
             "",
             f"The site: {facts['pages']:,} HTML pages ({facts['html MB']:.1f} MB) and {n:,} JPEG files "
             f"({facts['image MB']:.1f} MB, {facts['image MB'] * 1e3 / max(n, 1):.1f} KB on average).",
             "",
             "| tool | wall s | CPU s | peak RSS MB | requests | pages fetched | originals | thumbnails | not 200 | files written (HTML, JPEG) | site images present | exit |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for tool in TOOLS:
        if tool not in samples:
            continue
        lines.append(f"| {tool} | {med(tool, 'wall'):.2f} | {med(tool, 'cpu'):.2f} | {med(tool, 'rss'):.1f} | "
                     f"{med(tool, 'requests'):.0f} | {med(tool, 'pages'):.0f} | {med(tool, 'originals'):.0f} | "
                     f"{med(tool, 'thumbs'):.0f} | {med(tool, 'not 200'):.0f} | {med(tool, 'files'):.0f} "
                     f"({med(tool, 'html'):.0f}, {med(tool, 'jpeg'):.0f}) | {med(tool, 'current'):.0f}/{n} | "
                     f"{med(tool, 'exit'):.0f} |")
    if "catalog-mirror" in samples and "wget2" in samples:
        ratio = {field: med("wget2", field) / med("catalog-mirror", field) for field in ("wall", "cpu", "rss")}
        lines += ["", "wget2 ÷ catalog-mirror (above 1: catalog-mirror is faster, or uses less): "
                      f"wall {ratio['wall']:.2f}, CPU {ratio['cpu']:.2f}, peak RSS {ratio['rss']:.2f}."]
    lines += ["", "Every run (load = 1-minute load average just before it):", "",
              "| rep | tool | wall s | CPU s | peak RSS MB | load |", "|---|---|---|---|---|---|"]
    for rep in range(reps):
        for tool in TOOLS:
            if tool in samples and rep < len(samples[tool]):
                row = samples[tool][rep]
                lines.append(f"| {rep + 1} | {tool} | {row['wall']:.2f} | {row['cpu']:.2f} | {row['rss']:.1f} | "
                             f"{row['load']:.2f} |")
    return "\n".join(lines) + "\n"
