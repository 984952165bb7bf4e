#!/usr/bin/env bash
# Creates the kind cluster (if missing), deploys the known-good checkout, applies Sentinel's RBAC from
# deploy/k8s/, and writes a kubeconfig for Sentinel. Safe to run again: every step is idempotent.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require kind kubectl

if cluster_exists; then
  log "cluster $CLUSTER_NAME exists; reusing it"
else
  log "creating cluster $CLUSTER_NAME"
  kind create cluster --name "$CLUSTER_NAME" --config "$KIND_DIR/cluster.yaml" --wait 120s
fi

log "deploying the known-good checkout"
kc apply -f "$KIND_DIR/workloads/namespace.yaml"
kc apply -f "$KIND_DIR/workloads/checkout.yaml"
kc -n shop rollout status deployment/checkout --timeout=180s

if compgen -G "$REPO_ROOT/deploy/k8s/*.yaml" >/dev/null; then
  log "applying Sentinel's RBAC from deploy/k8s/"
  kc apply -R -f "$REPO_ROOT/deploy/k8s/"
else
  log "deploy/k8s/ has no manifests yet; skipping RBAC"
fi

umask 077
if kc -n "$SENTINEL_NAMESPACE" get serviceaccount "$SENTINEL_SERVICE_ACCOUNT" >/dev/null 2>&1; then
  log "writing $SENTINEL_KUBECONFIG for service account $SENTINEL_NAMESPACE/$SENTINEL_SERVICE_ACCOUNT"
  token="$(kc -n "$SENTINEL_NAMESPACE" create token "$SENTINEL_SERVICE_ACCOUNT" --duration=24h)"
  server="$(kc config view --minify --raw -o jsonpath='{.clusters[0].cluster.server}')"
  ca="$(kc config view --minify --raw -o jsonpath='{.clusters[0].cluster.certificate-authority-data}')"
  cat >"$SENTINEL_KUBECONFIG" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
  - name: $KUBE_CONTEXT
    cluster:
      server: $server
      certificate-authority-data: $ca
users:
  - name: $SENTINEL_SERVICE_ACCOUNT
    user:
      token: $token
contexts:
  - name: $KUBE_CONTEXT
    context:
      cluster: $KUBE_CONTEXT
      user: $SENTINEL_SERVICE_ACCOUNT
current-context: $KUBE_CONTEXT
KUBECONFIG
else
  log "no service account $SENTINEL_NAMESPACE/$SENTINEL_SERVICE_ACCOUNT; writing the cluster-admin kubeconfig instead"
  kind get kubeconfig --name "$CLUSTER_NAME" >"$SENTINEL_KUBECONFIG"
fi

log "ready. Next: deploy/kind/break.sh, then: npx sentinel serve --kubeconfig $SENTINEL_KUBECONFIG"
