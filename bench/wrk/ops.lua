-- Requests for run.sh and ab.sh: WRK_OP names the operation, WRK_SALT (a number) keeps
-- names and requestIds of different runs apart, WRK_ACCOUNTS is a file of account ids
-- (accountlink), WRK_RULES a file of forwarding-rule names (setlabels), WRK_STANDIN is set
-- for the servers that keep no state (the baseline, the ceiling, stripe-mock).
-- Every request creates something new, as in make bench (bench/ops.go), but setLabels.
local op = os.getenv("WRK_OP")
local salt = tonumber(os.getenv("WRK_SALT") or "1") % 0xffffffff
local standin = (os.getenv("WRK_STANDIN") or "") ~= ""
local n = 0

local function uuid(kind, i)
  return string.format("%08x-%04x-4000-8000-%012x", salt, kind, i)
end

local function lines(file)
  local out = {}
  local f = file and io.open(file)
  if f then
    for line in f:lines() do out[#out + 1] = line end
    f:close()
  end
  return out
end

local json = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer bench-token" }
local acct = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer sk_test_bench1",
  ["Service-Version"] = "2026-05-27.dahlia" }
local form = { ["Content-Type"] = "application/x-www-form-urlencoded", ["Authorization"] = "Bearer sk_test_bench1" }
local reader = "acdd72a7-3385-48ef-bd42-f606fba81ae7"

local accounts = {}
if op == "accountlink" or op == "accountlink_v1" then
  accounts = lines(os.getenv("WRK_ACCOUNTS"))
  if #accounts == 0 then -- a stand-in holds no state: made-up ids of the same shape
    for i = 1, 500 do accounts[i] = string.format("acct_bench%010d", i) end
  end
end

-- setLabels chains: each rule alternates a GET (which reads its labelFingerprint) and a
-- setLabels with that fingerprint; a rule is in one request at a time. free is the queue of
-- rules not in a request; the answer names its rule (the GET's name, the Operation's
-- targetLink) and puts it back. A stand-in answers constant bodies: its chains alternate
-- over the rules without waiting for answers, with the fingerprint its GET body has.
local rules, free, head, tail = {}, {}, 1, 0
local labelsPath = "/compute/v1/projects/bench-project-2/global/forwardingRules/"
if op == "setlabels" then
  local names = lines(os.getenv("WRK_RULES"))
  if #names == 0 then -- a stand-in: names of the same shape
    for i = 1, 256 do names[i] = "lbl-bench-" .. i end
  end
  for i, name in ipairs(names) do
    rules[name] = { fp = nil, labels = 0 }
    free[i] = name
  end
  tail = #names
end

local function setlabels()
  local name
  if standin then
    name = free[(n % tail) + 1]
  else
    if head > tail then -- every rule is in a request: read one more time (should not happen)
      return wrk.format("GET", labelsPath .. next(rules), json)
    end
    name = free[head]
    free[head] = nil
    head = head + 1
  end
  local r = rules[name]
  if r.fp == nil then
    if standin then r.fp = "42WmSpB8rSM=" end
    return wrk.format("GET", labelsPath .. name, json)
  end
  r.labels = r.labels + 1
  local fp = r.fp
  r.fp = nil
  return wrk.format("POST", labelsPath .. name .. "/setLabels", json,
    '{"labels":{"bench":"v' .. r.labels .. '","team":"perf"},"labelFingerprint":"' .. fp .. '"}')
end

local builders = {
  roleassign = function()
    local sub = uuid(1, math.floor(n / 1000))
    local path = "/subscriptions/" .. sub .. "/resourceGroups/rg-" .. (math.floor(n / 100)) ..
      "/providers/Vendor.Authorization/roleAssignments/" .. uuid(2, n) .. "?api-version=2022-04-01"
    local body = '{"properties":{"principalId":"' .. uuid(3, n) .. '","roleDefinitionId":"/subscriptions/' .. sub ..
      '/providers/Vendor.Authorization/roleDefinitions/' .. reader .. '"}}'
    return wrk.format("PUT", path, json, body)
  end,
  accountcreate = function()
    return wrk.format("POST", "/v2/core/accounts", acct, '{"display_name":"Bench ' .. salt .. '-' .. n ..
      '","configuration":{"recipient":{"capabilities":{"stripe_balance":{"stripe_transfers":{"requested":true}}}}}}')
  end,
  accountlink = function()
    local body = '{"account":"' .. accounts[n % #accounts + 1] .. '","use_case":{"type":"account_onboarding",' ..
      '"account_onboarding":{"configurations":["recipient"],"refresh_url":"https://example.com/refresh",' ..
      '"return_url":"https://example.com/return"}}}'
    return wrk.format("POST", "/v2/core/account_links", acct, body)
  end,
  -- The v1 account link (form-encoded), what stripe-mock serves for account links.
  accountlink_v1 = function()
    return wrk.format("POST", "/v1/account_links", form, "account=" .. accounts[n % #accounts + 1] ..
      "&type=account_onboarding&refresh_url=https%3A%2F%2Fexample.com%2Frefresh&return_url=https%3A%2F%2Fexample.com%2Freturn")
  end,
  frinsert = function()
    return wrk.format("POST", "/compute/v1/projects/bench-project-1/global/forwardingRules?requestId=" .. uuid(4, n),
      json, '{"name":"fr-' .. salt .. '-' .. n .. '","portRange":"443-443"}')
  end,
  setlabels = setlabels,
  groupinsert = function()
    return wrk.format("POST", "/compute/v1/projects/bench-project-3/global/interconnectAttachmentGroups?requestId=" .. uuid(5, n),
      json, '{"name":"g-' .. salt .. '-' .. n .. '","intent":{"availabilitySla":"NO_SLA"}}')
  end,
}

local build = builders[op] or
  error("WRK_OP must be one of roleassign, accountcreate, accountlink, accountlink_v1, frinsert, setlabels, groupinsert")

-- Each wrk thread has its own Lua state: threads count from different bases.
local threads = 0
function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end

local started = false
request = function()
  if not started then
    n, started = (tid or 0) * 1000000000, true
  end
  n = n + 1
  return build()
end

-- Only the setLabels chains against understudy read answers: the rule an answer names is
-- free again, with the fingerprint a GET read.
if op == "setlabels" and not standin then
  response = function(status, headers, body)
    local name = body:match('"name":"(lbl%-[^"]*)"')
    if name and rules[name] then
      rules[name].fp = body:match('"labelFingerprint":"([^"]*)"')
    else
      name = body:match('/forwardingRules/(lbl%-[^"/]*)"')
    end
    if name and rules[name] then
      tail = tail + 1
      free[tail] = name
    end
  end
end
