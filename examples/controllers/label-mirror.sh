#!/usr/bin/env bash
# label-mirror: a controller built on kubectl alone. Every ConfigMap annotated kwatch.dev/mirror-label=VALUE
# gets the label mirrored=VALUE; one that has it already is left alone, so the controller converges.
#
# `kubectl get --watch` lists, then watches; when the server ends the watch (timeout, 410 Gone, a dropped
# connection) kubectl exits and the loop lists again, which is safe because every action is idempotent.
# Each label carries the resourceVersion it was decided on (a conflict means a newer event is on its way).
# A failed label lists again after a pause. SIGTERM or SIGINT exits 0. One line per action goes to stderr.
#
# Usage: label-mirror.sh [--kubeconfig FILE] [-n NAMESPACE | -A]
# KUBECONFIG is used when --kubeconfig is not given; the namespace defaults to the context's. KUBECTL names
# the kubectl to run (default: the one on PATH).
set -euo pipefail

readonly kubectl="${KUBECTL:-kubectl}"

readonly annotation='kwatch.dev/mirror-label'
# One line per watch event: type|namespace|name|resourceVersion|mirrored label|annotation. The annotation is
# last and Go-quoted (%q), so no value can break a line or shift a field.
readonly template='{{.type}}|{{with .object.metadata}}{{.namespace}}|{{.name}}|{{.resourceVersion}}|{{with .labels}}{{with index . "mirrored"}}{{.}}{{end}}{{end}}|{{with .annotations}}{{with index . "'"$annotation"'"}}{{printf "%q" .}}{{end}}{{end}}{{end}}{{"\n"}}'
# A label value, Go-quoted: quoting leaves these characters as they are.
readonly quoted_label_value='^"([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9]"$'

log() { printf '%s\n' "$*" >&2; }

usage() { log "usage: label-mirror.sh [--kubeconfig FILE] [-n NAMESPACE | -A]"; }

kube=()    # connection flags for every kubectl call
scope=()   # which namespaces to watch
while (($#)); do
  case "$1" in
    --kubeconfig) (($# >= 2)) || { usage; exit 2; }; kube=(--kubeconfig "$2"); shift 2 ;;
    --kubeconfig=*) kube=(--kubeconfig "${1#*=}"); shift ;;
    -n | --namespace) (($# >= 2)) || { usage; exit 2; }; scope=(--namespace "$2"); shift 2 ;;
    --namespace=*) scope=(--namespace "${1#*=}"); shift ;;
    -A | --all-namespaces) scope=(--all-namespaces); shift ;;
    -h | --help) usage; exit 0 ;;
    *) log "label-mirror: unknown argument '$1'"; usage; exit 2 ;;
  esac
done

if ! context="$("$kubectl" "${kube[@]}" config current-context 2>&1)"; then
  log "label-mirror: no usable kubeconfig ($context): set KUBECONFIG or pass --kubeconfig FILE"
  exit 2
fi

child=''   # the background process running now (kubectl get, or a pause), stopped with us
stop() {
  log "$1: stopping"
  if [[ -n "$child" ]]; then kill "$child" 2>/dev/null || true; fi
  exit 0
}
trap 'stop SIGTERM' TERM
trap 'stop SIGINT' INT

# Labels one ConfigMap as its annotation asks; non-zero when the label could not be written.
mirror() {
  local ns="$1" name="$2" rv="$3" have="$4" quoted="$5"
  [[ -n "$quoted" ]] || return 0
  if [[ ! "$quoted" =~ $quoted_label_value ]]; then
    log "skipped configmap $ns/$name: $annotation=$quoted is not a valid label value"
    return 0
  fi
  local want="${quoted:1:${#quoted}-2}"
  if [[ "$have" == "$want" ]]; then
    log "in step: configmap $ns/$name has mirrored=$want (resourceVersion $rv)"
    return 0
  fi
  local out
  if out="$("$kubectl" "${kube[@]}" label --overwrite --resource-version "$rv" --namespace "$ns" configmap "$name" "mirrored=$want" 2>&1)"; then
    log "labelled configmap $ns/$name mirrored=$want"
  elif [[ "$out" == *"the object has been modified"* || "$out" == *NotFound* ]]; then
    log "skipped configmap $ns/$name: it changed since resourceVersion $rv (its next event decides)"
  else
    log "could not label configmap $ns/$name: ${out//$'\n'/ }"
    return 1
  fi
}

pause=0
while true; do
  log "listing and watching configmaps (context $context)"
  exec {events}< <(exec "$kubectl" "${kube[@]}" get configmaps "${scope[@]}" --watch --output-watch-events -o "go-template=$template")
  child=$!
  failed=0
  while IFS='|' read -r -u "$events" type ns name rv have quoted; do
    case "$type" in
      ADDED | MODIFIED) mirror "$ns" "$name" "$rv" "$have" "$quoted" || { failed=1; break; } ;;
      DELETED) ;;
      *) log "skipped an unreadable line from kubectl: $type" ;;
    esac
  done
  exec {events}<&-
  kill "$child" 2>/dev/null || true
  code=0
  wait "$child" || code=$?
  child=''
  if ((failed == 0 && code == 0)); then
    pause=0
    log "watch ended: listing again"
    continue
  fi
  ((failed)) || log "kubectl get exited with code $code"
  pause=$((pause ? (pause * 2 > 30 ? 30 : pause * 2) : 1))
  log "listing again in ${pause}s"
  sleep "$pause" &
  child=$!
  wait "$child" || true
  child=''
done
