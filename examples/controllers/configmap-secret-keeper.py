#!/usr/bin/python3
"""configmap-secret-keeper: keeps an owned Secret in step with each labelled ConfigMap.

For every ConfigMap matching --selector (default kwatch.dev/keep-secret=true) in one namespace, the
Secret <name>-secret holds the ConfigMap's data (base64, as Secrets store it) and a controller
ownerReference to the ConfigMap, so the garbage collector deletes it with its owner. The Secret is
created when missing, updated when its data differs and left alone when equal, so the controller
converges. A Secret of that name that the ConfigMap does not control is never taken over.

It is written as a client-go reflector would be: LIST, then WATCH from the list's resourceVersion,
following every event's (and bookmark's) resourceVersion; a closed or broken watch resumes from the
last one seen; 410 Gone means that version was compacted away, so it lists again. API errors back
off and relist. SIGTERM or SIGINT stops it with exit code 0. One line per action goes to stderr
(never Secret data).

Needs the Kubernetes Python client (Debian: python3-kubernetes). Run it against `kwatch sim`:
    /usr/bin/python3 examples/controllers/configmap-secret-keeper.py --kubeconfig FILE [-n NS]
KUBECONFIG is used when --kubeconfig is not given; the namespace defaults to the context's.
"""
import argparse
import base64
import signal
import sys
import time

import urllib3
from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

WATCH_SECONDS = 300  # the server ends each watch after this; it is then resumed from the last version seen


def log(message):
    print(message, file=sys.stderr, flush=True)


class ReconcileError(Exception):
    """A write or read for one ConfigMap failed: back off, then relist (which reconciles everything)."""


def wanted_data(cm):
    data = {k: base64.b64encode(v.encode()).decode() for k, v in (cm.data or {}).items()}
    data.update(cm.binary_data or {})  # already base64
    return data


def controlled_by(secret, cm):
    return any(ref.controller and ref.uid == cm.metadata.uid for ref in secret.metadata.owner_references or [])


def reconcile(v1, cm):
    """Brings the ConfigMap's Secret in step and logs what it did; a 409 (a write in between) reads again."""
    for _ in range(3):
        done = reconcile_once(v1, cm)
        if done:
            log(done)
            return
    raise ReconcileError(f"secret {cm.metadata.namespace}/{cm.metadata.name}-secret: 3 conflicts in a row")


def reconcile_once(v1, cm):
    """One read and at most one write; returns the log line, or None after a conflict."""
    ns, name = cm.metadata.namespace, f"{cm.metadata.name}-secret"
    want = wanted_data(cm)
    try:
        secret = v1.read_namespaced_secret(name, ns)
    except ApiException as e:
        if e.status != 404:
            raise ReconcileError(f"reading secret {ns}/{name}: {e.status} {e.reason}") from e
        owner = client.V1OwnerReference(api_version="v1", kind="ConfigMap", name=cm.metadata.name,
                                        uid=cm.metadata.uid, controller=True, block_owner_deletion=True)
        body = client.V1Secret(metadata=client.V1ObjectMeta(name=name, namespace=ns, owner_references=[owner]),
                               type="Opaque", data=want)
        if write(lambda: v1.create_namespaced_secret(ns, body), f"creating secret {ns}/{name}"):
            return f"created secret {ns}/{name} ({len(want)} keys) for configmap {ns}/{cm.metadata.name}"
        return None
    if not controlled_by(secret, cm):
        return f"skipped secret {ns}/{name}: it exists and configmap {ns}/{cm.metadata.name} does not control it"
    have = secret.data or {}
    if have == want:
        return f"in step: secret {ns}/{name} (configmap resourceVersion {cm.metadata.resource_version})"
    changed = sorted(k for k in have.keys() | want.keys() if have.get(k) != want.get(k))
    secret.data = want
    if write(lambda: v1.replace_namespaced_secret(name, ns, secret), f"updating secret {ns}/{name}"):
        return f"updated secret {ns}/{name}: keys {', '.join(changed)}"
    return None


