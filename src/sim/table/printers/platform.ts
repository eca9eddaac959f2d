// kube 1.32's printers (pkg/printers/internalversion) for the kinds in kinds/platform-kinds.ts: HPAs (on the stored
// autoscaling/v2 shape, whichever version was asked for), NetworkPolicies, PriorityClasses, webhook configurations,
// ValidatingAdmissionPolicies and their bindings, CSRs, FlowSchemas, PriorityLevelConfigurations, RuntimeClasses and
// APIServices.
import { humanDuration, translateTimestampSince } from '../age.js';
import { AGE_COLUMN, column, NAME_COLUMN } from '../columns.js';
import { formatLabelSelector } from '../labels.js';
import { int, list, printer, str, type PrintableObject } from '../printer.js';

const age = (o: PrintableObject, now: number): string => translateTimestampSince(o.metadata?.creationTimestamp, now);

/** A quantity or number as kube's Quantity.String() prints it (the stored form is already canonical enough). */
const quantity = (v: unknown): string => (v === undefined || v === null ? '<unknown>' : String(v));

/** printers.go formatHPAMetrics: "<name>: current/target" per metric, the first two, then " + N more...". */
function hpaTargets(hpa: PrintableObject): string {
  const specs = list(hpa.spec?.metrics);
  if (specs.length === 0) return '<none>';
  const statuses = list(hpa.status?.currentMetrics);
  const cells: string[] = [];
  specs.forEach((m, i) => {
    const cur = statuses[i];
    switch (m?.type) {
      case 'External': case 'Pods': case 'Object': {
        const key = m.type === 'External' ? 'external' : m.type === 'Pods' ? 'pods' : 'object';
        const target = m[key]?.target ?? {};
        const now = cur?.[key]?.current;
        if (target.averageValue !== undefined) {
          cells.push(`${quantity(now?.averageValue)}/${quantity(target.averageValue)} (avg)`);
        } else {
          cells.push(`${quantity(now?.value)}/${quantity(target.value)}`);
        }
        break;
      }
      case 'Resource': case 'ContainerResource': {
        const key = m.type === 'Resource' ? 'resource' : 'containerResource';
        const source = m[key] ?? {};
        const now = cur?.[key]?.current;
        const prefix = m.type === 'Resource' ? `${str(source.name)}: ` : `${str(source.name)} (${str(source.container)}): `;
        if (source.target?.averageValue !== undefined) cells.push(`${prefix}${quantity(now?.averageValue)}/${quantity(source.target.averageValue)}`);
        else {
          const current = now?.averageUtilization !== undefined ? `${String(now.averageUtilization)}%` : '<unknown>';
          const target = source.target?.averageUtilization !== undefined ? `${String(source.target.averageUtilization)}%` : '<auto>';
          cells.push(`${prefix}${current}/${target}`);
        }
        break;
      }
      default: cells.push('<unknown type>');
    }
  });
  return cells.length > 2 ? `${cells.slice(0, 2).join(', ')} + ${cells.length - 2} more...` : cells.join(', ');
}

export const horizontalPodAutoscalerPrinter = printer(
  [
    NAME_COLUMN,
    column('Reference', 'string', 'Reference to the resource being scaled'),
    column('Targets', 'string', 'Targets of the metrics this autoscaler uses'),
    column('MinPods', 'string', 'Lower limit for the number of pods that can be set by the autoscaler, default 1.'),
    column('MaxPods', 'integer', 'Upper limit for the number of pods that can be set by the autoscaler; cannot be smaller than MinReplicas.'),
    column('Replicas', 'integer', 'Current number of replicas of pods managed by this autoscaler.'),
    AGE_COLUMN,
  ],
  (h, now) => {
    const ref = h.spec?.scaleTargetRef ?? {};
    return [
      str(h.metadata?.name), `${str(ref.kind)}/${str(ref.name)}`, hpaTargets(h),
      h.spec?.minReplicas === undefined ? '<unset>' : String(h.spec.minReplicas), int(h.spec?.maxReplicas), int(h.status?.currentReplicas), age(h, now),
    ];
  },
);

