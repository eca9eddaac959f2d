// Protobuf schemas of the messages kubectl's typed commands send for the review kinds and TokenRequest (`kubectl auth
// can-i`, `auth can-i --list`, `auth whoami`, `create token`): authorization.k8s.io/v1 and authentication.k8s.io/v1.
// Field numbers and types are those of k8s.io/api v0.32's generated.proto files. Format: schema.ts.
import type { ProtoPackage } from './schema.js';

export const AUTH_MESSAGES: ProtoPackage[] = [
  {
    package: 'k8s.io.api.authorization.v1',
    messages: {
      SelfSubjectAccessReview: `
        1 metadata ObjectMeta
        2 spec SelfSubjectAccessReviewSpec
        3 status SubjectAccessReviewStatus`,
      SelfSubjectAccessReviewSpec: `
        1 resourceAttributes ResourceAttributes
        2 nonResourceAttributes NonResourceAttributes`,
      SubjectAccessReview: `
        1 metadata ObjectMeta
        2 spec SubjectAccessReviewSpec
        3 status SubjectAccessReviewStatus`,
      LocalSubjectAccessReview: `
        1 metadata ObjectMeta
        2 spec SubjectAccessReviewSpec
        3 status SubjectAccessReviewStatus`,
      SubjectAccessReviewSpec: `
        1 resourceAttributes ResourceAttributes
        2 nonResourceAttributes NonResourceAttributes
        3 user string
        4 groups string[]
        5 extra map<ExtraValue>
        6 uid string`,
      ResourceAttributes: `
        1 namespace string
        2 verb string
        3 group string
        4 version string
        5 resource string
        6 subresource string
        7 name string
        8 fieldSelector FieldSelectorAttributes
        9 labelSelector LabelSelectorAttributes`,
      FieldSelectorAttributes: `
        1 rawSelector string
        2 requirements FieldSelectorRequirement[]`,
      FieldSelectorRequirement: `
        1 key string req
        2 operator string req
        3 values string[]`,
      LabelSelectorAttributes: `
        1 rawSelector string
        2 requirements LabelSelectorRequirement[]`,
      NonResourceAttributes: `
        1 path string
        2 verb string`,
      SubjectAccessReviewStatus: `
        1 allowed bool req
        2 reason string
        3 evaluationError string
        4 denied bool`,
      ExtraValue: `
        1 items string[]`,
      SelfSubjectRulesReview: `
        1 metadata ObjectMeta
        2 spec SelfSubjectRulesReviewSpec
        3 status SubjectRulesReviewStatus`,
      SelfSubjectRulesReviewSpec: `
        1 namespace string`,
      SubjectRulesReviewStatus: `
        1 resourceRules ResourceRule[]
        2 nonResourceRules NonResourceRule[]
        3 incomplete bool req
        4 evaluationError string`,
      ResourceRule: `
        1 verbs string[]
        2 apiGroups string[]
        3 resources string[]
        4 resourceNames string[]`,
      NonResourceRule: `
        1 verbs string[]
        2 nonResourceURLs string[]`,
    },
  },
  {
    package: 'k8s.io.api.authentication.v1',
    messages: {
      SelfSubjectReview: `
        1 metadata ObjectMeta
        2 status SelfSubjectReviewStatus`,
      SelfSubjectReviewStatus: `
        1 userInfo UserInfo`,
      UserInfo: `
        1 username string
        2 uid string
        3 groups string[]
        4 extra map<ExtraValue>`,
      TokenReview: `
        1 metadata ObjectMeta
        2 spec TokenReviewSpec
        3 status TokenReviewStatus`,
      TokenReviewSpec: `
        1 token string
        2 audiences string[]`,
      TokenReviewStatus: `
        1 authenticated bool
        2 user UserInfo
        3 error string
        4 audiences string[]`,
      TokenRequest: `
        1 metadata ObjectMeta
        2 spec TokenRequestSpec
        3 status TokenRequestStatus`,
      TokenRequestSpec: `
        1 audiences string[]
        4 expirationSeconds int64 ptr
        3 boundObjectRef BoundObjectReference`,
      BoundObjectReference: `
        1 kind string
        2 apiVersion string
        3 name string
        4 uid string`,
      TokenRequestStatus: `
        1 token string req
        2 expirationTimestamp Time`,
    },
  },
];

/** The top-level kinds these schemas decode, by `apiVersion/kind` (schema.ts's OBJECT_KINDS format). */
export const AUTH_OBJECT_KINDS: Record<string, string> = {
  'authorization.k8s.io/v1/SelfSubjectAccessReview': 'SelfSubjectAccessReview',
  'authorization.k8s.io/v1/SubjectAccessReview': 'SubjectAccessReview',
  'authorization.k8s.io/v1/LocalSubjectAccessReview': 'LocalSubjectAccessReview',
  'authorization.k8s.io/v1/SelfSubjectRulesReview': 'SelfSubjectRulesReview',
  'authentication.k8s.io/v1/SelfSubjectReview': 'SelfSubjectReview',
  'authentication.k8s.io/v1/TokenReview': 'TokenReview',
  'authentication.k8s.io/v1/TokenRequest': 'TokenRequest',
};
