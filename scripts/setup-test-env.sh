#!/usr/bin/env bash
# Installs the real programs the test suite runs against, pinned, cached under .cache/.
# Idempotent: a second run only checks stamps and prints versions (a second or two).
#   Debian: etcd-server, bind9-dnsutils (dig), knot-dnsutils (kdig), dnsperf, knot, bind9 (named, rndc: a BIND secondary
#   and a BIND resolver), unbound (a resolver in front of delegations)
#   Go module proxy: CoreDNS, external-dns, kube-apiserver (reference peers; not part of the product)
#   Debian: buildah, podman, runc (the image: npm run image, test/image/), ca-certificates (its CA
#   bundle), shellcheck (run: scripts in workflows); Go module proxy: actionlint (the workflows)
#   Go module proxy (downloaded, not built): the Gateway API CRDs (sigs.k8s.io/gateway-api) and
#   external-dns's DNSEndpoint CRD, copied to .cache/crds/ for the tests' kube-apiservers; the
#   CRDs of the edges external-dns reads (Traefik, Istio, Contour, OpenShift Route) likewise
#   Debian: faketime (an etcdns server whose clock is off: a replayed TSIG, test/runtime/dns-server/update/dns-update.e2e.test.ts)
#   Debian: prometheus (promtool and Prometheus: the alerts and the dashboard, test/constructs/alerts.e2e.test.ts and dashboard.e2e.test.ts),
#   chromium (headless: the status page), redis-server (Argo CD's cache in the cluster check)
#   Go module proxy: kube-score, and trivy's Kubernetes configuration checks as trivy-kubernetes
#   (scripts/trivy-kubernetes.go: trivy's own scanner and embedded checks, a fraction of trivy's
#   build), the manifest linters of test/lint/
#   Go module proxy (downloaded, not built): Flux's and Argo CD's CRDs into .cache/flux-crds/ and
#   .cache/argocd-crds/ (test/scaffold/gitops-examples.e2e.test.ts; the cluster check's Flux too)
#   Go module proxy: cert-manager's controllers (scripts/cert-manager-controller.go) and CRDs, and
#   Pebble (Let's Encrypt's ACME test server): the DNS-01 test, test/runtime/dns-server/update/cert-manager-pebble.e2e.test.ts
#   Go module proxy (downloaded, not built): External Secrets' ExternalSecret CRD into .cache/crds/
#   (the cluster check's Argo CD assesses the ExternalSecret etcdns renders)
# Only what `npm test` needs: the cluster check's programs are scripts/setup-cluster-env.sh's
# (npm run setup:cluster). Each step that does work logs how long it took.
set -euo pipefail

COREDNS_VERSION=v1.15.0
EXTERNAL_DNS_VERSION=v0.22.0
KUBERNETES_VERSION=v1.37.2
ACTIONLINT_VERSION=v1.7.12
# The newest patch of the minor external-dns v0.22 builds against (v1.6.1).
GATEWAY_API_VERSION=v1.6.3
# The edges' CRDs (external-dns v0.22's sources read them): Istio at external-dns v0.22's istio.io/api.
TRAEFIK_VERSION=v3.7.13
ISTIO_API_VERSION=v1.30.3
CONTOUR_VERSION=v1.33.6
OPENSHIFT_API_VERSION=v0.0.0-20251015095338-264e80a2b6e7
KUBE_SCORE_VERSION=v1.20.0
TRIVY_VERSION=v0.74.0
# Flux's and Argo CD's CRDs. setup-cluster-env.sh builds Flux at this FLUX_VERSION and its
# Kubernetes programs at KUBERNETES_VERSION: it reads both from here.
# Flux v1.10 needs Go 1.27 and a dependency the module proxy refuses; Argo CD v3.6 needs Go 1.27.
FLUX_VERSION=v1.9.6
ARGOCD_VERSION=v3.5.7
CERT_MANAGER_VERSION=v1.21.2
PEBBLE_VERSION=v2.10.3
# The External Secrets Operator whose external-secrets.io/v1 ExternalSecret etcdns renders.
EXTERNAL_SECRETS_VERSION=v1.3.2
# runc named explicitly: podman depends on "crun | runc" and apt would pick crun, which refuses
# hybrid cgroups v1 machines like this one.
APT_PACKAGES=(etcd-server etcd-client bind9-dnsutils knot-dnsutils dnsperf knot bind9 unbound iproute2
  buildah podman runc ca-certificates shellcheck containernetworking-plugins iptables ipset
  prometheus chromium faketime redis-server)

