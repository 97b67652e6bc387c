#!/usr/bin/env python3
"""A soak test of catalog-mirror's promises, as an operator would try them: syncs one after
another against a gallery that changes while they run, some killed with SIGKILL at a random
moment (weighted toward the publish step, where a short run is rarely caught), some with a
second sync started beside them (which the lock must refuse, exit 75), and a reader of the
mirror, served by a static web server, fetching every page and every image it names all the
while. After every sync, `catalog-mirror verify`; at the end, once the gallery has gone quiet,
a sync and an exact comparison of the mirror with the gallery.

    python3 Benchmarks/soak.py --binary .build/debug/catalog-mirror --seconds 100 --seed 38
    python3 Benchmarks/soak.py --binary .build/release/catalog-mirror --seconds 1800 --images 400 \\
        --results Benchmarks/results/soak.md

It counts what must never happen, and exits 1 when any count is not zero (0 when all are):
  missing  a served page names a file the web server does not have (asked again after the page
           is read again and still names it)
  partial  a served image that is not a complete PNG, or whose bytes are not what manifest.json
           says of its path
  lost     a file manifest.json names that is not there with its hash (verify, after every sync,
           killed or not); after a sync that finished, an image the gallery showed unchanged all
           through the sync that the new manifest lacks or has other bytes for
  stray    after a sync that finished: a file in images/ that manifest.json does not name, a file
           left in .catalog-mirror/staged/ or tmp/, an item of a key the gallery no longer had
           when the sync started; at the end, any difference from the gallery
It also fails when the run did not exercise what it is for (no sync killed, none refused by the
lock, none finished, nothing read). Everything random comes from --seed (printed first), so a
failure can be replayed with the same choices (the timing of a machine is not replayed).

The gallery (a Python web server on 127.0.0.1): a start page of albums and photos, album pages,
PNG photos of 2-30 KB with ETag and Last-Modified (304 to a matching conditional request).
Every 0.3-1.5 s (seeded) an image is added, replaced, moved to another album or another URL,
deleted or retitled; now and then the whole site answers 500 for a second or two, or one image
is cut short (its Content-Length promised, half the body sent, the connection closed).
Only the standard library is used.
"""
import argparse
import hashlib
import html
import http.server
import json
import os
import pathlib
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib

ALBUMS = 4


# --- PNG files ------------------------------------------------------------------------------


def make_png(rng, width, height):
    """A PNG of random pixels (incompressible: its size is about width x height x 3)."""

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + rng.randbytes(width * 3) for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 1)) + chunk(b"IEND", b"")


def png_problem(data):
    """None when `data` is a complete PNG (every chunk whole, its CRC right, IEND last)."""
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "not a PNG"
    offset = 8
    while True:
        if offset + 8 > len(data):
            return "cut short at %d of %d bytes" % (offset, len(data))
        length, kind = struct.unpack(">I4s", data[offset : offset + 8])
        end = offset + 12 + length
        if end > len(data):
            return "cut short in %s" % kind.decode("latin-1")
        if struct.unpack(">I", data[end - 4 : end])[0] != zlib.crc32(data[offset + 4 : end - 4]) & 0xFFFFFFFF:
            return "bad CRC in %s" % kind.decode("latin-1")
        offset = end
        if kind == b"IEND":
            return None if offset == len(data) else "bytes after IEND"


# --- the gallery ----------------------------------------------------------------------------


