#!/usr/bin/env python3
"""Runs a real CMS, installed from Debian's packages and filled with real photographs, on
127.0.0.1 for the end-to-end tests (issue 36), with the ground truth of what a mirror of it
must hold.

  cms_site.py serve SITE WORK_DIR
      SITE is wordpress-block (twentytwentythree, Gallery blocks), wordpress-classic
      (twentytwentyone, the classic editor's [gallery] and [caption] shortcodes) or mediawiki.
      Builds the site's template once (cached under the system temporary directory, keyed by
      these scripts and the installed packages' versions), starts a private copy of it in
      WORK_DIR on an ephemeral port, prints one JSON line {"origin", "truth"} when it answers,
      then serves until standard input closes (or SIGTERM), and stops every process it started.
  cms_site.py build SITE
      Only builds (or finds) the template; prints its directory.

The truth (truth.json in the template; every URL is a path from the origin, "/..."):
  name, application, siteTitle, start   the site and the page to start a mirror from
  galleries    [{path, title, photos: [id], titles: {id: title}}] the pages that show photos as
               their content (posts, gallery pages, categories), each a `--max-depth 1` start, with
               each photo's title as that page and the photo's own page show it
  photos       [{id, title, titleFrom, album, albums, original, fullSize, renditions, family, page,
               unlinked}]:
               original: the largest file the site links for the photo (what it calls the
               photo's file); fullSize: a larger file of it that no page links but an API names
               (WordPress's unscaled upload), which a mirror may keep instead; renditions: every
               URL the site's pages link for it, smallest first (original included); family: a
               regular expression matching the path of every file of the photo, linked or not;
               title: the photo's own title as the site shows it
               (caption, figcaption, alt text, its attachment or file page's title; never a post
               or furniture heading), titleFrom: which of those; album: the page the photo
               belongs to (its post, its gallery page), albums: every page that may be its
               album (a category listing it too), never `page`, the photo's own page
               (attachment page, File: page); unlinked: files of it no page links
  photoPages   every photo's own page (never an album)
  furniture    images that are not photos (logos, badges, site icons) and must never be published
  notes        what the application does that a mirror must cope with, for the record
Missing packages are reported on standard error and exit status 3, naming what to install.
"""
import fcntl
import hashlib
import importlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.dont_write_bytecode = True  # nothing written into the source tree
# wordpress.py and mediawiki.py import this module by name: one module, one `Missing`, when run as a script.
sys.modules.setdefault("cms_site", sys.modules[__name__])
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cms_photos  # noqa: E402

SITES = ["wordpress-block", "wordpress-classic", "mediawiki"]
# The origin a template is built for; a served copy is moved to its own port (see serve()).
TEMPLATE_PORT = 40404


class Missing(Exception):
    """A package the site needs is not installed."""


class PortTaken(Exception):
    """Another process took the port free_port() gave before the site's server bound it."""


def run(command, **kwargs):
    if "input" not in kwargs:
        kwargs["stdin"] = subprocess.DEVNULL
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {result.returncode}: "
                           f"{(result.stderr or result.stdout).strip()[-800:]}")
    return result.stdout