root=$(cd "$(dirname "$0")/.." && pwd)
cache="$root/.cache"
bin="$cache/bin"
mkdir -p "$bin" "$cache/build"
log() { printf '[setup] %s\n' "$*" >&2; }
# step FUNCTION ARGS...: runs one step; a step that took a second or more logs how long.
step() {
  local t=${EPOCHREALTIME/./} ms
  "$@"
  ms=$(((${EPOCHREALTIME/./} - t) / 1000))
  [ "$ms" -lt 1000 ] || log "${*:1:2} took $((ms / 1000)) s"
}

install_debian() {
  local missing=()
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return
  log "apt-get install ${missing[*]}"
  local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # The Debian packages start system services on the standard ports; tests use their own.
  for svc in etcd knot named unbound prometheus redis-server; do $sudo systemctl disable --now "$svc" >/dev/null 2>&1 || true; done
}

# stamp_ok NAME VERSION: .cache/bin/NAME exists and was built at VERSION.
stamp_ok() { [ -x "$bin/$1" ] && [ "$(cat "$bin/$1.version" 2>/dev/null)" = "$2" ]; }

# in_wrapper_module NAME MODULE@VERSION IMPORT: makes .cache/build/NAME a throwaway module that
# requires MODULE@VERSION and imports IMPORT, and cds into it (callers run in a subshell). A
# main package of a dependency can then be built with the wrapper's replace directives.
in_wrapper_module() {
  local dir="$cache/build/$1"
  rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
  go mod init "etcdns.local/$1" >/dev/null 2>&1
  go mod edit -require="$2"
  printf 'package main\n\nimport _ "%s"\n\nfunc main() {}\n' "$3" > tools.go
}

# tidy: resolves the wrapper's dependencies, showing go's output only when it fails.
tidy() { go mod tidy 2> tidy.log || { cat tidy.log >&2; return 1; }; }

build_coredns() {
  stamp_ok coredns "$COREDNS_VERSION" && return
  log "building CoreDNS $COREDNS_VERSION"
  GOBIN="$bin" go install "github.com/coredns/coredns@$COREDNS_VERSION"
  echo "$COREDNS_VERSION" > "$bin/coredns.version"
}

build_external_dns() {
  stamp_ok external-dns "$EXTERNAL_DNS_VERSION" && return
  log "building external-dns $EXTERNAL_DNS_VERSION"
  (
    in_wrapper_module external-dns "sigs.k8s.io/external-dns@$EXTERNAL_DNS_VERSION" sigs.k8s.io/external-dns/controller
    # Two of its dependency versions are refused by the module proxy (403 "not available"):
    # use the nearest served ones. Both are for providers/sources the tests do not use.
    go mod edit -replace=github.com/exoscale/egoscale/v3=github.com/exoscale/egoscale/v3@v3.1.43
    go mod edit -replace=github.com/openshift/api=github.com/openshift/api@v0.0.0-20251015095338-264e80a2b6e7
    tidy
    go build -ldflags "-X sigs.k8s.io/external-dns/pkg/apis/externaldns.Version=$EXTERNAL_DNS_VERSION" \
      -o "$bin/external-dns" sigs.k8s.io/external-dns
  )
  echo "$EXTERNAL_DNS_VERSION" > "$bin/external-dns.version"
}

build_kube_apiserver() {
  stamp_ok kube-apiserver "$KUBERNETES_VERSION" && return
  log "building kube-apiserver $KUBERNETES_VERSION"
  (
    in_wrapper_module kube-apiserver "k8s.io/kubernetes@$KUBERNETES_VERSION" k8s.io/kubernetes/cmd/kube-apiserver/app
    # k8s.io/kubernetes requires its staging modules at v0.0.0 and replaces them with ./staging,
    # which a dependent module cannot see: pin each one to its published twin (v1.X.Y -> v0.X.Y).
    go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" >/dev/null
    local gomod
    gomod=$(go env GOMODCACHE)/cache/download/k8s.io/kubernetes/@v/$KUBERNETES_VERSION.mod
    for m in $(awk '$1 ~ /^k8s\.io\// && $2 == "v0.0.0" {print $1}' "$gomod" | sort -u); do
      go mod edit -replace="$m=$m@v0${KUBERNETES_VERSION#v1}"
    done
    tidy
    # Stamp the version as the release build does (clients read it from /version).
    go build -ldflags "-X k8s.io/component-base/version.gitVersion=$KUBERNETES_VERSION" \
      -o "$bin/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
  )
  echo "$KUBERNETES_VERSION" > "$bin/kube-apiserver.version"
}

build_actionlint() {
  stamp_ok actionlint "$ACTIONLINT_VERSION" && return
  log "building actionlint $ACTIONLINT_VERSION"
  GOBIN="$bin" go install "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION"
  echo "$ACTIONLINT_VERSION" > "$bin/actionlint.version"
}

