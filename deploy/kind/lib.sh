# Shared settings of the kind demo scripts (sourced, not run).
# shellcheck shell=bash disable=SC2034  # variables are used by the scripts that source this file

KIND_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$KIND_DIR/../.." && pwd)"
CLUSTER_NAME="${SENTINEL_KIND_CLUSTER:-sentinel-demo}"
KUBE_CONTEXT="kind-$CLUSTER_NAME"
# Kubeconfig written for Sentinel (least privilege when deploy/k8s/ defines the service account).
SENTINEL_KUBECONFIG="${SENTINEL_KUBECONFIG:-$KIND_DIR/sentinel.kubeconfig}"
# The service account deploy/k8s/ creates for Sentinel (override if it is named differently).
SENTINEL_NAMESPACE="${SENTINEL_NAMESPACE:-sentinel}"
SENTINEL_SERVICE_ACCOUNT="${SENTINEL_SERVICE_ACCOUNT:-sentinel}"

log() { printf '%s\n' "kind-demo: $*" >&2; }
die() {
  log "$*"
  exit 1
}

require() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is required (see "Demo against kind" in README.md)"
  done
}

cluster_exists() {
  kind get clusters 2>/dev/null | grep -qx "$CLUSTER_NAME"
}

kc() {
  kubectl --context "$KUBE_CONTEXT" "$@"
}
