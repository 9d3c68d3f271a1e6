#!/usr/bin/env bash
# The images, smoke-tested without a Docker daemon. In a copy of the repository, replays what its
# Dockerfiles (deploy/docker/) say: the build stage's RUN steps (npm ci, tsc -b, the page builds,
# npm prune), read from them, then each runtime stage's `COPY --from=build` into a tree of its own.
# From those trees it starts every service with its CMD, its image's ENV and a minimal valid
# configuration, against kube-lite (from its own tree), the machine's PostgreSQL (a schema of its
# own) and Redis (a key prefix of its own), all on loopback ports the system picks, and checks:
# each /readyz answers 200 (the tunnel agent's once its tunnel to the proxy is up), and the control
# plane's /panel/ and the API server's /console/ answer 200 with their Content-Security-Policy.
#
# Prints one `ok` or `FAIL` line per check and exits 1 on any failure. Every wait has a deadline;
# on exit every process started here is stopped, the schema dropped and the work folder removed.
#
#   SMOKE_TREE=head       copy the committed tree, `git archive HEAD` (the default)
#   SMOKE_TREE=worktree   copy the working tree as git sees it (tracked and untracked files, not
#                         what .gitignore names: node_modules, dist, .data, *.tsbuildinfo)
#   SMOKE_WORK=DIR        work in DIR (absent or empty) and leave the image trees there, in
#                         DIR/image/<service>, for the caller (who removes DIR)
#   SMOKE_WAIT=SECONDS    the deadline of each wait (default 90)
#   DATABASE_URL, REDIS_URL  default postgres://postgres@127.0.0.1:5432/test, redis://127.0.0.1:6379
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# Run from npm or a test runner, PATH leads to this checkout's node_modules/.bin: a tool the copy
# lacks must not be found there.
PATH=$(tr ':' '\n' <<<"$PATH" | grep -v '/node_modules/\.bin$' | paste -sd:)
images=(api-server control-plane cluster-proxy tunnel-agent kube-lite)
wait_seconds=${SMOKE_WAIT:-90}
database_url=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}
redis_url=${REDIS_URL:-redis://127.0.0.1:6379}
# psql: no NOTICE for each table the DROP SCHEMA ... CASCADE at exit takes with it.
export PGOPTIONS=--client-min-messages=warning
random=$(od -An -N5 -tx1 /dev/urandom | tr -d ' \n')
schema="smoke_$random"
prefix="smoke-$random:"

if [[ -n ${SMOKE_WORK:-} ]]; then
  work=$SMOKE_WORK
  keep=1
  mkdir -p "$work"
  if [[ -n $(ls -A "$work") ]]; then echo "FAIL SMOKE_WORK=$work is not empty" >&2; exit 2; fi
else
  work=$(mktemp -d)
  keep=
fi
work=$(cd "$work" && pwd)
pids=()
schema_made=
status=0

# Each process is asked to stop (SIGTERM), then killed if it outlasts the deadline.
cleanup() {
  local code=$? pid end=$((SECONDS + 15))
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < end)); do sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  if [[ -n $schema_made ]]; then
    psql -q -v ON_ERROR_STOP=1 "$database_url" -c "DROP SCHEMA $schema CASCADE" >/dev/null || code=1
  fi
  if command -v redis-cli >/dev/null; then
    redis-cli -u "$redis_url" --scan --pattern "$prefix*" | xargs -r redis-cli -u "$redis_url" del >/dev/null || true
  fi
  [[ -n $keep ]] || rm -rf "$work"
  exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ok() { echo "ok   $*"; }
fail() { echo "FAIL $*"; status=1; }
die() { echo "FAIL $*"; exit 1; }
# Commands run with none of the caller's environment (a test runner's NODE_OPTIONS, say).
clean() { env -i PATH="$PATH" HOME="${HOME:-$work}" ${TMPDIR:+TMPDIR="$TMPDIR"} "$@"; }

# A Dockerfile's instructions, one a line: `<stage>\t<INSTRUCTION>\t<arguments>`, continuation
# lines joined, comments and blank lines dropped; a stage is named by `FROM ... AS <name>`.
instructions() {
  sed -e ':a' -e '/\\$/{N;s/\\\n//;ba}' "$1" | grep -v '^[[:space:]]*\(#\|$\)' |
    awk '{ word = toupper($1); $1 = ""; sub(/^ +/, "") }
      word == "FROM" { stage = (toupper($2) == "AS") ? $3 : "stage" n; n++; next }
      { print stage "\t" word "\t" $0 }'
}
# The arguments of one instruction of one stage (the last stage: `runtime`, as ours are named).
instruction() {
  instructions "$docker_dir/$1.Dockerfile" | awk -F '\t' -v s="$2" -v i="$3" '$1 == s && $2 == i { print $3 }'
}

# --- the build stage ----------------------------------------------------------------------------
src="$work/build"
mkdir -p "$src"
case ${SMOKE_TREE:-head} in
  head) git -C "$repo" archive HEAD | tar -x -C "$src" ;;
  worktree)
    (cd "$repo" && git ls-files -z --cached --others --exclude-standard --deduplicate |
      while IFS= read -r -d '' file; do [[ -e $file ]] && printf '%s\0' "$file"; done |
      tar --null -T - -cf -) | tar -x -C "$src"
    ;;
  *) die "SMOKE_TREE must be head or worktree, got ${SMOKE_TREE}" ;;