build_kube_score() {
  stamp_ok kube-score "$KUBE_SCORE_VERSION" && return
  log "building kube-score $KUBE_SCORE_VERSION"
  GOBIN="$bin" go install -ldflags "-X main.version=$KUBE_SCORE_VERSION" \
    "github.com/zegl/kube-score/cmd/kube-score@$KUBE_SCORE_VERSION"
  echo "$KUBE_SCORE_VERSION" > "$bin/kube-score.version"
}

# trivy-kubernetes: scripts/trivy-kubernetes.go as the wrapper module's program (over its tools.go),
# stamped with the trivy version and the source's hash. trivy needs GOEXPERIMENT=jsonv2.
build_trivy_kubernetes() {
  local source="$root/scripts/trivy-kubernetes.go" stamp
  stamp="$TRIVY_VERSION $(sha256sum < "$source" | cut -c1-16)"
  stamp_ok trivy-kubernetes "$stamp" && return
  log "building trivy-kubernetes (trivy $TRIVY_VERSION's Kubernetes checks)"
  (
    export GOEXPERIMENT=jsonv2
    in_wrapper_module trivy-kubernetes "github.com/aquasecurity/trivy@$TRIVY_VERSION" github.com/aquasecurity/trivy/pkg/iac/rego
    cp "$source" tools.go
    tidy
    go build -o "$bin/trivy-kubernetes" .
  )
  echo "$stamp" > "$bin/trivy-kubernetes.version"
}

# cert-manager-controller: scripts/cert-manager-controller.go over cert-manager's library (its own
# controller main package is a module the proxy does not serve), stamped like trivy-kubernetes.
build_cert_manager_controller() {
  local source="$root/scripts/cert-manager-controller.go" stamp
  stamp="$CERT_MANAGER_VERSION $(sha256sum < "$source" | cut -c1-16)"
  stamp_ok cert-manager-controller "$stamp" && return
  log "building cert-manager-controller (cert-manager $CERT_MANAGER_VERSION's controllers)"
  (
    in_wrapper_module cert-manager-controller "github.com/cert-manager/cert-manager@$CERT_MANAGER_VERSION" \
      github.com/cert-manager/cert-manager/pkg/controller
    cp "$source" tools.go
    tidy
    go build -o "$bin/cert-manager-controller" .
  )
  echo "$stamp" > "$bin/cert-manager-controller.version"
}

# pebble, and its test certificates (its TLS certificate for 127.0.0.1 and the CA that signed it)
# into .cache/pebble-certs/.
build_pebble() {
  stamp_ok pebble "$PEBBLE_VERSION" && return
  log "building Pebble $PEBBLE_VERSION"
  GOBIN="$bin" go install -ldflags "-X main.version=$PEBBLE_VERSION" \
    "github.com/letsencrypt/pebble/v2/cmd/pebble@$PEBBLE_VERSION"
  rm -rf "$cache/pebble-certs"
  cp -r "$(module_dir "github.com/letsencrypt/pebble/v2@$PEBBLE_VERSION")/test/certs" "$cache/pebble-certs"
  chmod -R u+w "$cache/pebble-certs"
  echo "$PEBBLE_VERSION" > "$bin/pebble.version"
}

# module_dir MODULE@VERSION: the module downloaded, its folder in the module cache.
module_dir() { go mod download -json "$1" | awk -F'"' '/"Dir":/ {print $4}'; }

# copy_crds NAME MODULE@VERSION PATH...: the module's CRD folders or files PATH (globs allowed)
# into .cache/crds/NAME.
copy_crds() {
  local module=$2 dest="$cache/crds/$1" src d
  shift 2
  [ -f "$dest/.complete" ] && return
  log "CRDs of $module"
  src=$(module_dir "$module")
  rm -rf "$dest" && mkdir -p "$dest"
  # shellcheck disable=SC2086 # PATH may be a glob
  for d in "$@"; do cp -r "$src"/$d "$dest/"; done
  chmod -R u+w "$dest"
  touch "$dest/.complete"
}

