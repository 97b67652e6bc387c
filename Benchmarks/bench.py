#!/usr/bin/env python3
"""catalog-mirror side by side with wget, wget2, httrack and aria2c, on one synthetic gallery
served by nginx on 127.0.0.1, in the same run on the same machine.

    python3 Benchmarks/bench.py [--sizes 2000 10000] [--reps 3] [--tools ...]
    python3 Benchmarks/bench.py --regime catalog [--sizes 2000 10000]
    python3 Benchmarks/bench.py --regime site [--site-albums 1000 --site-photos 20]
    python3 Benchmarks/bench.py --regime catalog --binary NEW --baseline OLD [--photos DIR]

For each size: generate the gallery (make_gallery.py), start nginx with its own config, then for
each tool and repetition, in a fresh directory: a cold mirror, a no-op re-sync, and a re-sync
after 1 % of the images changed. Wall time, CPU time and peak RSS come from /usr/bin/time;
requests and body bytes from nginx's access log; completeness from the content hashes of what
the tool wrote. The machine's limits: wrk against nginx, and a plain copy of the files.

Regimes (--regime; results in Benchmarks/results/, Benchmarks/README.md describes each):
  parser    extraction throughput against xmllint                       parser.md
  gallery   the N-image gallery over HTTP/1.1, five tools               N-<size>.md
  https     the same over HTTPS with HTTP/2                             https-N-<size>.md
  delay     the same through 20 ms added round-trip time                delay-<ms>ms-N-<size>.md
  catalog   the gallery with its pages advertising the JSON listing beside the RSS feed (the
            site, its feed and its API each list every photo), N = 2,000 and 10,000:
            catalog-mirror against wget2, aria2c as the download floor  catalog-N-<size>.md
  site      a cold crawl of 1,000 album pages x 20 photos against wget2 site-<albums>x<photos>.md
  feed      one RSS feed of N small images against aria2c -i, wget2 -i   feed.md
  readers   one document of N photos in each format the tool reads      readers.md
"""
import argparse
import hashlib
import os
import pathlib
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import floors
import outputs

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent
PORT = 18631
# The port the tools (and wrk) connect to: nginx's, or the delaying proxy's in the delay regime.
CLIENT = {"port": PORT, "delay_ms": 0}
PHASES = ["cold", "no-op", "1%"]
# Set by --https: nginx speaks TLS with HTTP/2 (ALPN) on PORT, with a certificate for 127.0.0.1
# signed by a CA made for the run; every tool trusts that CA and nothing else.
TLS = {"on": False, "ca": None, "cert": None, "key": None}
# The protocols nginx logged for each tool's requests (HTTP/1.1, HTTP/2.0), per size.
PROTOCOLS = {}


def scheme():
    return "https" if TLS["on"] else "http"


def make_certificates(work):
    """A CA and a server certificate for IP 127.0.0.1, made with openssl for this run."""
    work.mkdir(parents=True, exist_ok=True)
    ca_key, ca, key, csr, cert = (work / n for n in ("ca.key", "ca.pem", "server.key", "server.csr", "server.pem"))
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    sh(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
        str(ca_key), "-out", str(ca), "-days", "2", "-subj", "/CN=catalog-mirror bench CA"], **quiet)
    sh(["openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", str(key),
        "-out", str(csr), "-subj", "/CN=127.0.0.1"], **quiet)
    extensions = work / "san.ext"
    extensions.write_text("subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")
    sh(["openssl", "x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial",
        "-out", str(cert), "-days", "2", "-extfile", str(extensions)], **quiet)
    TLS.update(on=True, ca=str(ca), cert=str(cert), key=str(key))


def sh(command, **kwargs):
    return subprocess.run(command, check=True, **kwargs)


def ensure_tools():
    needed = {"nginx": "nginx-light", "wget": "wget", "wget2": "wget2", "httrack": "httrack", "aria2c": "aria2",
              "wrk": "wrk", "xmllint": "libxml2-utils"}
    missing = [package for binary, package in needed.items() if shutil.which(binary) is None]
    if not os.path.exists("/usr/bin/time"):
        missing.append("time")
    if missing:
        print(f"installing {' '.join(missing)}", file=sys.stderr)
        sh(["apt-get", "install", "-y", "-q", *missing], env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
           stdout=subprocess.DEVNULL)
    try:
        import PIL  # noqa: F401
    except ImportError:
        sh([sys.executable, "-m", "pip", "install", "-q", "pillow"])


