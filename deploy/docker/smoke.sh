#!/usr/bin/env bash
# Without a Docker daemon: replays the images' build stage (npm ci --ignore-scripts, tsc -b,
# npm prune --omit=dev) in a copy of the committed tree, then starts each service's CMD there
# with no configuration. Each must load all its modules from the pruned node_modules and stop
# at its own configuration check (exit 1, naming a variable), not on a missing module.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git archive HEAD | tar -x -C "$work"
cd "$work"
npm ci --ignore-scripts --no-audit --no-fund >/dev/null
npx tsc -b services/api-server services/control-plane services/cluster-proxy services/tunnel-agent packages/kube-lite
npm run build -w packages/web-console >/dev/null
npm prune --omit=dev --ignore-scripts --no-audit --no-fund >/dev/null
status=0
for service in api-server control-plane cluster-proxy tunnel-agent; do
  cmd=$(sed -n 's/^CMD \["node", "\(.*\)"\]$/\1/p' "deploy/docker/$service.Dockerfile")
  set +e
  out=$(env -i PATH="$PATH" NODE_ENV=production HOME="$work" node "$cmd" 2>&1)
  code=$?
  set -e
  if [[ $code -eq 1 ]] && grep -q '[A-Z_]\{4,\}' <<<"$out" && ! grep -q 'ERR_MODULE_NOT_FOUND\|Cannot find' <<<"$out"; then
    echo "ok   $service: $(grep -o '[A-Z][A-Z_]\{3,\}[^"]*' <<<"$out" | head -1 | cut -c1-110)"
  else
    echo "FAIL $service (exit $code):"; echo "$out" | head -20; status=1
  fi
done
# The API server serves the console's build, which must survive the prune.
if [[ -f packages/web-console/dist/index.html ]]; then echo "ok   web console: built for the API server"; else echo "FAIL web console: no packages/web-console/dist/index.html"; status=1; fi
# kube-lite has nothing to configure: it must start and answer.
node packages/kube-lite/dist/src/cli.js --port 0 >"$work/kube-lite.log" 2>&1 &
pid=$!
for _ in $(seq 1 50); do grep -q 'listening on' "$work/kube-lite.log" && break; sleep 0.2; done
if grep -q 'listening on' "$work/kube-lite.log"; then echo "ok   kube-lite: $(head -1 "$work/kube-lite.log")"; else echo "FAIL kube-lite:"; cat "$work/kube-lite.log"; status=1; fi
kill "$pid" 2>/dev/null || true
exit $status
