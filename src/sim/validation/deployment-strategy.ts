// ValidateDeploymentStrategy, the checks a user meets: Recreate takes no rollingUpdate (kept from an earlier
// RollingUpdate by a patch), and maxSurge and maxUnavailable may not both be 0 (the rollout could never move).
import type { FieldError } from '../status.js';

type Json = Record<string, unknown>;

/** getIntOrPercentValue: the number of an int or of a "N%" string (anything else counts as non-zero). */
function intOrPercent(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^\d+%$/.test(v)) return Number(v.slice(0, -1));
  return NaN;
}

/** %#v of an intstr.IntOrString. */
function goIntOrString(v: unknown): string {
  return typeof v === 'number' ? `intstr.IntOrString{Type:0, IntVal:${v}, StrVal:""}` : `intstr.IntOrString{Type:1, IntVal:0, StrVal:${JSON.stringify(String(v))}}`;
}

export function validateDeploymentStrategy(deployment: Json): FieldError[] {
  const strategy = ((deployment.spec ?? {}) as Json).strategy as Json | undefined;
  if (!strategy) return [];
  if (strategy.type === 'Recreate') {
    return strategy.rollingUpdate === undefined || strategy.rollingUpdate === null ? [] : [{ field: 'spec.strategy.rollingUpdate', type: 'Forbidden', detail: "may not be specified when strategy `type` is 'Recreate'" }];
  }
  if (strategy.type !== 'RollingUpdate') {
    return [{ field: 'spec.strategy', type: 'Unsupported value', value: strategy, detail: 'supported values: "Recreate", "RollingUpdate"' }];
  }
  const rolling = (strategy.rollingUpdate ?? {}) as Json;
  if (intOrPercent(rolling.maxUnavailable) === 0 && intOrPercent(rolling.maxSurge) === 0) {
    return [{ field: 'spec.strategy.rollingUpdate.maxUnavailable', type: 'Invalid value', goValue: goIntOrString(rolling.maxUnavailable), detail: 'may not be 0 when `maxSurge` is 0' }];
  }
  return [];
}
