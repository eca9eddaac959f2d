// Names kwatch writes into the kubeconfigs it makes, so that a later run can tell its own files from a user's. In this
// neutral room because both sides read them: the endpoint writes its marker, and `kwatch sim --wait` recognises an
// endpoint's kubeconfig (a mirror of a sim) without importing the endpoint's code.

/** The marker a kubeconfig kwatch's endpoint wrote carries (in `preferences`), so it can be told from a user's own. */
export const ENDPOINT_KUBECONFIG_MARKER = 'kwatch-endpoint';