export const networkPolicyPrinter = printer(
  [NAME_COLUMN, column('Pod-Selector', 'string', 'Selects the pods to which this NetworkPolicy object applies. The array of ingress rules is applied to any pods selected by this field. An empty podSelector matches all pods in this namespace.'), AGE_COLUMN],
  (p, now) => [str(p.metadata?.name), formatLabelSelector(p.spec?.podSelector), age(p, now)],
);

export const priorityClassPrinter = printer(
  [
    NAME_COLUMN,
    column('Value', 'integer', 'The value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.'),
    column('Global-Default', 'boolean', 'globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority.'),
    AGE_COLUMN,
    column('PreemptionPolicy', 'string', 'preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.'),
  ],
  (p, now) => [str(p.metadata?.name), int(p.value), p.globalDefault === true, age(p, now), str(p.preemptionPolicy)],
);

export const webhookConfigurationPrinter = printer(
  [NAME_COLUMN, column('Webhooks', 'integer', 'Webhooks is a list of webhooks and the affected resources and operations.'), AGE_COLUMN],
  (w, now) => [str(w.metadata?.name), list(w.webhooks).length, age(w, now)],
);

export const validatingAdmissionPolicyPrinter = printer(
  [
    NAME_COLUMN,
    column('Validations', 'integer', 'Validations contain CEL expressions which is used to apply the validation.'),
    column('ParamKind', 'string', 'ParamKind specifies the kind of resources used to parameterize this policy'),
    AGE_COLUMN,
  ],
  (p, now) => {
    const kind = p.spec?.paramKind;
    return [str(p.metadata?.name), list(p.spec?.validations).length, kind ? `${str(kind.apiVersion)}/${str(kind.kind)}` : '<unset>', age(p, now)];
  },
);

export const validatingAdmissionPolicyBindingPrinter = printer(
  [
    NAME_COLUMN,
    column('PolicyName', 'string', 'PolicyName references a ValidatingAdmissionPolicy name which the ValidatingAdmissionPolicyBinding binds to.'),
    column('ParamRef', 'string', 'paramRef specifies the parameter resource used to configure the admission control policy.'),
    AGE_COLUMN,
  ],
  (b, now) => {
    const ref = b.spec?.paramRef;
    let param = '<unset>';
    if (ref?.name) param = ref.namespace ? `${str(ref.namespace)}/${str(ref.name)}` : `*/${str(ref.name)}`;
    else if (ref?.selector) param = formatLabelSelector(ref.selector);
    return [str(b.metadata?.name), str(b.spec?.policyName), param, age(b, now)];
  },
);

/** printers.go extractCSRStatus: the decisions (Approved/Denied/Failed) joined, ",Issued" once signed, else Pending. */
function csrCondition(csr: PrintableObject): string {
  const states: string[] = [];
  for (const c of list(csr.status?.conditions)) {
    if (['Approved', 'Denied', 'Failed'].includes(str(c?.type)) && str(c?.status) !== 'False' && !states.includes(str(c.type))) states.push(str(c.type));
  }
  if (states.length === 0) states.push('Pending');
  if (csr.status?.certificate) states.push('Issued');
  return states.join(',');
}

export const certificateSigningRequestPrinter = printer(
  [
    NAME_COLUMN,
    AGE_COLUMN,
    column('SignerName', 'string', 'Only one signer for now. Future signers may be defined as well.'),
    column('Requestor', 'string', 'Name of the user that created the CSR'),
    column('RequestedDuration', 'string', 'Requested duration of the certificate'),
    column('Condition', 'string', 'Current state of the CSR'),
  ],
  (c, now) => [
    str(c.metadata?.name), age(c, now), str(c.spec?.signerName) || '<none>', str(c.spec?.username),
    typeof c.spec?.expirationSeconds === 'number' ? humanDuration(c.spec.expirationSeconds * 1000) : '<none>', csrCondition(c),
  ],
);