# The build the README installs: the Swift runtime and Foundation linked in. Loading them as
# shared libraries cost a no-op resync at N = 2,000 about 6 % more CPU (relocations at start-up).
RELEASE = ["swift", "build", "-c", "release", "--static-swift-stdlib"]


def build_catalog_mirror():
    for product in ("catalog-mirror", "extract-throughput"):
        sh([*RELEASE, "--product", product], cwd=REPO, stdout=subprocess.DEVNULL)
    path = subprocess.run([*RELEASE, "--show-bin-path"], cwd=REPO, check=True,
                          capture_output=True, text=True).stdout.strip()
    return os.path.join(path, "catalog-mirror")


class Nginx:
    def __init__(self, work, site):
        self.work = work
        self.log = work / "access.log"
        conf = work / "nginx.conf"
        conf.write_text(f"""
worker_processes 2;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log;
events {{ worker_connections 1024; }}
http {{
    types {{ text/html html; application/rss+xml rss; application/json json; application/atom+xml atom; application/xml xml; image/png png; image/jpeg jpg; }}
    log_format bench '$request_method $status $body_bytes_sent $uri $server_protocol';
    access_log {self.log} bench;
    sendfile on; tcp_nopush on; keepalive_requests 1000000; etag on;
    {self.server(site)}
}}
""")
        (work / "temp").mkdir(exist_ok=True)
        sh(["nginx", "-c", str(conf), "-p", str(work / "temp"), "-g", "daemon on;"], stderr=subprocess.DEVNULL)
        time.sleep(0.3)

    @staticmethod
    def server(site):
        if not TLS["on"]:
            return f"server {{ listen 127.0.0.1:{PORT}; root {site}; }}"
        return (f"server {{ listen 127.0.0.1:{PORT} ssl http2; ssl_certificate {TLS['cert']}; "
                f"ssl_certificate_key {TLS['key']}; ssl_session_cache shared:bench:1m; root {site}; }}")

    def mark(self):
        return self.log.stat().st_size if self.log.exists() else 0

    def since(self, offset):
        with open(self.log, "rb") as f:
            f.seek(offset)
            lines = f.read().decode().splitlines()
        requests = len(lines)
        body = sum(int(line.split()[2]) for line in lines)
        full_images = sum(1 for line in lines if line.split()[1] == "200" and "/img/" in line)
        self.protocols = {line.split()[4] for line in lines if len(line.split()) > 4}
        return requests, body, full_images

    def stop(self):
        pid = (self.work / "nginx.pid").read_text().strip()
        os.kill(int(pid), 3)  # SIGQUIT: graceful stop
        time.sleep(0.3)


def commands(tool, phase, out, binaries, work):
    """The command line of `tool` in `phase`; `binaries` maps catalog-mirror (and BASELINE, when a
    second revision is timed beside it) to its executable."""
    url = f"{scheme()}://127.0.0.1:{CLIENT['port']}/gallery/"
    ca = TLS["ca"]
    if tool in binaries:
        binary = binaries[tool]
        if phase == "cold":
            trust = ["--ca-certificate", ca] if ca else []
            return [binary, "sync", url, "--out", str(out), "--quiet", "--concurrency", "8", *trust]
        return [binary, "sync", "--out", str(out), "--quiet"]
    if tool == "wget":
        return ["wget", "--mirror", "-q", "-np", "-nH", "-P", str(out), *([f"--ca-certificate={ca}"] if ca else []), url]
    if tool == "wget2":
        return ["wget2", "--mirror", "--max-threads=8", "-q", "-np", "-nH", "-P", str(out),
                *([f"--ca-certificate={ca}", "--http2"] if ca else []), url]
    if tool == "httrack":
        # Without these httrack throttles itself to about one connection a second.
        base = ["httrack", url, "-O", str(out), "-q", "-c8", "--connection-per-second=0", "--max-rate=0",
                "--disable-security-limits", "-s0"]
        return base if phase == "cold" else base + ["--update"]
    if tool == "aria2c":
        return ["aria2c", "-j", "8", "-i", str(work / "urls.txt"), *([f"--ca-certificate={ca}"] if ca else []), "-d", str(out), "-q", "--auto-file-renaming=false",
                "--allow-overwrite=true", "--conditional-get=true", "--file-allocation=none", "--remote-time=true"]
    raise ValueError(tool)


