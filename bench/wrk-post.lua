-- wrk script of bench/wrk-load.ts: every connection POSTs one body, and every answer is checked.
-- Read from the environment (set by wrk-load.ts): BENCH_WRK_BODY (the request body),
-- BENCH_WRK_HEADERS ("Name: value" lines), BENCH_WRK_MARKER (bytes every successful answer holds).
-- An answer fails unless its status is 200, its body holds the marker and no `"isError":true`.
-- done() prints one line `BENCH_WRK <json>` (counts, latency quantiles in µs) and, when an answer
-- failed, `BENCH_WRK_FIRST_FAILURE <status> <first 300 bytes of its body>`.
local marker = os.getenv('BENCH_WRK_MARKER') or '"result":'

wrk.method = 'POST'
wrk.body = os.getenv('BENCH_WRK_BODY') or ''
for line in (os.getenv('BENCH_WRK_HEADERS') or ''):gmatch('[^\n]+') do
  local name, value = line:match('^([^:]+):%s*(.*)$')
  if name then wrk.headers[name] = value end
end

-- Per thread (each wrk thread has its own Lua state); done() adds them up.
checked, failures, first_failure = 0, 0, nil

function response(status, headers, body)
  checked = checked + 1
  if status ~= 200 or not body:find(marker, 1, true) or body:find('"isError":true', 1, true) then
    failures = failures + 1
    if first_failure == nil then first_failure = status .. ' ' .. body:sub(1, 300) end
  end
end

local threads = {}
function setup(thread) table.insert(threads, thread) end

function done(summary, latency, requests)
  local all, failed, first = 0, 0, nil
  for _, thread in ipairs(threads) do
    all = all + thread:get('checked')
    failed = failed + thread:get('failures')
    first = first or thread:get('first_failure')
  end
  -- 0.1 % … 99.9 %, then the maximum (wrk's percentile(100) answers 0).
  local quantiles = {}
  for i = 1, 999 do quantiles[i] = latency:percentile(i / 10) end
  quantiles[1000] = latency.max
  local e = summary.errors
  io.write(string.format(
    'BENCH_WRK {"requests":%d,"durationMicros":%d,"checked":%d,"failed":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"latencyMicros":[%s]}\n',
    summary.requests, summary.duration, all, failed, e.connect, e.read, e.write, e.status, e.timeout,
    table.concat(quantiles, ',')))
  if first then io.write('BENCH_WRK_FIRST_FAILURE ' .. first:gsub('\n', ' ') .. '\n') end
end
