#!/usr/bin/env bash
# Installs what the cluster check (npm run test:cluster, test/cluster/) runs on top of the test
# environment of scripts/setup-test-env.sh (npm run setup:cluster runs both), pinned, cached under
# .cache/. Idempotent: a second run only checks stamps. Each step that does work logs how long it
# took.
#   Go module proxy: kubelet, kube-proxy, kube-controller-manager, kube-scheduler from the same
#     k8s.io/kubernetes as kube-apiserver, built in kube-apiserver's wrapper module (.cache/build/
#     kube-apiserver: the packages they share are compiled once); containerd v2 (containerd,
#     containerd-shim-runc-v2, ctr; CGO_ENABLED=0). Debian's containerd 1.6 runs, but the kubelet
#     marks it as losing support. kube-router v2.1.0 (cmd/kube-router; CGO_ENABLED=0), run with its
#     firewall only: it enforces NetworkPolicy beside the bridge plugin (iptables + ipset).
#     v2.1.0 has reported security flaws: it is test infrastructure only, on the fenced test
#     bridge, never deployed.
#   Flux (source-controller, kustomize-controller; test/cluster/flux.cluster.ts runs them as
#     processes with a kubeconfig): each built in a wrapper module (.cache/build/<name>) with the
#     controller's own replace directives, as kube-apiserver is. setup-test-env.sh pins the
#     version and copies their CRDs into .cache/flux-crds/.
#   Argo CD (one binary, `argocd`, whose ARGOCD_BINARY_NAME picks the application-controller or
#     repo-server role; test/cluster/argocd.cluster.ts runs those two as processes) at
#     setup-test-env.sh's ARGOCD_VERSION, built like Flux, plus the module's
#     hack/git-verify-wrapper.sh the repo-server calls, and kustomize (which it runs) on PATH;
#     the ConfigMaps and Secret of its manifests/base/config copied to .cache/argocd-config/.
#     redis, its cache, is in setup-test-env.sh's Debian list.
#   Debian (setup-test-env.sh's list): runc, containernetworking-plugins (bridge, host-local,
#     loopback, portmap), iptables, ipset (kube-router's sets).
#   Images (no registry is reachable): the pause image (Kubernetes' own build/pause/linux/pause.c
#     from the module cache, compiled static) and an etcd image (Debian's etcd binary and the
#     libraries it links), both `buildah from scratch` and written as OCI archives to
#     .cache/cluster-images/, named by a hash of their content; the tests import them into their
#     containerd. The etcdns image comes from `npm run image` (scripts/image.sh); the Knot image of
#     the DNSSEC signer from scripts/knot-image.sh (Debian's Knot, the same way as etcd's).
set -euo pipefail

CONTAINERD_VERSION=v2.4.2
KUBE_ROUTER_VERSION=v2.1.0
# Argo CD v3.5 replaces its gitops-engine with a folder of its repository that the module lacks; the
# proxy serves the same folder as a module of its own: this snapshot is the newest of the v3.5 line.
ARGOCD_GITOPS_ENGINE=v0.0.0-20260914071520-c9c369efcc5b
KUSTOMIZE_VERSION=v5.7.0
FLUX_CONTROLLERS=(source-controller kustomize-controller)
CLUSTER_BINARIES=(kubelet kube-proxy kube-controller-manager kube-scheduler)

root=$(cd "$(dirname "$0")/.." && pwd)
# The versions shared with the test environment, pinned in one place: setup-test-env.sh.
eval "$(grep -E '^(KUBERNETES|FLUX|ARGOCD)_VERSION=' "$root/scripts/setup-test-env.sh")"
cache="$root/.cache"
bin="$cache/bin"
mkdir -p "$bin" "$cache/build"
log() { printf '[setup-cluster] %s\n' "$*" >&2; }
# step FUNCTION ARGS...: runs one step; a step that took a second or more logs how long.
step() {
  local t=${EPOCHREALTIME/./} ms
  "$@"
  ms=$(((${EPOCHREALTIME/./} - t) / 1000))
  [ "$ms" -lt 1000 ] || log "${*:1:2} took $((ms / 1000)) s"
}

stamp_ok() { [ -x "$bin/$1" ] && [ "$(cat "$bin/$1.version" 2>/dev/null)" = "$2" ]; }

