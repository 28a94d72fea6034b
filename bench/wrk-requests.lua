-- The bench's requests for wrk (`wrk -s bench/wrk-requests.lua`), set by environment variables:
--   BENCH_WRK_METHOD   GET, POST or PATCH (default GET)
--   BENCH_WRK_HEADERS  "name: value" lines
--   BENCH_WRK_PATHS    a file of paths, one a line, taken in turn (each thread from its own offset)
--   BENCH_WRK_BODY     a file whose text is the body; every "{n}" in it becomes an id distinct per
--                      request (BENCH_WRK_RUN, the thread and a counter)
--   BENCH_WRK_RUN      what makes the ids of this run differ from every other run's
-- Without BENCH_WRK_PATHS or BENCH_WRK_BODY the request is built once (wrk's fast path, no Lua
-- per request). `done` prints one line, "BENCH-WRK-RESULT {json}", that bench/wrk.ts reads.

local function read(name)
  local file = assert(io.open(name, "rb"))
  local text = file:read("*a")
  file:close()
  return text
end

local function split(text, separator)
  local parts, from = {}, 1
  while true do
    local at, to = string.find(text, separator, from, true)
    if not at then
      parts[#parts + 1] = string.sub(text, from)
      return parts
    end
    parts[#parts + 1] = string.sub(text, from, at - 1)
    from = to + 1
  end
end

wrk.method = os.getenv("BENCH_WRK_METHOD") or "GET"
for line in string.gmatch(os.getenv("BENCH_WRK_HEADERS") or "", "[^\n]+") do
  local name, value = string.match(line, "^([^:]+):%s*(.*)$")
  if name then wrk.headers[name] = value end
end

local pathsFile = os.getenv("BENCH_WRK_PATHS")
local bodyFile = os.getenv("BENCH_WRK_BODY")
local run = os.getenv("BENCH_WRK_RUN") or "run"

local threads = {}
function setup(thread)
  threads[#threads + 1] = thread
  thread:set("threadIndex", #threads)
end

if pathsFile or bodyFile then
  local paths, bodyParts, next, counter, prefix

  function init(args)
    if pathsFile then
      paths = {}
      for line in string.gmatch(read(pathsFile), "[^\n]+") do paths[#paths + 1] = line end
    end
    if bodyFile then bodyParts = split(read(bodyFile), "{n}") end
    local index = threadIndex or 1
    -- Threads start a stretch apart, so that two of them do not write one document at once.
    next = paths and ((index - 1) * 7919) % #paths or 0
    counter = 0
    prefix = run .. "-" .. index .. "-"
  end

  function request()
    counter = counter + 1
    local path = nil
    if paths then
      next = next % #paths + 1
      path = paths[next]
    end
    local body = nil
    if bodyParts then body = table.concat(bodyParts, prefix .. counter) end
    return wrk.format(nil, path, nil, body)
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH-WRK-RESULT {"requests":%d,"durationUs":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latencyUs":{"p50":%d,"p90":%d,"p99":%d,"p999":%d,"mean":%.1f,"max":%d}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9),
    latency.mean, latency.max))
end
