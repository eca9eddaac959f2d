// One HorizontalPodAutoscaler, two shapes: autoscaling/v2 (what the sim stores, kube 1.32's storage version) and
// autoscaling/v1. kube converts through its internal type (pkg/apis/autoscaling/v1 conversion): v1's
// targetCPUUtilizationPercentage is v2's Resource metric "cpu" with a Utilization target, and its
// currentCPUUtilizationPercentage the matching current metric; what v1 has no field for (other metrics, behavior,
// conditions) rides in autoscaling.alpha.kubernetes.io/* annotations, so a v1 client's read-modify-write keeps it.
// (kube writes the annotated metrics in autoscaling/v2beta1's shape; the sim keeps them in v2's.)
import type { SimObject } from '../api.js';

type Json = Record<string, unknown>;

export const HPA_V1 = 'autoscaling/v1';
export const HPA_V2 = 'autoscaling/v2';
const ANNOTATION = {
  metrics: 'autoscaling.alpha.kubernetes.io/metrics',
  currentMetrics: 'autoscaling.alpha.kubernetes.io/current-metrics',
  conditions: 'autoscaling.alpha.kubernetes.io/conditions',
  behavior: 'autoscaling.alpha.kubernetes.io/behavior',
};

const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const obj = (v: unknown): Json => (isObj(v) ? v : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function isCpuUtilization(m: unknown): boolean {
  const r = obj(obj(m).resource);
  return obj(m).type === 'Resource' && r.name === 'cpu' && obj(r.target).type === 'Utilization';
}

function isCpuCurrent(m: unknown): boolean {
  const r = obj(obj(m).resource);
  return obj(m).type === 'Resource' && r.name === 'cpu' && obj(r.current).averageUtilization !== undefined;
}

/** Annotations with the given JSON values set (undefined removes), or undefined when none remain. */
function withAnnotations(current: unknown, values: Record<string, unknown>): Record<string, string> | undefined {
  const out: Record<string, string> = { ...(obj(current) as Record<string, string>) };
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined) delete out[k]; else out[k] = JSON.stringify(v);
  }
  return Object.keys(out).length ? out : undefined;
}

function parseAnnotation(annotations: Json, key: string): unknown {
  const raw = annotations[key];
  if (typeof raw !== 'string') return undefined;
  try { return JSON.parse(raw) as unknown; } catch { return undefined; }
}

function metadataWith(meta: unknown, annotations: Record<string, string> | undefined): Json {
  const m: Json = { ...obj(meta) };
  if (annotations) m.annotations = annotations; else delete m.annotations;
  return m;
}

/** The autoscaling/v1 shape of a stored autoscaling/v2 HPA. */
export function hpaV2ToV1(v2: Json): Json {
  const spec = obj(v2.spec), status = obj(v2.status);
  const metrics = arr(spec.metrics);
  const cpu = metrics.find(isCpuUtilization);
  const others = metrics.filter((m) => m !== cpu);
  const currents = arr(status.currentMetrics);
  const cpuNow = currents.find(isCpuCurrent);
  const otherNow = currents.filter((m) => m !== cpuNow);
  const annotations = withAnnotations(obj(v2.metadata).annotations, {
    [ANNOTATION.metrics]: others.length ? others : undefined,
    [ANNOTATION.currentMetrics]: otherNow.length ? otherNow : undefined,
    [ANNOTATION.conditions]: arr(status.conditions).length ? status.conditions : undefined,
    [ANNOTATION.behavior]: spec.behavior,
  });
  const v1Spec: Json = { scaleTargetRef: spec.scaleTargetRef ?? { kind: '', name: '' } };
  if (spec.minReplicas !== undefined) v1Spec.minReplicas = spec.minReplicas;
  v1Spec.maxReplicas = spec.maxReplicas ?? 0;
  if (cpu) v1Spec.targetCPUUtilizationPercentage = obj(obj(obj(cpu).resource).target).averageUtilization;
  const v1Status: Json = {};
  if (status.observedGeneration !== undefined) v1Status.observedGeneration = status.observedGeneration;
  if (status.lastScaleTime !== undefined) v1Status.lastScaleTime = status.lastScaleTime;
  v1Status.currentReplicas = status.currentReplicas ?? 0;
  v1Status.desiredReplicas = status.desiredReplicas ?? 0;
  if (cpuNow) v1Status.currentCPUUtilizationPercentage = obj(obj(obj(cpuNow).resource).current).averageUtilization;
  return { kind: 'HorizontalPodAutoscaler', apiVersion: HPA_V1, metadata: metadataWith(v2.metadata, annotations), spec: v1Spec, status: v1Status };
}

/** The autoscaling/v2 shape of an autoscaling/v1 HPA (a request body): what the sim stores. */
export function hpaV1ToV2(v1: Json): Json {
  const spec = obj(v1.spec), status = obj(v1.status);
  const annotations = obj(obj(v1.metadata).annotations);
  const metrics: unknown[] = [];
  if (typeof spec.targetCPUUtilizationPercentage === 'number') {
    metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage } } });
  }
  metrics.push(...arr(parseAnnotation(annotations, ANNOTATION.metrics)));
  const currentMetrics: unknown[] = [];
  if (typeof status.currentCPUUtilizationPercentage === 'number') {
    currentMetrics.push({ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status.currentCPUUtilizationPercentage } } });
  }
  currentMetrics.push(...arr(parseAnnotation(annotations, ANNOTATION.currentMetrics)));
  const v2Spec: Json = {};
  if (spec.scaleTargetRef !== undefined) v2Spec.scaleTargetRef = spec.scaleTargetRef;
  if (spec.minReplicas !== undefined) v2Spec.minReplicas = spec.minReplicas;
  if (spec.maxReplicas !== undefined) v2Spec.maxReplicas = spec.maxReplicas;
  if (metrics.length) v2Spec.metrics = metrics;
  const behavior = parseAnnotation(annotations, ANNOTATION.behavior);
  if (isObj(behavior)) v2Spec.behavior = behavior;
  const v2Status: Json = {};
  for (const k of ['observedGeneration', 'lastScaleTime', 'currentReplicas', 'desiredReplicas']) if (status[k] !== undefined) v2Status[k] = status[k];
  if (currentMetrics.length) v2Status.currentMetrics = currentMetrics;
  const conditions = parseAnnotation(annotations, ANNOTATION.conditions);
  if (Array.isArray(conditions) && conditions.length) v2Status.conditions = conditions;
  const kept = withAnnotations(annotations, Object.fromEntries(Object.values(ANNOTATION).map((k) => [k, undefined])));
  const out: Json = { kind: 'HorizontalPodAutoscaler', apiVersion: HPA_V2, metadata: metadataWith(v1.metadata, kept), spec: v2Spec };
  if (v1.status !== undefined) out.status = v2Status;
  return out;
}

export const hpaV1Object = (o: SimObject): SimObject => hpaV2ToV1(o as unknown as Json) as unknown as SimObject;
export const hpaV2Object = (o: SimObject): SimObject => hpaV1ToV2(o as unknown as Json) as unknown as SimObject;
export const hpaV1Json = (storedJson: string): string => JSON.stringify(hpaV2ToV1(JSON.parse(storedJson) as Json));
