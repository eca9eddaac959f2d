// The create-only review kinds of authentication.k8s.io/v1 and authorization.k8s.io/v1, with kube-apiserver 1.32's
// discovery values: nothing is stored, each POST is answered (src/sim/auth/review-handlers.ts).
import type { ResourceType } from '../registry.js';

const review = (group: string, resource: string, kind: string, namespaced = false): ResourceType => ({
  group, version: 'v1', resource, singular: kind.toLowerCase(), kind, listKind: `${kind}List`, namespaced, verbs: ['create'], subresources: [], hasStatusSubresource: false,
});

export function authResourceTypes(): ResourceType[] {
  return [
    review('authentication.k8s.io', 'selfsubjectreviews', 'SelfSubjectReview'),
    review('authentication.k8s.io', 'tokenreviews', 'TokenReview'),
    review('authorization.k8s.io', 'localsubjectaccessreviews', 'LocalSubjectAccessReview', true),
    review('authorization.k8s.io', 'selfsubjectaccessreviews', 'SelfSubjectAccessReview'),
    review('authorization.k8s.io', 'selfsubjectrulesreviews', 'SelfSubjectRulesReview'),
    review('authorization.k8s.io', 'subjectaccessreviews', 'SubjectAccessReview'),
  ];
}

/** Whether a type is one of these reviews (answered, never stored). */
export function isReviewType(t: { group: string }): boolean {
  return t.group === 'authentication.k8s.io' || t.group === 'authorization.k8s.io';
}
