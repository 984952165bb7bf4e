#!/usr/bin/env bash
# Deletes the kind cluster and the kubeconfig written for Sentinel. Safe to run again.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require kind

if cluster_exists; then
  log "deleting cluster $CLUSTER_NAME"
  kind delete cluster --name "$CLUSTER_NAME"
else
  log "cluster $CLUSTER_NAME does not exist; nothing to delete"
fi
rm -f "$SENTINEL_KUBECONFIG"