export const flowSchemaPrinter = printer(
  [
    NAME_COLUMN,
    column('PriorityLevel', 'string', 'priorityLevelConfiguration should reference a PriorityLevelConfiguration in the cluster'),
    column('MatchingPrecedence', 'string', 'matchingPrecedence is used to choose among the FlowSchemas that match a given request'),
    column('DistinguisherMethod', 'string', 'distinguisherMethod defines how to compute the flow distinguisher for requests that match this schema'),
    AGE_COLUMN,
    column('MissingPL', 'string', 'references a broken or non-existent PriorityLevelConfiguration'),
  ],
  (f, now) => {
    const dangling = list(f.status?.conditions).find((c) => c?.type === 'Dangling');
    return [
      str(f.metadata?.name), str(f.spec?.priorityLevelConfiguration?.name), String(int(f.spec?.matchingPrecedence)),
      f.spec?.distinguisherMethod ? str(f.spec.distinguisherMethod.type) : '*', age(f, now), dangling ? str(dangling.status) : '?',
    ];
  },
);

export const priorityLevelConfigurationPrinter = printer(
  [
    NAME_COLUMN,
    column('Type', 'string', 'type indicates whether this priority level is subject to limitation on request execution'),
    column('NominalConcurrencyShares', 'string', 'nominalConcurrencyShares (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level'),
    column('Queues', 'string', 'queues is the number of queues for this priority level'),
    column('HandSize', 'string', 'handSize is a small positive number that configures the shuffle sharding of requests into queues'),
    column('QueueLengthLimit', 'string', 'queueLengthLimit is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time'),
    AGE_COLUMN,
  ],
  (p, now) => {
    const limited = p.spec?.limited;
    const queuing = limited?.limitResponse?.queuing;
    const shares = limited ? String(int(limited.nominalConcurrencyShares)) : '<none>';
    const q = (v: unknown) => (queuing ? String(int(v)) : '<none>');
    return [str(p.metadata?.name), str(p.spec?.type), shares, q(queuing?.queues), q(queuing?.handSize), q(queuing?.queueLengthLimit), age(p, now)];
  },
);

export const runtimeClassPrinter = printer(
  [NAME_COLUMN, column('Handler', 'string', 'handler specifies the underlying runtime and configuration that the CRI implementation will use to handle pods of this class.'), AGE_COLUMN],
  (r, now) => [str(r.metadata?.name), str(r.handler), age(r, now)],
);

export const apiServicePrinter = printer(
  [
    NAME_COLUMN,
    column('Service', 'string', 'The reference to the service that hosts this API endpoint.'),
    column('Available', 'string', 'Whether this service is available.'),
    AGE_COLUMN,
  ],
  (a, now) => {
    const svc = a.spec?.service;
    const available = list(a.status?.conditions).find((c) => c?.type === 'Available');
    const cell = !available ? 'Unknown' : available.status === 'True' ? 'True' : `${str(available.status)} (${str(available.reason)})`;
    return [str(a.metadata?.name), svc ? `${str(svc.namespace)}/${str(svc.name)}` : 'Local', cell, age(a, now)];
  },
);

/** These printers by `group/resource`. */
export const PLATFORM_PRINTERS = {
  'autoscaling/horizontalpodautoscalers': horizontalPodAutoscalerPrinter,
  'networking.k8s.io/networkpolicies': networkPolicyPrinter,
  'scheduling.k8s.io/priorityclasses': priorityClassPrinter,
  'admissionregistration.k8s.io/mutatingwebhookconfigurations': webhookConfigurationPrinter,
  'admissionregistration.k8s.io/validatingwebhookconfigurations': webhookConfigurationPrinter,
  'admissionregistration.k8s.io/validatingadmissionpolicies': validatingAdmissionPolicyPrinter,
  'admissionregistration.k8s.io/validatingadmissionpolicybindings': validatingAdmissionPolicyBindingPrinter,
  'certificates.k8s.io/certificatesigningrequests': certificateSigningRequestPrinter,
  'flowcontrol.apiserver.k8s.io/flowschemas': flowSchemaPrinter,
  'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations': priorityLevelConfigurationPrinter,
  'node.k8s.io/runtimeclasses': runtimeClassPrinter,
  'apiregistration.k8s.io/apiservices': apiServicePrinter,
};
