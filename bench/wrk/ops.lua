-- Requests for run.sh: WRK_OP names the operation, WRK_SALT (a number) keeps names and
-- requestIds of different runs apart, WRK_ACCOUNTS is a file of account ids (accountlink).
-- Every request creates something new, as in make bench (bench/ops.go).
local op = os.getenv("WRK_OP")
local salt = tonumber(os.getenv("WRK_SALT") or "1") % 0xffffffff
local n = 0

local function uuid(kind, i)
  return string.format("%08x-%04x-4000-8000-%012x", salt, kind, i)
end

local json = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer bench-token" }
local acct = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer sk_test_bench1",
  ["Service-Version"] = "2026-05-27.dahlia" }
local reader = "acdd72a7-3385-48ef-bd42-f606fba81ae7"

local accounts = {}
if op == "accountlink" then
  for line in io.lines(os.getenv("WRK_ACCOUNTS")) do accounts[#accounts + 1] = line end
  if #accounts == 0 then -- the baseline holds no state: made-up ids of the same shape
    for i = 1, 500 do accounts[i] = string.format("acct_bench%010d", i) end
  end
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
    return wrk.format("POST", "/v2/core/accounts", acct,
      '{"display_name":"Bench ' .. salt .. '-' .. n .. '","configuration":{"recipient":{}}}')
  end,
  accountlink = function()
    local body = '{"account":"' .. accounts[n % #accounts + 1] .. '","use_case":{"type":"account_onboarding",' ..
      '"account_onboarding":{"configurations":["recipient"],"refresh_url":"https://example.com/refresh",' ..
      '"return_url":"https://example.com/return"}}}'
    return wrk.format("POST", "/v2/core/account_links", acct, body)
  end,
  frinsert = function()
    return wrk.format("POST", "/compute/v1/projects/bench-project-1/global/forwardingRules?requestId=" .. uuid(4, n),
      json, '{"name":"fr-' .. salt .. '-' .. n .. '","portRange":"443-443"}')
  end,
  groupinsert = function()
    return wrk.format("POST", "/compute/v1/projects/bench-project-3/global/interconnectAttachmentGroups?requestId=" .. uuid(5, n),
      json, '{"name":"g-' .. salt .. '-' .. n .. '","intent":{"availabilitySla":"NO_SLA"}}')
  end,
}

local build = builders[op] or error("WRK_OP must be one of roleassign, accountcreate, accountlink, frinsert, groupinsert")

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
