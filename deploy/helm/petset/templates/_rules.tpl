{{/*
The controller's permissions: the rules of deploy/rbac.yaml's ClusterRole (the test compares
them). "petset.rules" is what it needs in the namespaces it manages; "petset.crdRules" the
cluster-scoped read of its own two CRDs (the start-up check of src/controller/crd-compat.ts).
*/}}
{{- define "petset.rules" -}}
- apiGroups: ["petset.dev"]
  resources: ["petsets"]
  verbs: ["get", "list", "watch", "update", "patch"]
- apiGroups: ["petset.dev"]
  resources: ["petsets/status"]
  verbs: ["get", "update", "patch"]
- apiGroups: ["petset.dev"]
  resources: ["petsets/scale"]
  verbs: ["get", "update", "patch"]
- apiGroups: ["petset.dev"]
  resources: ["petsets/finalizers"]
  verbs: ["update"]
- apiGroups: ["petset.dev"]
  resources: ["petsetversions"]
  verbs: ["get", "list", "watch", "create", "delete", "update", "patch"]
- apiGroups: ["petset.dev"]
  resources: ["petsetversions/status"]
  verbs: ["get", "update", "patch"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "create", "delete", "update", "patch"]
# In-place resize (podUpdatePolicy InPlaceIfPossible/InPlaceOnly): cpu/memory through pods/resize.
- apiGroups: [""]
  resources: ["pods/resize"]
  verbs: ["patch"]
- apiGroups: [""]
  resources: ["pods/exec"]
  verbs: ["create", "get"]
- apiGroups: ["batch"]
  resources: ["jobs"]
  verbs: ["get", "list", "watch", "create", "delete"]
- apiGroups: [""]
  resources: ["persistentvolumeclaims"]
  verbs: ["get", "list", "watch", "create", "delete", "update", "patch"]
# Claims follow versions (docs/volumes.md): growth is refused, not sent, when the claim's
# StorageClass has allowVolumeExpansion false.
- apiGroups: ["storage.k8s.io"]
  resources: ["storageclasses"]
  verbs: ["get", "list", "watch"]
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch", "update"]
- apiGroups: ["events.k8s.io"]
  resources: ["events"]
  verbs: ["create", "patch", "update"]
- apiGroups: ["coordination.k8s.io"]
  resources: ["leases"]
  verbs: ["get", "list", "watch", "create", "update", "patch"]
{{- end -}}

{{- define "petset.nodeRules" -}}
- apiGroups: [""]
  resources: ["nodes"]
  verbs: ["get", "list", "watch", "patch"]
- apiGroups: ["storage.k8s.io"]
  resources: ["volumeattachments"]
  verbs: ["get", "list", "delete"]
{{- end -}}

{{- define "petset.crdRules" -}}
- apiGroups: ["apiextensions.k8s.io"]
  resources: ["customresourcedefinitions"]
  resourceNames: ["petsets.petset.dev", "petsetversions.petset.dev"]
  verbs: ["get"]
{{- end -}}