# The wrapper module setup-test-env.sh builds kube-apiserver in: the same k8s.io/kubernetes
# version and the staging modules pinned to their published twins. Recreated here the same way
# when it is missing (a cache restored without .cache/build, say).
wrapper_module() {
  local dir="$cache/build/kube-apiserver"
  if [ ! -f "$dir/go.mod" ] || ! grep -q "k8s.io/kubernetes $KUBERNETES_VERSION" "$dir/go.mod"; then
    rm -rf "$dir" && mkdir -p "$dir"
    (
      cd "$dir"
      go mod init etcdns.local/kube-apiserver >/dev/null 2>&1
      go mod edit -require="k8s.io/kubernetes@$KUBERNETES_VERSION"
      printf 'package main\n\nimport _ "k8s.io/kubernetes/cmd/kube-apiserver/app"\n\nfunc main() {}\n' > tools.go
      go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" >/dev/null
      local gomod m
      gomod=$(go env GOMODCACHE)/cache/download/k8s.io/kubernetes/@v/$KUBERNETES_VERSION.mod
      awk '$1 ~ /^k8s\.io\// && $2 == "v0.0.0" {print $1}' "$gomod" | sort -u | while read -r m; do
        go mod edit -replace="$m=$m@v0${KUBERNETES_VERSION#v1}"
      done
    )
  fi
  echo "$dir"
}