esac
ok "tree: ${SMOKE_TREE:-head} copied to $src"
# The Dockerfiles replayed are the copy's: those of the tree being built.
docker_dir="$src/deploy/docker"

# Every image's RUN steps in Dockerfile order, each once; `npm prune` last, as in each Dockerfile.
declare -A seen=()
steps=()
prunes=()
for image in "${images[@]}"; do
  while IFS= read -r step; do
    step=$(sed -e 's/^ *//' -e 's/ *$//' <<<"$step")
    [[ -z $step || -n ${seen[$step]:-} ]] && continue
    seen[$step]=1
    if [[ $step == "npm prune "* ]]; then prunes+=("$step"); else steps+=("$step"); fi
  done < <(instruction "$image" build RUN | sed 's/ && /\n/g')
done
for step in "${steps[@]}" "${prunes[@]}"; do
  # The npm cache is warm: no registry round trip per package, no audit, no funding notice.
  run=$(sed -e 's/^npm ci /npm ci --prefer-offline --no-audit --no-fund /' \
    -e 's/^npm prune /npm prune --no-audit --no-fund /' <<<"$step")
  started=$SECONDS
  if (cd "$src" && clean bash -c "$run") >"$work/build.log" 2>&1; then
    ok "build: $step ($((SECONDS - started)) s)"
  else
    tail -30 "$work/build.log"
    die "build: $step"
  fi
done