def write(call, what):
    """True when the write succeeded, False on a conflict (409) worth retrying after a fresh read."""
    try:
        call()
        return True
    except ApiException as e:
        if e.status == 409:
            log(f"conflict {what}: reading it again")
            return False
        raise ReconcileError(f"{what}: {e.status} {e.reason}") from e


class Keeper:
    def __init__(self, v1, namespace, selector):
        self.v1, self.namespace, self.selector = v1, namespace, selector
        self.rv = None  # newest resourceVersion seen; None = list first

    def list_and_reconcile(self):
        cms = self.v1.list_namespaced_config_map(self.namespace, label_selector=self.selector)
        self.rv = cms.metadata.resource_version
        log(f"listed {len(cms.items)} configmaps ({self.selector}) in {self.namespace} at resourceVersion {self.rv}")
        for cm in cms.items:
            reconcile(self.v1, cm)

    def watch(self):
        """Follows one watch until the server ends it; self.rv is kept current for the resume."""
        stream = watch.Watch().stream(self.v1.list_namespaced_config_map, self.namespace, label_selector=self.selector,
                                      resource_version=self.rv, allow_watch_bookmarks=True, timeout_seconds=WATCH_SECONDS,
                                      _request_timeout=(10, WATCH_SECONDS + 30))
        for event in stream:
            self.rv = event["raw_object"]["metadata"]["resourceVersion"]
            if event["type"] in ("ADDED", "MODIFIED"):
                reconcile(self.v1, event["object"])
            elif event["type"] == "DELETED":
                log(f"configmap {self.namespace}/{event['object'].metadata.name} deleted: its secret goes with it (ownerReference)")

    def run(self):
        delay = 0
        while True:
            try:
                if self.rv is None:
                    self.list_and_reconcile()
                self.watch()
                log(f"watch ended: resuming from resourceVersion {self.rv}")
                delay = 0
                continue
            except ApiException as e:
                if e.status == 410:
                    log(f"watch expired at resourceVersion {self.rv} (410 Gone): listing again")
                    self.rv = None
                    continue
                if e.status in (400, 401, 404):
                    sys.exit(f"error: {e.status} {e.reason} (check --selector, --namespace and the credentials)")
                log(f"API error {e.status} {e.reason}: listing again after a pause")
                self.rv = None
            except ReconcileError as e:
                log(f"{e}: listing again after a pause")
                self.rv = None
            except (urllib3.exceptions.HTTPError, OSError) as e:
                where = f"from resourceVersion {self.rv}" if self.rv else "with a fresh list"
                log(f"connection lost ({type(e).__name__}): resuming {where} after a pause")
            delay = min(max(delay * 2, 0.5), 30)
            time.sleep(delay)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kubeconfig", help="kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
    parser.add_argument("--context", help="kubeconfig context (default: its current context)")
    parser.add_argument("-n", "--namespace", help="namespace to watch (default: the context's)")
    parser.add_argument("--selector", default="kwatch.dev/keep-secret=true", help="label selector of the ConfigMaps")
    args = parser.parse_args()

    def stop(signum, _frame):
        log(f"{signal.Signals(signum).name}: stopping")
        sys.exit(0)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    try:
        config.load_kube_config(config_file=args.kubeconfig, context=args.context)
        contexts, current = config.list_kube_config_contexts(config_file=args.kubeconfig)
    except (config.ConfigException, OSError) as e:
        sys.exit(f"error: cannot load the kubeconfig: {e} (set KUBECONFIG or pass --kubeconfig)")
    context = next((c for c in contexts if c["name"] == args.context), current)
    namespace = args.namespace or context["context"].get("namespace") or "default"
    Keeper(client.CoreV1Api(), namespace, args.selector).run()


if __name__ == "__main__":
    main()