build_kubernetes_nodes() {
  local missing=() b
  for b in "${CLUSTER_BINARIES[@]}"; do stamp_ok "$b" "$KUBERNETES_VERSION" || missing+=("$b"); done
  [ ${#missing[@]} -eq 0 ] && return
  log "building ${missing[*]} $KUBERNETES_VERSION (kube-apiserver's wrapper module)"
  local dir
  dir=$(wrapper_module)
  (
    cd "$dir"
    # One more file of imports keeps their dependencies in the wrapper's go.mod.
    {
      printf 'package main\n\nimport (\n'
      for b in "${CLUSTER_BINARIES[@]}"; do printf '\t_ "k8s.io/kubernetes/cmd/%s/app"\n' "$b"; done
      printf ')\n'
    } > cluster-tools.go
    go mod tidy 2> tidy.log || { cat tidy.log >&2; exit 1; }
    local pkgs=()
    for b in "${missing[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$b"); done
    go build -ldflags "-X k8s.io/component-base/version.gitVersion=$KUBERNETES_VERSION" -o "$bin/" "${pkgs[@]}"
  )
  for b in "${missing[@]}"; do echo "$KUBERNETES_VERSION" > "$bin/$b.version"; done
}

build_containerd() {
  stamp_ok containerd "$CONTAINERD_VERSION" && stamp_ok containerd-shim-runc-v2 "$CONTAINERD_VERSION" &&
    stamp_ok ctr "$CONTAINERD_VERSION" && return
  log "building containerd $CONTAINERD_VERSION (containerd, containerd-shim-runc-v2, ctr)"
  local m=github.com/containerd/containerd/v2
  CGO_ENABLED=0 GOBIN="$bin" go install \
    -ldflags "-X $m/version.Version=$CONTAINERD_VERSION" \
    "$m/cmd/containerd@$CONTAINERD_VERSION" \
    "$m/cmd/containerd-shim-runc-v2@$CONTAINERD_VERSION" \
    "$m/cmd/ctr@$CONTAINERD_VERSION"
  for b in containerd containerd-shim-runc-v2 ctr; do echo "$CONTAINERD_VERSION" > "$bin/$b.version"; done
}

build_kube_router() {
  stamp_ok kube-router "$KUBE_ROUTER_VERSION" && return
  log "building kube-router $KUBE_ROUTER_VERSION"
  local m=github.com/cloudnativelabs/kube-router/v2
  CGO_ENABLED=0 GOBIN="$bin" go install \
    -ldflags "-X $m/pkg/version.Version=$KUBE_ROUTER_VERSION" "$m/cmd/kube-router@$KUBE_ROUTER_VERSION"
  echo "$KUBE_ROUTER_VERSION" > "$bin/kube-router.version"
}

# build_flux_controller NAME: github.com/fluxcd/NAME@FLUX_VERSION in its own wrapper module, with
# the replace directives of the controller's go.mod (all but its own ./api, which the published
# api module of the same version stands for).
build_flux_controller() {
  local name=$1 m=github.com/fluxcd/$1
  stamp_ok "$name" "$FLUX_VERSION" && return
  log "building Flux $name $FLUX_VERSION"
  (
    local dir="$cache/build/flux-$name" gomod
    rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
    go mod init "etcdns.local/flux-$name" >/dev/null 2>&1
    go mod edit -require="$m@$FLUX_VERSION"
    gomod=$(go mod download -json "$m@$FLUX_VERSION" | jq -r .GoMod)
    go mod edit -json "$gomod" | jq -r '.Replace[]? | select(.New.Version != null)
      | "\(.Old.Path)\(if .Old.Version then "@" + .Old.Version else "" end)=\(.New.Path)@\(.New.Version)"' |
      while read -r r; do go mod edit -replace="$r"; done
    # source-controller v1.9.6 asks for fluxcd/pkg/artifact v0.18.3, which the module proxy
    # refuses ("not available"); v0.18.0 is served.
    [ "$name" = source-controller ] &&
      go mod edit -replace=github.com/fluxcd/pkg/artifact=github.com/fluxcd/pkg/artifact@v0.18.0
    go get "$m@$FLUX_VERSION" 2> get.log || { cat get.log >&2; exit 1; }
    go build -o "$bin/$name" "$m"
  )
  echo "$FLUX_VERSION" > "$bin/$name.version"
}

build_flux() { local c; for c in "${FLUX_CONTROLLERS[@]}"; do build_flux_controller "$c"; done; }

# build_argocd: github.com/argoproj/argo-cd/v3/cmd in a wrapper module with Argo CD's own replace
# directives (as build_flux_controller) and its gitops-engine at ARGOCD_GITOPS_ENGINE.
build_argocd() {
  local m=github.com/argoproj/argo-cd/v3
  stamp_ok argocd "$ARGOCD_VERSION" && stamp_ok git-verify-wrapper.sh "$ARGOCD_VERSION" && return
  log "building Argo CD $ARGOCD_VERSION (gitops-engine $ARGOCD_GITOPS_ENGINE)"
  (
    local dir="$cache/build/argocd" gomod
    rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
    go mod init etcdns.local/argocd >/dev/null 2>&1
    go mod edit -require="$m@$ARGOCD_VERSION"
    gomod=$(go mod download -json "$m@$ARGOCD_VERSION" | jq -r .GoMod)
    go mod edit -json "$gomod" | jq -r '.Replace[]? | select(.New.Version != null)
      | "\(.Old.Path)\(if .Old.Version then "@" + .Old.Version else "" end)=\(.New.Path)@\(.New.Version)"' |
      while read -r r; do go mod edit -replace="$r"; done
    go mod edit -replace="github.com/argoproj/argo-cd/gitops-engine=github.com/argoproj/argo-cd/gitops-engine@$ARGOCD_GITOPS_ENGINE"
    go get "$m/cmd@$ARGOCD_VERSION" 2> get.log || { cat get.log >&2; exit 1; }
    go build -ldflags "-X $m/common.version=${ARGOCD_VERSION#v}" -o "$bin/argocd" "$m/cmd"
    install -m 0755 "$(go list -m -f '{{.Dir}}' "$m")/hack/git-verify-wrapper.sh" "$bin/git-verify-wrapper.sh"
  )
  echo "$ARGOCD_VERSION" > "$bin/argocd.version"
  echo "$ARGOCD_VERSION" > "$bin/git-verify-wrapper.sh.version"
}

# copy_argocd_config: what Argo CD's install manifests apply before its pods start (argocd-cm,
# argocd-secret, ...), from the module.
copy_argocd_config() {
  local dir="$cache/argocd-config" src
  [ "$(cat "$dir/version" 2>/dev/null)" = "$ARGOCD_VERSION" ] && return
  src=$(go mod download -json "github.com/argoproj/argo-cd/v3@$ARGOCD_VERSION" | jq -r .Dir)
  rm -rf "$dir" && mkdir -p "$dir"
  find "$src/manifests/base/config" -name 'argocd-*.yaml' -exec install -m 0644 {} "$dir/" \;
  echo "$ARGOCD_VERSION" > "$dir/version"
}

build_kustomize() {
  stamp_ok kustomize "$KUSTOMIZE_VERSION" && return
  log "building kustomize $KUSTOMIZE_VERSION"
  GOBIN="$bin" go install -ldflags "-X sigs.k8s.io/kustomize/api/provenance.version=kustomize/$KUSTOMIZE_VERSION" \
    "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION"
  echo "$KUSTOMIZE_VERSION" > "$bin/kustomize.version"
}

# image_archive NAME KEY: the archive path for an image of that content.
image_archive() { echo "$cache/cluster-images/$1-$2.oci.tar"; }

# build_image NAME TAG KEY FILL: runs `FILL MOUNTPOINT` in a scratch container, commits it as
# localhost/NAME:TAG and writes it to its archive; older archives of NAME are removed.
build_image() {
  local name=$1 tag=$2 key=$3 fill=$4 archive c m
  archive=$(image_archive "$name" "$key")
  [ -f "$archive" ] && return
  log "image localhost/$name:$tag ($key)"
  mkdir -p "$cache/cluster-images"
  c=$(buildah from --quiet scratch)
  # shellcheck disable=SC2064 # the container id is fixed now
  trap "buildah rm $c >/dev/null 2>&1 || true" RETURN
  m=$(buildah mount "$c")
  "$fill" "$m"
  buildah umount "$c" >/dev/null
  shift 4
  buildah config "$@" "$c"
  buildah commit --quiet "$c" "localhost/$name:$tag" >/dev/null
  rm -f "$cache/cluster-images/$name-"*.oci.tar
  buildah push --quiet "localhost/$name:$tag" "oci-archive:$archive.new:localhost/$name:$tag"
  mv "$archive.new" "$archive"
}

PAUSE_SOURCE=$(go env GOMODCACHE)/k8s.io/kubernetes@$KUBERNETES_VERSION/build/pause/linux/pause.c
fill_pause() {
  mkdir -p "$1/bin"
  gcc -Os -static -Wall -Werror -DVERSION="etcdns-$KUBERNETES_VERSION" -o "$1/bin/pause" "$PAUSE_SOURCE"
}
# The library paths etcd links, as the loader resolves them (same paths in the image).
etcd_libs() { ldd /usr/bin/etcd | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'; }
fill_etcd() {
  local lib
  mkdir -p "$1/usr/local/bin" "$1/var/lib/etcd" "$1/tmp"
  install -m 0755 /usr/bin/etcd "$1/usr/local/bin/etcd"
  for lib in $(etcd_libs); do mkdir -p "$1$(dirname "$lib")" && cp -L "$lib" "$1$lib"; done
  chmod 1777 "$1/tmp"
}

build_images() {
  [ -f "$PAUSE_SOURCE" ] || go mod download "k8s.io/kubernetes@$KUBERNETES_VERSION"
  local key etcd_version
  key=$( { echo "pause 1"; sha256sum "$PAUSE_SOURCE"; gcc --version | head -1; } | sha256sum | cut -c1-16)
  build_image pause "$KUBERNETES_VERSION" "$key" fill_pause \
    --entrypoint '["/bin/pause"]' --user 65535:65535
  etcd_version=$(etcd --version | awk '/etcd Version/ {print $3}')
  # shellcheck disable=SC2046 # one path per line, no spaces
  key=$( { echo "etcd 1"; sha256sum /usr/bin/etcd $(etcd_libs); } | sha256sum | cut -c1-16)
  build_image etcd "$etcd_version" "$key" fill_etcd \
    --env PATH=/usr/local/bin:/usr/bin:/bin --cmd '["etcd"]' \
    --label "io.etcdns.debian-package=etcd-server=$(dpkg-query -W -f='${Version}' etcd-server)"
  bash "$root/scripts/knot-image.sh" >/dev/null
}

step build_kubernetes_nodes
step build_containerd
step build_kube_router
step build_flux
step build_argocd
step copy_argocd_config
step build_kustomize
step build_images

{
  for b in "${CLUSTER_BINARIES[@]}"; do printf '%-24s %s\n' "$b" "$("$bin/$b" --version | awk '{print $2}')"; done
  printf '%-24s %s\n' containerd "$("$bin/containerd" --version | awk '{print $3}')"
  printf '%-24s %s\n' kube-router "$(cat "$bin/kube-router.version")"
  for b in "${FLUX_CONTROLLERS[@]}"; do printf '%-24s %s\n' "$b" "$(cat "$bin/$b.version")"; done
  printf '%-24s %s\n' argocd "$("$bin/argocd" version --client --short 2>/dev/null || cat "$bin/argocd.version")"
  printf '%-24s %s\n' kustomize "$("$bin/kustomize" version)"
  printf '%-24s %s\n' images "$(cd "$cache/cluster-images" && echo *.oci.tar)"
  printf '%-24s %s\n' cni-plugins "$(dpkg-query -W -f='${Version}' containernetworking-plugins)"
} | sed 's/^/[setup-cluster] /' >&2
log "setup-cluster-env.sh: $SECONDS s"