# --- the runtime stages ---------------------------------------------------------------------------
# Each image's tree holds what its COPY --from=build lines take from the build stage's WORKDIR
# (hard links: fast, and nothing here writes into them).
for image in "${images[@]}"; do
  workdir=$(instruction "$image" build WORKDIR | tail -1)
  tree="$work/image/$image"
  mkdir -p "$tree"
  while read -r from source target; do
    [[ $from == --from=build && $source == "$workdir"/* && $target != /* ]] ||
      die "$image: cannot replay COPY $from $source $target"
    cp -al "$src/${source#"$workdir"/}" "$tree/$target"
  done < <(instruction "$image" runtime COPY)
done
ok "runtime trees: $(cd "$work/image" && echo *)"

# --- starting services ----------------------------------------------------------------------------
# An image's CMD (JSON form), one argument a line.
cmd_of() {
  instruction "$1" runtime CMD | clean node -e 'console.log(JSON.parse(require("fs").readFileSync(0)).join("\n"))'
}

# Starts an image's CMD in its tree with its ENV, then `VAR=value` arguments, then `-- extra CMD args`.
start() {
  local image=$1 env_args=() cmd=()
  shift
  while (($#)) && [[ $1 != -- ]]; do env_args+=("$1"); shift; done
  (($#)) && shift
  mapfile -t cmd < <(cmd_of "$image")
  ((${#cmd[@]})) || die "$image: no CMD in its runtime stage"
  # shellcheck disable=SC2046 # ENV's pairs are words (no quoting in our Dockerfiles)
  (cd "$work/image/$image" &&
    exec env -i PATH="$PATH" HOME="$work" $(instruction "$image" runtime ENV) "${env_args[@]}" "${cmd[@]}" "$@") \
    >"$work/$image.log" 2>&1 &
  pids+=($!)
  eval "pid_${image//-/_}=$!"
}

# Waits for the first match of a sed expression (-n, with p) in a service's log: prints it.
await_log() {
  local image=$1 expression=$2 pid_var="pid_${1//-/_}" end=$((SECONDS + wait_seconds)) found
  while ((SECONDS < end)); do
    found=$(sed -n "$expression" "$work/$image.log" | head -1)
    [[ -n $found ]] && { echo "$found"; return 0; }
    kill -0 "${!pid_var}" 2>/dev/null || break
    sleep 0.1
  done
  echo "FAIL $image: not listening (exited or after ${wait_seconds} s); its log:" >&2
  tail -20 "$work/$image.log" >&2
  return 1
}

# A string field of a JSON log line (pino's: no escapes in the URLs read here).
field() { sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p" <<<"$2"; }

status_of() { curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@" || true; }

# Polls a URL until it answers 200 or the deadline passes.
check_ready() {
  local name=$1 url=$2 end=$((SECONDS + wait_seconds)) code
  shift 2
  while :; do
    code=$(status_of "$@" "$url")
    [[ $code == 200 ]] && { ok "$name: $url answers 200"; return 0; }
    ((SECONDS < end)) || break
    sleep 0.1
  done
  fail "$name: $url answers ${code} after ${wait_seconds} s: $(curl -s --max-time 5 "$@" "$url" | head -c 300)"
  return 1
}

# A page: 200 and a Content-Security-Policy header.
check_page() {
  local name=$1 url=$2 headers code csp
  headers=$(curl -s -D - -o /dev/null --max-time 5 "$url" || true)
  code=$(head -1 <<<"$headers" | awk '{ print $2 }')
  csp=$(grep -i '^content-security-policy:' <<<"$headers" | cut -d' ' -f2- | tr -d '\r' || true)
  if [[ $code == 200 && -n $csp ]]; then
    ok "$name: $url answers 200 with Content-Security-Policy: ${csp:0:60}..."
  else
    [[ -n $csp ]] && csp=present || csp=missing
    fail "$name: $url answers ${code:-nothing}, Content-Security-Policy $csp:" \
      "$(curl -s --max-time 5 "$url" | head -c 300)"
  fi
}

# --- the platform ---------------------------------------------------------------------------------
psql -q -v ON_ERROR_STOP=1 "$database_url" -c "CREATE SCHEMA $schema" >/dev/null || die "PostgreSQL: CREATE SCHEMA"
schema_made=1
[[ $database_url == *\?* ]] && separator='&' || separator='?'
schema_url="$database_url${separator}options=-csearch_path%3D$schema"
jwt_secret=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
listen=(HOST=127.0.0.1 PORT=0 METRICS_PORT=0)

# kube-lite over TLS (client-node refuses a plain-http kubeconfig); CMD's flags overridden (last wins).
start kube-lite -- --host 127.0.0.1 --port 0 --data-dir "$work/kube" --tls
start api-server "${listen[@]}" DATABASE_URL="$schema_url" REDIS_URL="$redis_url" REDIS_KEY_PREFIX="${prefix}api:" \
  AUTH_JWT_SECRET="$jwt_secret" PLATFORM_ADMINS=smoke-admin
kube_url=$(await_log kube-lite 's/^kube-lite listening on \(https:[^ ]*\)$/\1/p') || exit 1
check_ready kube-lite "$kube_url/readyz" -k || exit 1
start control-plane "${listen[@]}" KUBECONFIG="$work/kube/kubeconfig" REDIS_URL="$redis_url" \
  REDIS_KEY_PREFIX="${prefix}cp:" AUTH_MODE=basic AUTH_BASIC_USER=admin AUTH_BASIC_PASSWORD="$random"

listening='s/.*"msg":"Server listening at \(http[^"]*\)".*/\1/p'
# The control plane needs only kube-lite: checked whatever becomes of the API server.
if cp_url=$(await_log control-plane "$listening"); then
  check_ready control-plane "$cp_url/readyz" || true
  check_page control-plane "$cp_url/panel/"
else
  status=1
fi
# The cluster proxy and the tunnel agent need the API server.
api_url=$(await_log api-server "$listening") || exit 1
check_ready api-server "$api_url/readyz" || exit 1
check_page api-server "$api_url/console/"

# A tenant and its cluster, registered as a platform admin, for the tunnel agent.
admin_token=$(clean node -e '
  const { createHmac } = require("node:crypto");
  const part = (o) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub: "smoke-admin", aud: "gsp-api", iat: now, exp: now + 900 };
  const unsigned = `${part({ alg: "HS256", typ: "JWT" })}.${part(claims)}`;
  const signature = createHmac("sha256", process.argv[1]).update(unsigned).digest("base64url");
  console.log(`${unsigned}.${signature}`);
' "$jwt_secret")
api() {
  curl -sS --fail-with-body --max-time 10 -X "$1" "$api_url$2" -H "authorization: Bearer $admin_token" \
    -H 'content-type: application/json' -d "$3"
}
api PUT /api/v1/tenants/smoke/members/smoke-admin '{"role":"admin"}' >/dev/null || die "api-server: tenant smoke"
registration=$(api POST /api/v1/tenants/smoke/clusters '{"name":"smoke"}') || die "api-server: cluster registration"
read -r cluster_id agent_token < <(clean node -e '
  const r = JSON.parse(process.argv[1]);
  console.log(r.id, r.agentToken);
' "$registration")
ok "api-server: cluster $cluster_id registered"

start cluster-proxy "${listen[@]}" TUNNEL_PORT=0 DATABASE_URL="$schema_url" API_SERVER_URL="$api_url" \
  REDIS_URL="$redis_url" REDIS_KEY_PREFIX="${prefix}api:"
proxy_line=$(await_log cluster-proxy '/"msg":"cluster proxy listening/p') || exit 1
proxy_url=$(field url "$proxy_line")
tunnel_url=$(field tunnelUrl "$proxy_line")
check_ready cluster-proxy "$proxy_url/readyz" -k || true

sed -n 's/^ *certificate-authority-data: *//p' "$work/kube/kubeconfig" | base64 -d >"$work/kube/ca.crt"
start tunnel-agent "${listen[@]}" PROXY_TUNNEL_URL="$tunnel_url" CLUSTER_ID="$cluster_id" AGENT_TOKEN="$agent_token" \
  KUBE_API_URL="$kube_url" KUBE_CA_FILE="$work/kube/ca.crt"
agent_line=$(await_log tunnel-agent '/"msg":"tunnel agent listening/p') || exit 1
agent_url=$(field url "$agent_line")
check_ready tunnel-agent "$agent_url/readyz" || true

exit "$status"