def timed(command):
    with tempfile.NamedTemporaryFile("r", prefix="bench-time-", suffix=".txt") as timing:
        result = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", timing.name, *command],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall, user, system, rss = timing.read().split()[-4:]
    return float(wall), float(user) + float(system), int(rss) / 1024, result.returncode


def hashes(directory):
    found = set()
    for root, _, files in os.walk(directory):
        if ".catalog-mirror" in root:
            continue
        for name in files:
            with open(os.path.join(root, name), "rb") as f:
                found.add(hashlib.sha256(f.read()).hexdigest())
    return found


def expected_hashes(site):
    return {hashlib.sha256(p.read_bytes()).hexdigest() for p in (site / "gallery" / "img").iterdir()}


def machine():
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    memory = next((line.split()[1] for line in open("/proc/meminfo") if line.startswith("MemTotal")), "0")
    versions = []
    for command in (["wget", "--version"], ["wget2", "--version"], ["httrack", "--version"], ["aria2c", "--version"],
                    ["nginx", "-v"], ["swift", "--version"]):
        try:
            result = subprocess.run(command, capture_output=True, text=True, timeout=20)
            versions.append((result.stdout + result.stderr).strip().splitlines()[0])
        except Exception:  # a missing tool is reported as such
            versions.append(f"{command[0]}: not available")
    return (f"{platform.node()}: {os.cpu_count()} cores ({cpu}), {int(memory) // 1024} MB memory, "
            f"Linux {platform.release()}"), versions


# A tool whose first repetition took longer than this (all three phases) is not repeated:
# httrack's re-syncs take minutes at N = 10,000 and do not change the verdict.
SLOW_SECONDS = 120

# A second catalog-mirror binary (another revision, `--baseline`) timed beside the first.
BASELINE = "catalog-mirror (baseline)"


def rep_order(tools, rep):
    """The tools in the order rep `rep` runs them: catalog-mirror and BASELINE swap places every
    other rep (A B, B A, ...), so neither always runs right after the other."""
    if rep % 2 == 0 or BASELINE not in tools or "catalog-mirror" not in tools:
        return tools
    a, b = tools.index("catalog-mirror"), tools.index(BASELINE)
    order = list(tools)
    order[a], order[b] = order[b], order[a]
    return order


