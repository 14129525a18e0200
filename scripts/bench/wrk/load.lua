-- wrk script of the benchmark: one file for every run, so that every run reports the same way.
--
-- BENCH_MODE (environment):
--   get     the URL given to wrk, with its -H headers (wrk's own static request);
--   post    POST to BENCH_POST_PATH with a stock adjustment body, cycling through this
--           thread's share of the variant ids listed in BENCH_VARIANTS_FILE (one a line):
--           threads take disjoint shares, so the requests in flight never touch one variant;
--   patch   PATCH of a product (`application/merge-patch+json`, `{"priceCents":N}`, no
--           If-Match) to BENCH_PATH_TEMPLATE (`{id}` replaced by the id), cycling through this
--           thread's share of the product ids of BENCH_IDS_FILE; N is a new price at every
--           request (a patch that changes nothing writes nothing);
--   credit  POST of a loyalty credit (`{"points":1,"reason":"bench"}`, no Idempotency-Key) to
--           BENCH_PATH_TEMPLATE, cycling through this thread's share of the client ids of
--           BENCH_IDS_FILE;
--   mixed   the soak: GET /api/v1/me, /products?limit=20, /orders?limit=20 and POST
--           /api/v1/stock/adjustments in turn.
-- BENCH_WRK_THREADS must equal wrk's -t, to split the ids. A template without `{id}` (the
-- framework ceiling's `/{name}`) is sent as it is.
-- done() prints one line `BENCH_RESULT {json}` that bench.py reads: latencies in microseconds;
-- `status` counts responses with a status >= 400 (wrk's own count).

local mode = os.getenv("BENCH_MODE") or "get"
local post_path = os.getenv("BENCH_POST_PATH") or "/api/v1/stock/adjustments"
local path_template = os.getenv("BENCH_PATH_TEMPLATE") or ""
local next_thread_id = 0

function setup(thread)
   thread:set("thread_id", next_thread_id)
   next_thread_id = next_thread_id + 1
end

local function adjustment_body(variant_id)
   return string.format('{"variantId":"%s","quantity":1,"reason":"bench"}', variant_id)
end

-- This thread's share of the ids listed in `path` (one a line): every BENCH_WRK_THREADS-th,
-- from its own position, so that no two threads ever send one id.
local function my_ids(path, what)
   local threads = tonumber(os.getenv("BENCH_WRK_THREADS") or "1")
   local mine, index = {}, 0
   for line in io.lines(path) do
      if line ~= "" then
         if index % threads == thread_id then
            mine[#mine + 1] = line
         end
         index = index + 1
      end
   end
   assert(#mine > 0, "no " .. what .. " for thread " .. thread_id .. " in " .. path)
   return mine
end

-- The path of one id: ids are the API's own (letters, digits, `-`, `_`), sent as they are.
local function id_path(id)
   return (path_template:gsub("{id}", function() return id end))
end

if mode == "post" or mode == "mixed" then
   local variants, turn = nil, 0

   function init(args)
      variants = my_ids(os.getenv("BENCH_VARIANTS_FILE"), "variant")
      wrk.headers["Content-Type"] = "application/json"
   end

   local function next_adjustment()
      turn = turn + 1
      local variant = variants[(turn - 1) % #variants + 1]
      return wrk.format("POST", post_path, nil, adjustment_body(variant))
   end

   if mode == "post" then
      request = next_adjustment
   else
      local reads = { "/api/v1/me", "/api/v1/products?limit=20", "/api/v1/orders?limit=20" }
      local step = 0
      request = function()
         step = step + 1
         local slot = (step - 1) % (#reads + 1) + 1
         if slot > #reads then
            return next_adjustment()
         end
         return wrk.format("GET", reads[slot], nil, nil)
      end
   end
elseif mode == "patch" or mode == "credit" then
   local ids, turn, base = nil, 0, 0

   function init(args)
      ids = my_ids(os.getenv("BENCH_IDS_FILE"), mode == "patch" and "product" or "client")
      if mode == "patch" then
         wrk.headers["Content-Type"] = "application/merge-patch+json"
         -- A price of this run's own: a run that starts again from the same turn must not
         -- write a product's current price back (a patch that changes nothing writes nothing).
         math.randomseed(os.time() * 64 + thread_id)
         base = math.random(1000, 500000000) * 100
      else
         wrk.headers["Content-Type"] = "application/json"
      end
   end

   request = function()
      turn = turn + 1
      local id = ids[(turn - 1) % #ids + 1]
      if mode == "patch" then
         return wrk.format("PATCH", id_path(id), nil,
                           string.format('{"priceCents":%d}', base + turn))
      end
      return wrk.format("POST", id_path(id), nil, '{"points":1,"reason":"bench"}')
   end
end

function done(summary, latency, requests)
   local e = summary.errors
   io.write(string.format(
      'BENCH_RESULT {"requests":%d,"duration_us":%d,"bytes":%d,' ..
      '"p50_us":%d,"p90_us":%d,"p99_us":%d,"mean_us":%.1f,"max_us":%d,' ..
      '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}}\n',
      summary.requests, summary.duration, summary.bytes,
      latency:percentile(50.0), latency:percentile(90.0), latency:percentile(99.0),
      latency.mean, latency.max,
      e.connect, e.read, e.write, e.status, e.timeout))
end
