"""The machine's floors for a gallery row of bench.py, measured in the same run:

- `cp -r` of the N image files from the server's directory to a fresh directory (page cache
  warm: the tools just read them through nginx, and one untimed read goes first);
- `wrk` making exactly N requests to the same nginx (2 threads, 8 connections, as the tools'
  8 in flight), each image once: full GETs (the cold floor) and conditional GETs with the
  image's ETag in `If-None-Match`, all answered 304 (the re-sync floor).

wrk runs for a duration, not a count; the Lua script (`walk.lua`) gives thread t the images
t, t + threads, t + 2 × threads... and stops the thread once every one of its connections has
asked for a request after its last real one, i.e. once all its responses are in. Each thread
writes when it started and stopped; the floor is the first start to the last stop. The extra
request each connection sent as its thread stopped is neither counted nor waited for.
"""
import os
import re
import signal
import statistics
import subprocess
import time

THREADS, CONNECTIONS = 2, 8

LUA = """
local ffi = require("ffi")
ffi.cdef[[
  typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
  int clock_gettime(int clock, bench_timespec *t);
]]
local function now()
  local t = ffi.new("bench_timespec")
  ffi.C.clock_gettime(1, t)  -- CLOCK_MONOTONIC, the clock Python's time.monotonic reads
  return tonumber(t.tv_sec) + tonumber(t.tv_nsec) * 1e-9
end

local created = 0
function setup(thread)
  thread:set("id", created)
  created = created + 1
end

function init(args)
  threads = tonumber(args[1])
  connections = tonumber(args[2])
  report = args[3]
  -- wrk calls request() once in thread 0 before the run, to check for pipelining.
  pending_check = (id == 0)
  next_index = id
  mine = math.floor((#paths - id + threads - 1) / threads)
  calls = 0
  started = now()
end

function request()
  if pending_check then
    pending_check = false
    return wrk.format(nil, paths[1])
  end
  calls = calls + 1
  if calls > mine and calls - mine == connections then
    local f = io.open(report, "a")
    f:write(string.format("%.6f %.6f %d\\n", started, now(), mine))
    f:close()
    wrk.thread:stop()
  end
  local k = next_index % #paths + 1
  next_index = next_index + threads
  if etags then
    return wrk.format(nil, paths[k], {["If-None-Match"] = etags[k]})
  end
  return wrk.format(nil, paths[k])
end
"""


def etag(path):
    """nginx's ETag for a file: hex mtime, hex size."""
    st = os.stat(path)
    return f'"{int(st.st_mtime):x}-{st.st_size:x}"'


def write_script(script, url_paths, files=None):
    """A wrk script walking `url_paths`; with `files`, conditional GETs with their ETags."""
    lines = ["paths = {" + ",".join(f'"{p}"' for p in url_paths) + "}"]
    if files is not None:
        lines.append("etags = {" + ",".join("'" + etag(f) + "'" for f in files) + "}")
    script.write_text("\n".join(lines) + LUA)
    return script


def wrk(script, base_url, n):
    """Run wrk until its threads have every response; (responses, seconds, requests/s, non-2xx/3xx).

    wrk's own clock runs until its -d duration is over (the main thread sleeps through it), so
    each thread writes its start and end (CLOCK_MONOTONIC, via LuaJIT's ffi) to a report file,
    and wrk is stopped with SIGINT once every thread has written its line."""
    connections_per_thread = CONNECTIONS // THREADS
    report = script.with_suffix(".times")
    report.unlink(missing_ok=True)
    process = subprocess.Popen(["wrk", f"-t{THREADS}", f"-c{CONNECTIONS}", "-d600s", "--timeout", "30s", "-s",
                                str(script), base_url, "--", str(THREADS), str(connections_per_thread), str(report)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        while process.poll() is None:
            if report.exists() and len(report.read_text().splitlines()) >= THREADS:
                break
            time.sleep(0.005)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
    out, _ = process.communicate()
    rows = [line.split() for line in report.read_text().splitlines()] if report.exists() else []
    if len(rows) < THREADS:
        return 0, 0.0, 0.0, "?"
    seconds = max(float(r[1]) for r in rows) - min(float(r[0]) for r in rows)
    count = sum(int(r[2]) for r in rows)
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return count, seconds, count / seconds if seconds else 0.0, int(non_2xx.group(1)) if non_2xx else 0


def copy(source, target_parent, reps):
    """Median seconds of `cp -r source target` into fresh directories (kept: see bench.py on deletions)."""
    for path in source.iterdir():
        path.read_bytes()
    samples = []
    for rep in range(reps):
        target = target_parent / f"cp-{rep}"
        os.sync()
        started = time.perf_counter()
        subprocess.run(["cp", "-r", str(source), str(target)], check=True)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def measure(files, url_prefix, base_url, work, reps, copy_dir=None):
    """The floors for `files` served at `url_prefix` (e.g. /gallery/img/): wrk GETs and
    conditional GETs of each, and `cp -r copy_dir` when given (the directory holding exactly them)."""
    url_paths = [url_prefix + f.name for f in files]
    floors = {"n": len(files), "get": wrk(write_script(work / "walk.lua", url_paths), base_url, len(files)),
              "304": wrk(write_script(work / "walk-304.lua", url_paths, files), base_url, len(files))}
    if copy_dir is not None:
        copy_parent = work / "out" / "floors"
        copy_parent.mkdir(parents=True, exist_ok=True)
        floors["cp"] = copy(copy_dir, copy_parent, reps)
        floors["reps"] = reps
    return floors