def run_size(n, reps, tools, binaries, base, shape=(), photos=None):
    """The three phases of every tool at size n; `shape` is passed to make_gallery.py (the catalog
    regime's `--json-link`), `photos` too (`--photos DIR`: real photographs instead of noise)."""
    photo_args = ["--photos", str(photos)] if photos else []
    work = base / ((f"n{n}" if not shape else f"catalog-n{n}") + ("-photos" if photos else ""))
    site = work / "site"
    outputs.set_aside(work / "out")
    site.mkdir(parents=True, exist_ok=True)
    sh([sys.executable, str(HERE / "make_gallery.py"), str(site), str(n), *shape, *photo_args], stdout=subprocess.DEVNULL)
    urls = (site / "urls.txt").read_text().replace("PORT", str(CLIENT["port"]))
    (work / "urls.txt").write_text(urls.replace("http://", "https://") if TLS["on"] else urls)
    expected = expected_hashes(site)
    nginx = Nginx(work, site)
    samples = {}
    PROTOCOLS.clear()
    try:
        slow = set()
        for rep in range(reps):
            for tool in rep_order(tools, rep):
                if tool in slow:
                    continue
                # A fresh directory per run, and nothing deleted until the whole benchmark is
                # done (outputs.py: on ext4 without a journal, creating files right after
                # deleting thousands charged whichever tool ran next with seconds not its own).
                out = work / "out" / f"{'catalog-mirror-baseline' if tool == BASELINE else tool}-{rep}"
                out.mkdir(parents=True)
                started = time.time()
                for phase in PHASES:
                    if phase == "1%":
                        sh([sys.executable, str(HERE / "make_gallery.py"), str(site), str(n), "--mutate", *photo_args])
                    mark = nginx.mark()
                    wall, cpu, rss, status = timed(commands(tool, phase, out, binaries, work))
                    requests, body, full_images = nginx.since(mark)
                    PROTOCOLS.setdefault(tool, set()).update(nginx.protocols)
                    current = expected_hashes(site)
                    complete = len(current & hashes(out))
                    samples.setdefault((tool, phase), []).append((wall, cpu, rss, requests, body, full_images, complete, status))
                    print(f"  n={n} rep={rep + 1} {tool:14} {phase:6} {wall:7.2f}s cpu {cpu:6.2f}s rss {rss:6.1f}MB "
                          f"req {requests:6} body {body / 1e6:7.1f}MB images {complete}/{n} exit {status}", file=sys.stderr)
                    if phase == "1%":
                        sh([sys.executable, str(HERE / "make_gallery.py"), str(site), str(n), "--restore", *photo_args])
                if time.time() - started > SLOW_SECONDS:
                    slow.add(tool)
        images = sorted((site / "gallery" / "img").iterdir())
        floor = floors.measure(images, "/gallery/img/", f"{scheme()}://127.0.0.1:{CLIENT['port']}/", work, reps,
                               copy_dir=site / "gallery" / "img")
        floor["delay_ms"] = CLIENT["delay_ms"]  # the report is written after the proxy is gone
    finally:
        nginx.stop()
        outputs.set_aside(work / "out")
    total_mb = sum(p.stat().st_size for p in (site / "gallery" / "img").iterdir()) / 1e6
    return samples, floor, total_mb, len(expected)


def floor_seconds(floor, phase):
    """The floors a phase is set against: (cp -r or None, wrk) seconds. A cold mirror against the
    copy and N full GETs; a re-sync against N conditional GETs (all 304)."""
    if phase == "cold":
        return floor.get("cp"), floor["get"][1]
    return None, floor["304"][1]


def floor_lines(n, floor, total_mb, median):
    count, get, get_rate, get_errors = floor["get"]
    _, conditional, conditional_rate, conditional_errors = floor["304"]
    where = f"through the {floor['delay_ms']:g} ms delay" if floor.get("delay_ms") else ""
    lines = ["", f"Floors in the same run (median of {floor.get('reps', 1)} for the copy): "
                 f"`cp -r` of the {n} image files ({total_mb:.1f} MB, page cache warm) "
                 f"{floor['cp']:.2f} s; `wrk` (2 threads, 8 connections{', ' + where if where else ''}) "
                 f"{n} GETs, each image once, in {get:.2f} s ({get_rate:.0f} requests/s, "
                 f"{total_mb / get if get else 0:.0f} MB/s), {n} conditional GETs (If-None-Match, all 304) "
                 f"in {conditional:.2f} s ({conditional_rate:.0f} requests/s)"
                 + (f"; non-2xx/3xx: {get_errors} and {conditional_errors}" if get_errors or conditional_errors else "")
                 + "."]
    ours = {phase: median.get(("catalog-mirror", phase)) for phase in PHASES}
    ratios = []
    for phase in PHASES:
        if not ours[phase]:
            continue
        copy, requests = floor_seconds(floor, phase)
        wall = ours[phase][0]
        parts = []
        if copy:
            parts.append(f"{wall / copy:.1f}× `cp -r`")
        if requests:
            parts.append(f"{wall / requests:.1f}× wrk {'GET' if phase == 'cold' else '304'}")
        ratios.append(f"{phase} {', '.join(parts)}")
    if ratios:
        lines += ["", "catalog-mirror's wall time over each floor (1.0 would be the floor itself): "
                      + "; ".join(ratios) + "."]
    return lines


