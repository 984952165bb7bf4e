#!/usr/bin/env bash
# Rolls out the known-bad checkout (a new revision whose Pods crash-loop). Running it again changes
# nothing: the bad template is already the current one.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require kind kubectl
cluster_exists || die "cluster $CLUSTER_NAME does not exist; run deploy/kind/up.sh first"

log "rolling out the known-bad checkout"
kc apply -f "$KIND_DIR/workloads/checkout-bad.yaml"
kc -n shop rollout history deployment/checkout
log "broken. Watch it with: kubectl --context $KUBE_CONTEXT -n shop get pods -w"