class Gallery:
    """The source's state; every change under the lock, each with a serial number."""

    def __init__(self, rng, count):
        self.lock = threading.Lock()
        self.rng = rng
        self.images = {}  # id -> {"bytes", "version", "album", "title", "etag", "modified"}
        self.next_id = 1
        self.outage = False
        self.cut = set()  # ids answered cut short
        self.serial = 0  # bumped by every change
        self.disturbed = {}  # id -> serial of the last start or end of an outage or cut of it
        self.lifetimes = {}  # id -> [serial it was added at, serial it was removed at or None]
        self.changes = {"add": 0, "replace": 0, "move-album": 0, "move-url": 0, "delete": 0, "retitle": 0,
                        "outage": 0, "cut": 0}
        for _ in range(count):
            self._add()

    def _png(self):
        # Wider than an icon (SPEC: an image at most 48 px on both sides is decoration).
        return make_png(self.rng, self.rng.randint(49, 96), self.rng.randint(24, 64))

    def _add(self, data=None, album=None, title=None):
        image_id = self.next_id
        self.next_id += 1
        self.lifetimes[image_id] = [self.serial, None]
        self.images[image_id] = {"bytes": data or self._png(), "version": 1,
                                 "album": self.rng.randint(0, ALBUMS) if album is None else album,
                                 "title": title or "Photo %d <&\"'> №%d" % (image_id, self.rng.randint(1, 99)),
                                 "modified": time.time()}
        return image_id

    def snapshot(self):
        """What the gallery shows now (key path -> sha256), the serial of that moment, and the
        paths answered with an error or cut short now."""
        with self.lock:
            shown = {self.path(i): hashlib.sha256(image["bytes"]).hexdigest() for i, image in self.images.items()}
            failing = set(shown) if self.outage else {self.path(i) for i in self.cut}
            return shown, self.serial, failing

    def shown_between(self, first, last):
        """The paths the gallery showed at some moment from serial `first` to serial `last`: an
        image added and deleted (or moved) while a sync ran may rightly be in its manifest."""
        with self.lock:
            return {self.path(i) for i, (added, removed) in self.lifetimes.items()
                    if added <= last and (removed is None or removed > first)}

    def disturbed_since(self, serial):
        """The paths whose outage or cut began or ended after `serial`."""
        with self.lock:
            return {self.path(i) for i, s in self.disturbed.items() if s > serial}

    def _disturb(self, ids):
        for image_id in ids:
            self.disturbed[image_id] = self.serial

    @staticmethod
    def path(image_id):
        return "/gallery/photos/%d.png" % image_id

    def mutate(self, count_floor):
        """One change, chosen by the seeded generator."""
        rng = self.rng
        with self.lock:
            self.serial += 1
            ids = sorted(self.images)
            action = rng.choices(["add", "replace", "move-album", "move-url", "delete", "retitle", "outage", "cut"],
                                 [22, 24, 10, 8, 18, 6, 4, 8])[0]
            if action == "delete" and len(ids) <= count_floor:
                action = "add"
            self.changes[action] += 1
            if action == "add":
                self._add()
            elif action == "replace":
                image = self.images[rng.choice(ids)]
                image["bytes"] = self._png()
                image["version"] += 1
                image["modified"] = max(time.time(), image["modified"] + 1)
            elif action == "move-album":
                # A sync that read the new album before the move and the old one after it did
                # not see the image at all: it is not counted against that sync.
                moved = rng.choice(ids)
                self.images[moved]["album"] = (self.images[moved]["album"] + rng.randint(1, ALBUMS)) % (ALBUMS + 1)
                self._disturb([moved])
            elif action == "move-url":
                old = rng.choice(ids)
                image = self.images.pop(old)
                self.lifetimes[old][1] = self.serial
                self._add(image["bytes"], image["album"], image["title"])
            elif action == "delete":
                deleted = rng.choice(ids)
                self.images.pop(deleted)
                self.lifetimes[deleted][1] = self.serial
            elif action == "retitle":
                self.images[rng.choice(ids)]["title"] += " (re)"
            elif action == "outage":
                self.outage = True
                self._disturb(ids)
                return rng.uniform(0.5, 2.0), lambda: self._end(outage=True)
            elif action == "cut":
                # New bytes, so the next sync asks for them without a validator that still
                # matches, and gets them cut short for a while.
                victim = rng.choice(ids)
                image = self.images[victim]
                image["bytes"] = self._png()
                image["version"] += 1
                image["modified"] = max(time.time(), image["modified"] + 1)
                self.cut.add(victim)
                self._disturb([victim])
                return rng.uniform(1.0, 4.0), lambda: self._end(cut=victim)
        return None

    def _end(self, outage=False, cut=None):
        with self.lock:
            self.serial += 1
            if outage:
                self.outage = False
                self._disturb(list(self.images))
            else:
                self.cut.discard(cut)
                self._disturb([cut])

    def quiet(self):
        with self.lock:
            self.serial += 1
            self.outage = False
            self._disturb(list(self.images))
            self.cut.clear()

    def page(self, album):
        with self.lock:
            photos = sorted((i, img) for i, img in self.images.items() if img["album"] == album)
            links = "".join('<li><a href="album-%d.html">Album %d</a></li>' % (a, a) for a in range(1, ALBUMS + 1)) \
                if album == 0 else '<p><a href="./">All albums</a></p>'
            cards = "".join('<figure><img src="photos/%d.png" alt="%s"><figcaption>%s</figcaption></figure>\n'
                            % (i, html.escape(img["title"]), html.escape(img["title"])) for i, img in photos)
        title = "Soak Gallery" if album == 0 else "Album %d" % album
        return ("<!doctype html><html><head><title>%s</title></head><body><h1>%s</h1><ul>%s</ul>%s</body></html>"
                % (title, title, links, cards)).encode()


