#!/usr/bin/env bash
# Smoke test of understudy's container image ($IMAGE, default understudy:dev, built by
# `make image`) under plain `docker run`: the image's own HEALTHCHECK turns healthy, one call
# per API succeeds, SIGTERM stops it with exit 0, state written with /data on a named volume
# is there in a new container on the same volume, and --tls auto serves https. Any failure
# exits non-zero with the container's logs. Needs docker and curl, and a daemon that
# publishes ports on this machine (it calls 127.0.0.1).
set -euo pipefail

IMAGE=${IMAGE:-understudy:dev}
RUN=understudy-smoke-$$
VOLUME=$RUN-data
containers=()
scratch=$(mktemp -d)

cleanup() {
  for c in "${containers[@]}"; do docker rm -f "$c" >/dev/null 2>&1 || true; done
  docker volume rm -f "$VOLUME" >/dev/null 2>&1 || true
  rm -rf "$scratch"
}
trap cleanup EXIT

fail() {
  echo "smoke-image: FAIL: $*" >&2
  exit 1
}

step() { echo "smoke-image: $*"; }

# wait_healthy NAME: until Docker reports the image's HEALTHCHECK healthy (its first check
# runs 10 s after the start), failing if the container stops or turns unhealthy.
wait_healthy() {
  local name=$1 status=
  for _ in $(seq 1 60); do
    status=$(docker inspect -f '{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}}' "$name")
    case $status in
      "running healthy") return 0 ;;
      "running unhealthy" | exited* | dead*)
        docker logs "$name" >&2
        fail "$name: $status" ;;
    esac
    sleep 1
  done
  docker logs "$name" >&2
  fail "$name: not healthy after 60 s ($status)"
}