# fetch_flux_crds: each Flux controller's config/crd/bases into .cache/flux-crds/<controller>.
fetch_flux_crds() {
  local c src dir
  for c in source-controller kustomize-controller; do
    dir="$cache/flux-crds/$c"
    [ "$(cat "$dir/version" 2>/dev/null)" = "$FLUX_VERSION" ] && continue
    log "downloading Flux $c $FLUX_VERSION's CRDs"
    src=$(module_dir "github.com/fluxcd/$c@$FLUX_VERSION")
    rm -rf "$dir" && mkdir -p "$dir"
    cp "$src"/config/crd/bases/*.yaml "$dir/"
    chmod u+w "$dir"/*.yaml
    echo "$FLUX_VERSION" > "$dir/version"
  done
}

fetch_argocd_crds() {
  local dir="$cache/argocd-crds" src
  [ "$(cat "$dir/version" 2>/dev/null)" = "$ARGOCD_VERSION" ] && return
  log "downloading Argo CD $ARGOCD_VERSION's CRDs"
  src=$(module_dir "github.com/argoproj/argo-cd/v3@$ARGOCD_VERSION")
  rm -rf "$dir" && mkdir -p "$dir"
  cp "$src/manifests/crds/application-crd.yaml" "$src/manifests/crds/appproject-crd.yaml" "$dir/"
  chmod u+w "$dir"/*.yaml
  echo "$ARGOCD_VERSION" > "$dir/version"
}

step install_debian
step copy_crds "gateway-api-$GATEWAY_API_VERSION" "sigs.k8s.io/gateway-api@$GATEWAY_API_VERSION" \
  config/crd/standard config/crd/experimental
step copy_crds "external-dns-$EXTERNAL_DNS_VERSION" "sigs.k8s.io/external-dns@$EXTERNAL_DNS_VERSION" config/crd/standard
step copy_crds "traefik-$TRAEFIK_VERSION" "github.com/traefik/traefik/v3@$TRAEFIK_VERSION" \
  'docs/content/reference/dynamic-configuration/traefik.io_*.yaml'
step copy_crds "istio-$ISTIO_API_VERSION" "istio.io/api@$ISTIO_API_VERSION" kubernetes/customresourcedefinitions.gen.yaml
step copy_crds "contour-$CONTOUR_VERSION" "github.com/projectcontour/contour@$CONTOUR_VERSION" \
  examples/contour/01-crds.yaml
step copy_crds "openshift-api-$OPENSHIFT_API_VERSION" "github.com/openshift/api@$OPENSHIFT_API_VERSION" \
  route/v1/zz_generated.crd-manifests/routes.crd.yaml
step copy_crds "cert-manager-$CERT_MANAGER_VERSION" "github.com/cert-manager/cert-manager@$CERT_MANAGER_VERSION" \
  'deploy/crds/*.yaml'
step copy_crds "external-secrets-$EXTERNAL_SECRETS_VERSION" \
  "github.com/external-secrets/external-secrets@$EXTERNAL_SECRETS_VERSION" config/crds/bases/external-secrets.io_externalsecrets.yaml
step fetch_flux_crds
step fetch_argocd_crds
step build_coredns
step build_external_dns
step build_kube_apiserver
step build_actionlint
step build_kube_score
step build_trivy_kubernetes
step build_cert_manager_controller
step build_pebble

{
  echo "etcd            $(etcd --version | awk '/etcd Version/ {print $3}')"
  echo "dig             $(dig -v 2>&1 | awk '{print $2}')"
  echo "kdig            $(kdig --version | awk '{print $NF}')"
  echo "dnsperf         $(dpkg-query -W -f='${Version}' dnsperf)"
  echo "knotd           $(knotd --version | awk '{print $NF}')"
  echo "named           $(named -v | awk '{print $2}')"
  echo "coredns         $("$bin/coredns" -version | awk -F- '/CoreDNS/ {print $2}')"
  echo "external-dns    $("$bin/external-dns" --version 2>&1)"
  echo "kube-apiserver  $("$bin/kube-apiserver" --version | awk '{print $2}')"
  echo "buildah         $(buildah --version | awk '{print $3}')"
  echo "podman          $(podman --version | awk '{print $3}')"
  echo "runc            $(runc --version | awk 'NR == 1 {print $3}')"
  echo "actionlint      $("$bin/actionlint" --version | head -1)"
  echo "kube-score      $("$bin/kube-score" version | awk '{print $3}' | tr -d ,)"
  echo "trivy checks    $("$bin/trivy-kubernetes" --version) (trivy-kubernetes)"
  echo "cert-manager    $("$bin/cert-manager-controller" --version) (controllers, CRDs)"
  echo "pebble          $("$bin/pebble" -version | awk '{print $3}')"
  echo "shellcheck      $(shellcheck --version | awk '/^version:/ {print $2}')"
  echo "gateway-api     $GATEWAY_API_VERSION (CRDs)"
  echo "flux, argo cd   $FLUX_VERSION, $ARGOCD_VERSION (CRDs)"
  echo "traefik         $TRAEFIK_VERSION (CRDs)"
  echo "istio api       $ISTIO_API_VERSION (CRDs)"
  echo "contour         $CONTOUR_VERSION (CRDs)"
  echo "openshift api   $OPENSHIFT_API_VERSION (Route CRD)"
  echo "ext. secrets    $EXTERNAL_SECRETS_VERSION (ExternalSecret CRD)"
} | sed 's/^/[setup] /' >&2
log "setup-test-env.sh: $SECONDS s"

