{{/*
helm create's rule, both ways: a release named after the chart (gsp-tunnel-agent-eu) is the name
alone, and so is the chart's name when the release name is its first words (release gsp of
gsp-tunnel-agent), instead of gsp-gsp-tunnel-agent.
Names the Deployment and the ServiceAccount, so a 63-character DNS label.
*/}}
{{- define "gsp-tunnel-agent.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else if hasPrefix (printf "%s-" .Release.Name) .Chart.Name -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "gsp-tunnel-agent.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "gsp-tunnel-agent.labels" -}}
{{ include "gsp-tunnel-agent.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "gsp-tunnel-agent.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "gsp-tunnel-agent.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* What no extraEnv may set, with the value to set instead. */}}
{{- define "gsp-tunnel-agent.reservedEnv" -}}
AGENT_TOKEN: "agentToken.existingSecret (credentials stay in Secrets)"
{{- end -}}

{{/*
Fails when extraEnv repeats a variable the chart sets, or itself (server-side apply refuses duplicate names), or names
one the chart keeps to itself even when it does not set it. Called with (list <chart env> <extraEnv>) or with a third
element, a dict of those reserved names to the value to set instead. The same in every chart: a parent chart would
share one definition.
*/}}
{{- define "gsp.noDuplicateEnv" -}}
{{- $reserved := dict -}}
{{- if gt (len .) 2 }}{{ $reserved = index . 2 }}{{ end -}}
{{- $names := dict -}}
{{- range (index . 0) }}{{ $_ := set $names .name "chart" }}{{ end -}}
{{- range (index . 1) -}}
{{- if hasKey $reserved .name -}}
{{- fail (printf "extraEnv: %s may not be set here; set %s instead" .name (get $reserved .name)) -}}
{{- end -}}
{{- if hasKey $names .name -}}
{{- fail (printf "extraEnv: %s is already set%s; set it through its own value instead" .name (ternary " by the chart" " twice" (eq (get $names .name) "chart"))) -}}
{{- end -}}
{{- $_ := set $names .name "extra" -}}
{{- end -}}
{{- end -}}