def gallery_handler(gallery, requests):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send(self, status, body, kind, headers=()):
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            if kind:
                self.send_header("Content-Type", kind)
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def do_HEAD(self):
            self.do_GET()

        def do_GET(self):
            path = urllib.parse.urlsplit(self.path).path
            with gallery.lock:
                outage = gallery.outage
            requests["all"] += 1
            if outage:
                return self.send(500, b"outage", "text/plain")
            if path == "/robots.txt":
                return self.send(404, b"none", "text/plain")
            page = re.fullmatch(r"/gallery/(?:album-(\d+)\.html)?", path)
            if page:
                album = int(page.group(1) or 0)
                if album > ALBUMS:
                    return self.send(404, b"no such album", "text/plain")
                body = gallery.page(album)
                etag = '"%s"' % hashlib.sha256(body).hexdigest()[:16]
                if self.headers.get("If-None-Match") == etag:
                    return self.send(304, b"", None, [("ETag", etag)])
                return self.send(200, body, "text/html; charset=utf-8", [("ETag", etag)])
            photo = re.fullmatch(r"/gallery/photos/(\d+)\.png", path)
            if not photo:
                return self.send(404, b"not found", "text/plain")
            image_id = int(photo.group(1))
            with gallery.lock:
                image = gallery.images.get(image_id)
                cut = image_id in gallery.cut
                data = image and image["bytes"]
                modified = image and image["modified"]
            if image is None:
                return self.send(404, b"not found", "text/plain")
            etag = '"%s"' % hashlib.sha256(data).hexdigest()[:20]
            headers = [("ETag", etag), ("Last-Modified", self.date_time_string(modified))]
            if self.headers.get("If-None-Match") == etag:
                requests["304"] += 1
                return self.send(304, b"", None, headers)
            requests["200"] += 1
            requests["bytes"] += len(data)
            if cut and self.command == "GET":
                requests["cut"] += 1
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Content-Type", "image/png")
                self.end_headers()
                self.wfile.write(data[: len(data) // 2])
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(2)
                return
            return self.send(200, data, "image/png", headers)

    return Handler


# --- the reader -----------------------------------------------------------------------------


class Reader(threading.Thread):
    """Reads the served mirror as a browser would, round after round: manifest.json, every page
    reachable from index.html, and every file each page names."""

    def __init__(self, base, counts, problems):
        super().__init__(daemon=True)
        self.base = base
        self.counts = counts
        self.problems = problems
        self.stopping = threading.Event()

    def get(self, url):
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, b""

    def manifest(self):
        status, body = self.get(self.base + "manifest.json")
        if status != 200:
            return None
        try:
            return {item["path"]: item["sha256"] for item in json.loads(body)["items"]}
        except (ValueError, KeyError) as error:
            self.problem("partial", "manifest.json: %s" % error)
            return None

    def problem(self, kind, text):
        self.counts[kind] += 1
        if sum(1 for line in self.problems if line.startswith(kind + ": reader")) < 5:
            self.problems.append("%s: reader: %s" % (kind, text))

    def run(self):
        while not self.stopping.is_set():
            try:
                self.round()
            except (OSError, urllib.error.URLError) as error:
                self.problem("missing", "the web server failed: %s" % error)
            self.stopping.wait(0.05)

    def round(self):
        manifest = self.manifest()
        pages, seen, checked = [("index.html", None)], {"index.html"}, set()
        while pages:
            name, referrer = pages.pop()
            status, body = self.get(self.base + name)
            if status != 200:
                if referrer is not None:
                    self.recheck(referrer, name, name)
                continue
            self.counts["pages"] += 1
            text = body.decode("utf-8", "replace")
            references = re.findall(r'(?:src|href)="([^"#]+)', text)
            for srcset in re.findall(r'srcset="([^"]*)"', text):
                references += [part.split()[0] for part in srcset.split(",") if part.split()]
            for reference in references:
                target = urllib.parse.urljoin(self.base + name, html.unescape(reference))
                if not target.startswith(self.base):
                    continue
                relative = urllib.parse.unquote(target[len(self.base) :])
                if relative.endswith(".html"):
                    if relative not in seen:
                        seen.add(relative)
                        pages.append((relative, name))
                elif relative not in checked:
                    checked.add(relative)
                    manifest = self.check_file(name, relative, manifest)

    def check_file(self, page, relative, manifest):
        status, data = self.get(self.base + urllib.parse.quote(relative))
        if status != 200:
            self.recheck(page, relative, relative)
            return manifest
        if not relative.startswith("images/"):
            return manifest
        self.counts["images"] += 1
        problem = png_problem(data)
        if problem:
            self.problem("partial", "%s (named by %s): %s" % (relative, page, problem))
            return manifest
        digest = hashlib.sha256(data).hexdigest()
        if manifest is not None and relative in manifest and manifest[relative] != digest:
            # A file keeps its name only while its bytes stay the same: a manifest read since
            # the round began names it with the same hash, or something is wrong.
            manifest = self.manifest()
            if manifest is not None and relative in manifest and manifest[relative] != digest:
                self.problem("partial", "%s: sha256 %s, manifest.json says %s" % (relative, digest, manifest[relative]))
        return manifest

    def recheck(self, page, relative, what):
        """A file not served counts only if the page still names it when read again (a page
        replaced in between was not handed out with that reference any more)."""
        status, body = self.get(self.base + page)
        if status != 200:
            return
        text = urllib.parse.unquote(html.unescape(body.decode("utf-8", "replace")))
        if os.path.basename(relative) in text:
            self.problem("missing", "%s, named by %s, is not served" % (what, page))


class QuietServer(http.server.ThreadingHTTPServer):
    """A server that does not print a traceback when a client goes away mid-request (a killed
    sync, a reader that stops)."""

    daemon_threads = True

    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


def quiet_static_server(directory):
    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=directory, **kwargs)

        def log_message(self, *args):
            pass

    server = QuietServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# --- the syncs ------------------------------------------------------------------------------


def listing(folder):
    """The names in `folder`; none when it is not there."""
    try:
        return os.listdir(folder)
    except FileNotFoundError:
        return []


class Soak:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed + 1)
        self.work = pathlib.Path(tempfile.mkdtemp(prefix="catalog-mirror-soak-", dir=args.work))
        self.mirror = self.work / "mirror"
        self.counts = {key: 0 for key in ["missing", "partial", "lost", "stray", "pages", "images", "syncs",
                                          "finished", "killed", "killed-publish", "killed-late", "refused",
                                          "second-ran", "verify", "lock-broken", "hung"]}
        self.exits = {}
        self.problems = []
        self.requests = {"all": 0, "200": 0, "304": 0, "bytes": 0, "cut": 0}
        self.phases = None  # (publish start, publish end, wall time) of the last finished sync, from its start
        self.running = None  # the sync under way, killed if the soak itself is stopped

    def problem(self, kind, text):
        self.counts[kind] += 1
        # The first five of each kind are printed.
        if sum(1 for line in self.problems if line.startswith(kind + ":")) < 5:
            self.problems.append("%s: %s" % (kind, " / ".join(text.splitlines())))
        # The mirror as the first problems found it, for a look (kept with the work folder).
        snapshot = self.work / ("problem-%d" % self.counts["syncs"])
        if len(list(self.work.glob("problem-*"))) < 3 and not snapshot.exists():
            shutil.copytree(self.mirror, snapshot, symlinks=True, ignore_dangling_symlinks=True)

    def trace(self, line):
        with open(self.work / "trace.txt", "a") as out:
            out.write("%.3f sync %d: %s\n" % (time.monotonic(), self.counts["syncs"], line))

    def command(self, url):
        report = self.work / "report.json"
        return [self.args.binary, "sync", url, "--out", str(self.mirror), "--quiet", "--report", str(report)]

    def verify(self, after):
        if not (self.mirror / "manifest.json").exists():
            return
        self.counts["verify"] += 1
        run = subprocess.run([self.args.binary, "verify", "--out", str(self.mirror), "--quiet"],
                             capture_output=True, text=True)
        if run.returncode != 0:
            self.problem("lost", "verify after %s exited %d: %s" % (after, run.returncode, run.stderr.strip()[:200]))

    def check_at_rest(self, after):
        """What a web server would hand out now, with no sync running, to a reader who comes in
        through index.html: every file each page it reaches names is there (`missing`), and
        every image is a complete PNG (`partial`)."""
        pages, seen = ["index.html"], {"index.html"}
        while pages:
            page = pages.pop()
            try:
                text = (self.mirror / page).read_text()
            except OSError:
                if page != "index.html":
                    self.problem("missing", "after %s, the page %s is named and not there" % (after, page))
                continue
            references = re.findall(r'(?:src|href)="([^"#]+)', text)
            for srcset in re.findall(r'srcset="([^"]*)"', text):
                references += [part.split()[0] for part in srcset.split(",") if part.split()]
            for reference in set(references):
                target = os.path.normpath(os.path.join(os.path.dirname(page), urllib.parse.unquote(html.unescape(reference))))
                if target.startswith(".."):
                    continue
                if target.endswith(".html"):
                    if target not in seen:
                        seen.add(target)
                        pages.append(target)
                elif not (self.mirror / target).exists():
                    self.problem("missing", "after %s, %s names %s, which is not there" % (after, page, reference))
        images = self.mirror / "images"
        for name in os.listdir(images) if images.is_dir() else []:
            problem = png_problem((images / name).read_bytes())
            if problem:
                self.problem("partial", "after %s, images/%s: %s" % (after, name, problem))

    def manifest(self):
        try:
            return json.loads((self.mirror / "manifest.json").read_text())
        except (OSError, ValueError):
            return None

    def check_finished(self, start, end, kept):
        """What a sync that exited 0 or 1 must have done, against the gallery's snapshots at its
        start and end (`Gallery.snapshot`); `kept` is the last manifest's items (path -> sha256),
        which a sync keeps when the pages that showed them failed (the final sync, against a
        quiet gallery, must then drop every one the gallery no longer shows)."""
        manifest = self.manifest()
        if manifest is None:
            self.problem("lost", "a sync exited 0 or 1 and there is no manifest.json")
            return
        items = {urllib.parse.urlsplit(item["key"]).path: item for item in manifest["items"]}
        (shown_start, serial_start, failing_start), (shown_end, serial_end, failing_end) = start, end
        disturbed = failing_start | failing_end | self.gallery.disturbed_since(serial_start)
        for path, digest in shown_start.items():
            if shown_end.get(path) != digest or path in disturbed:
                continue
            item = items.get(path)
            if item is None or item["sha256"] != digest:
                self.problem("lost", "%s, unchanged at the source all through a sync, is %s"
                             % (path, "not in manifest.json" if item is None else "there with other bytes"))
        shown = self.gallery.shown_between(serial_start, serial_end)
        for path in items:
            if path not in shown and kept.get(path) != items[path]["sha256"]:
                self.problem("stray", "%s is in manifest.json, and the gallery showed no such image during the sync"
                             % path)
        named = {item["path"][len("images/"):] for item in manifest["items"]}
        for name in listing(self.mirror / "images"):
            if name not in named:
                self.problem("stray", "images/%s is not in manifest.json" % name)
        for folder in ["staged", "tmp"]:
            left = listing(self.mirror / ".catalog-mirror" / folder)
            if left:
                self.problem("stray", ".catalog-mirror/%s holds %d files after a sync that finished" % (folder, len(left)))

    def kill_plan(self):
        """When to kill, six times in ten in the publish step: as soon as a new image is in
        images/, a page is replaced or manifest.json is replaced (a sync with nothing new to
        publish then finishes), or at a time within the last finished sync's publish step; else
        at any time within a run as long as it. Returns (trigger, delay, aimed at publishing)."""
        wall = self.phases[2] if self.phases else 1.0
        if self.rng.random() < 0.6:
            trigger = self.rng.choice(["images", "pages", "manifest", "time"])
            if trigger != "time":
                return trigger, 0.0, True
            if self.phases:
                return "time", self.rng.uniform(self.phases[0] * 0.95, self.phases[1] + 0.01), True
        return "time", self.rng.uniform(0.0, wall), False

    def publishing_signs(self):
        """What changes when a sync publishes: the files in images/, the pages (by inode: each
        is replaced by a rename), manifest.json."""
        images = set(os.listdir(self.mirror / "images")) if (self.mirror / "images").is_dir() else set()
        pages = {}
        for folder in [self.mirror, self.mirror / "albums"]:
            for name in os.listdir(folder) if folder.is_dir() else []:
                if name.endswith(".html"):
                    try:
                        pages[name] = os.stat(folder / name).st_ino
                    except OSError:
                        pass
        try:
            manifest = os.stat(self.mirror / "manifest.json").st_ino
        except OSError:
            manifest = None
        return {"images": images, "pages": pages, "manifest": manifest}

    def reached(self, trigger, before):
        now = self.publishing_signs()
        if trigger == "images":
            return bool(now["images"] - before["images"])
        return now[trigger] != before[trigger]

    def holds_lock(self, pid):
        """Whether process `pid` holds the mirror's lock now (its flock, as /proc/locks lists it)."""
        try:
            inode = os.stat(self.mirror / ".catalog-mirror" / "lock").st_ino
            with open("/proc/locks") as locks:
                for line in locks:
                    fields = line.split()
                    # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"
                    if len(fields) >= 6 and fields[1] == "FLOCK" and fields[4] == str(pid) \
                            and fields[5].rsplit(":", 1)[-1] == str(inode):
                        return True
        except OSError:
            pass
        return False

    def sync_once(self, url):
        kill = self.rng.random() < 1 / 3
        second = not kill and self.rng.random() < 0.15
        start = self.gallery.snapshot()
        before = self.manifest()
        kept = {urllib.parse.urlsplit(item["key"]).path: item["sha256"] for item in (before or {}).get("items", [])}
        signs = self.publishing_signs()
        images_before = signs["images"]
        began = time.monotonic()
        process = subprocess.Popen(self.command(url), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.running = process
        self.counts["syncs"] += 1
        killed = aimed_publish = False
        if kill:
            trigger, delay, aimed_publish = self.kill_plan()
            while process.poll() is None:
                if trigger == "time" and time.monotonic() - began >= delay:
                    break
                if trigger != "time" and self.reached(trigger, signs):
                    break
                time.sleep(0.0005)
            if process.poll() is None:
                os.kill(process.pid, signal.SIGKILL)
                killed = True
            self.trace("kill at %s (%.3f s)%s" % (trigger, time.monotonic() - began, "" if killed else ": it had ended"))
        elif second:
            time.sleep(self.rng.uniform(0.0, 0.15))
            held_before = self.holds_lock(process.pid)
            other = subprocess.run(self.command(url), capture_output=True, text=True)
            # The first held the lock from before the second started to after it ended (it
            # takes it once and lets it go once): then the second must have been refused. A
            # first still starting (not yet at its lock) or already past it (writing its report)
            # when the second ran does not count: on a loaded machine both happen.
            held_throughout = held_before and self.holds_lock(process.pid)
            if other.returncode == 75:
                self.counts["refused"] += 1
            elif held_throughout:
                self.problem("lock-broken", "a second sync beside a running one exited %d: %s"
                             % (other.returncode, other.stderr.strip()[:200]))
            else:
                # The first had finished (or had not yet taken the lock, and is refused below).
                self.counts["second-ran"] += 1
        try:
            _, stderr = process.communicate(timeout=self.args.sync_timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            _, stderr = process.communicate()
            self.problem("hung", "a sync ran for more than %d s" % self.args.sync_timeout)
            return
        status = process.returncode
        end = self.gallery.snapshot()
        self.trace("exit %d after %.3f s %s" % (status, time.monotonic() - began, stderr.decode("utf-8", "replace").strip()[:200]))
        if killed and status == -signal.SIGKILL:
            self.counts["killed"] += 1
            if aimed_publish:
                self.counts["killed-publish"] += 1
            if self.publishing_signs()["images"] - images_before:
                self.counts["killed-late"] += 1
            self.check_at_rest("a kill")
            self.verify("a kill")
            return
        self.exits[status] = self.exits.get(status, 0) + 1
        if status == 75 and second:
            # The second sync took the lock first.
            self.counts["refused"] += 1
            return
        if status in (0, 1):
            self.counts["finished"] += 1
            try:
                # The report's phases count from the engine's start; the process started earlier
                # (loading the binary): that lead is the wall time the report does not cover.
                report = json.loads((self.work / "report.json").read_text())
                phases = report.get("phases") or {}
                wall = time.monotonic() - began
                lead = max(0.0, wall - report.get("durationSeconds", wall))
                self.phases = (lead + phases.get("fetch", 0.0), lead + phases.get("publish", wall - lead), wall)
            except (OSError, ValueError):
                pass
            self.check_finished(start, end, kept)
        elif status not in (3, 4):
            self.problem("lost", "a sync exited %d: %s" % (status, stderr.decode("utf-8", "replace").strip()[:300]))
        self.check_at_rest("exit %d" % status)
        self.verify("exit %d" % status)

    def final(self, url):
        """The gallery goes quiet; a sync (with every deletion allowed) must then make the mirror
        exactly the gallery, and a second one change nothing outside .catalog-mirror/."""
        self.gallery.quiet()
        shown, _, _ = self.gallery.snapshot()
        run = None
        for _ in range(3):
            run = subprocess.run(self.command(url) + ["--max-delete", "100%"], capture_output=True, text=True)
            if run.returncode == 0:
                break
        if run.returncode != 0:
            self.problem("stray", "the final sync exited %d: %s" % (run.returncode, run.stderr.strip()[:300]))
            return
        self.verify("the final sync")
        manifest = self.manifest() or {"items": []}
        items = {urllib.parse.urlsplit(item["key"]).path: item for item in manifest["items"]}
        for path, digest in shown.items():
            if path not in items:
                self.problem("lost", "at the end, %s is not in the mirror" % path)
            elif items[path]["sha256"] != digest:
                self.problem("lost", "at the end, %s has other bytes in the mirror" % path)
        for path in items:
            if path not in shown:
                self.problem("stray", "at the end, %s is in the mirror and not in the gallery" % path)
        named = {item["path"] for item in manifest["items"]}
        files = {"images/" + name for name in listing(self.mirror / "images")}
        for extra in sorted(files - named):
            self.problem("stray", "at the end, %s is not in manifest.json" % extra)
        for folder in ["staged", "tmp"]:
            if listing(self.mirror / ".catalog-mirror" / folder):
                self.problem("stray", "at the end, .catalog-mirror/%s is not empty" % folder)

        def served():
            found = {}
            for root, dirs, names in os.walk(self.mirror):
                dirs[:] = [d for d in dirs if d != ".catalog-mirror"]
                for name in names:
                    path = pathlib.Path(root, name)
                    found[str(path.relative_to(self.mirror))] = hashlib.sha256(path.read_bytes()).hexdigest()
            return found

        before = served()
        again = subprocess.run(self.command(url), capture_output=True, text=True)
        report = json.loads((self.work / "report.json").read_text())
        if again.returncode != 0 or report.get("downloaded") != 0:
            self.problem("stray", "a sync of the quiet gallery exited %d and downloaded %s"
                         % (again.returncode, report.get("downloaded")))
        after = served()
        # manifest.json says when each image was last checked: it changes on every sync.
        changed = [name for name in set(before) | set(after) if before.get(name) != after.get(name)]
        changed = [name for name in changed if name != "manifest.json"]
        if changed:
            self.problem("stray", "a sync of the quiet gallery changed %s" % ", ".join(sorted(changed)[:5]))
        self.final_count = len(shown)

    def run(self):
        args = self.args
        print("soak: seed %d (replay: --seed %d), %d s, %d images to start with, work in %s"
              % (args.seed, args.seed, args.seconds, args.images, self.work), flush=True)
        self.gallery = Gallery(random.Random(args.seed), args.images)
        source = QuietServer(("127.0.0.1", 0), gallery_handler(self.gallery, self.requests))
        threading.Thread(target=source.serve_forever, daemon=True).start()
        url = "http://127.0.0.1:%d/gallery/" % source.server_address[1]
        self.mirror.mkdir()
        web = quiet_static_server(str(self.mirror))
        reader = Reader("http://127.0.0.1:%d/" % web.server_address[1], self.counts, self.problems)
        reader.start()

        stop = threading.Event()
        restores = []

        def mutate():
            while not stop.wait(self.gallery.rng.uniform(0.3, 1.5)):
                now = time.monotonic()
                for due, undo in [r for r in restores if r[0] <= now]:
                    undo()
                    restores.remove((due, undo))
                temporary = self.gallery.mutate(max(8, args.images // 2))
                if temporary:
                    restores.append((now + temporary[0], temporary[1]))

        mutator = threading.Thread(target=mutate, daemon=True)
        mutator.start()
        began = time.monotonic()
        while time.monotonic() - began < args.seconds:
            self.sync_once(url)
        stop.set()
        mutator.join()
        self.final(url)
        reader.stopping.set()
        reader.join()
        elapsed = time.monotonic() - began
        return self.summary(elapsed)

    def summary(self, elapsed):
        c = self.counts
        exits = ", ".join("exit %d: %d" % item for item in sorted(self.exits.items()))
        lines = [
            "soak: seed %d, %.0f s, %d syncs: %d finished, %d killed with SIGKILL (%d aimed at the publish step, "
            "%d after new images had moved into place), %d refused by the lock (exit 75), %d second syncs ran after "
            "the first had finished; %s"
            % (self.args.seed, elapsed, c["syncs"], c["finished"], c["killed"], c["killed-publish"], c["killed-late"],
               c["refused"], c["second-ran"], exits),
            "gallery: %s; %d requests, %d image bodies (%.1f MB), %d answered 304, %d cut short; %d images at the end"
            % (", ".join("%s %d" % item for item in self.gallery.changes.items()), self.requests["all"],
               self.requests["200"], self.requests["bytes"] / 1e6, self.requests["304"], self.requests["cut"],
               getattr(self, "final_count", 0)),
            "reader: %d pages and %d image references read; verify run %d times"
            % (c["pages"], c["images"], c["verify"]),
            "missing %d, partial %d, lost %d, stray %d (lock broken %d, hung %d)"
            % (c["missing"], c["partial"], c["lost"], c["stray"], c["lock-broken"], c["hung"]),
        ]
        failures = sorted(self.problems, key=lambda line: line.split(":")[0])
        bad = sum(c[key] for key in ["missing", "partial", "lost", "stray", "lock-broken", "hung"])
        unexercised = [what for what, count in [("killed", c["killed"]), ("finished", c["finished"]),
                                                ("refused by the lock", c["refused"]), ("read", c["images"])]
                       if count == 0]
        if unexercised:
            lines.append("not exercised: no sync %s" % ", ".join(unexercised))
        verdict = "FAILED" if bad or unexercised else "passed"
        lines.append("soak %s (seed %d)" % (verdict, self.args.seed))
        for line in lines + failures:
            print(line, flush=True)
        if self.args.results:
            self.write_results(lines, failures)
        if not bad and not unexercised and not self.args.keep:
            shutil.rmtree(self.work, ignore_errors=True)
        return 1 if bad or unexercised else 0

    def write_results(self, lines, failures):
        path = pathlib.Path(self.args.results)
        command = " ".join(["python3", "Benchmarks/soak.py"] + sys.argv[1:])
        revision = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                  cwd=pathlib.Path(__file__).parent).stdout.strip()
        block = ["", "## %s, revision %s" % (time.strftime("%Y-%m-%d %H:%M"), revision or "?"), "",
                 "```", command, "```", "", "```"] + lines + failures + ["```", ""]
        with open(path, "a") as out:
            out.write("\n".join(block))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=str(pathlib.Path(__file__).resolve().parent.parent
                                                / ".build" / "release" / "catalog-mirror"))
    parser.add_argument("--seconds", type=float, default=100, help="how long syncs are started (default 100)")
    parser.add_argument("--seed", type=int, default=None, help="default: a new one, printed")
    parser.add_argument("--images", type=int, default=60, help="images the gallery starts with (default 60)")
    parser.add_argument("--sync-timeout", type=int, default=120, help="a sync running longer counts as hung")
    parser.add_argument("--work", default=None, help="where the mirror goes (default: the system's temporary folder)")
    parser.add_argument("--results", default=None, help="append the summary, with the command, to this file")
    parser.add_argument("--keep", action="store_true", help="keep the work folder when the soak passes")
    args = parser.parse_args()
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(1, 1 << 31)
    if not os.access(args.binary, os.X_OK):
        sys.exit("soak: no catalog-mirror at %s (--binary PATH)" % args.binary)
    # Stopped (SIGTERM, Ctrl-C): the sync under way is killed too, by its PID.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    soak = Soak(args)
    try:
        status = soak.run()
    finally:
        if soak.running is not None and soak.running.poll() is None:
            soak.running.kill()
    sys.exit(status)


if __name__ == "__main__":
    main()