def free_port():
    """An ephemeral port the kernel just gave out (5 digits, as every port of its range)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_http(url, process, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            # Most likely the port was taken meanwhile (serve() tries another).
            raise PortTaken(f"the web server exited {process.returncode} before answering")
        try:
            with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=10):
                return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{url} did not answer within {seconds} s")


def fetch(url):
    """The body of URL as text ("" for an error status)."""
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            return response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError:
        return ""


class Processes:
    """The processes a served site runs, stopped together (TERM, then KILL after 10 s)."""

    def __init__(self):
        self.running = []

    def start(self, command, log, **kwargs):
        with open(log, "ab") as out:
            process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, start_new_session=True, **kwargs)
        self.running.append(process)
        return process

    def stop(self):
        for process in reversed(self.running):
            if process.poll() is None:
                # The whole group: php -S with workers forks children of its own.
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for process in reversed(self.running):
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        self.running = []


def php_server(processes, port, env, log):
    """PHP's built-in web server on 127.0.0.1:PORT with the fixtures' router and four workers."""
    environment = dict(os.environ, PHP_CLI_SERVER_WORKERS="4", **env)
    # As a production php.ini has it: PHP's notices (twentytwentyone's attachment template has
    # some under PHP 8.2) go to the log, not into the pages.
    # OPcache on, as on any production server (php-cli has it off): each page then costs half.
    command = ["php", "-d", "memory_limit=512M", "-d", "display_errors=0", "-d", "log_errors=1",
               "-d", f"error_log={log}", "-d", "opcache.enable_cli=1",
               "-S", f"127.0.0.1:{port}", os.path.join(HERE, "router.php")]
    process = processes.start(command, log, env=environment, cwd=env.get("CMS_DOCROOT", HERE))
    wait_for_http(f"http://127.0.0.1:{port}/robots.txt", process)
    # php -S exits at once when the port was taken between free_port() and now: then what
    # answered was someone else's server.
    time.sleep(0.2)
    if process.poll() is not None:
        raise PortTaken(f"php -S exited {process.returncode} on port {port}")
    return process


def inputs_digest(site):
    """What a template depends on: the scripts that make it and the versions of the packages they drive."""
    digest = hashlib.sha256(site.encode())
    application = ["mediawiki.py"] if site == "mediawiki" else ["wordpress.py", "wordpress_fill.php"]
    for name in ["cms_site.py", "cms_photos.py", "router.php"] + application:
        digest.update(name.encode())
        with open(os.path.join(HERE, name), "rb") as f:
            digest.update(f.read())
    for command in (["php", "--version"], ["dpkg-query", "-W", "wordpress", "mediawiki", "mariadb-server",
                                          "imagemagick", "mate-backgrounds", "lomiri-wallpapers-16.04"]):
        digest.update(subprocess.run(command, capture_output=True, text=True).stdout.encode())
    return digest.hexdigest()[:12]


def application(site):
    """The module that installs SITE's application."""
    return importlib.import_module("mediawiki" if site == "mediawiki" else "wordpress")


def template(site):
    """The built template of SITE, built first when it is not in the cache."""
    module = application(site)
    module.check_installed()
    missing = cms_photos.missing()
    if missing:
        raise Missing(f"the photographs {', '.join(missing[:3])}... are not installed "
                      "(apt-get install mate-backgrounds lomiri-wallpapers-16.04)")
    return cached(f"{site}-{inputs_digest(site)}", lambda directory: module.build(site, directory))


def cached(name, build):
    """The cache directory NAME, made by build(directory) once, even with several builders at once."""
    root = os.path.join(tempfile.gettempdir(), f"catalog-mirror-cms-{name}")
    with open(root + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        # Built into a partial directory renamed when complete: the directory is there only whole.
        if os.path.isdir(root):
            os.utime(root)  # in use: see prune()
        else:
            partial = root + ".partial"
            shutil.rmtree(partial, ignore_errors=True)
            os.makedirs(partial)
            started = time.monotonic()
            build(partial)
            os.rename(partial, root)
            print(f"built {name} in {time.monotonic() - started:.1f} s", file=sys.stderr)
            prune(name)
    return root


def prune(name):
    """Removes templates of the same kind built by other versions of these scripts and not used
    for a day (a template in use by another checkout's tests is touched on every use)."""
    kind = name.rsplit("-", 1)[0]
    pattern = re.compile(re.escape(f"catalog-mirror-cms-{kind}-") + r"[0-9a-f]{12}$")
    for entry in os.listdir(tempfile.gettempdir()):
        path = os.path.join(tempfile.gettempdir(), entry)
        if pattern.match(entry) and not entry.endswith(name) and time.time() - os.path.getmtime(path) > 86400:
            shutil.rmtree(path, ignore_errors=True)
            try:
                os.remove(path + ".lock")
            except OSError:
                pass


def serve(site, work):
    module = application(site)
    built = template(site)
    os.makedirs(work, exist_ok=True)
    processes = Processes()
    try:
        for attempt in range(3):
            port = free_port()
            try:
                module.start(built, work, port, processes)
                break
            except PortTaken:
                processes.stop()
                if attempt == 2:
                    raise
        truth = os.path.join(built, "truth.json")
        print(json.dumps({"origin": f"http://127.0.0.1:{port}", "truth": truth}), flush=True)
        # Serves until the test closes standard input (or dies, which closes it too).
        sys.stdin.read()
    finally:
        processes.stop()


def main():
    # SIGTERM unwinds like Ctrl-C: every `finally` stops the processes it started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if len(sys.argv) < 3 or sys.argv[1] not in ("serve", "build") or sys.argv[2] not in SITES:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        if sys.argv[1] == "build":
            print(template(sys.argv[2]))
        else:
            serve(sys.argv[2], sys.argv[3])
    except Missing as error:
        print(f"missing: {error}", file=sys.stderr)
        sys.exit(3)


if __name__ == "__main__":
    main()