# start NAME [docker run options] [-- server arguments]: runs the image detached with port
# 8080 published on a free loopback port, waits until it is healthy, and sets BASE.
start() {
  local name=$1 opts=() args=()
  shift
  while (($#)); do
    if [[ $1 == -- ]]; then
      shift
      args=("$@")
      break
    fi
    opts+=("$1")
    shift
  done
  containers+=("$name")
  docker run -d --name "$name" -p 127.0.0.1::8080 "${opts[@]}" "$IMAGE" "${args[@]}" >/dev/null
  wait_healthy "$name"
  BASE=http://$(docker port "$name" 8080/tcp | head -n1)
  step "$name is healthy on ${BASE#http://}"
}

# stop NAME: SIGTERM, and the server must drain and exit 0.
stop() {
  docker stop -t 30 "$1" >/dev/null
  local code
  code=$(docker inspect -f '{{.State.ExitCode}}' "$1")
  [[ $code == 0 ]] || { docker logs "$1" >&2; fail "$1 exited $code after SIGTERM, want 0"; }
}

# call METHOD PATH STATUS [curl options]: prints the response body; fails unless the
# response has STATUS.
call() {
  local method=$1 path=$2 want=$3 out status
  shift 3
  out=$(curl -sS -X "$method" -w '\n%{http_code}' "$BASE$path" "$@") || fail "$method $path: curl failed"
  status=${out##*$'\n'}
  out=${out%$'\n'*}
  [[ $status == "$want" ]] || fail "$method $path: status $status, want $want: $out"
  printf '%s' "$out"
}

# field NAME JSON: the first string member NAME of JSON (enough for these replies).
field() {
  local v
  v=$(grep -o "\"$1\": *\"[^\"]*\"" <<<"$2" | head -n1 | sed -E 's/.*: *"([^"]*)"/\1/')
  [[ -n $v ]] || fail "no \"$1\" in $2"
  printf '%s' "$v"
}

SUB=a925f2f7-5c63-4b7b-8799-25a5f97bc3b2
SCOPE=subscriptions/$SUB/resourceGroups/rg-smoke
ASSIGNMENT=/$SCOPE/providers/Vendor.Authorization/roleAssignments/b0f43c54-e787-4862-89b1-a653fa9cf747?api-version=2022-04-01
PRINCIPAL=ce2ce14e-85d7-4629-bdbc-454d0519d987
READER=/subscriptions/$SUB/providers/Vendor.Authorization/roleDefinitions/acdd72a7-3385-48ef-bd42-f606fba81ae7
PROJECT=smoke-project-1
ARM=(-H "Authorization: Bearer smoke-token" -H "Content-Type: application/json")
ACCOUNTS=(-H "Authorization: Bearer sk_test_smoke" -H "Service-Version: 2026-05-27.dahlia" -H "Content-Type: application/json")

# write_state: one write per API; sets ACCOUNT to the new account's id.
write_state() {
  local op out
  call PUT "$ASSIGNMENT" 201 "${ARM[@]}" \
    -d '{"properties":{"principalId":"'$PRINCIPAL'","roleDefinitionId":"'$READER'"}}' >/dev/null
  ACCOUNT=$(field id "$(call POST /v2/core/accounts 200 "${ACCOUNTS[@]}" -d '{"display_name":"Smoke Test"}')")
  out=$(call POST "/compute/v1/projects/$PROJECT/global/forwardingRules" 200 "${ARM[@]}" -d '{"name":"fr-smoke"}')
  op=$(field name "$out")
  # Links follow the address the client used, not the container's 0.0.0.0.
  [[ $(field selfLink "$out") == "$BASE/compute/v1/projects/$PROJECT/global/operations/$op" ]] ||
    fail "the operation's selfLink $(field selfLink "$out") does not start with $BASE"
  [[ $(field status "$(call POST "/compute/v1/projects/$PROJECT/global/operations/$op/wait" 200 "${ARM[@]}")") == DONE ]] ||
    fail "operation $op is not DONE after its wait"
}

# read_state: what write_state wrote is there.
read_state() {
  [[ $(field principalId "$(call GET "$ASSIGNMENT" 200 "${ARM[@]}")") == "$PRINCIPAL" ]] || fail "role assignment's principal"
  [[ $(field display_name "$(call GET "/v2/core/accounts/$ACCOUNT" 200 "${ACCOUNTS[@]}")") == "Smoke Test" ]] || fail "account's name"
  [[ $(field name "$(call GET "/compute/v1/projects/$PROJECT/global/forwardingRules/fr-smoke" 200 "${ARM[@]}")") == fr-smoke ]] ||
    fail "forwarding rule's name"
}

step "image $IMAGE"
[[ $(docker image inspect -f '{{.Config.User}}' "$IMAGE") == 65532:65532 ]] || fail "the image does not run as 65532:65532"
[[ $(docker image inspect -f '{{json .Config.Healthcheck.Test}}' "$IMAGE") == '["CMD","/understudy","healthcheck"]' ]] ||
  fail "the image has no HEALTHCHECK running /understudy healthcheck"

# In memory, as the image runs by default.
start "$RUN-memory"
call GET /_understudy/health 200 >/dev/null
docker exec "$RUN-memory" /understudy healthcheck >/dev/null || fail "healthcheck inside the container"
[[ $(docker top "$RUN-memory" | awk 'NR > 1 { print $1 }' | sort -u) == 65532 ]] || fail "the server does not run as uid 65532"
write_state
read_state
stop "$RUN-memory"
step "in memory: one call per API, healthcheck, stop with exit 0"

# On a named volume: the state outlives the container. The first container is told by the
# environment, the second by an argument.
start "$RUN-disk1" -v "$VOLUME:/data" -e UNDERSTUDY_DATA_DIR=/data
write_state
stop "$RUN-disk1"
docker rm "$RUN-disk1" >/dev/null
start "$RUN-disk2" -v "$VOLUME:/data" -- --data-dir /data
read_state
stop "$RUN-disk2"
step "on volume $VOLUME: written in one container, read back in a new one"

# HTTPS, told by the environment: the health check asks over https, and the CA the server
# made in /tmp (the image's own: scratch has none) verifies its certificate.
start "$RUN-tls" -e UNDERSTUDY_TLS=auto
ca=$(field caFile "$(docker logs "$RUN-tls" 2>&1 | head -n1)")
docker cp "$RUN-tls:$ca" "$scratch/ca.pem" >/dev/null
curl -sS --fail --cacert "$scratch/ca.pem" "https://${BASE#http://}/_understudy/health" >/dev/null ||
  fail "https health, trusting the CA the server made"
stop "$RUN-tls"
step "over https: healthy, its certificate signed by the CA it made"

step "OK"