def report(n, samples, floor, total_mb, tools, reps):
    median = {key: [statistics.median(values) for values in zip(*rows)] for key, rows in samples.items()}
    single = sorted({tool for (tool, _), rows in samples.items() if len(rows) < reps})
    note = f"; {', '.join(single)}: one run (over {SLOW_SECONDS} s)" if single else ""
    lines = [f"### N = {n} images, {total_mb:.1f} MB (median of {reps} runs each{note})", "",
             "| tool | phase | wall s | CPU s | peak RSS MB | requests | body MB | full image bodies | images current | exit "
             "| catalog-mirror is × faster | ÷ `cp -r` | ÷ wrk |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for phase in PHASES:
        ours = median.get(("catalog-mirror", phase))
        for tool in tools:
            row = median.get((tool, phase))
            if not row:
                continue
            wall, cpu, rss, requests, body, full, complete, status = row
            ratio = f"{wall / ours[0]:.2f}" if ours and tool != "catalog-mirror" and ours[0] > 0 else "—"
            copy, requests_floor = floor_seconds(floor, phase)
            over_copy = f"{wall / copy:.1f}" if copy else "—"
            over_wrk = f"{wall / requests_floor:.1f}" if requests_floor else "—"
            lines.append(f"| {tool} | {phase} | {wall:.2f} | {cpu:.2f} | {rss:.1f} | {int(requests)} | {body / 1e6:.1f} | "
                         f"{int(full)} | {int(complete)}/{n} | {int(status)} | {ratio} | {over_copy} | {over_wrk} |")
    used = "; ".join(f"{tool}: {', '.join(sorted(PROTOCOLS.get(tool, ()))) or '?'}" for tool in tools)
    lines += ["", f"Protocols nginx logged for each tool's requests: {used}."]
    lines += floor_lines(n, floor, total_mb, median) + paired_lines(samples) + [""]
    return "\n".join(lines)


def paired_lines(samples):
    """With a baseline: catalog-mirror over its baseline, rep by rep (each rep runs both, one right
    after the other), as the median and range of those ratios for wall and CPU time."""
    rows = []
    for phase in PHASES:
        ours, theirs = samples.get(("catalog-mirror", phase)), samples.get((BASELINE, phase))
        if not ours or not theirs:
            continue
        cells = []
        for column in (0, 1):
            ratios = sorted(a[column] / b[column] for a, b in zip(ours, theirs) if b[column] > 0)
            cells.append(f"{statistics.median(ratios):.3f} ({ratios[0]:.3f}–{ratios[-1]:.3f})" if ratios else "—")
        rows.append(f"| {phase} | {len(ours)} | {cells[0]} | {cells[1]} |")
    if not rows:
        return []
    return ["", "catalog-mirror over its baseline, rep by rep (below 1: the binary timed is faster), median "
                "(min–max) of the reps' ratios:", "",
            "| phase | pairs | wall | CPU |", "|---|---|---|---|", *rows]


def parser_files(directory):
    """A 100,000-item RSS feed and a 5 MB HTML page, both shaped like the gallery's."""
    directory.mkdir(parents=True, exist_ok=True)
    feed = directory / "feed-100k.rss"
    with open(feed, "w") as f:
        f.write('<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0" '
                'xmlns:media="http://search.yahoo.com/mrss/"><channel><title>Parser bench</title>\n')
        for i in range(100_000):
            f.write(f'<item><title>Image {i} &amp; frame</title><link>http://127.0.0.1/gallery/p/{i}</link>'
                    f'<description>Catalog entry {i}, price {i % 500}.99</description>'
                    f'<enclosure url="img/image-{i}.jpg" length="{40000 + i % 9000}" type="image/jpeg"/>'
                    f'<media:content url="img/image-{i}.jpg" medium="image" width="800" height="600"/></item>\n')
        f.write("</channel></rss>\n")
    page = directory / "page-5mb.html"
    with open(page, "w") as f:
        f.write('<!DOCTYPE html><html><head><meta charset="utf-8"><title>Parser bench</title></head><body>\n')
        i = 0
        while f.tell() < 5_000_000:
            # HTML 4 elements only, so xmllint's HTML parser has nothing to complain about.
            f.write(f'<div class="item"><a href="p/{i}.html"><img src="img/image-{i}.jpg" '
                    f'srcset="img/image-{i}-2x.jpg 2x" alt="Image {i}" width="400" height="300"></a>'
                    f'<p class="caption">Image {i} <span class="price">{i % 500}.99</span></p></div>\n')
            i += 1
        f.write("</body></html>\n")
    return feed, page


def parser_row(base, binary, reps):
    """Extraction throughput against xmllint on the same files (median wall time of `reps`)."""
    feed, page = parser_files(base / "parser")
    extract = os.path.join(os.path.dirname(binary), "extract-throughput")
    runs = [
        ("RSS, 100,000 items", feed, [extract, "feed", str(feed)],
         [("xmllint --noout", ["xmllint", "--noout", str(feed)]),
          ("xmllint --stream --noout", ["xmllint", "--stream", "--noout", str(feed)])]),
        ("HTML, 5 MB", page, [extract, "html", str(page)],
         [("xmllint --html --noout", ["xmllint", "--html", "--noout", str(page)])]),
    ]

    def wall(command):
        samples = []
        for _ in range(reps):
            started = time.perf_counter()
            result = subprocess.run(command, capture_output=True, text=True)
            samples.append(time.perf_counter() - started)
        return statistics.median(samples), result.stdout.strip()

    lines = ["### Parser throughput (median of {} runs; each a whole process, start-up included)".format(reps), "",
             "| file | MB | catalog-mirror extraction | keys | peer | peer time | catalog-mirror's throughput ÷ peer's |",
             "|---|---|---|---|---|---|---|"]
    for name, path, ours, peers in runs:
        size = path.stat().st_size / 1e6
        our_time, found = wall(ours)
        for peer, command in peers:
            peer_time, _ = wall(command)
            lines.append(f"| {name} | {size:.1f} | {our_time:.3f} s ({size / our_time:.0f} MB/s) | {found} | {peer} | "
                         f"{peer_time:.3f} s ({size / peer_time:.0f} MB/s) | {peer_time / our_time:.2f} |")
            print(lines[-1], file=sys.stderr)
    return "\n".join(lines) + "\n"


REGIMES = ["parser", "gallery", "https", "delay", "catalog", "site", "feed", "readers"]
ALL_TOOLS = ["catalog-mirror", "wget", "wget2", "httrack", "aria2c"]
DEFAULT_SIZES = {"gallery": [2000, 10000], "https": [2000], "delay": [10000], "catalog": [2000, 10000],
                 "feed": [10000, 50000, 100000], "readers": [10000, 100000]}
DEFAULT_TOOLS = {"gallery": ALL_TOOLS, "https": ALL_TOOLS, "delay": ["catalog-mirror", "wget2"],
                 "catalog": ["catalog-mirror", "wget2", "aria2c"]}


class DelayProxy:
    """delay_proxy.py between the tools and nginx for the delay regime, started and stopped by PID."""

    def __init__(self, delay_ms, work):
        self.port = PORT + 1
        self.log = open(work / "delay-proxy.log", "w")
        self.process = subprocess.Popen(
            [sys.executable, str(HERE / "delay_proxy.py"), "--listen", f"127.0.0.1:{self.port}",
             "--target", f"127.0.0.1:{PORT}", "--delay-ms", str(delay_ms)], stdout=self.log, stderr=self.log)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("the delaying proxy did not start (see delay-proxy.log)")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def gallery_regime(regime, sizes, reps, tools, binaries, base, results, header, delay_ms, photos=None):
    """The gallery's three phases for each size: plain HTTP/1.1, HTTPS with HTTP/2, HTTP/1.1
    through the delaying proxy, or the catalog shape (pages, RSS feed and JSON listing each list
    every photo). Writes results/N-<n>.md, https-N-<n>.md, delay-<ms>ms-N-<n>.md or
    catalog-N-<n>.md."""
    if regime == "https":
        make_certificates(base / "tls")
    try:
        for n in sizes:
            proxy = None
            if regime == "delay":
                proxy = DelayProxy(delay_ms, base)
                CLIENT.update(port=proxy.port, delay_ms=delay_ms)
            try:
                shape = ["--json-link"] if regime == "catalog" else []
                samples, floor, total_mb, _ = run_size(n, reps, tools, binaries, base, shape, photos)
            finally:
                if proxy:
                    proxy.stop()
                CLIENT.update(port=PORT, delay_ms=0)
            table = report(n, samples, floor, total_mb, tools, reps)
            print(table)
            name, title, notes = {
                "gallery": (f"N-{n}", f"N = {n}", ""),
                "https": (f"https-N-{n}", f"HTTPS with HTTP/2, N = {n}", ""),
                "delay": (f"delay-{delay_ms:g}ms-N-{n}", f"{delay_ms:g} ms added round-trip time, N = {n}",
                          DELAY_NOTES.format(half=f"{delay_ms / 2:g}", port=PORT + 1)),
                "catalog": (f"catalog-N-{n}", f"pages, RSS feed and JSON listing, N = {n}", CATALOG_NOTES),
            }[regime]
            if photos:
                name, title = name.replace("N-", "photos-N-"), f"{title}, photographs from {photos}"
            (results / f"{name}.md").write_text(f"# Benchmark, {title}\n\n" + header + table + "\n" + notes)
    finally:
        TLS["on"] = False


DELAY_NOTES = """How the delay is made: this VM's kernel has no `sch_netem` (nor `fq`), so `tc qdisc ... netem`
on a veth pair is not available; `delay_proxy.py` (asyncio, a separate process) sits between the
tools and nginx (127.0.0.1:{port}) and holds every chunk {half} ms in each direction, and a new
connection's first bytes one extra round trip (the handshake). No loss, no slow start, no bandwidth
limit beyond a 4 MB window per connection and direction. The wrk floor goes through the same proxy,
so it is what 8 connections with one request in flight each can do at this round-trip time.
"""


CATALOG_NOTES = """The shape: the gallery regime's site (HTML pages of 100 images each, linked by `rel="next"`,
`feed.rss` with an enclosure per image, `images.json` with a record per image), its pages
advertising both the feed and the listing (`<link rel="alternate" type="application/rss+xml">`
and `type="application/json"`), as a site with a feed and an API does: every photo is listed
three times, once by a page, once by the feed, once by the listing. catalog-mirror reads all
three (each key once); wget2 follows the pages' links (the feed and the listing are documents
to it, not lists of images); aria2c gets the image URLs in advance (no crawl: the download floor).
"""


def main():
    global PORT
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+",
                        help="image counts for every sized regime chosen (defaults: gallery 2000 10000, "
                             "https 2000, delay 10000, catalog 2000 10000, feed 10000 50000 100000)")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--tools", nargs="+", choices=ALL_TOOLS,
                        help="tools of the gallery regimes (default: all five; delay: catalog-mirror wget2; "
                             "catalog: catalog-mirror wget2 aria2c)")
    parser.add_argument("--work", default="/tmp/catalog-mirror-bench")
    parser.add_argument("--port", type=int, default=PORT,
                        help="nginx's port on 127.0.0.1 (the delaying proxy takes the next one)")
    parser.add_argument("--results", default=str(HERE / "results"), help="where the results files go")
    parser.add_argument("--no-parser", action="store_true", help="skip the parser-throughput row")
    parser.add_argument("--regime", nargs="+", choices=REGIMES, default=["parser", "gallery", "site"],
                        help="what to run: parser throughput, the N-image gallery (--sizes) over HTTP, over HTTPS "
                             "with HTTP/2, through a delayed link, as a catalog (pages, feed and JSON listing), the "
                             "site crawl, the N-item feed, every reader")
    parser.add_argument("--all", action="store_true", help="every regime in turn, each writing its results file")
    parser.add_argument("--binary", help="a catalog-mirror binary to time instead of building release")
    parser.add_argument("--baseline", help="feed and gallery regimes: a second catalog-mirror binary (another "
                                           "revision) timed beside the first, rep by rep")
    parser.add_argument("--photos", help="gallery regimes: the images are copies of this folder's JPEG photographs "
                                         "(make_gallery.py --photos) instead of noise")
    parser.add_argument("--site-albums", type=int, default=1000, help="album pages of the site regime")
    parser.add_argument("--site-photos", type=int, default=20, help="photos per album of the site regime")
    parser.add_argument("--https", action="store_true",
                        help="the gallery regime over HTTPS with HTTP/2 (same as --regime https)")
    parser.add_argument("--delay-ms", type=float,
                        help="added round-trip time of the delay regime (default 20; given alone, the gallery "
                             "regime runs delayed, as --regime delay)")
    args = parser.parse_args()
    PORT = args.port
    CLIENT["port"] = PORT
    regimes = list(REGIMES) if args.all else list(dict.fromkeys(args.regime))
    for flag, replacement in (("https", args.https), ("delay", args.delay_ms is not None)):
        if replacement and "gallery" in regimes:
            regimes[regimes.index("gallery")] = flag
    if args.no_parser and "parser" in regimes:
        regimes.remove("parser")
    regimes = list(dict.fromkeys(regimes))
    ensure_tools()
    binary = args.binary or build_catalog_mirror()
    base = pathlib.Path(args.work)
    base.mkdir(parents=True, exist_ok=True)
    description, versions = machine()
    results = pathlib.Path(args.results)
    results.mkdir(parents=True, exist_ok=True)

    def header():
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        return (f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. {description}; load average "
                f"{load} at the start (the 2 cores are shared with other builds: compare rows of one run, "
                f"side by side, not across files)\n\n" + "".join(f"- {v}\n" for v in versions) + "\n")

    failed = []
    for regime in regimes:
        print(f"== regime {regime}", file=sys.stderr)
        sizes = args.sizes or DEFAULT_SIZES.get(regime)
        if regime == "parser":
            table = parser_row(base, binary, max(3, args.reps))
            print(table)
            (results / "parser.md").write_text("# Parser throughput\n\n" + header() + table)
        elif regime in ("gallery", "https", "delay", "catalog"):
            tools = list(args.tools or DEFAULT_TOOLS[regime])
            if args.baseline and BASELINE not in tools:
                tools.insert(tools.index("catalog-mirror") + 1 if "catalog-mirror" in tools else 0, BASELINE)
            binaries = {"catalog-mirror": binary, **({BASELINE: args.baseline} if args.baseline else {})}
            gallery_regime(regime, sizes, args.reps, tools, binaries, base, results, header(), args.delay_ms or 20.0,
                           args.photos)
        elif regime == "site":
            import site_regime
            albums, photos = args.site_albums, args.site_photos
            samples, facts = site_regime.run(binary, base, args.reps, albums, photos, Nginx, timed, PORT)
            table = site_regime.report(samples, facts, albums, photos, args.reps)
            print(table)
            (results / f"site-{albums}x{photos}.md").write_text(
                f"# Benchmark, site crawl {albums} × {photos}\n\n" + header() + table + "\n" + site_regime.NOTES)
        elif regime == "feed":
            import feed_regime
            samples, facts = feed_regime.run(binary, base, args.reps, sizes, Nginx, timed, PORT, args.tools,
                                             args.baseline)
            table = feed_regime.report(samples, facts, sizes, args.reps)
            print(table)
            (results / "feed.md").write_text("# Benchmark, one feed of N small images\n\n" + header() + table
                                             + "\n" + feed_regime.NOTES)
            # A phase that grows faster than its photos fails the benchmark (issue 46).
            failed += feed_regime.growth_failures(samples, sizes)
        elif regime == "readers":
            import readers_regime
            samples, facts = readers_regime.run(binary, base, args.reps, sizes, Nginx, timed, PORT)
            table = readers_regime.report(samples, facts, sizes, args.reps)
            print(table)
            (results / "readers.md").write_text("# Benchmark, every reader at N photos\n\n" + header() + table
                                                + "\n" + readers_regime.NOTES)
    # Every output waited in the trash until nothing more was timed (outputs.py).
    outputs.empty_trash(base)
    if failed:
        print("bench: " + "; ".join(failed), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
