{{/*
Names and labels shared by every template. The names: the release name when it contains
"petset" (release `petset-controller` names everything as the kustomize base does), else
<release>-petset; fullnameOverride wins.
*/}}
{{- define "petset.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* The pods' labels, also the selector of the Deployment, PDB, Service and ServiceMonitor. */}}
{{- define "petset.selectorLabels" -}}
app.kubernetes.io/name: petset
app.kubernetes.io/component: controller
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "petset.labels" -}}
{{ include "petset.selectorLabels" . }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "petset.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "petset.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The namespace whose PetSets a namespace-scoped controller manages. */}}
{{- define "petset.watchNamespace" -}}
{{- default .Release.Namespace .Values.watchNamespace -}}
{{- end -}}

{{/* Refuses values that cannot work together. */}}
{{- define "petset.validate" -}}
{{- if not (has .Values.rbac.scope (list "cluster" "namespace")) -}}
{{- fail (printf "rbac.scope: %q is not cluster or namespace" .Values.rbac.scope) -}}
{{- end -}}
{{- if and (not .Values.leaderElection.enabled) (gt (int .Values.replicas) 1) -}}
{{- fail "replicas > 1 needs leaderElection.enabled: without a Lease every replica would write" -}}
{{- end -}}
{{- if lt (int .Values.workers) 1 -}}
{{- fail "workers must be at least 1" -}}
{{- end -}}
{{- end -}}
